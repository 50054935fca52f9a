"""The layering of the package, enforced: folders are layers, imports only run downwards.

Every ``import`` statement in ``distval/`` (module level and inside functions alike) is read
with :mod:`ast`. A module may import its own layer or a lower one, never a higher one, and
the module graph has no cycle. Ray is imported only under ``distval/ray_backend/`` (ruff's
TID251 rule says the same at lint time), and importing any other module loads no Ray.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "distval"

#: Layers from the bottom (0) up, one per stage folder (or root module); a module's layer
#: is that of its longest matching prefix. Read upwards, it is the way a row travels:
#: stream -> routing -> learners -> measures -> statistics -> aggregator -> results -> engines.
LAYERS = {
    "distval.errors": 0,  # DistvalError and the argument checks
    "distval.files": 0,  # the one way a file is written: atomically, never through a link
    "distval.streams": 1,  # where rows come from, and in which order
    "distval.routing": 1,  # which fold replica sees which row, and when its label arrives
    "distval.learners": 2,  # learner hosts (river, MOA) and their replicas
    "distval.metrics": 2,  # measures from confusion counts, trackers, paired, prequential
    "distval.columns": 3,  # the columns of every results table, their one owner
    "distval.statistics": 4,  # fold tests, sequential and anytime decisions, the verdict
    "distval.tasks": 4,  # what each task brings: measures, baselines, loss, units, figures
    "distval.config": 5,  # RunConfig: one frozen, checked description of a run
    "distval.config_format": 5,  # config.json's format number and its one upgrade
    "distval.aggregator": 6,  # per-fold measures and across-fold tests, in one plain class
    "distval.results": 7,  # schema, tables <- writer, reader <- memory (EvaluationResult)
    "distval.report": 8,
    "distval.engine": 9,  # the driver loop both backends share, and a run's books
    "distval.ray_backend": 10,
    "distval.live": 10,  # the live page: a run's observer and its local web server
    "distval.evaluation": 11,
    "distval.experiments": 12,
    "distval.cli": 13,
    "distval": 14,  # the package facade: lazy `distval.evaluate`, `distval.RunConfig`
}

#: The modules that may stand at the root of distval/ beside the packages.
ROOT_MODULES = {"config", "config_format", "errors", "columns", "evaluation", "files"}
#: No module grows past this (lines).
MAX_LINES = 600
#: A module past this (lines) holds two jobs, unless its docstring opens by saying why not.
SPLIT_LINES = 550
#: The words a module's docstring opens with when it stays whole past SPLIT_LINES.
KEPT_WHOLE = "Kept whole because"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def imports(module: str) -> set[str]:
    """The distval modules that ``module`` imports anywhere in its file."""
    path = MODULES[module]
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("distval") and name != module:
                out.add(name)
    return out


GRAPH = {m: imports(m) for m in MODULES}


def test_every_module_has_a_layer():
    assert all(layer(m) >= 0 for m in MODULES)
    expected = {"distval.ray_backend.engine", "distval.cli.run", "distval.learners.host",
                "distval.results.writer", "distval.results.reader", "distval.engine.loop",
                "distval.aggregator.core", "distval.statistics.comparison",
                "distval.routing.validation", "distval.metrics.paired"}
    assert expected <= set(MODULES)


def test_no_import_runs_from_a_lower_layer_to_a_higher_one():
    upward = sorted(
        f"{m} (layer {layer(m)}) -> {t} (layer {layer(t)})"
        for m, targets in GRAPH.items()
        for t in targets
        if layer(t) > layer(m) and m != "distval"
    )
    assert upward == []


def test_the_import_graph_has_no_cycle():
    from graphlib import CycleError, TopologicalSorter

    try:
        list(TopologicalSorter(GRAPH).static_order())
    except CycleError as exc:
        pytest.fail(f"import cycle: {' -> '.join(exc.args[1])}")


def test_results_writing_and_reading_share_only_the_format():
    """The results package's two halves meet in its schema, not in each other."""
    halves = {"distval.results.writer", "distval.results.reader"}
    for half in halves:
        assert GRAPH[half] & (halves | {"distval.results.memory", "distval.results"}) == set()
    assert halves <= GRAPH["distval.results.memory"]


