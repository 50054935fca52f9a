"""The driver both backends share.

- :mod:`~distval.engine.loop`: routed batches in, steps out (the in-process backend);
- :mod:`~distval.engine.run`: a run's books (result, disk, live status).
"""
