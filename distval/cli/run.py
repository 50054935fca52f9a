"""``distval run``: options generated from :class:`~distval.config.RunConfig`'s fields, then
the run.

Each field's metadata (help, flag, type, choices; :func:`distval.config._option`) is the one
source of the option and its default; ``--config`` starts from a run's saved ``config.json``
and the options given on the command line override it.

>>> import argparse
>>> p = argparse.ArgumentParser(prog="run")
>>> add_arguments(p)
>>> args = p.parse_args(["--folds", "5", "--no-prequential"])
>>> config_from_args(args).n_folds, config_from_args(args).prequential
(5, False)
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
import shutil
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from distval.cli import show_warning
from distval.cli.argtypes import add_private, progress_wanted, ray_address, seconds
from distval.cli.default_job import MOA_LEARNERS, RIVER_LEARNERS, default_learners
from distval.config import RunConfig, read_config
from distval.engine.loop import CHECKPOINT_SECONDS
from distval.errors import DistvalError, DistvalWarning, RayUnavailable
from distval.evaluation import evaluate, finished, resume
from distval.files import read_json
from distval.results.writer import CHECKPOINT
from distval.tasks import task_named

__all__ = ["DESCRIPTION", "add_arguments", "add_config_arguments", "config_from_args", "main"]

DESCRIPTION = (
    "Evaluate two or more learners on a stream under k-fold distributed "
    "validation, with per-fold measures and across-fold tests while the stream flows."
)


def _tests(text: str) -> tuple[str, ...]:
    if text.lower() in ("", "none"):
        return ()
    return tuple(t.strip() for t in text.split(",") if t.strip())


def _texts(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(","))


_TYPES = {int: int, float: float, "tests": _tests, "texts": _texts}


def _flag(f: dataclasses.Field[Any]) -> str:
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return " ".join(map(str, value))
    return "yes" if value is True else "no" if value is False else str(value)


def add_config_arguments(
    parser: argparse.ArgumentParser, skip: tuple[str, ...] = ()
) -> dict[str, argparse._ArgumentGroup]:
    """One option per :class:`RunConfig` field (but ``skip``), absent unless given; returns
    the argument groups by name."""
    groups: dict[str, argparse._ArgumentGroup] = {}
    for f in dataclasses.fields(RunConfig):
        meta = f.metadata
        if "help" not in meta or f.name in skip:
            continue
        group = groups.get(meta["group"]) or groups.setdefault(
            meta["group"], parser.add_argument_group(meta["group"])
        )
        default = f.default
        shown = f" (default: {_shown(default)})" if default is not None else ""
        kw: dict[str, Any] = {
            "dest": f.name,
            "default": argparse.SUPPRESS,  # absent: the config's (or the saved run's) value
            "help": meta["help"] + shown,
        }
        if isinstance(default, bool):
            kw["action"] = argparse.BooleanOptionalAction
        else:
            for key in ("metavar", "choices", "nargs"):
                if key in meta:
                    kw[key] = meta[key]
            if "type" in meta:
                kw["type"] = _TYPES[meta["type"]]
        group.add_argument(_flag(f), **kw)
    return groups


def add_arguments(run: argparse.ArgumentParser) -> None:
    """Options of ``distval run``: one per :class:`RunConfig` field, then the run's own."""
    run.add_argument(
        "--config",
        default=None,
        metavar="PATH",
        help="start from a saved run's config.json (re-runs it exactly); options given here "
        "override it",
    )
    groups = add_config_arguments(run)
    for action in run._actions:
        if action.dest == "learners" and action.help:
            action.help = action.help.replace(
                f"(default: {_shown(RIVER_LEARNERS)})",
                f"(default: {_shown(MOA_LEARNERS)} with the moa extra and a JDK, else "
                f"{_shown(RIVER_LEARNERS)})")
    g = groups["execution and output"]
    g.add_argument(
        "--backend",
        choices=("auto", "ray", "inprocess"),
        default="auto",
        help="ray: learner actors on all local cores (or a cluster with --address); "
        "inprocess: no Ray; auto (default): ray unless the job is small",
    )
    g.add_argument(
        "--address", default=None,
        help="join this Ray cluster: 'auto' or 'ray://host:10001' (default: RAY_ADDRESS, "
        "else the cluster 'ray start' started on this machine, else a private local Ray)",
    )
    add_private(g)
    g.add_argument(
        "--actors", type=int, default=None, metavar="N",
        help="learner actors (default: one per CPU)",
    )
    g.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="results directory (default: ./distval-results/run-<time>; in a Ray job "
        "~/distval-results/<job id>), printed as an absolute path",
    )
    g.add_argument(
        "--overwrite",
        action="store_true",
        help="allow a non-empty output directory (replaces its result files)",
    )
    g.add_argument(
        "--resume",
        default=None,
        metavar="DIR",
        help="continue the interrupted run in DIR from its last checkpoint, with its own "
        "configuration (results identical to an uninterrupted run); a finished run is "
        "left as it is",
    )
    g.add_argument(
        "--checkpoint-seconds",
        type=seconds,
        default=CHECKPOINT_SECONDS,
        metavar="S",
        help="save the run's state in the output directory every S seconds, for --resume, "
        "and no sooner than 50 times the last save took (at most about 2%% of the run) "
        f"(default: {CHECKPOINT_SECONDS:g}; 0: after every batch; a negative S: never)",
    )
    g.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (on a terminal) and no progress lines (elsewhere, every 10 s)",
    )
    g.add_argument(
        "--verbose",
        action="store_true",
        help="print every measure and every test row at the end (default: the verdict lines "
        "and a compact measures table)",
    )
    g.add_argument(
        "--report",
        action="store_true",
        help="also write figures, report.html and report.md into the output directory",
    )
    from distval.live.cli import add_arguments as add_live_arguments

    add_live_arguments(run.add_argument_group("live page"))
    g = run.add_argument_group("robustness over permuted copies of the stream")
    g.add_argument(
        "--permute",
        default=None,
        metavar="KIND[:p=P|:k=K]",
        help="evaluate on permuted copies too: time:p=0.5, speed:p=0.5, shape:k=1000, random",
    )
    g.add_argument(
        "--repeats",
        type=int,
        default=10,
        metavar="R",
        help="number of permuted copies with --permute (default: 10)",
    )


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The :class:`RunConfig` of the options given, over ``--config``'s saved run if any."""
    base: dict[str, Any] = {}
    if getattr(args, "config", None):
        path = Path(args.config)
        if path.is_dir():
            path = path / "config.json"
        base = read_config(read_json(path, "a run configuration"), str(path))
    given = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(RunConfig)
        if hasattr(args, f.name)
    }
    if "learners" in given:
        base.pop("labels", None)  # new learners: labels from them
    names = {f.name for f in dataclasses.fields(RunConfig)}
    config = RunConfig.from_dict({k: v for k, v in (base | given).items() if k in names})
    task = task_named(config.task)
    if "measure" in given and given["measure"] not in task.compared:
        # accuracy is also RunConfig's default, which a regression run turns into its own
        # default silently: a measure the user named is checked here
        raise DistvalError(
            f"measure {given['measure']!r} is not one a {task.name} run compares; choose "
            f"{', '.join(task.compared)} (the first is its default)")
    return config