def test_the_checks_catch_what_they_look_for(tmp_path):
    """The walker sees imports inside functions, and a cycle is reported."""
    assert "distval.ray_backend.engine" in GRAPH["distval.evaluation"]  # a deferred import
    from graphlib import CycleError, TopologicalSorter

    with pytest.raises(CycleError):
        list(TopologicalSorter({"a": {"b"}, "b": {"a"}}).static_order())


def test_only_ray_backend_imports_ray():
    offenders = []
    for module, path in MODULES.items():
        if module.startswith("distval.ray_backend"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders += [f"{module}: {n}" for n in names if n == "ray" or n.startswith("ray.")]
    assert offenders == []


def test_importing_any_module_outside_ray_backend_loads_no_ray():
    outside = [m for m in MODULES if not m.startswith("distval.ray_backend") and "main" not in m]
    code = "import sys\n" + "".join(f"import {m}\n" for m in outside)
    code += "print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ruff_bans_ray_outside_its_backend(tmp_path):
    """The lint rule is configured: a file importing ray under distval/ fails ruff."""
    probe = PACKAGE / "_ray_probe_for_lint.py"
    probe.write_text('"""Probe."""\n\nimport ray\n\nprint(ray)\n')
    try:
        out = subprocess.run(
            [sys.executable, "-m", "ruff", "check", "--select", "TID251", str(probe)],
            capture_output=True,
            text=True,
            cwd=PACKAGE.parent,
        )
    finally:
        probe.unlink()
    assert out.returncode == 1 and "TID251" in out.stdout


def test_engines_ask_hosts_for_capabilities_never_for_moa():
    """The engines and the Ray layer read a host's capabilities (``releases_gil``,
    ``movable``, ``set_threads``), never whether its learners are MOA's; and one function
    (``learners/moa/jvm.keep_jvm_signals``) sets the JVM's signal variable."""
    layers = ("distval.engine", "distval.evaluation", "distval.ray_backend")
    offenders = [
        f"{module}: .{node.attr}"
        for module, path in MODULES.items()
        if module.startswith(layers)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in ("moa", "is_moa")
    ]
    assert offenders == []
    setters = [
        str(path.relative_to(PACKAGE.parent))
        for path in MODULES.values()
        if "RAY_DISABLE_FAILURE_SIGNAL_HANDLER" in path.read_text()
    ]
    assert setters == ["distval/learners/moa/jvm.py"]


def package(module: str) -> str:
    """The entry at the root of distval/ that holds ``module`` (a package or a module)."""
    return ".".join(module.split(".")[:2])


#: The graph between the root's entries: a package imports what any of its modules imports.
PACKAGES: dict[str, set[str]] = {}
for _module, _targets in GRAPH.items():
    if _module != "distval":
        PACKAGES.setdefault(package(_module), set()).update(
            t for t in map(package, _targets) if t != package(_module)
        )


def test_packages_import_only_downwards_and_in_no_circle():
    """Between the stage folders too: a package sits above everything it imports."""
    from graphlib import CycleError, TopologicalSorter

    upward = sorted(
        f"{p} (layer {layer(p)}) -> {t} (layer {layer(t)})"
        for p, targets in PACKAGES.items()
        for t in targets
        if layer(t) > layer(p)
    )
    assert upward == []
    try:
        list(TopologicalSorter(PACKAGES).static_order())
    except CycleError as exc:
        pytest.fail(f"a circle between packages: {' -> '.join(exc.args[1])}")


def test_the_root_holds_packages_and_a_few_modules():
    modules = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__"}
    assert modules <= ROOT_MODULES
    assert all(layer(f"distval.{p.name}") < LAYERS["distval"]
               for p in PACKAGE.iterdir() if (p / "__init__.py").exists())


def test_no_module_is_over_the_limit():
    sizes = {m: len(p.read_text().splitlines()) for m, p in MODULES.items()}
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}


