"""Routing: which fold replica sees which row, and when its label arrives.

- :mod:`~distval.routing.validation`: the fold assignment of each scheme;
- :mod:`~distval.routing.delays`: delayed and partially labelled rows.
"""
