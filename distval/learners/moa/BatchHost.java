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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
    /** Thread CPU nanoseconds each replica spent since the last {@link #takeCpu()}. */
    private final long[] cpuNanos;
    private static final java.lang.management.ThreadMXBean CPU =
            java.lang.management.ManagementFactory.getThreadMXBean();

    public BatchHost(InstancesHeader header, Classifier[] learners) {
        this.learners = learners;
        this.cpuNanos = new long[learners.length];
        setHeader(header);
    }

    /** Each replica's thread CPU nanoseconds in its own predict and learn calls since the
     * last call, then zeroed (timed per replica and batch, on the thread that ran it). */
    public synchronized long[] takeCpu() {
        long[] out = cpuNanos.clone();
        Arrays.fill(cpuNanos, 0L);
        return out;
    }

    private synchronized void spent(int j, long nanos) {
        cpuNanos[j] += nanos;
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

    /**
     * A new, untrained regressor replica: as {@link #make}, the seed set after MOA prepared
     * it (some regressors, FIMTDD among them, create their random generator only then).
     */
    public static Classifier makeRegressor(String cli, int seed, InstancesHeader header)
            throws Exception {
        Classifier c = (Classifier) ClassOption.cliStringToObject(cli, Classifier.class, null);
        c.prepareForUse();
        if (c.isRandomizable()) {
            c.setRandomSeed(seed);
        }
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

    /** Worker threads shared by every host of this JVM (daemons: they never keep it alive). */
    private static ExecutorService pool;
    private static int poolSize;

    private static synchronized ExecutorService pool(int threads) {
        if (pool == null || poolSize < threads) {
            if (pool != null) {
                pool.shutdown();
            }
            pool = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "distval-moa");
                t.setDaemon(true);
                return t;
            });
            poolSize = threads;
        }
        return pool;
    }

    /**
     * Predict-then-train a batch.
     *
     * <p>Replicas are independent, so with {@code threads > 1} they run in parallel, each
     * replica going through every row in order on one thread: every replica sees exactly the
     * calls it would see alone, so the results do not depend on the thread count. The rows'
     * instances are built once and only read by predictions; training gets a weighted copy.
     *
     * @param x row-major features, rows x d, NaN = missing
     * @param d number of features
     * @param y class index of each row
     * @param weights row-major rows x m training weights (m = replicas)
     * @param tested row-major rows x m, nonzero where the replica tests the row
     * @param threads worker threads (1 = this thread only)
     * @return replica-major m x rows predictions, -1 where not tested
     */
    public int[] process(double[] x, int d, int[] y, double[] weights, byte[] tested, int threads) {
        return processVotes(x, d, y, weights, tested, new double[0], new int[0], new double[0],
                new int[0], threads, null);
    }

    /** Rows as instances of the current header (features row-major, rows x d). */
    private Instance[] instances(double[] x, int d, int[] y) {
        final Instance[] insts = new Instance[y.length];
        for (int i = 0; i < y.length; i++) {
            insts[i] = instance(x, d, i, y[i]);
        }
        return insts;
    }

    /** Row {@code i} (features row-major, rows x d) with its target, an instance of the
     * current header. */
    private Instance instance(double[] x, int d, int i, double target) {
        double[] values = new double[d + 1];
        System.arraycopy(x, i * d, values, 0, d);
        values[d] = target;
        Instance inst = new DenseInstance(1.0, values);
        inst.setDataset(header);
        return inst;
    }

    /**
     * Predict a batch of arrivals and train on delayed labels between them: {@link
     * #processVotes} with no training on the arrivals themselves and no votes.
     */
    public int[] processDelayed(double[] x, int d, int[] y, byte[] tested, double[] xr,
            int[] yr, double[] wr, int[] after, int threads) {
        return processVotes(x, d, y, new double[y.length * learners.length], tested, xr, yr, wr,
                after, threads, null);
    }

    /**
     * The batch call: replica {@code j} predicts arrival {@code i} (if it tests it), trains on
     * it with weight {@code weights[i * m + j]} (none if 0), then trains on the released
     * (delayed) rows {@code r} with {@code after[r] == i + 1}, in order, with their weight
     * {@code wr[r * m + j]}.
     *
     * @param votes null, or room for replica-major m x rows x c class probabilities (c =
     *     classes of the header): the votes of every tested row divided by their sum (uniform
     *     when they sum to 0 or are missing)
     * @return replica-major m x rows predictions of the arrivals, -1 where not tested
     */
    public int[] processVotes(double[] x, int d, int[] y, double[] weights, byte[] tested,
            double[] xr, int[] yr, double[] wr, int[] after, int threads, double[] votes) {
        final int rows = y.length;
        final int m = learners.length;
        final int[] out = new int[m * rows];
        Arrays.fill(out, -1);
        final Instance[] insts = instances(x, d, y);
        final Instance[] released = instances(xr, d, yr);
        if (threads <= 1 || m < 2) {
            for (int j = 0; j < m; j++) {
                replica(j, insts, weights, tested, released, wr, after, out, votes);
            }
            return out;
        }
        ExecutorService workers = pool(Math.min(threads, m));
        List<Future<?>> done = new ArrayList<>(m);
        for (int j = 0; j < m; j++) {
            final int r = j;
            done.add(workers.submit(
                    () -> replica(r, insts, weights, tested, released, wr, after, out, votes)));
        }
        ReplicaException first = null;
        for (Future<?> f : done) {
            try {
                f.get();
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (first == null) {
                    first = cause instanceof ReplicaException
                            ? (ReplicaException) cause
                            : new ReplicaException(done.indexOf(f), cause);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RuntimeException(e);
            }
        }
        if (first != null) {
            throw first;
        }
        return out;
    }

    private void replica(int j, Instance[] insts, double[] weights, byte[] tested,
            Instance[] released, double[] wr, int[] after, int[] out, double[] votes) {
        final int rows = insts.length;
        final int m = learners.length;
        final int c = header.numClasses();
        final Classifier cl = learners[j];
        int r = 0;
        final long t0 = CPU.getCurrentThreadCpuTime();
        try {
            for (int i = 0; i < rows; i++) {
                Instance inst = insts[i];
                if (tested[i * m + j] != 0) {
                    double[] v = cl.getVotesForInstance(inst);
                    out[j * rows + i] = v == null || v.length == 0 ? 0 : Utils.maxIndex(v);
                    if (votes != null) {
                        int at = (j * rows + i) * c;
                        double sum = 0;
                        int k = v == null ? 0 : Math.min(v.length, c);
                        for (int q = 0; q < k; q++) {
                            sum += v[q];
                        }
                        for (int q = 0; q < c; q++) {
                            votes[at + q] = sum > 0 ? (q < k ? v[q] / sum : 0.0) : 1.0 / c;
                        }
                    }
                }
                double w = weights[i * m + j];
                if (w > 0) {
                    Instance t = inst.copy();
                    t.setWeight(w);
                    cl.trainOnInstance(t);
                }
                while (r < released.length && after[r] == i + 1) {
                    double wj = wr[r * m + j];
                    if (wj > 0) {
                        Instance t = released[r].copy();
                        t.setWeight(wj);
                        cl.trainOnInstance(t);
                    }
                    r++;
                }
            }
        } catch (RuntimeException | StackOverflowError e) {
            throw new ReplicaException(j, e);
        } finally {
            spent(j, CPU.getCurrentThreadCpuTime() - t0);
        }
    }

    /**
     * Regressors (a header whose class attribute is numeric): replica {@code j} predicts row
     * {@code i} if it tests it (MOA's prediction: the first vote; 0 when there is none), then
     * trains on it with weight {@code weights[i * m + j]}.
     *
     * @param y target of each row
     * @return replica-major m x rows predictions, NaN where not tested
     */
    public double[] processRegression(double[] x, int d, double[] y, double[] weights,
            byte[] tested) {
        final int rows = y.length;
        final int m = learners.length;
        final double[] out = new double[m * rows];
        Arrays.fill(out, Double.NaN);
        final Instance[] insts = new Instance[rows];
        for (int i = 0; i < rows; i++) {
            insts[i] = instance(x, d, i, y[i]);
        }
        for (int j = 0; j < m; j++) {
            final Classifier cl = learners[j];
            final long t0 = CPU.getCurrentThreadCpuTime();
            try {
                for (int i = 0; i < rows; i++) {
                    if (tested[i * m + j] != 0) {
                        double[] v = cl.getVotesForInstance(insts[i]);
                        out[j * rows + i] = v == null || v.length == 0 ? 0.0 : v[0];
                    }
                    double w = weights[i * m + j];
                    if (w > 0) {
                        Instance t = insts[i].copy();
                        t.setWeight(w);
                        cl.trainOnInstance(t);
                    }
                }
            } catch (RuntimeException | StackOverflowError e) {
                throw new ReplicaException(j, e);
            } finally {
                spent(j, CPU.getCurrentThreadCpuTime() - t0);
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
