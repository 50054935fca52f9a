/*
 * distval's Java replica host: the MOA replicas of one learner host, driven one batch per call.
 *
 * Compiled by distval on first use against the moa.jar of the installed capymoa (see jvm.py);
 * no compiled class is shipped.
 */
package distval.moa;

import com.yahoo.labs.samoa.instances.DenseInstance;
import com.yahoo.labs.samoa.instances.Instance;
import com.yahoo.labs.samoa.instances.InstancesHeader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import moa.classifiers.Classifier;
import moa.core.Utils;
import moa.options.ClassOption;

public final class BatchHost {

    /** A replica failed: carries the replica's position so Python can name the learner. */
    public static final class ReplicaException extends RuntimeException {
        private final int replica;

        ReplicaException(int replica, Throwable cause) {
            super(cause.toString(), cause);
            this.replica = replica;
        }

        public int getReplica() {
            return replica;
        }
    }

    private InstancesHeader header;
    private final Classifier[] learners;

    public BatchHost(InstancesHeader header, Classifier[] learners) {
        this.learners = learners;
        setHeader(header);
    }

    /** A new, untrained replica: MOA's CLI syntax, the seed when it is randomizable. */
    public static Classifier make(String cli, int seed, InstancesHeader header) throws Exception {
        Classifier c = (Classifier) ClassOption.cliStringToObject(cli, Classifier.class, null);
        if (c.isRandomizable()) {
            c.setRandomSeed(seed);
        }
        c.prepareForUse();
        c.resetLearning();
        c.setModelContext(header);
        return c;
    }

    /** Use a header with more classes or nominal values (MOA accepts a grown context). */
    public void setHeader(InstancesHeader header) {
        this.header = header;
        for (Classifier c : learners) {
            c.setModelContext(header);
        }
    }

    public int size() {
        return learners.length;
    }

    public Classifier learner(int j) {
        return learners[j];
    }

    /** A host of some of these replicas, sharing them (not copies). */
    public BatchHost part(int[] which) {
        Classifier[] picked = new Classifier[which.length];
        for (int i = 0; i < which.length; i++) {
            picked[i] = learners[which[i]];
        }
        return new BatchHost(header, picked);
    }

    /**
     * Predict-then-train a batch.
     *
     * @param x row-major features, rows x d, NaN = missing
     * @param d number of features
     * @param y class index of each row
     * @param weights row-major rows x m training weights (m = replicas)
     * @param tested row-major rows x m, nonzero where the replica tests the row
     * @return replica-major m x rows predictions, -1 where not tested
     */
    public int[] process(double[] x, int d, int[] y, double[] weights, byte[] tested) {
        final int rows = y.length;
        final int m = learners.length;
        final int[] out = new int[m * rows];
        java.util.Arrays.fill(out, -1);
        for (int i = 0; i < rows; i++) {
            double[] values = new double[d + 1];
            System.arraycopy(x, i * d, values, 0, d);
            values[d] = y[i];
            Instance inst = new DenseInstance(1.0, values);
            inst.setDataset(header);
            for (int j = 0; j < m; j++) {
                Classifier c = learners[j];
                try {
                    if (tested[i * m + j] != 0) {
                        double[] votes = c.getVotesForInstance(inst);
                        out[j * rows + i] = votes == null || votes.length == 0 ? 0 : Utils.maxIndex(votes);
                    }
                    double w = weights[i * m + j];
                    if (w > 0) {
                        Instance t = inst.copy();
                        t.setWeight(w);
                        c.trainOnInstance(t);
                    }
                } catch (RuntimeException | StackOverflowError e) {
                    throw new ReplicaException(j, e);
                }
            }
        }
        return out;
    }

    /** Java serialization of one object (a replica) to bytes. */
    public static byte[] save(Object o) throws Exception {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(buf)) {
            out.writeObject(o);
        }
        return buf.toByteArray();
    }

    /** The object that {@link #save} wrote. */
    public static Object load(byte[] bytes) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            return in.readObject();
        }
    }
}