#: Every command shows a distval warning as one line (:func:`distval.cli.show_warning`).
_one_line = show_warning


def default_output() -> Path:
    """Where a run without ``--output`` writes, as an absolute path.

    ``./distval-results/run-<time>`` (``run-<time>-2``, ... for runs started in the same
    second); inside a Ray job (whose working directory is a temporary copy Ray deletes)
    ``~/distval-results/<job id>`` on the driver's node.
    """
    stamp = time.strftime("run-%Y%m%d-%H%M%S")
    job = os.environ.get("RAY_JOB_CONFIG_JSON_ENV_VAR")
    if job:
        try:
            name = json.loads(job)["metadata"]["job_submission_id"]
        except (ValueError, KeyError, TypeError):
            name = stamp
        return Path.home() / "distval-results" / str(name or stamp)
    base = out = (Path("distval-results") / stamp).absolute()
    n = 2
    while out.exists():  # another run of this second
        out, n = base.with_name(f"{stamp}-{n}"), n + 1
    return out


def _resume_alone(args: argparse.Namespace) -> None:
    """Refuse what ``--resume`` cannot take: the run's own settings come from its directory."""
    given = [_flag(f) for f in dataclasses.fields(RunConfig) if hasattr(args, f.name)]
    given += [flag for flag, on in (("--config", args.config), ("--output", args.output),
                                    ("--overwrite", args.overwrite),
                                    ("--permute", args.permute)) if on]
    if given:
        raise DistvalError(
            f"--resume continues a run with its own configuration; drop {', '.join(given)}"
        )


def _say_which_ray(address: str | None, backend: str) -> None:
    """The first line of a run that joins a running Ray (Ray's convention): which one."""
    from distval.ray_backend.session import joining_line

    line = joining_line(address, backend)
    if line:
        print(f"distval: {line}", file=sys.stderr, flush=True)


