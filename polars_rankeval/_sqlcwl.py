"""The C/W/L measures (:mod:`polars_rankeval.measures.cwl`) in the one-pass SQL of
:mod:`polars_rankeval._sqlentry` (``sql/rankeval.sql``, ``sql.render``, the dbt package).

A C/W/L value is ``sum_i W_i g_i`` over the positions i <= D = min(k, 1000); the gain
g of a judged row is its relevance clipped at 0, then to [min_rel, max_rel], scaled to
0..1 (0 unjudged).  With b(i) a family's base weight and B(m) = sum_{i<=m} b(i):

* linear families (INSQ, SDCG): sum over the judged rows of g b(pos), divided by B(D):
  one more sum of ``_agg`` (:func:`linear_term`);
* stopping families (NERR8-NERR11): the user stops at a row with probability its gain.
  Over the rows with g > 0 (a row of gain 0 changes nothing), in rank order, with S_r =
  prod over the rows <= r of (1 - g): ``sum_r S_{r-1} g_r b(p_r) / (B(p_1) + sum_r S_r
  (B(next_r) - B(p_r)))``, next of the last row D (measures/cwl.py's ``_weighted``);
* BPM: s = the first position where the running gain reaches T, else D: G_s / s.

* INST: the continuation ((i + 2T - G_i - 1) / (i + 2T - G_i))^2 depends on the running
  gain; where it is constant (c = 2T - G) the weights are A / (i - 1 + c)^2, so the
  stretch after a row sums to A (psi'(p + c) - psi'(next + c)) (measures/cwl.py's
  ``_inst``, the trigamma psi' as the same series, :func:`_trigamma`).

b and B come from a table of 1000 positions per spec (three digit tables cross joined:
not every dialect has a series function).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from polars_rankeval.engines.sqltwin.targets import RUNNING
from polars_rankeval.measures.cwl import TRIGAMMA_HEAD, TRIGAMMA_TAIL

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = ["FAMILIES", "LINEAR", "cases", "ctes_sql", "linear_gain", "linear_term", "linear_weight"]

# base weight b at position {i} (a double) of the families read from the table
LINEAR = {
    "INSQ": "1 / POWER({i} - 1 + 2 * s._p_T, 2)",  # (i + 2T - 1)^-2
    "SDCG": "1 / (LN({i} + 1) / LN(2.0))",  # 1 / log2(i + 1)
}
STOPPING = {
    "NERR8": "1.0",
    "NERR9": "1 / {i}",  # prod_{j<i} j / (j + 1)
    "NERR10": "POWER(s._p_p, {i} - 1)",
    "NERR11": "1 / POWER({i} - 1 + 2 * s._p_T, 2)",
}
GOAL = ("BPM",)
FAMILIES = (*LINEAR, *STOPPING, *GOAL, "INST")

# the last position with a weight: the cutoff, no deeper than 1000 (cwl-eval's max_n)
DEPTH = "CASE WHEN s._k IS NULL OR s._k > 1000 THEN 1000 ELSE s._k END"
# below this a product of (1 - g) is 0 (PostgreSQL's EXP raises on an underflow)
LN_FLOOR = "-700"


def _in(families: tuple[str, ...] | dict[str, str]) -> str:
    return "s._family IN (" + ", ".join(f"'{f}'" for f in families) + ")"


def _weight(families: dict[str, str], i: str) -> str:
    whens = "".join(f" WHEN '{f}' THEN {b.format(i=i)}" for f, b in families.items())
    return f"CASE s._family{whens} END"


def _gain(double: str, rel: str) -> str:
    lo, hi = "s._p_min_rel", "s._p_max_rel"
    return (
        f"(LEAST(GREATEST(GREATEST(CAST({rel} AS {double}), 0), {lo}), {hi}) - {lo})"
        f" / NULLIF({hi} - {lo}, 0)"
    )


def linear_gain(double: str, rel: str) -> str:
    """The gain g of a row of relevance ``rel`` for spec ``s`` (NULL: unjudged)."""
    return _gain(double, rel)


def linear_weight(double: str, pos: str) -> str:
    """b(pos) of a linear family's spec ``s`` (NULL for the other families)."""
    return _weight(LINEAR, f"CAST({pos} AS {double})")


def linear_term(double: str) -> str:
    """g x b(pos) of a judged row ``jl`` of a linear family's spec ``s``."""
    return f"{_gain(double, 'jl._rel')} * {_weight(LINEAR, f'CAST(jl._pos AS {double})')}"


def _positions() -> str:
    digits = "(" + " UNION ALL ".join(
        f"SELECT {n}" + (" AS _d" if n == 0 else "") for n in range(10)
    ) + ")"
    return (
        "(SELECT d1._d + 10 * d2._d + 100 * d3._d + 1 AS _i\n"
        f"            FROM {digits} AS d1\n            CROSS JOIN {digits} AS d2"
        f"\n            CROSS JOIN {digits} AS d3)"
    )


