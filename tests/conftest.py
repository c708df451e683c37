"""Configuration every test folder shares.

* Hypothesis profiles: ``default`` (a fifth of each test's written example count, see
  ``tests.helpers.examples``) and ``full`` (the counts as written: the full grids),
  chosen with ``HYPOTHESIS_PROFILE=full``.  No deadline in either: on a loaded machine
  and under pytest-xdist a time limit per example fails for reasons that are not bugs.
* pytest-xdist runs each test file on one worker (``--dist loadfile`` in pyproject),
  so the module-scoped servers (the throwaway PostgreSQL cluster, the SparkSession)
  start once per run, not once per worker.

The shared helpers and oracles are plain modules beside this file (``helpers``,
``strategies``, ``parity``, ``oracles/pytrec_data``, ``oracles/ir_measures_data``):
test modules never import from each other.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("full", max_examples=100, deadline=None)  # hypothesis' default
settings.register_profile("default", max_examples=20, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
