"""``ties='average'`` in the one-pass SQL of :mod:`polars_rankeval._sqlentry`
(``sql/rankeval.sql``): the expected value over every ordering of tied rows, in the
closed forms of the polars engine (:mod:`polars_rankeval.prepare.ties`, each family's
``expected``; McSherry & Najork, ECIR 2008).

A tie group is the rows of a (group, query) with an equal score key (or rank): its ``n``
rows, with ``s`` rows of the query above them, hold positions s+1 .. s+n in any order;
the row at ``pos`` is its ``j = pos - s``-th.  Per relevance level, ``r``: its relevant
rows, ``h``: the relevant rows above it, and ``Q(j) = C(n-r, j-1) / C(n, j-1)``: the
probability that none of its first j-1 positions holds a relevant row: through
``LGAMMA`` where the dialect has it (DuckDB: no window), else the polars engine's
running product of ``(n-r-j'+1) / (n-j'+1)`` over the rows above, as a running sum of
logarithms (PostgreSQL 15 and Spark have no ``LGAMMA``; within 1e-15 of the polars
engine on 2000-row tie groups, where ``LGAMMA`` differs by up to 4e-12).  Unlike the judged-only default, these sums read every
retrieved row (a position without a judged row still takes a relevant one with
probability r / n), so the CTEs run only when ``ties = 'average'`` (a constant the
planner folds; the default pays nothing).

Each family's expected value is its usual formula of ``_values`` with the judged-row
sum it reads swapped for the expected one (:func:`cases`): relevant rows become
``r / n`` (P, R, RelP, NumRelRet, Rprec), gains the group's mean gain (nDCG, INSQ,
SDCG), AP's ``hits x rel`` the pair formula; RR and Success read ``Q``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlcwl import DEPTH, LINEAR, linear_gain, linear_weight

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = ["AVERAGE", "FAMILIES", "cases", "ctes_sql", "if_average", "supported_list"]

# the families with an expected value (the registry's ``expected``), in registry order
FAMILIES = tuple(name for name, family in REGISTRY.items() if family.expected is not None)

_HITS = "COALESCE(a._hits_k, 0)"
# family -> (the judged-row sum its usual formula reads, the expected sum replacing it)
_SWAPS = {
    "AP": ("COALESCE(a._prec_k, 0)", "COALESCE(ta._e_prec, 0)"),
    "P": (_HITS, "COALESCE(ta._e_hits, 0)"),
    "R": (_HITS, "COALESCE(ta._e_hits, 0)"),
    "RelP": (_HITS, "COALESCE(ta._e_hits, 0)"),
    "NumRelRet": (_HITS, "COALESCE(ta._e_hits, 0)"),
    "Rprec": ("COALESCE(a._rprec, 0)", "COALESCE(ta._e_rprec, 0)"),
    "nDCG": ("COALESCE(a._dcg, 0)", "COALESCE(ta._e_dcg, 0)"),
    "INSQ": ("COALESCE(a._cwl, 0)", "COALESCE(ta._e_cwl, 0)"),
    "SDCG": ("COALESCE(a._cwl, 0)", "COALESCE(ta._e_cwl, 0)"),
}
_OWN = {
    # sum over positions p <= k of P(first relevant at p) / p
    "RR": "COALESCE(ta._e_rr, 0)",
    # 1 - P(no relevant row through the last position within k)
    "Success": "1 - COALESCE(ta._e_none, 1)",
}
# the order of tied rows does not change them (counts and the qrels' R)
_SAME = ("NumRet", "NumRel", "NumNonRelJudgedRet")


# the piece of the SQL that only ties='average' reads, as the dbt template chooses it
# (``d.choose``: ``reads.get('average')``, set from the call's ``ties``)
AVERAGE = "average"


def if_average(d: Dialect, present: str, absent: str = "") -> str:
    """``present`` where the call may take ``ties='average'``, else ``absent``: decided
    now (``sql.render``: its ``ties``; the macros: always, the SQL itself testing
    ``d.average``) or by the dbt template (``d.choose``), as :func:`~polars_rankeval.
    _sqlprune.keep` decides a pruned piece.

    >>> from polars_rankeval._sqlentry import DUCKDB
    >>> from dataclasses import replace
    >>> if_average(DUCKDB, "x", "y"), if_average(replace(DUCKDB, average=""), "x", "y")
    ('x', 'y')
    """
    if not d.average:
        return absent
    return present if d.choose is None else d.choose(AVERAGE, present, absent)


def supported_list() -> str:
    """The families with ``ties='average'``, as SQL string literals (an IN list).

    >>> supported_list().startswith("'AP', 'P'")
    True
    """
    return ", ".join(f"'{f}'" for f in FAMILIES)


def cases(d: Dialect, usual: dict[str, str]) -> dict[str, str]:
    """``usual`` (family -> its formula in ``_values``) with the families whose expected
    value differs switched on ``d.average``; unchanged where the dialect has none."""
    assert set(_SWAPS) | set(_OWN) | set(_SAME) == set(FAMILIES)
    expected = dict(_OWN)
    for family, (sum_sql, expected_sum) in _SWAPS.items():
        assert sum_sql in usual[family], family
        expected[family] = usual[family].replace(sum_sql, expected_sum)
    return usual | {
        family: if_average(d, f"CASE WHEN {d.average} THEN {value} ELSE {usual[family]} END",
                           usual[family])
        for family, value in expected.items()
    }


def _osum(d: Dialect, value: str) -> str:
    return d.ordered(f"SUM({value} ORDER BY x._pos)", f"SUM({value})")


def _rows_sql(d: Dialect) -> str:
    """CTEs: every retrieved row with its tie group's n, s, r, h and mean gains."""
    g, D = d.g, d.double
    isrel = "CASE WHEN t._rel >= l._level THEN 1 ELSE 0 END"
    grp = f"PARTITION BY l._level, {g('t')}t._q, t._key"
    return f"""
    -- ties='average' only: every retrieved row (judged or not) with its tie group
    _tpos AS (
        SELECT {g('r')}r._q, r._key, q._rel,
            ROW_NUMBER() OVER (
                PARTITION BY {g('r')}r._q ORDER BY r._key DESC, {d.bytes_order('r._item')} DESC
            ) AS _pos
        FROM _run AS r
        LEFT JOIN _qrels AS q ON r._q = q._q AND r._item = q._item
        WHERE {d.average}
    ),
    _tgroup AS (
        SELECT t.*, l._level,
            CAST(COUNT(*) OVER ({grp}) AS {D}) AS _tn,
            CAST(MIN(t._pos) OVER ({grp}) - 1 AS {D}) AS _ts,
            CAST(SUM({isrel}) OVER ({grp}) AS {D}) AS _tr,
            -- relevant rows strictly above the row (h: at the group's top row)
            SUM({isrel}) OVER (
                PARTITION BY l._level, {g('t')}t._q ORDER BY t._pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) - {isrel} AS _tc,
            AVG(CASE WHEN t._rel > 0 THEN t._rel ELSE 0 END) OVER ({grp}) AS _tgl,
            AVG(CASE WHEN t._rel > 0 THEN POWER(2.0, t._rel) - 1 ELSE 0 END) OVER ({grp}) AS _tge
        FROM _tpos AS t
        CROSS JOIN _levels AS l
    ),
    _tied AS (
        SELECT t.*, st._R, CAST(t._pos AS {D}) - t._ts AS _tj,
            CAST(MIN(t._tc) OVER (PARTITION BY t._level, {g('t')}t._q, t._key) AS {D}) AS _th{_log_q_sql(d)}
        FROM _tgroup AS t
        LEFT JOIN _qstat AS st ON st._q = t._q AND st._level = t._level
    ),"""