def unsplit(modules: dict[str, Path]) -> dict[str, int]:
    """The modules above SPLIT_LINES lines whose docstring's first lines (the first three)
    do not say ``Kept whole because ...``, with their sizes."""
    out = {}
    for module, path in modules.items():
        text = path.read_text()
        n = len(text.splitlines())
        doc = ast.get_docstring(ast.parse(text)) or ""
        if n > SPLIT_LINES and KEPT_WHOLE not in " ".join(doc.splitlines()[:3]):
            out[module] = n
    return out


def test_a_long_module_is_split_by_what_it_does_or_says_why_not():
    assert unsplit(MODULES) == {}


def test_the_split_rule_catches_a_long_module(tmp_path):
    body = "x = 1\n" * SPLIT_LINES
    long, kept, late = (tmp_path / f"{n}.py" for n in ("long", "kept", "late"))
    long.write_text('"""Two jobs."""\n' + body)
    kept.write_text(f'"""One job.\n\n{KEPT_WHOLE} its parts share one state."""\n' + body)
    late.write_text(f'"""One.\n\nTwo.\n\nThree.\n\n{KEPT_WHOLE} too late."""\n' + body)
    short = tmp_path / "short.py"
    short.write_text('"""Short."""\n' + "x = 1\n" * (SPLIT_LINES - 2))
    found = unsplit({p.stem: p for p in (long, kept, late, short)})
    assert found == {"long": SPLIT_LINES + 1, "late": SPLIT_LINES + 7}


def test_a_package_name_means_one_thing():
    """No package binds a name (a re-exported function, say) that is also one of its
    modules: importing the module would replace the package's attribute with it."""
    clashes = []
    for module, path in MODULES.items():
        if path.name != "__init__.py":
            continue
        subs = {p.stem for p in path.parent.glob("*.py")} | {
            p.name for p in path.parent.iterdir() if (p / "__init__.py").exists()}
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module != module:
                clashes += [f"{module}.{a.asname or a.name}" for a in node.names
                            if (a.asname or a.name) in subs]
    assert clashes == []


#: Where a task is defined: the one place that may name a task or hold its own module.
TASK_PLACE = PACKAGE / "tasks"


def test_a_task_is_described_in_one_place():
    """No stage keeps a parallel module per task (a ``regression.py`` in the aggregator,
    the measures, the results or the report) and no code outside :mod:`distval.tasks` asks
    which task it runs (``task ==`` / ``task !=``): each asks the run's task object. The
    regression stream generators (``streams/regression.py``) are streams, not the task."""
    allowed = {TASK_PLACE / "regression.py", PACKAGE / "streams" / "regression.py"}
    parallel = [p for p in PACKAGE.rglob("regression.py") if p not in allowed]
    assert not parallel, f"task modules outside distval/tasks/: {parallel}"
    asked = []
    for path in PACKAGE.rglob("*.py"):
        if TASK_PLACE in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops
            ):
                sides = [node.left, *node.comparators]
                names = [s.attr if isinstance(s, ast.Attribute) else getattr(s, "id", None)
                         for s in sides]
                if "task" in names:
                    asked.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    assert not asked, f"task comparisons outside distval/tasks/: {asked}"


