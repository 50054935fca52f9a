"""Finding MOA and Java, compiling distval's Java host, starting the JVM (once per process).

* The jar: ``$DISTVAL_MOA_JAR`` if set, else ``moa.jar`` inside the installed capymoa package
  (found without importing capymoa, which would start its own JVM and create ``./data``).
* Java: ``$JAVA_HOME``, else the ``java`` on ``PATH``; JPype loads its ``libjvm``.
* ``BatchHost.java`` is compiled with that Java's ``javac`` on first use into
  ``$XDG_CACHE_HOME/distval/moa/<key>/`` (default ``~/.cache``), the key hashing the source, the
  jar's size and mtime and the javac path. Compilation goes to a temporary directory renamed
  into place, so concurrent processes never see a half-written class. A JDK is required: with
  a JRE only (no ``javac``) MOA learners are refused with one line saying so.
* JVM options: ``$DISTVAL_JVM_ARGS`` (default ``-Xmx4g``; crash logs go to the temp directory),
  plus :data:`GC_ARGS` unless those options already set them. JPype links the two garbage
  collectors (every Java collection runs a full Python collection), so no explicit Java GC
  and :func:`frozen_python_heap` keep those collections cheap; a 128 MB young generation
  keeps them few without holding memory the job does not need (512 MB cost 260-390 MB of
  peak RSS for no CPU gain); the collector is the throughput one (``-XX:+UseParallelGC``)
  unless the options choose one. Measurements: ``docs/performance.md``,
  ``docs/performance-cpu.md``.
* Ray's failure signal handler (absl) catches the SIGSEGV the JVM raises on purpose (implicit
  null checks) and aborts the process. Starting the JVM therefore sets
  ``RAY_DISABLE_FAILURE_SIGNAL_HANDLER=1`` in this process's environment
  (:func:`keep_jvm_signals`, the one place that sets it; Ray's session calls it too): Ray started
  afterwards by this process (and its workers) keeps the JVM's handlers. Nodes of a cluster
  started separately need the variable set when they start. Python's ``faulthandler`` (which
  Ray's driver and workers enable) does the same; it is turned off before the JVM starts and,
  if something enabled it again since, before calls into the JVM (:func:`guard_signals`).
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from distval.errors import DistvalError

__all__ = [
    "COLLECTORS",
    "EXTRA_HINT",
    "GC_ARGS",
    "find_java_home",
    "frozen_python_heap",
    "guard_signals",
    "host_class",
    "jvm_args",
    "keep_jvm_signals",
    "leave_jvm_at_exit",
    "missing",
    "moa_jar",
    "start_jvm",
]

#: The environment variable that keeps Ray's crash-signal handler off the JVM's signals.
SIGNAL_ENV = "RAY_DISABLE_FAILURE_SIGNAL_HANDLER"

EXTRA_HINT = 'MOA learners need the optional extra: pip install "distval[moa]"'
_SOURCE = Path(__file__).with_name("BatchHost.java")
_HOST_CLASS = "distval.moa.BatchHost"
#: Options that choose the JVM's garbage collector (any of them means the user chose one).
COLLECTORS = tuple(
    f"-XX:{sign}Use{name}GC"
    for name in ("Parallel", "G1", "Serial", "Z", "Shenandoah", "Epsilon", "ConcMarkSweep")
    for sign in "+-"
)
#: JVM options added to ``$DISTVAL_JVM_ARGS``, each with the option prefixes that mean the
#: user set it already: a 128 MB young generation, ``System.gc()`` (JPype's call) a no-op,
#: and the throughput collector instead of G1 (``benchmarks/bench_jvm.py``,
#: ``benchmarks/bench_cpu.py --flags``; measurements in ``docs/performance.md`` and
#: ``docs/performance-cpu.md``).
GC_ARGS = {
    "-Xmn128m": ("-Xmn", "-XX:NewSize", "-XX:MaxNewSize"),
    "-XX:+DisableExplicitGC": ("-XX:+DisableExplicitGC", "-XX:-DisableExplicitGC"),
    "-XX:+UseParallelGC": COLLECTORS,
}


def jvm_args(env: str | None = None) -> list[str]:
    """The JVM's options: ``env`` (default ``$DISTVAL_JVM_ARGS``, else ``-Xmx4g``), then the
    :data:`GC_ARGS` it does not set, then a crash-log location unless it names one.

    >>> jvm_args("-Xmx2g")[:4]
    ['-Xmx2g', '-Xmn128m', '-XX:+DisableExplicitGC', '-XX:+UseParallelGC']
    >>> args = jvm_args("-Xmx2g -Xmn1g -XX:-DisableExplicitGC -XX:+UseG1GC")
    >>> args[:4], "-XX:+UseParallelGC" in args
    (['-Xmx2g', '-Xmn1g', '-XX:-DisableExplicitGC', '-XX:+UseG1GC'], False)
    """
    given = shlex.split(env if env is not None else os.environ.get("DISTVAL_JVM_ARGS", "-Xmx4g"))
    args = given + [
        extra for extra, set_by in GC_ARGS.items()
        if not any(a.startswith(set_by) for a in given)
    ]
    if not any(a.startswith("-XX:ErrorFile") for a in given):
        crash_log = Path(tempfile.gettempdir()) / "distval_hs_err_pid%p.log"
        args.append(f"-XX:ErrorFile={crash_log}")
    return args


@contextlib.contextmanager
def frozen_python_heap() -> Iterator[None]:
    """Python objects that exist on entry are left out of Python's collections until exit
    (:func:`gc.freeze`): the full collections JPype runs after each Java collection then scan
    only what was created since (measurements: ``docs/performance.md``). Nothing is lost: on
    exit the objects go back to the oldest generation. A heap someone else froze is left as
    it is.

    >>> import gc
    >>> with frozen_python_heap():
    ...     gc.get_freeze_count() > 0
    True
    >>> gc.get_freeze_count()
    0
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _capymoa_jar() -> Path | None:
    """``capymoa/jar/moa.jar`` of the installed capymoa, or None (capymoa is not imported)."""
    try:
        spec = importlib.util.find_spec("capymoa")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for where in spec.submodule_search_locations:
        jar = Path(where) / "jar" / "moa.jar"
        if jar.is_file():
            return jar
    return None


