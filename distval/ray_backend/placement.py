"""Where the Ray backend's (learner, fold) slots go: dealt round-robin at the start, placed by
their measured cost (longest processing time first) at the hand-over and at each look.

>>> balance_slots({(0, 0): 2.0, (0, 1): 1.0, (0, 2): 1.0}, 2)
[[(0, 0)], [(0, 1), (0, 2)]]
"""

from __future__ import annotations

__all__ = ["MIN_GAIN", "Slot", "balance_slots", "deal_slots", "spread"]

#: Replicas move when that cuts the busiest actor's excess over the mean work by at least
#: this share of the mean.
MIN_GAIN = 0.02

Slot = tuple[int, int]


def deal_slots(n_learners: int, n_folds: int, n_actors: int) -> list[list[Slot]]:
    """Deal the (learner, fold) slots round-robin to at most ``n_actors`` groups.

    >>> deal_slots(2, 3, 2)
    [[(0, 0), (0, 2), (1, 1)], [(0, 1), (1, 0), (1, 2)]]
    """
    slots = [(i, f) for i in range(n_learners) for f in range(n_folds)]
    n = max(1, min(n_actors, len(slots)))
    return [slots[i::n] for i in range(n)]


def balance_slots(costs: dict[Slot, float], n_groups: int) -> list[list[Slot]]:
    """The slots in ``n_groups`` groups of even summed cost: the costliest slot first, each to
    the group with the least so far (longest processing time first, at most 4/3 of the best
    layout's largest group; Graham, SIAM J. Appl. Math. 17, 1969). Groups list their slots in
    order.

    >>> balance_slots({(0, 0): 5.0, (0, 1): 4.0, (1, 0): 3.0, (1, 1): 3.0, (1, 2): 1.0}, 2)
    [[(0, 0), (1, 1)], [(0, 1), (1, 0), (1, 2)]]
    """
    groups: list[list[Slot]] = [[] for _ in range(max(1, min(n_groups, len(costs))))]
    loads = [0.0] * len(groups)
    for slot in sorted(costs, key=lambda s: (-costs[s], s)):
        least = loads.index(min(loads))
        groups[least].append(slot)
        loads[least] += costs[slot]
    return [sorted(g) for g in groups]


def spread(groups: list[list[Slot]], costs: dict[Slot, float]) -> float:
    """How far the costliest group is above the mean group: max / mean - 1 (0: even).

    >>> spread([[(0, 0)], [(0, 1), (0, 2)]], {(0, 0): 3.0, (0, 1): 0.5, (0, 2): 0.5})
    0.5
    """
    loads = [sum(costs.get(s, 0.0) for s in g) for g in groups]
    mean = sum(loads) / len(loads)
    return max(loads) / mean - 1 if mean > 0 else 0.0