BENCHMARKS = PACKAGE.parent / "benchmarks"
#: The public API: ``distval`` itself, every module the API reference documents, and the
#: module of every name it documents (``distval.streams`` for ``distval.streams.open_stream``).
DOCUMENTED = {
    m.rstrip(".")
    for m in (PACKAGE.parent / "docs" / "api.md").read_text().split()
    if m.startswith("distval.")
}
PUBLIC = {"distval"} | {m if m in MODULES else m.rsplit(".", 1)[0] for m in DOCUMENTED}
#: Internals a benchmark measures on purpose (an engine stage alone, a tracker before and
#: after), and test helpers it shares with the tests: each listed by file, so that a new
#: import of an internal module fails here until it is argued for.
BENCHMARK_INTERNALS: dict[str, set[str]] = {
    "bench_adwin.py": {"distval.metrics", "distval.metrics.paired"},
    "bench_aggregator.py": {"distval.aggregator.core", "distval.metrics.trackers"},
    "bench_checkpoint.py": {"distval.engine.loop", "distval.results.writer"},
    "bench_cpu.py": {
        "distval.aggregator.core", "distval.engine.loop", "distval.engine.run",
        "distval.learners.host", "distval.learners.moa", "distval.learners.moa.jvm",
        "distval.learners.moa.replicas", "distval.learners.replicas", "distval.learners.schema",
        "distval.routing.validation",
    },
    "bench_forgetting_figure.py": {"distval.report", "distval.report.figures"},
    "bench_labels.py": {"distval.metrics"},
    "bench_live.py": {"distval.live"},
    "bench_looks.py": {"distval.aggregator.core"},
    "bench_minibatch.py": {"distval.engine.loop", "distval.learners.schema"},
    "bench_moa.py": {
        "distval.engine.loop", "distval.learners.moa", "distval.learners.moa.jvm",
        "distval.learners.moa.replicas", "distval.learners.replicas", "distval.learners.schema",
    },
    "bench_moa_ray.py": {
        "distval.engine.loop", "distval.engine.run", "distval.ray_backend",
        "distval.ray_backend.actors", "distval.ray_backend.session",
    },
    "bench_paired_scores.py": {"distval.aggregator.core"},
    "bench_permutations.py": {"distval.experiments.robustness"},
    "bench_pickled.py": {"distval.engine.loop"},
    "bench_pipeline.py": {
        "distval.engine.loop", "distval.engine.run", "distval.learners.batch",
        "distval.routing.validation",
    },
    "bench_plan_shapes.py": {"distval.experiments.suite.probe"},
    "bench_ray.py": {
        "distval.engine.loop", "distval.engine.run", "distval.learners.batch",
        "distval.learners.weights", "distval.ray_backend.engine", "distval.ray_backend.session",
    },
    "bench_readme.py": {"readme_commands"},
    "bench_scale.py": {"distval.engine.loop", "distval.engine.run", "distval.ray_backend.engine"},
    "bench_suite_spread.py": {"distval.experiments.study", "distval.experiments.suite"},
    "bench_temporal.py": {"distval.learners.batch", "distval.learners.host", "distval.metrics"},
    "bench_verdict.py": {"distval.metrics.paired", "distval.statistics.ranks"},
    "fuzz_readers.py": {"fuzzing"},
    "live_screenshots.py": {
        "distval.experiments.suite", "distval.experiments.type_errors.live", "distval.live",
        "distval.live.suite",
    },
    "bench_paper_cost.py": {"distval.experiments", "distval.experiments.type_errors.cell"},
    "type_errors_conclusions.py": {"distval.experiments"},
    "type_errors_readings.py": {"distval.experiments", "distval.experiments.type_errors.readings",
                                "distval.experiments.type_errors.tables", "distval.files"},
    "type_errors_rows_and_same.py": {"distval.experiments"},
    "type_errors_goals.py": {"distval.experiments", "distval.experiments.type_errors.tables"},
    "type_errors_studies.py": {"distval.experiments"},
}


def repository_imports(path: Path) -> set[str]:
    """The repository modules (``distval...``, ``benchmarks...``, a sibling of the file, a
    test helper) that a benchmark file imports, as written."""
    siblings = {p.stem for p in BENCHMARKS.glob("*.py")}
    helpers = {p.stem for p in (PACKAGE.parent / "tests" / "helpers").glob("*.py")}
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in {"distval", "benchmarks"} | siblings | helpers:
                out.add(name)
    return out


def allowed_in_benchmarks(module: str) -> bool:
    siblings = {p.stem for p in BENCHMARKS.glob("*.py")} - {"__init__", "__main__"}
    return (
        module in {"common", "benchmarks.common"}
        or module in siblings
        or module.removeprefix("benchmarks.") in siblings
        or module in PUBLIC
        or any(module.startswith(p + ".") and module not in MODULES for p in PUBLIC)
    )


