"""Damaged input files for the readers, and what each reader must do with them: one line
``distval: error: ...`` and exit status 2, or a correct result; never a traceback, an
"Exception ignored" block or a hang. Used by tests/test_fuzz.py (a few hundred files per
format) and benchmarks/fuzz_readers.py (2,000 per format).

Every damage is drawn from a seeded generator, so a failure names its format, seed and
index and can be made again with :func:`mutants`.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import signal
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FORMATS = ("csv", "parquet", "arff", "toml", "checkpoint")

#: Seconds one damaged file may take before it counts as a hang.
HANG_SECONDS = 20


def seed_csv(path: Path) -> Path:
    """A small CSV: numbers, a nominal column, missing values, a quoted field."""
    rows = ["x,y,colour,note,class"]
    for i in range(120):
        y = "" if i % 17 == 0 else f"{(i * 7) % 11 * 0.25}"
        rows.append(f'{i % 9},{y},{["red", "green", "blue"][i % 3]},"a, b{i % 4}",'
                    f'{"pq"[(i // 3) % 2]}')
    path.write_text("\n".join(rows) + "\n")
    return path


def seed_parquet(path: Path) -> Path:
    """A small Parquet file: int, float, string, dictionary and timestamp columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 120
    i = np.arange(n)
    table = pa.table({
        "n": i % 9,
        "v": np.where(i % 13 == 0, np.nan, i * 0.5),
        "s": pa.array(["a", "b", None, "c"] * (n // 4)),
        "d": pa.array(["lo", "hi", "mid"] * (n // 3)).dictionary_encode(),
        "t": pa.array((1_700_000_000 + i * 60).astype("datetime64[s]")),
        "class": pa.array(["p", "q"] * (n // 2)),
    })
    pq.write_table(table, path, row_group_size=40)
    return path


def seed_arff(path: Path) -> Path:
    """A small ARFF file: numeric, nominal, string, a comment, quoted and sparse rows."""
    lines = ["% a comment", "@relation 'fuzz'", "@attribute x numeric",
             "@attribute c {red, 'dark blue', green}", "@attribute s string",
             "@attribute class {p, q}", "@data"]
    for i in range(100):
        colour = ["red", "'dark blue'", "green"][i % 3]
        x = "?" if i % 11 == 0 else f"{i * 0.5}"
        lines.append(f"{x},{colour},'w{i % 5}',{'pq'[i % 2]}")
    lines.append("{0 1.5, 1 green, 2 'z', 3 q}")
    path.write_text("\n".join(lines) + "\n")
    return path


def seed_toml(path: Path) -> Path:
    """A suite file with most of its keys."""
    path.write_text(
        'streams = ["sea", "agrawal"]\nlearners = ["nb", "majority"]\nn_rows = 2000\n'
        'folds = 4\ntest_every = 500\nrope = 0.02\nfinal = "cumulative"\n'
        'tests = ["sign", "wilcoxon"]\nalpha = 0.05\n# a comment\nseed = 3\n'
    )
    return path


@dataclass
class CheckpointSeed:
    """An interrupted run's directory with a checkpoint, and what reading it must give."""

    directory: Path
    run_id: str
    rows: int
    written: dict[str, int]


def seed_checkpoint(directory: Path) -> CheckpointSeed:
    """A run of SEA interrupted after a checkpoint (a KeyboardInterrupt from its stream,
    as Ctrl-C would), its checkpoint read back."""
    import distval
    from distval.engine.loop import open_config_stream
    from distval.results.writer import read_checkpoint

    cfg = distval.RunConfig(stream="sea", n_rows=2000, learners=("nb", "majority"),
                            n_folds=6, test_every=500, batch_size=250)
    stream = open_config_stream(cfg)

    class StopAfter:
        def __getattr__(self, name: str) -> Any:
            return getattr(stream, name)

        def chunks(self, size: int) -> Iterator[Any]:
            for chunk in stream.chunks(size):
                if chunk.start >= 1200:
                    raise KeyboardInterrupt
                yield chunk

    with contextlib.suppress(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=directory, checkpoint_seconds=0.0, source=StopAfter())
    run_id = json.loads((directory / "config.json").read_text())["run_id"]
    state, written = read_checkpoint(directory, run_id)
    return CheckpointSeed(directory, run_id, state["checkpoint"].rows, written)


#: Bytes that matter to some reader: separators, quotes, brackets, invalid UTF-8, NUL.
_SPECIAL = [b",", b"\n", b"\r", b'"', b"'", b"{", b"}", b"[", b"]", b"=", b"%", b"@", b"?",
            b"\xff", b"\xc3", b"\x00", b"\t", b" ", b"9" * 30, b"-", b"e"]


def mutants(data: bytes, n: int, seed: int) -> Iterator[bytes]:
    """``n`` damaged copies of ``data``: bytes flipped, set to a special byte, a range cut
    out, duplicated or filled with random bytes, the file truncated; one to three damages
    each, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        out = bytearray(data)
        for _ in range(int(rng.integers(1, 4))):
            size = len(out)
            if size == 0:
                out += bytes(rng.integers(0, 256, 8, dtype=np.uint8))
                continue
            at = int(rng.integers(0, size))
            span = int(rng.integers(1, max(2, min(64, size - at + 1))))
            kind = int(rng.integers(0, 7))
            if kind == 0:  # flip bits
                for j in rng.integers(0, size, int(rng.integers(1, 9))):
                    out[int(j)] ^= 1 << int(rng.integers(0, 8))
            elif kind == 1:  # a special byte
                out[at:at + 1] = _SPECIAL[int(rng.integers(0, len(_SPECIAL)))]
            elif kind == 2:  # truncate
                del out[at:]
            elif kind == 3:  # cut a range
                del out[at:at + span]
            elif kind == 4:  # duplicate a range
                out[at:at] = out[at:at + span]
            elif kind == 5:  # random bytes over a range
                out[at:at + span] = bytes(rng.integers(0, 256, span, dtype=np.uint8))
            else:  # random bytes inserted
                out[at:at] = bytes(rng.integers(0, 256, span, dtype=np.uint8))
        yield bytes(out)


def _read_stream(path: Path) -> int:
    """Every row of a file stream, as ``distval run`` and ``describe`` read them."""
    from distval.streams import open_stream

    stream = open_stream(str(path))
    rows = sum(len(c.y) for c in stream.chunks(50))
    assert stream.n_rows is None or rows == stream.n_rows, (rows, stream.n_rows)
    return 0


def _read_suite(path: Path) -> int:
    """A suite file as ``distval suite`` reads it, up to the suite's configuration."""
    from distval.cli import build_parser
    from distval.cli.suite import settings
    from distval.experiments.suite import make_suite

    s = settings(build_parser().parse_args(["suite", str(path)]))
    streams = s.pop("streams", None) or ["sea"]
    for key in ("backend", "address", "tasks", "output", "final"):
        s.pop(key, None)
    rope = s.pop("rope", 0.01)
    for key in ("learners", "tests"):
        if isinstance(s.get(key), list):
            s[key] = tuple(s[key])
    make_suite(streams, rope=rope, **s)
    return 0


def _reader(fmt: str, seed: CheckpointSeed | None) -> Callable[[Path], int]:
    if fmt == "toml":
        return _read_suite
    if fmt != "checkpoint":
        return _read_stream
    assert seed is not None

    def read(path: Path) -> int:
        from distval.evaluation import _check_state
        from distval.results.writer import read_checkpoint

        state, written = read_checkpoint(path.parent, seed.run_id)
        _check_state(state, path)
        assert state["checkpoint"].rows == seed.rows and written == seed.written
        return 0

    return read


@dataclass
class Outcome:
    """What one format's damaged files gave: counts by outcome, and the problems."""

    counts: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang


def check(fmt: str, path: Path, read: Callable[[Path], int]) -> tuple[str, str]:
    """Read ``path`` through the command line's error handler in this process: ("ok", ""),
    ("error", the line) or ("problem", what went wrong)."""
    from distval.cli import handled

    unraisable: list[str] = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda u: unraisable.append(f"{type(u.exc_value).__name__}")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = handled(lambda: read(path))
    except _Hang:
        return "problem", f"hang (over {HANG_SECONDS} s)"
    except BaseException as exc:  # what the handler let through: a traceback
        return "problem", f"{type(exc).__name__}: {str(exc)[:200]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = previous_hook
    lines = [x for x in err.getvalue().splitlines() if not x.startswith("distval: warning: ")]
    if unraisable:
        return "problem", f"Exception ignored: {unraisable[0]}"
    if code == 0 and not lines:
        return "ok", ""
    if code == 2 and len(lines) == 1 and lines[0].startswith("distval: error: "):
        return "error", lines[0]
    return "problem", f"exit {code}: {err.getvalue()[:300]!r}"


def fuzz(fmt: str, n: int, seed: int, work: Path, *, base: Path | None = None,
         checkpoint: CheckpointSeed | None = None, keep: int = 2) -> tuple[Outcome, list[Path]]:
    """``n`` damaged files of format ``fmt`` read in this process; the outcome and a few
    of the damaged files that gave an error (kept, for a check through a subprocess)."""
    work.mkdir(parents=True, exist_ok=True)
    if fmt == "checkpoint":
        assert checkpoint is not None
        from distval.results.writer import CHECKPOINT

        original = (checkpoint.directory / CHECKPOINT).read_bytes()
        target = checkpoint.directory / CHECKPOINT
    else:
        original = (base or _SEEDS[fmt](work / f"seed.{fmt}")).read_bytes()
        target = work / f"damaged.{fmt}"
    read = _reader(fmt, checkpoint)
    outcome = Outcome()
    kept: list[Path] = []
    try:
        for i, data in enumerate(mutants(original, n, seed)):
            target.write_bytes(data)
            kind, what = check(fmt, target, read)
            outcome.counts[kind] += 1
            if kind == "problem":
                outcome.problems.append(f"{fmt} seed {seed} #{i}: {what}")
            elif kind == "error":
                outcome.errors[_gist(what)] += 1
                if len(kept) < keep and fmt != "checkpoint":
                    copy = work / f"kept-{i}.{fmt}"
                    shutil.copy(target, copy)
                    kept.append(copy)
    finally:
        if fmt == "checkpoint":
            target.write_bytes(original)
    return outcome, kept


def _gist(line: str) -> str:
    """An error line without its paths and numbers: the kind of refusal."""
    import re

    text = re.sub(r"/\S+", "PATH", line[len("distval: error: "):])
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    return re.sub(r"\d+", "N", text)[:90]


_SEEDS: dict[str, Callable[[Path], Path]] = {
    "csv": seed_csv, "parquet": seed_parquet, "arff": seed_arff, "toml": seed_toml,
}
