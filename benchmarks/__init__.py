"""distval's benchmarks: one harness over named benchmarks (``python -m benchmarks NAME``).

Each named benchmark (:data:`benchmarks.registry.REGISTRY`) is a script of this folder run
with fixed arguments; it measures its ratios in one run and writes
``benchmarks/results/NAME.json`` and ``NAME.md`` through :func:`benchmarks.common.save`,
overwriting the run before (history is git's). The docs' performance tables are rendered
from those files (:mod:`benchmarks.render`).
"""
