"""The Ray layer: the only package of distval that imports Ray.

- :mod:`~distval.ray_backend.session`: start or join Ray, shut down what we started;
- :mod:`~distval.ray_backend.actors`: the thin actor bodies (imported by every Ray worker, so
  they import almost nothing);
- :mod:`~distval.ray_backend.fleet`: a run's actors, kept warm in a running Ray for the next;
- :mod:`~distval.ray_backend.engine`: the evaluation's hosts and aggregator in actors;
- :mod:`~distval.ray_backend.recovery`: what happens when one of those actors dies;
- :mod:`~distval.ray_backend.tasks`: one bounded fan-out of independent tasks, for studies.

Nothing is imported here, so that a worker that loads the actor bodies stays light.
"""
