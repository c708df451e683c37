"""Interpolated AP (:mod:`polars_rankeval.measures.interp_ap`) in the one-pass SQL of
:mod:`polars_rankeval._sqlentry` (``sql/rankeval.sql``, ``sql.render``, the dbt package).

Over the relevant rows within the cutoff, in rank order, with h = the relevant rows so
far and R the query's relevant items, the envelope env(x) = max over the relevant rows
y at or below x of h(y) / pos(y) is a running maximum from the bottom: a window per
(spec, group, query) over ``_jl`` (the cutoff bounds it, so it is per spec).  Then

* ``interp=all``: sum of env / R;
* ``interp=voc11`` / ``coco101``: threshold t_i = i x step (step = 0.1 or 0.01 as a
  double, as numpy's ``arange`` and ``linspace`` make them) takes env at the first
  relevant row whose recall h / R >= t_i.  So the row of h takes the thresholds above
  (h - 1) / R (all from t = 0 for h = 1) up to h / R: n(h / R) - n((h - 1) / R) of
  them, n(r) = #{i : t_i <= r}.  n(r) is m + 1 for m = floor(r / step) computed as
  floor(r x N) (N = 10 or 100), checked against t_m and t_{m+1} in double precision
  (so 3 of 10 found, 0.3, does not reach t_3 = 0.30000000000000004, as in the devkits).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankeval.engines.sqltwin.targets import RUNNING

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = ["ctes_sql"]

STEPS = {"voc11": 10, "coco101": 100}


def _reached(d: Dialect, recall: str, steps: int) -> str:
    """n(recall): the thresholds i x (1 / steps), i = 0..steps, that are <= recall."""
    step = f"CAST({1 / steps!r} AS {d.double})"
    m = f"FLOOR({recall} * {steps})"
    return (
        f"(CASE WHEN ({m} + 1) * {step} <= {recall} THEN {m} + 2"
        f" WHEN {m} * {step} <= {recall} THEN {m} + 1 ELSE {m} END)"
    )


def _points(d: Dialect, steps: int) -> str:
    """The thresholds the row of x._hits takes (see the module docstring)."""
    D = d.double
    now = _reached(d, f"CAST(x._hits AS {D}) / x._R", steps)
    above = _reached(d, f"CAST(x._hits - 1 AS {D}) / x._R", steps)
    return f"({now} - CASE WHEN x._hits = 1 THEN 0 ELSE {above} END)"


def ctes_sql(d: Dialect) -> str:
    """The CTEs after ``_jl`` and ``_specs``, each ending with a comma; ``_interpvals``
    holds one value per (spec, group, query) that has a relevant row in the cutoff."""
    g, D = d.g, d.double
    w = f"PARTITION BY s._idx, {g('j')}j._q ORDER BY j._pos DESC"
    weights = " ".join(
        f"WHEN '{name}' THEN {_points(d, steps)} / CAST({steps + 1} AS {d.double})"
        for name, steps in STEPS.items()
    )
    term = f"x._env * CASE x._interp WHEN 'all' THEN 1 {weights} END"
    total = d.ordered(f"SUM({term} ORDER BY x._pos)", f"SUM({term})")
    value = f"CASE WHEN MIN(x._interp) = 'all' THEN {total} / MAX(x._R) ELSE {total} END"
    return f"""
    _interprows AS (
        SELECT s._idx, {g('j')}j._q, j._pos, j._hits, j._R, s._p_interp AS _interp,
            MAX(CAST(j._hits AS {D}) / j._pos) OVER ({w} {RUNNING}) AS _env
        FROM _jl AS j
        JOIN _specs AS s ON s._family = 'InterpAP' AND s._level = j._level
            AND (s._k IS NULL OR j._pos <= s._k)
        WHERE j._rel >= j._level
    ),
    _interpvals AS (
        SELECT x._idx, {g('x')}x._q, {value} AS _v
        FROM _interprows AS x
        GROUP BY x._idx, {g('x')}x._q
    ),"""