def _log_q_sql(d: Dialect) -> str:
    """Without LGAMMA: ``_tlq`` = ln Q(j) as a running sum over the group's rows above
    the row of ln((n - r - j' + 1) / (n - j' + 1)) (the polars engine's running product;
    NULL on the top row, 0 terms once j' > n - r, where Q is 0 anyway)."""
    if d.lgamma:
        return ""
    n, r, j = "t._tn", "t._tr", f"(CAST(t._pos AS {d.double}) - t._ts)"
    term = f"CASE WHEN {n} - {r} - {j} + 1 > 0 THEN LN(({n} - {r} - {j} + 1) / ({n} - {j} + 1)) ELSE 0 END"
    return f""",
            SUM({term}) OVER (
                PARTITION BY t._level, {d.g('t')}t._q, t._key ORDER BY t._pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ) AS _tlq"""


def _q_sql(d: Dialect, n: str, r: str, j: str) -> str:
    """Q(j) = C(n-r, j-1) / C(n, j-1) (0 once j - 1 > n - r): from LGAMMA where the
    dialect has it, else from ``_tlq`` (exp of a tiny log taken as 0: PostgreSQL raises
    on underflow)."""
    if d.lgamma:
        value = (
            f"EXP(LGAMMA({n} - {r} + 1) - LGAMMA({n} - {r} - {j} + 2) - LGAMMA({n} + 1)"
            f" + LGAMMA({n} - {j} + 2))"
        )
    else:
        value = "CASE WHEN x._tlq < -700 THEN 0 ELSE EXP(COALESCE(x._tlq, 0)) END"
    return f"CASE WHEN {j} - 1 > {n} - {r} THEN 0 ELSE {value} END"