def _stopped_at(output: Path) -> str:
    """`` at row N``: the row an interrupted run stopped at, from the summary it wrote as it
    stopped ("" when there is none: stopped before its stream was read)."""
    try:
        at = json.loads((output / "summary.json").read_text()).get("interrupted_at")
    except (OSError, ValueError, AttributeError, RecursionError):
        return ""
    return f" at row {at}" if type(at) is int else ""


def _so_far(output: Path) -> str:
    """Where an interrupted run's results are, and the command that continues it (when
    its directory holds a checkpoint)."""
    if (output / CHECKPOINT).exists():
        return (f"results so far are in {output}; continue with: distval run --resume "
                f"{shlex.quote(str(output))}")
    return f"results so far are in {output} (no checkpoint yet: it cannot be resumed)"


class _Announced:
    """The run's observer that prints the default job's learners line with the run's first
    numbers (its stream read, its output written: bad input is still one line), then tells
    the live page, if any."""

    def __init__(self, line: str | None, live: Any) -> None:
        self.line, self.live = line, live

    def started(self, run: Any) -> None:
        if self.live is not None:
            self.live.started(run)

    def snapshot(self, run: Any, snap: Any) -> None:
        if self.line:
            print(self.line, file=sys.stderr, flush=True)
            self.line = None
        if self.live is not None:
            self.live.snapshot(run, snap)

    def closed(self, run: Any) -> None:
        if self.live is not None:
            self.live.closed(run)


def main(args: argparse.Namespace) -> int:
    """Run ``distval run``; returns the exit status."""
    line: str | None = None  # the default job's learners, said once the run starts
    if args.resume:
        _resume_alone(args)
        output = Path(args.resume).absolute()
        if not output.is_dir():
            raise DistvalError(f"results directory {output} does not exist")
        if finished(output):
            print(f"distval: {output} holds a finished run; nothing to resume", file=sys.stderr)
            print(f"results: {output}")
            return 0
        config = None
    else:
        if not args.config and not hasattr(args, "learners"):
            args.learners, line = default_learners()  # MOA's where it runs, else river's
        config = config_from_args(args)
        output = Path(args.output).absolute() if args.output else default_output()
    options = {}
    address = ray_address(args.address, args.private)
    backend = args.backend
    if args.permute and backend == "auto":  # copies go to Ray only when it is asked for
        backend = "ray" if address or args.actors else "inprocess"
    if backend != "inprocess":
        options = {"address": address, "n_actors": args.actors}
    elif address or args.actors:
        raise DistvalError("--address, --private and --actors need --backend ray")
    if args.actors is not None and args.actors < 1:
        raise DistvalError(f"--actors must be at least 1, got {args.actors}")
    progress: bool | str = progress_wanted(args)
    if not progress and not args.no_progress:
        progress = "lines"  # not a terminal: a plain-text line every 10 s
    every = args.checkpoint_seconds if args.checkpoint_seconds >= 0 else None
    common = {
        "output_dir": output,
        "overwrite": args.overwrite,
        "progress": progress,
        "backend": backend,
        "checkpoint_seconds": every,
        **options,
    }
    if getattr(args, "live", False) and args.permute:
        raise DistvalError("--live shows one run; it does not apply to --permute")
    if backend != "inprocess":
        _say_which_ray(options["address"], backend)
    from distval.live.cli import live_page

    try:
        with warnings.catch_warnings(), live_page(args, output) as live:
            warnings.simplefilter("always", DistvalWarning)
            warnings.showwarning = _one_line
            if live is not None or line:
                common["observer"] = _Announced(line, live)
            result: Any
            if config is None:
                del common["output_dir"], common["overwrite"]
                result = resume(output, **common)
            elif args.permute:
                from distval.experiments.robustness import run_robustness

                announced = common.pop("observer", None)  # --live refuses --permute
                if announced is not None and announced.line:
                    print(announced.line, file=sys.stderr, flush=True)
                common["progress"] = progress is True  # a bar of copies, on a terminal
                del common["checkpoint_seconds"]  # a copy is short; a finished one is reused
                result = run_robustness(
                    config, permute=args.permute, repeats=args.repeats, **common
                )
            else:
                result = evaluate(config, **common)
    except RayUnavailable as exc:
        raise RayUnavailable(f"{exc}; {_so_far(output)}") from None
    except KeyboardInterrupt:
        print(f"\ndistval: interrupted{_stopped_at(output)}; {_so_far(output)}",
              file=sys.stderr)
        return 130
    if hasattr(result, "to_text"):
        columns = shutil.get_terminal_size((100, 24)).columns
        print(result.to_text(verbose=getattr(args, "verbose", False),
                             width=max(40, min(100, columns))))
    else:
        print(result.to_markdown())
    if args.report:
        from distval.report import make_report

        print(f"report: {make_report(output)}")
    print(f"results: {output}")
    return 0