def moa_jar() -> Path:
    """The MOA jar distval uses; a :class:`DistvalError` naming the extra if there is none."""
    override = os.environ.get("DISTVAL_MOA_JAR")
    jar: Path | None
    if override:
        jar = Path(override)
        if not jar.is_file():
            raise DistvalError(f"DISTVAL_MOA_JAR={override} is not a file")
        return jar
    jar = _capymoa_jar()
    if jar is None:
        raise DistvalError(f"{EXTRA_HINT} (capymoa ships MOA's jar)")
    return jar


def find_java_home() -> Path:
    """The Java installation to use: ``$JAVA_HOME`` or the one of ``java`` on ``PATH``."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return Path(home)
    java = shutil.which("java")
    if java is None:
        raise DistvalError(
            "MOA learners need Java 11 or newer: no `java` on PATH and no usable JAVA_HOME "
            "(install a JDK, e.g. apt-get install default-jdk-headless)"
        )
    return Path(os.path.realpath(java)).parent.parent


def _libjvm(home: Path) -> Path:
    for sub in ("lib/server", "jre/lib/amd64/server", "lib/client", "jre/lib/server", "bin/server"):
        for name in ("libjvm.so", "libjvm.dylib", "jvm.dll"):
            path = home / sub / name
            if path.exists():
                return path
    raise DistvalError(f"no libjvm found under the Java installation {home}")


def find_javac(home: Path) -> Path:
    """``javac`` of the Java installation (or on PATH); a JRE only is refused."""
    javac = home / "bin" / "javac"
    if javac.exists():
        return javac
    found = shutil.which("javac")
    if not found:
        raise DistvalError(
            f"MOA learners need a JDK (javac), not only a JRE; none found with {home}"
        )
    return Path(found)


def missing() -> str | None:
    """Why MOA learners cannot run here (the ``moa`` extra's jar and JPype, and a JDK are
    needed), or None; nothing is started or imported.

    >>> reason = missing()
    >>> reason is None or "MOA" in reason or "Java" in reason or "JDK" in reason
    True
    """
    try:
        moa_jar()
        home = find_java_home()
        find_javac(home)  # a JRE alone is refused
        _libjvm(home)
    except DistvalError as exc:
        return str(exc)
    if importlib.util.find_spec("jpype") is None:
        return f"{EXTRA_HINT} (JPype is missing)"
    return None


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "distval" / "moa"


def compile_host(jar: Path, javac: Path) -> Path:
    """The directory holding the compiled host class; compiles it the first time."""
    stat = jar.stat()
    key = hashlib.sha256(
        b"\0".join(
            [_SOURCE.read_bytes(), f"{stat.st_size}:{stat.st_mtime_ns}".encode(), bytes(javac)]
        )
    ).hexdigest()[:16]
    target = cache_root() / key
    if (target / "distval" / "moa" / "BatchHost.class").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    print("distval: compiling the MOA batch host (once per MOA version)", file=sys.stderr)
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
    try:
        done = subprocess.run(
            [str(javac), "-nowarn", "-cp", str(jar), "-d", str(tmp), str(_SOURCE)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["(no message)"])[0]
            raise DistvalError(f"compiling the MOA batch host with {javac} failed: {first}")
        with contextlib.suppress(OSError):  # another process got there first
            os.rename(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def sizeof_agent(jar: Path) -> Path:
    """A jar of the ``sizeof`` agent classes MOA's jar holds, with the manifest line its
    own jar lacks (``Premain-Class``): without the agent MOA's ``measureByteSize()`` is 0.
    Made once per MOA jar under :func:`cache_root`."""
    import zipfile

    stat = jar.stat()
    key = hashlib.sha256(f"{jar}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    target = cache_root() / f"sizeofag-{key}.jar"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    part = target.with_name(f"{target.name}.{os.getpid()}.part")
    with zipfile.ZipFile(jar) as src, zipfile.ZipFile(part, "w") as out:
        out.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"
                     "Premain-Class: sizeof.agent.SizeOfAgent\n\n")
        for name in src.namelist():
            if name.startswith("sizeof/agent/") and name.endswith(".class"):
                out.writestr(name, src.read(name))
    os.replace(part, target)
    return target


def guard_signals() -> None:
    """Give SIGSEGV back to the JVM if ``faulthandler`` took it (Ray enables it after the JVM
    started); the JVM uses SIGSEGV itself, and faulthandler would abort the process."""
    if faulthandler.is_enabled():
        faulthandler.disable()


def keep_jvm_signals() -> None:
    """Keep Ray's crash-signal handler off the JVM's signals, in this process and the Ray
    processes it starts (module docstring); a value already set is left alone. Ray reads
    the variable when it is imported, maybe before this call: its copy in this process
    follows it too (else ``ray.init`` installs the handler here, and it takes a SIGTERM).

    >>> keep_jvm_signals(); os.environ[SIGNAL_ENV] in ("0", "1")
    True
    """
    os.environ.setdefault(SIGNAL_ENV, "1")
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None:  # read as Ray reads it
        setattr(constants, SIGNAL_ENV, os.environ[SIGNAL_ENV].lower() in ("1", "true"))


def leave_jvm_at_exit() -> None:
    """If this process started a JVM, leave it to the operating system at exit instead of
    destroying it (JPype's ``DestroyJavaVM`` waits for Java's threads); a no-op otherwise.

    >>> leave_jvm_at_exit()
    """
    if "jpype" in sys.modules:  # read at exit by JPype's atexit hook
        import jpype.config

        jpype.config.destroy_jvm = False


@lru_cache(maxsize=1)
def start_jvm() -> Path:
    """Start the JVM with MOA (once per process); the compiled host's directory. Raises
    :class:`DistvalError` if MOA, JPype, Java or its ``javac`` is missing."""
    jar = moa_jar()
    keep_jvm_signals()
    try:
        import jpype
    except ImportError:
        raise DistvalError(f"{EXTRA_HINT} (JPype is missing)") from None
    home = find_java_home()
    classes = compile_host(jar, find_javac(home))
    if not jpype.isJVMStarted():
        # faulthandler off first, so that turning it off later (guard_signals) restores the
        # JVM's own handler, not whatever preceded faulthandler.
        guard_signals()
        args = [*jvm_args(), f"-javaagent:{sizeof_agent(jar)}"]
        path = [str(jar), str(classes)]
        try:
            jpype.startJVM(str(_libjvm(home)), *args, classpath=path, convertStrings=False)
        except OSError as exc:
            raise DistvalError(f"cannot start the JVM of {home}: {exc}") from None
    else:
        jpype.addClassPath(str(classes))  # no effect once started; the loader below copes
    return classes


@lru_cache(maxsize=1)
def host_class() -> Any:  # a JPype class
    """The Java class ``distval.moa.BatchHost`` (the JVM started first)."""
    classes = start_jvm()
    import jpype

    try:
        return jpype.JClass(_HOST_CLASS)
    except TypeError:  # the JVM was started by someone else: load it with its own loader
        url = jpype.JClass("java.io.File")(str(classes)).toURI().toURL()
        loader = jpype.JClass("java.net.URLClassLoader")(
            [url], jpype.JClass("java.lang.ClassLoader").getSystemClassLoader()
        )
        return jpype.JClass(_HOST_CLASS, loader=loader)