def _agg_sql(d: Dialect) -> str:
    """CTE: the expected sums per (spec, group, query) over the rows within the cutoff
    (the C/W/L mean gain is taken over the whole group first)."""
    g, D = d.g, d.double
    n, r, h, j = "x._tn", "x._tr", "x._th", "x._tj"
    # Q(j) = C(n-r, j-1) / C(n, j-1), 0 once j - 1 > n - r
    q = _q_sql(d, n, r, j)
    pairs = f"CASE WHEN {n} > 1 THEN ({j} - 1) * {r} * ({r} - 1) / ({n} * ({n} - 1)) ELSE 0 END"
    log2 = d.log2_discount("x._pos")
    linear = "s._family IN (" + ", ".join(f"'{f}'" for f in LINEAR) + ")"
    # an unjudged row gains 0 (GREATEST skips a NULL: test it first)
    cwl_gain = f"CASE WHEN t._rel IS NULL THEN 0 ELSE COALESCE({linear_gain(D, 't._rel')}, 0) END"
    body = f"""
        SELECT x._idx, {g('x')}x._q,
            {_osum(d, f'{r} / {n}')} AS _e_hits,
            {_osum(d, f'(({h} + 1) * {r} / {n} + {pairs}) / x._pos')} AS _e_prec,
            {_osum(d, f'CASE WHEN x._pos <= x._R THEN {r} / {n} ELSE 0 END')} AS _e_rprec,
            {_osum(d, f'CASE WHEN {h} = 0 THEN ({q}) * {r} / (({n} - {j} + 1) * x._pos) ELSE 0 END')}
                AS _e_rr,
            MIN(CASE WHEN {h} > 0 THEN 0 ELSE ({q}) * ({n} - {r} - {j} + 1) / ({n} - {j} + 1) END)
                AS _e_none,
            {_osum(d, f"CASE WHEN x._p_gain = 'exp' THEN x._tge ELSE x._tgl END / {log2}")} AS _e_dcg,
            {_osum(d, 'COALESCE(x._tcg * x._tb, 0)')} AS _e_cwl
        FROM (
            SELECT t.*, s._idx, s._k, s._p_gain,
                CASE WHEN {linear} AND t._pos <= {DEPTH}
                     THEN {linear_weight(D, 't._pos')} END AS _tb,
                AVG(CASE WHEN {linear} THEN {cwl_gain} END) OVER (
                    PARTITION BY s._idx, {g('t')}t._q, t._key) AS _tcg
            FROM _tied AS t
            JOIN _specs AS s ON s._level = t._level
        ) AS x
        WHERE x._k IS NULL OR x._pos <= x._k
        GROUP BY x._idx, {g('x')}x._q
    """
    # planned only for a call asking for ties='average' (DuckDB's macros fold the test)
    return f"""
    _tagg AS ({d.only_when(d.average, body)}),"""


def ctes_sql(d: Dialect) -> str:
    """The CTEs of ``ties='average'`` (after ``_qstat`` and ``_levels``; ``_values``
    joins ``_tagg AS ta``), each ending with a comma; "" where the dialect has none."""
    return if_average(d, _rows_sql(d) + _agg_sql(d) + "\n")
