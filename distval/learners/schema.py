"""What a learner host knows of the stream's attributes: names, nominal values, classes.

River learners need none of it; MOA learners get their ``InstancesHeader`` from it. Nominal
values and classes may grow while a pass reads (first-appearance encoding); the schema holds
what is known when the host is built, and hosts grow their own copy as codes appear.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from distval.streams.base import Stream

__all__ = ["Schema"]


@dataclass(frozen=True)
class Schema:
    """Feature names, the known values of nominal features and the known class count.

    >>> from distval.streams import open_stream
    >>> s = Schema.of(open_stream("elec2"))
    >>> s.nominal["day"][:2], s.n_classes
    (('1', '2'), 2)
    >>> Schema(("a", "b")).nominal_index
    {}
    """

    feature_names: tuple[str, ...]
    nominal: dict[str, tuple[str, ...]] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    n_classes: int = 2
    #: Whether the target is a number (a regression run): MOA's header then declares a
    #: numeric class attribute.
    numeric_target: bool = False

    @classmethod
    def of(cls, stream: Stream) -> Schema:
        """The schema a :class:`~distval.streams.Stream` knows before its pass starts."""
        domain: list[str] = (
            getattr(stream, "_label_domain", None) or getattr(stream, "_label_order", None) or []
        )
        classes = tuple(stream.classes)
        return cls(
            feature_names=tuple(stream.feature_names),
            nominal={f: tuple(v) for f, v in stream.nominal.items() if f in stream.feature_names},
            classes=classes,
            n_classes=max(2, len(classes), len(domain)),
        )

    @property
    def nominal_index(self) -> dict[int, str]:
        """Column index -> name of the nominal features."""
        return {j: f for j, f in enumerate(self.feature_names) if f in self.nominal}
