"""Compat (:mod:`polars_rankeval.measures.compat`) in the one-pass SQL of
:mod:`polars_rankeval._sqlentry` (``sql/rankeval.sql``, ``sql.render``, the dbt package).

A retrieved row of gain g > 0 at position a has ideal position b = (judged items of a
gain above g) + (its place among the retrieved rows of gain g, in rank order): equal
gains stand in run order.  It counts in the overlap from depth max(a, b) on, so the
score is the sum over those rows of T(max(a, b)), T(m) = sum over m <= i <= D of
p^(i-1) / i, D = max(the last retrieved position, ideal items).  T is a running sum
from the bottom over the positions 1..D of each (spec, group, query): the run's own
ranked positions up to the last kept row, then the ideal ranking's beyond it (no
dialect-neutral series function is needed, and no depth limit).  normalize=true divides
by sum over b <= ideal items of T(b) (the ideal with itself), false by sum of p^(i-1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankeval.engines.sqltwin.targets import RUNNING

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = ["ctes_sql"]


def _depth_sql(d: Dialect) -> str:
    """CTEs: per (spec, group, query) with ideal items, the last kept position (_last:
    the retrieved rows after top, less the duplicates dropped below the last kept one)
    and the ideal items (_npos); the positions 1..D (_compatpos)."""
    g, gj = d.g, d.gj
    nall = f"CASE WHEN {d.top} IS NULL THEN x._n ELSE LEAST(x._n, {d.top}) END"
    return f"""
    _compatdepth AS (
        SELECT s._idx, {g('x')}x._q, i._npos,
            {nall} - COALESCE(t._ntail, 0) AS _last
        FROM _rq AS x
        JOIN (SELECT q._q, MAX(q._ipos) AS _npos FROM _ideal AS q GROUP BY q._q) AS i
            ON i._q = x._q
        JOIN _specs AS s ON s._family = 'Compat'
        LEFT JOIN (
            SELECT {g('y')}y._q, SUM(y._tail) AS _ntail FROM _dropped AS y
            GROUP BY {g('y')}y._q
        ) AS t ON {gj('t', 'x')}t._q = x._q
    ),
    _compatpos AS (
        SELECT c._idx, {g('c')}c._q, c._npos, r._pos AS _i
        FROM _compatdepth AS c
        JOIN _ranked AS r ON {gj('r', 'c')}r._q = c._q AND r._pos <= c._last
        UNION ALL
        SELECT c._idx, {g('c')}c._q, c._npos, i._ipos AS _i
        FROM _compatdepth AS c
        JOIN _ideal AS i ON i._q = c._q AND i._ipos > c._last
    ),"""


def _weights_sql(d: Dialect) -> str:
    """CTEs: p^(i-1) and T(i) per position (_compatw); their sums (_compatnorm)."""
    g, D = d.g, d.double
    w = f"PARTITION BY x._idx, {g('x')}x._q ORDER BY x._i DESC"
    best = "CASE WHEN w._i <= w._npos THEN w._tail ELSE 0 END"
    return f"""
    _compatw AS (
        SELECT x.*, SUM(x._pw / x._i) OVER ({w} {RUNNING}) AS _tail
        FROM (
            SELECT p._idx, {g('p')}p._q, p._npos, CAST(p._i AS {D}) AS _i,
                POWER(s._p_p, CAST(p._i - 1 AS {D})) AS _pw
            FROM _compatpos AS p
            JOIN _specs AS s ON s._idx = p._idx
        ) AS x
    ),
    _compatnorm AS (
        SELECT w._idx, {g('w')}w._q,
            {d.ordered(f'SUM({best} ORDER BY w._i)', f'SUM({best})')} AS _best,
            {d.ordered('SUM(w._pw ORDER BY w._i)', 'SUM(w._pw)')} AS _wsum
        FROM _compatw AS w
        GROUP BY w._idx, {g('w')}w._q
    ),"""


def ctes_sql(d: Dialect) -> str:
    """The CTEs after ``_judged``, ``_ideal``, ``_dropped`` and ``_specs``, each ending
    with a comma; ``_compatvals`` holds one value per (spec, group, query) that has a
    retrieved row of gain > 0."""
    g, gj, D = d.g, d.gj, d.double
    w = f"PARTITION BY s._idx, {g('j')}j._q, j._rel ORDER BY j._pos"
    score = d.ordered("SUM(w._tail ORDER BY r._m)", "SUM(w._tail)")
    value = (
        "CASE WHEN MIN(s._p_normalize) = 'false' THEN " + score + " / MAX(n._wsum)"
        " WHEN MAX(n._best) > 0 THEN " + score + " / MAX(n._best) ELSE 0 END"
    )
    return _depth_sql(d) + _weights_sql(d) + f"""
    _compatrows AS (
        SELECT s._idx, {g('j')}j._q,
            GREATEST(j._pos, a._above + ROW_NUMBER() OVER ({w})) AS _m
        FROM _judged AS j
        JOIN _specs AS s ON s._family = 'Compat' AND s._level = j._level
        JOIN (
            SELECT i._q, i._rel, MIN(i._ipos) - 1 AS _above FROM _ideal AS i
            GROUP BY i._q, i._rel
        ) AS a ON a._q = j._q AND a._rel = j._rel
        WHERE j._rel > 0
    ),
    _compatvals AS (
        SELECT r._idx, {g('r')}r._q, CAST({value} AS {D}) AS _v
        FROM _compatrows AS r
        JOIN _specs AS s ON s._idx = r._idx
        JOIN _compatw AS w ON w._idx = r._idx AND {gj('w', 'r')}w._q = r._q AND w._i = r._m
        JOIN _compatnorm AS n ON n._idx = r._idx AND {gj('n', 'r')}n._q = r._q
        GROUP BY r._idx, {g('r')}r._q
    ),"""