def _trigamma(x: str) -> str:
    """psi'(x) (x > 0, a double) as measures/cwl.py's series, written in SQL."""
    head = " + ".join(f"1 / POWER({x} + {n}, 2)" for n in range(TRIGAMMA_HEAD))
    z = f"({x} + {TRIGAMMA_HEAD})"
    tail = ""
    for numerator, denominator, power in TRIGAMMA_TAIL:
        term = f"{abs(numerator)} / " + (
            z if power == 1 else f"({denominator} * POWER({z}, {power}))"
        )
        tail += term if not tail else (" + " if numerator > 0 else " - ") + term
    return f"({head} + {tail})"


def _osum(d: Dialect, value: str, key: str) -> str:
    return d.ordered(f"SUM({value} ORDER BY {key})", f"SUM({value})")


def _tables_sql(d: Dialect) -> str:
    """CTEs: b(i) per spec and position (_cwltab), B(D) (_cwlnorm), B(i) (_cwlcum)."""
    both = {**LINEAR, **STOPPING}
    norm = f"""
        SELECT t._idx, {_osum(d, 't._b', 't._i')} AS _norm
        FROM _cwltab AS t
        GROUP BY t._idx
    """
    # the CTEs _values reads are guarded (d.guarded: the DuckDB macros' pruning)
    return f"""
    _cwltab AS (
        SELECT s._idx, p._i, {_weight(both, f'CAST(p._i AS {d.double})')} AS _b
        FROM _specs AS s
        JOIN {_positions()} AS p ON p._i <= {DEPTH}
        WHERE {_in(both)}
    ),
    _cwlnorm AS ({d.guarded("cwl", norm)}),
    _cwlcum AS (
        SELECT t._idx, t._i, t._b,
            SUM(t._b) OVER (PARTITION BY t._idx ORDER BY t._i {RUNNING}) AS _cb
        FROM _cwltab AS t
        JOIN _specs AS s ON s._idx = t._idx AND {_in(STOPPING)}
    ),"""


def _rows_sql(d: Dialect) -> str:
    """CTEs: the stopping and BPM specs' judged rows of gain > 0 with their running
    gain, product of (1 - g) (zeros counted, logs summed) and next position; then their
    sums per (spec, group, query)."""
    g = d.g
    w = f"PARTITION BY x._idx, {g('x')}x._q ORDER BY x._pos"
    ln = "CASE WHEN x._gn < 1 THEN LN(1 - x._gn) ELSE 0 END"
    # S_r (rows <= r) and S_{r-1} (the rows above)
    s_r = f"CASE WHEN r._z > 0 OR r._ln < {LN_FLOOR} THEN 0 ELSE EXP(r._ln) END"
    own_z = "CASE WHEN r._gn >= 1 THEN 1 ELSE 0 END"
    own_ln = "CASE WHEN r._gn < 1 THEN LN(1 - r._gn) ELSE 0 END"
    s_above = (
        f"CASE WHEN r._z - {own_z} > 0 OR r._ln - {own_ln} < {LN_FLOOR} THEN 0"
        f" ELSE EXP(r._ln - {own_ln}) END"
    )
    agg = f"""
        SELECT r._idx, {g('r')}r._q,
            {_osum(d, f'({s_above}) * r._gn * c._b', 'r._pos')} AS _num,
            MIN(c._cb) AS _bfirst,
            {_osum(d, f'({s_r}) * (COALESCE(n._cb, nm._norm) - c._cb)', 'r._pos')} AS _rest,
            MIN(CASE WHEN r._cg >= s._p_T THEN r._pos END) AS _reach,
            MIN(CASE WHEN r._cg >= s._p_T THEN r._cg END) AS _greach,
            MAX(r._cg) AS _gall
        FROM _cwlrows AS r
        JOIN _specs AS s ON s._idx = r._idx
        LEFT JOIN _cwlcum AS c ON c._idx = r._idx AND c._i = r._pos
        LEFT JOIN _cwlcum AS n ON n._idx = r._idx AND n._i = r._next
        LEFT JOIN _cwlnorm AS nm ON nm._idx = r._idx
        WHERE s._family <> 'INST'
        GROUP BY r._idx, {g('r')}r._q
        UNION ALL
        {_inst_sql(d)}
    """
    return f"""
    _cwlrows AS (
        SELECT x._idx, {g('x')}x._q, x._pos, x._gn,
            SUM(x._gn) OVER ({w} {RUNNING}) AS _cg,
            SUM(CASE WHEN x._gn >= 1 THEN 1 ELSE 0 END) OVER ({w} {RUNNING}) AS _z,
            SUM({ln}) OVER ({w} {RUNNING}) AS _ln,
            LEAD(x._pos) OVER ({w}) AS _next
        FROM (
            SELECT s._idx, {g('j')}j._q, j._pos, {_gain(d.double, 'j._rel')} AS _gn
            FROM _judged AS j
            JOIN _specs AS s ON s._level = j._level AND j._pos <= {DEPTH}
                AND {_in((*STOPPING, *GOAL, "INST"))}
        ) AS x
        WHERE x._gn > 0
    ),
    _cwlagg AS ({d.guarded("cwl", agg)}),
"""


