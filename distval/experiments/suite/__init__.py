"""Suites: many streams x many learners in one command, with cross-stream statistics."""
