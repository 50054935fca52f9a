"""Which classes of MOA's jar are classifiers, read from the class files (no JVM).

A class file names its super class and the interfaces it implements in its constant pool
(JVM specification, §4.1 and §4.4). Reading those of every class under ``moa/`` gives the
type hierarchy, and a class is listed as a classifier when it is public and concrete (not
an interface, not abstract), implements ``moa.classifiers.Classifier`` (directly or
through its super classes and interfaces) and is not one of MOA's regressors or multi-label
or multi-target learners (``Regressor``, ``MultiLabelLearner``, ``MultiTargetRegressor``):
the classes a ``moa:`` spec can name for a single nominal class.

>>> info = parse_class(_example_class())
>>> info.name, info.super, info.interfaces, info.public, info.concrete
('moa/classifiers/Toy', 'java/lang/Object', ('moa/classifiers/Classifier',), True, True)
"""

from __future__ import annotations

import struct
import zipfile
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

__all__ = ["ClassInfo", "classifiers", "parse_class"]

#: Interfaces whose implementers are not single-label classifiers.
NOT_CLASSIFIERS = (
    "moa/classifiers/Regressor",
    "moa/classifiers/MultiLabelLearner",
    "moa/classifiers/MultiTargetRegressor",
    "moa/classifiers/predictioninterval/PredictionIntervalLearner",
)
CLASSIFIER = "moa/classifiers/Classifier"

_ACC_PUBLIC, _ACC_INTERFACE, _ACC_ABSTRACT = 0x0001, 0x0200, 0x0400
#: Bytes after the tag of each constant-pool entry of fixed size (Utf8, tag 1, is
#: length-prefixed); Long (5) and Double (6) take two slots.
_SIZES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2,
          17: 4, 18: 4, 19: 2, 20: 2}


@dataclass(frozen=True)
class ClassInfo:
    """A class's internal name (``a/b/C``), super class, interfaces and access."""

    name: str
    super: str | None
    interfaces: tuple[str, ...]
    public: bool
    concrete: bool


def parse_class(data: bytes) -> ClassInfo:
    """The :class:`ClassInfo` of one class file's bytes."""
    if data[:4] != b"\xca\xfe\xba\xbe":
        raise ValueError("not a class file")
    (count,) = struct.unpack_from(">H", data, 8)
    utf8: dict[int, str] = {}
    classes: dict[int, int] = {}
    at, i = 10, 1
    while i < count:
        tag = data[at]
        if tag == 1:
            (n,) = struct.unpack_from(">H", data, at + 1)
            utf8[i] = data[at + 3 : at + 3 + n].decode("utf-8", "replace")
            at += 3 + n
        else:
            if tag == 7:
                (classes[i],) = struct.unpack_from(">H", data, at + 1)
            at += 1 + _SIZES[tag]
        i += 2 if tag in (5, 6) else 1
    flags, this, sup, n_if = struct.unpack_from(">HHHH", data, at)
    ifaces = struct.unpack_from(f">{n_if}H", data, at + 8)

    def name(index: int) -> str:
        return utf8[classes[index]]

    return ClassInfo(
        name(this), name(sup) if sup else None, tuple(name(k) for k in ifaces),
        bool(flags & _ACC_PUBLIC), not flags & (_ACC_INTERFACE | _ACC_ABSTRACT),
    )


@lru_cache(maxsize=4)
def classifiers(jar: Path) -> tuple[str, ...]:
    """The dotted names of the classifiers (see the module) under ``moa.classifiers`` in
    ``jar``, sorted."""
    infos: dict[str, ClassInfo] = {}
    with zipfile.ZipFile(jar) as z:
        for entry in z.namelist():
            if entry.startswith("moa/") and entry.endswith(".class"):
                info = parse_class(z.read(entry))
                infos[info.name] = info

    @cache
    def ancestors(name: str) -> frozenset[str]:
        info = infos.get(name)
        if info is None:
            return frozenset()
        out = set(info.interfaces)
        for parent in (info.super, *info.interfaces):
            if parent:
                out |= ancestors(parent)
        return frozenset(out | ({info.super} if info.super else set()))

    found = []
    for name, info in infos.items():
        if not (name.startswith("moa/classifiers/") and info.public and info.concrete):
            continue
        up = ancestors(name)
        if CLASSIFIER in up and not up.intersection(NOT_CLASSIFIERS):
            found.append(name.replace("/", "."))
    return tuple(sorted(found))


def _example_class() -> bytes:
    """A minimal class file: public class moa/classifiers/Toy implements Classifier."""
    pool = [b"moa/classifiers/Toy", b"java/lang/Object", b"moa/classifiers/Classifier"]
    body = b""
    for k, text in enumerate(pool):  # Utf8 at 1, 3, 5; Class at 2, 4, 6
        body += b"\x01" + struct.pack(">H", len(text)) + text
        body += b"\x07" + struct.pack(">H", 2 * k + 1)
    head = b"\xca\xfe\xba\xbe" + struct.pack(">HHH", 0, 61, 2 * len(pool) + 1)
    tail = struct.pack(">HHHHH", _ACC_PUBLIC, 2, 4, 1, 6) + struct.pack(">HHH", 0, 0, 0)
    return head + body + tail