def _inst_sql(d: Dialect) -> str:
    """INST's sums per (spec, group, query) in _cwlagg's columns: _num over _bfirst (the
    positions above the first row, c = 2T) + _rest (the stretches after each row, c =
    _ca = 2T - running gain, weighted A = 4T^2 x the product of the rows' ratios
    ((p - 1 + c after) / (p - 1 + c before))^2: zeros counted, logs summed)."""
    g, D = d.g, d.double
    w = f"PARTITION BY x._idx, {g('x')}x._q ORDER BY x._pos"
    own_z = "CASE WHEN y._ratio > 0 THEN 0 ELSE 1 END"
    own_ln = "CASE WHEN y._ratio > 0 THEN LN(y._ratio) ELSE 0 END"
    a_after = f"4 * y._t * y._t * CASE WHEN y._zr > 0 OR y._lr < {LN_FLOOR} THEN 0 ELSE EXP(y._lr) END"
    a_before = (
        f"4 * y._t * y._t * CASE WHEN y._zr - {own_z} > 0 OR y._lr - {own_ln} < {LN_FLOOR}"
        f" THEN 0 ELSE EXP(y._lr - {own_ln}) END"
    )
    pos = f"CAST(y._pos AS {D})"
    nxt = f"CAST(COALESCE(y._next, 1000) AS {D})"
    two_t = "2 * MAX(y._t)"
    num = f"({a_before}) * y._gn / POWER({pos} - 1 + y._ca + y._gn, 2)"
    rest = f"({a_after}) * ({_trigamma(f'{pos} + y._ca')} - {_trigamma(f'{nxt} + y._ca')})"
    first = f"CAST(MIN(y._pos) AS {D})"
    return f"""SELECT y._idx, {g('y')}y._q,
            {_osum(d, num, 'y._pos')} AS _num,
            {two_t} * {two_t} * ({_trigamma(two_t)} - {_trigamma(f'{first} + {two_t}')}) AS _bfirst,
            {_osum(d, rest, 'y._pos')} AS _rest,
            NULL AS _reach, NULL AS _greach, NULL AS _gall
        FROM (
            SELECT x.*,
                SUM(CASE WHEN x._ratio > 0 THEN LN(x._ratio) ELSE 0 END) OVER ({w} {RUNNING}) AS _lr,
                SUM(CASE WHEN x._ratio > 0 THEN 0 ELSE 1 END) OVER ({w} {RUNNING}) AS _zr
            FROM (
                SELECT r.*, s._p_T AS _t, 2 * s._p_T - r._cg AS _ca,
                    POWER((r._pos - 1 + 2 * s._p_T - r._cg)
                          / (r._pos - 1 + 2 * s._p_T - r._cg + r._gn), 2) AS _ratio
                FROM _cwlrows AS r
                JOIN _specs AS s ON s._idx = r._idx AND s._family = 'INST'
            ) AS x
        ) AS y
        GROUP BY y._idx, {g('y')}y._q"""


def ctes_sql(d: Dialect) -> str:
    """The C/W/L CTEs, after ``_judged`` and ``_specs``, each ending with a comma;
    ``_values`` joins ``_cwlnorm AS cn`` and ``_cwlagg AS cw``."""
    return _tables_sql(d) + _rows_sql(d)


def cases(d: Dialect) -> dict[str, str]:
    """The C/W/L formulas of ``_values`` (``a._cwl``: :func:`linear_term` summed by
    ``_agg``); min_rel >= max_rel raises, as measures/cwl.py does."""
    bad = "WHEN s._p_max_rel <= s._p_min_rel THEN " + d.fail(
        "s._name || ': min_rel must be below max_rel'"
    )
    linear = f"CASE {bad} ELSE COALESCE(a._cwl, 0) / cn._norm END"
    stopping = (
        f"CASE {bad} WHEN cw._num IS NULL THEN 0"
        " ELSE cw._num / (cw._bfirst + cw._rest) END"
    )
    goal = (
        f"CASE {bad} WHEN cw._reach IS NOT NULL THEN cw._greach / cw._reach"
        f" ELSE COALESCE(cw._gall, 0) / CAST({DEPTH} AS {d.double}) END"
    )
    return {
        **dict.fromkeys(LINEAR, linear),
        **dict.fromkeys((*STOPPING, "INST"), stopping),
        **dict.fromkeys(GOAL, goal),
    }
