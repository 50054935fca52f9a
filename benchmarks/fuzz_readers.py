"""Damaged files against every reader, at scale: 2,000 per format (CSV, Parquet, ARFF, a
suite's TOML, a checkpoint), each read in this process through the command line's error
handler (``distval.cli.handled``). What each gave: one line ``distval: error: ...`` with
exit status 2, a correct result (exit 0; a checkpoint: the same state as the undamaged
one), or a problem (a traceback, an "Exception ignored" block, more than one line, a hang
over 20 s). The damage is seeded (tests/helpers/fuzzing.py); tests/test_fuzz.py runs 300
per format in the default suite.

    python benchmarks/fuzz_readers.py [--n 2000] [--seed 2026]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests" / "helpers"))
import fuzzing  # noqa: E402

from common import save, table  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="distval-fuzz-"))
    checkpoint = fuzzing.seed_checkpoint(work / "checkpoint-run")
    rows, problems, kinds = [], [], {}
    for fmt in fuzzing.FORMATS:
        started = time.perf_counter()
        outcome, _ = fuzzing.fuzz(fmt, args.n, args.seed, work / fmt, checkpoint=checkpoint,
                                  keep=0)
        seconds = time.perf_counter() - started
        rows.append({"format": fmt, "files": args.n, "one-line error": outcome.counts["error"],
                     "read correctly": outcome.counts["ok"],
                     "problems": outcome.counts["problem"], "seconds": seconds})
        problems += outcome.problems
        kinds[fmt] = outcome.errors.most_common(5)
    text = [
        f"# Fuzzing the readers: {args.n} damaged files per format (seed {args.seed})", "",
        "`python benchmarks/fuzz_readers.py`; " + time.strftime("%Y-%m-%d %H:%M UTC",
                                                                time.gmtime())
        + f"; {os.cpu_count()}-core VM, shared, load average "
        + "/".join(f"{x:.1f}" for x in os.getloadavg()) + " at the end.", "",
        table(rows), "",
        "Problems: " + ("none." if not problems else ""),
        *(f"- {p}" for p in problems[:50]), "",
        "Most common refusals per format (paths, quoted text and numbers masked):", "",
    ]
    for fmt, top in kinds.items():
        text += [f"- {fmt}:", *(f"  - {n} × `{k}`" for k, n in top)]
    save("fuzz_readers", "\n".join(text),
         {"n": args.n, "seed": args.seed, "rows": rows, "problems": problems,
          "kinds": {k: v for k, v in kinds.items()}})


if __name__ == "__main__":
    main()