def test_benchmarks_import_only_common_their_siblings_and_the_public_api():
    wrong = {
        path.name: sorted(m for m in repository_imports(path)
                          if not allowed_in_benchmarks(m)
                          and m not in BENCHMARK_INTERNALS.get(path.name, set()))
        for path in sorted(BENCHMARKS.glob("*.py"))
    }
    assert {k: v for k, v in wrong.items() if v} == {}


def test_the_benchmark_rule_catches_an_internal_import(tmp_path):
    path = tmp_path / "bench_x.py"
    path.write_text("from common import save\nimport distval.engine.loop\nimport distval\n")
    found = {m for m in repository_imports(path) if not allowed_in_benchmarks(m)}
    assert found == {"distval.engine.loop"}


#: The one module that creates files (:mod:`distval.files`).
FILES_MODULE = PACKAGE / "files.py"
#: Calls that write to the path they are given (a file object is not a path), with the
#: position of that argument.
_PATH_WRITERS = {"savefig": 0, "write_csv": 1, "ParquetWriter": 0, "to_csv": 0,
                 "new_file": 0}


def _mode(node: ast.Call, position: int) -> str:
    """The mode string of an ``open``-like call (positional at ``position``, or ``mode=``)."""
    args = node.args[position:position + 1] + [k.value for k in node.keywords
                                               if k.arg == "mode"]
    return next((a.value for a in args if isinstance(a, ast.Constant)
                 and isinstance(a.value, str)), "r")


def _writes_outside_the_helper(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that write a file by name, not through :mod:`distval.files`:
    ``open``/``Path.open``/``pa.OSFile`` in a writing mode, ``write_text``/``write_bytes``,
    and a ``savefig`` (or another writer of :data:`_PATH_WRITERS`) whose target is not a
    file object (a name bound by ``with ... as NAME`` or to an ``io.BytesIO()``)."""
    handles: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
            handles.add(node.optional_vars.id)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            if (getattr(f, "attr", None) or getattr(f, "id", None)) == "BytesIO":
                handles |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        method = isinstance(f, ast.Attribute)
        if name in ("write_text", "write_bytes"):
            lines.append(node.lineno)
        elif name in ("open", "OSFile") and not (method and getattr(f.value, "id", "")
                                                   in ("os", "Image", "webbrowser")):
            if set(_mode(node, 0 if method and name == "open" else 1)) & set("wax+"):
                lines.append(node.lineno)
        elif name in _PATH_WRITERS and len(node.args) > _PATH_WRITERS[name]:
            target = node.args[_PATH_WRITERS[name]]
            if not (isinstance(target, ast.Name) and target.id in handles):
                lines.append(node.lineno)
    return lines


def test_every_file_is_written_through_the_one_helper():
    """No module but :mod:`distval.files` opens a file for writing by its name, so no
    report, figure, export, table or checkpoint can be written through a link planted in
    a results directory (``open(..., "w")``, ``write_text``, ``savefig(path)`` ...)."""
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in MODULES.values() if path != FILES_MODULE
        for line in _writes_outside_the_helper(ast.parse(path.read_text()))
    ]
    assert offenders == []


def test_the_write_check_finds_what_it_looks_for():
    code = """
import io
def f(path, fig, table):
    path.write_text("x")
    open(path, "w")
    path.open("a")
    fig.savefig(path)
    pacsv.write_csv(table, path / "a.csv")
    buf = io.BytesIO()
    fig.savefig(buf)
    with replacing(path) as fh:
        fig.savefig(fh)
    open(path, "rb")
    open("/proc/loadavg")
    pa.OSFile(str(path))
    pa.OSFile(str(path), "wb")
    pacsv.write_csv(table, fh)
"""
    assert _writes_outside_the_helper(ast.parse(code)) == [4, 5, 6, 7, 8, 16]
