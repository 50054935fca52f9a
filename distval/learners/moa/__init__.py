"""MOA learners inside distval's fold replicas: ``moa:<MOA CLI>`` learner specs.

Everything after ``moa:`` is MOA's own syntax: a class relative to ``moa.classifiers.`` (or
fully qualified) and its options, e.g. ``moa:trees.HoeffdingTree -g 50`` or
``moa:meta.AdaptiveRandomForest -s 10``. MOA itself parses it (``ClassOption``); a bad string
is a :class:`~distval.errors.DistvalError` with MOA's message. Randomizable learners get a
distinct seed per (learner, fold) through their random seed (``-r``). The replicas run in
the JVM, a batch per call (:mod:`.replicas`); needs the ``moa`` extra and Java.

MOA constructs a class before it checks the class's type, so the spec is checked first
(:func:`check_classes`): the learner must be a MOA classifier and every other Java class the
string names must be one of MOA's (package ``moa.``); ``file:`` and ``inmem:`` values (an
object Java deserializes), at the head of the spec or in any option however deeply nested, are
refused before the JVM starts.

>>> is_moa("moa:bayes.NaiveBayes"), is_moa("nb")
(True, False)
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from functools import lru_cache
from typing import Any

from distval.errors import DistvalError

__all__ = [
    "PREFIX",
    "available",
    "check_classes",
    "is_moa",
    "moa_cli",
    "moa_families",
    "print_families",
    "start",
    "template",
    "validate",
]

PREFIX = "moa:"


def available() -> bool:
    """Whether MOA learners can run here: the jar (``moa`` extra), JPype and Java are found.

    Cheap: no JVM is started.
    """
    import importlib.util

    from distval.learners.moa import jvm

    try:
        jvm.moa_jar()
        jvm.find_java_home()
    except DistvalError:
        return False
    return importlib.util.find_spec("jpype") is not None


def is_moa(text: str) -> bool:
    """Whether a learner text is a ``moa:`` spec."""
    return text.strip().lower().startswith(PREFIX)


def moa_cli(text: str) -> str:
    """MOA's own CLI string of a ``moa:`` spec (the part after the prefix, trimmed)."""
    return text.strip()[len(PREFIX) :].strip()


@lru_cache(maxsize=256)
def validate(cli: str) -> str:
    """Parse ``cli`` with MOA's ``ClassOption``; returns the fully qualified class name.

    Starts the JVM (once per process). Raises :class:`DistvalError` with MOA's message.
    """
    return str(template(cli).getClass().getName())


#: MOA reads an object for an option given as ``file:PATH`` (Java deserialization) or
#: ``inmem:NAME``, at any depth of a spec; refused anywhere in it, whatever the case.
_DESERIALIZED = re.compile(r"(?i)(file|inmem)\s*:")

_JAVA_NAME = re.compile(r"(?<![\w.$])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


def start(clis: list[str]) -> None:
    """Start the JVM of this process and load the batch host and each learner's class
    (``clis``: MOA's syntax, without ``moa:``), so that the first replicas to arrive find
    them ready (:meth:`~distval.learners.registry.LearnerSpec.start`: a Ray learner actor
    calls it while it boots, instead of paying the JVM's start, seconds on a busy machine,
    when the driver hands it its replicas and waits).
    """
    from distval.learners.moa.replicas import start_host

    start_host()
    for cli in clis:
        check_classes(cli)


def check_classes(cli: str) -> None:
    """Refuse a MOA spec before MOA constructs anything: its class must be a MOA classifier
    (``moa.classifiers.Classifier``, looked up without initialising it) and every other
    dotted name in it that is a Java class must belong to MOA (``moa.*``). Starts the JVM.
    """
    from distval.learners.moa import jvm

    if _DESERIALIZED.search(cli):
        raise DistvalError(
            f"learner 'moa:{cli}': MOA specs must name classes, not 'file:' or 'inmem:' "
            "objects (MOA would deserialize them); nothing was read"
        )
    jvm.start_jvm()
    import jpype

    java_class = jpype.JClass("java.lang.Class")
    loader = jpype.JClass("java.lang.ClassLoader").getSystemClassLoader()

    def find(name: str) -> Any:
        try:
            return java_class.forName(name, False, loader)  # no static initialiser runs
        except (jpype.JException, TypeError, RuntimeError):
            return None

    head = cli.split()[0].strip("()")
    found = find(head) or find(f"moa.classifiers.{head}")
    classifier = jpype.JClass("moa.classifiers.Classifier").class_
    if found is not None and not classifier.isAssignableFrom(found):
        raise DistvalError(
            f"learner 'moa:{cli}' names {found.getName()}, not a MOA classifier "
            "(moa.classifiers.Classifier); nothing was constructed"
        )
    for name in _JAVA_NAME.findall(cli):
        other = find(name)
        if other is not None and not str(other.getName()).startswith("moa."):
            raise DistvalError(
                f"learner 'moa:{cli}' names the Java class {name}, which is not part of MOA; "
                "nothing was constructed"
            )


def template(cli: str) -> Any:  # a JPype proxy of moa.classifiers.Classifier
    """A new, untrained MOA classifier parsed from ``cli`` (a :class:`DistvalError` if bad)."""
    if not cli:
        raise DistvalError("learner 'moa:' names no MOA class, e.g. moa:trees.HoeffdingTree")
    check_classes(cli)
    import jpype

    classifier = jpype.JClass("moa.classifiers.Classifier")
    option = jpype.JClass("moa.options.ClassOption")
    try:
        obj = option.cliStringToObject(cli, classifier, None)
    except jpype.JException as exc:
        message = str(exc.getMessage() or exc)
        cause = exc.getCause()
        if cause is not None and cause.getMessage() is not None:
            message = f"{message}: {cause.getMessage()}"
        message = " ".join(message.split())
        raise DistvalError(f"learner 'moa:{cli}': MOA says: {message}") from None
    return obj


def moa_families() -> dict[str, list[str]]:
    """``moa.classifiers`` families -> the classifiers' class names in the jar: public,
    concrete classes implementing ``moa.classifiers.Classifier`` that are not regressors
    or multi-label/target learners (:func:`~distval.learners.moa.classfiles.classifiers`,
    read from the class files: no JVM needed)."""
    from distval.learners.moa.classfiles import classifiers
    from distval.learners.moa.jvm import moa_jar

    families: dict[str, list[str]] = {}
    for name in classifiers(moa_jar()):
        parts = name.split(".")
        if len(parts) == 4 and "$" not in parts[3]:
            families.setdefault(parts[2], []).append(parts[3])
    return {k: sorted(v) for k, v in sorted(families.items())}


def print_families() -> None:
    """Print the MOA families for ``distval learners`` (nothing without the extra)."""
    try:
        families = moa_families()
    except (DistvalError, OSError, zipfile.BadZipFile):
        print("moa:...      MOA learners: " + 'pip install "distval[moa]"')
        return
    print(
        "\nMOA learners, moa:<family>.<Class> [MOA options] (e.g. 'moa:trees.HoeffdingTree -g 50'):"
    )
    sizes = Counter({k: len(v) for k, v in families.items()})
    for family, names in families.items():
        shown = ", ".join(names[:6]) + (", ..." if sizes[family] > 6 else "")
        print(f"  {family + '.':18s}{shown}")
