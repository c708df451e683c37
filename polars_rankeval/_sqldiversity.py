"""The diversity family (:mod:`polars_rankeval.diversity`: alpha_nDCG, alpha_DCG, ERR_IA,
nERR_IA, NRBP, nNRBP, AP_IA, P_IA, StRecall) in the one-pass SQL of
:mod:`polars_rankeval._sqlentry`, over one more input: ``_subq`` (_q, _sub, _item, _rel,
_w), the subtopic qrels with each (query, subtopic)'s intent weight (1 without one).

As :mod:`polars_rankeval.diversity.compute`: the relevant (spec, query, subtopic, item)
pairs are the rows of relevance >= the spec's level (intent weights only for the
intent-aware families, :data:`WEIGHTED`); a kept run row (after ``top``, less the dropped
duplicates) gains w (1 - alpha)^c per relevant subtopic, c = the subtopic's relevant
rows above it.  alpha_DCG and ERR_IA divide by N x the "ideal ideal" sum over ranks
1..k (a recursive CTE counts them); the n-variants by the discounted gains of ndeval's
greedy ideal ranking: a recursive CTE whose every step places, per (spec, query), the
unplaced item of largest gain given those placed (ties to the item greatest in byte
order, ndeval's strcmp), to the depth the measure reads (k; nNRBP: until beta^(i-1) <
2^-60, or every item when beta = 1).  Its recursive term is one level of windows over
its own rows, which DuckDB and PostgreSQL allow (``Dialect.recursive``).  Spark's
recursive CTEs take no window over the recursive reference: there (``Dialect.arrays``)
the same greedy choice is a fold over each (spec, query)'s items gathered in one array
(AGGREGATE over SEQUENCE(1, depth) with lambdas), the depth as above or every item.
Other dialects get an empty ``_divvals`` and their renderings refuse the family.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polars_rankeval.diversity.families import DIVERSITY

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = ["FAMILIES", "NORMALISED", "WEIGHTED", "SubqSpelling", "ctes_sql", "subq_sql"]

FAMILIES = tuple(DIVERSITY)
WEIGHTED = ("ERR_IA", "nERR_IA", "P_IA", "AP_IA")  # intent weights (intent_weight=)
NORMALISED = ("alpha_nDCG", "nERR_IA", "nNRBP")  # over the greedy ideal ranking
IDEAL_IDEAL = ("alpha_DCG", "ERR_IA")  # over N x the ideal-ideal sum to k
# ln(2^-60): nNRBP's ideal stops where beta^(i-1) adds less than 2^-60 (as the polars engine)
_LN_EPS = repr(math.log(2.0**-60))

@dataclass(frozen=True)
class SubqSpelling:
    """How a generator spells the pieces of :func:`subq_sql` (``sql.render``: SQL for a
    dialect, :mod:`polars_rankeval.engines.sqltwin.render`; the dbt package: Jinja,
    :mod:`polars_rankeval._sqldbt`)."""

    keys: str  # the ``_q, _item`` select lines: the qrels' ids, raising when null
    query: str  # the qrels' columns, qualified (x.<name>)
    item: str
    subtopic: str
    weight: str  # the intent weight as a double (1.0 without a column)
    weight_finite: str  # true when the weight is finite
    relevance: str  # the relevance as a double, raising when null, NaN or infinite
    text: str  # the text type
    # SQL raising a message ({subtopic}, {intent_weight}: the user's column names) with
    # the row's query as example
    fail: Callable[[str], str]
    relation: str  # the qrels table


def subq_sql(s: SubqSpelling) -> str:
    """The ``_subq`` CTE of subtopic qrels, read by every measure (``_qrels``: an item's
    highest relevance over its subtopics) and the diversity measures: _q, _item, _sub
    (text), _rel, _w (the intent weight).  Its _rel raises on a null subtopic, a
    repeated (query, subtopic, item), a bad or varying weight and a bad relevance, so
    that every call given subtopic qrels checks them, whatever its measures.  The one
    spelling of sql.render's and the dbt package's (the DuckDB macros read columns by
    name at run time: ``sql/entry/macros.sql``)."""
    key = f"{s.query}, {s.subtopic}"
    varying = f"MIN({s.weight}) OVER (PARTITION BY {key}) <> MAX({s.weight}) OVER (PARTITION BY {key})"
    weight = ("qrels column '{intent_weight}' (intent_weight) must be a finite weight >= 0, the"
              " same on every row of a (query, subtopic)")  # fmt: skip
    return f"""_subq AS (
    SELECT
        {s.keys},
        CAST({s.subtopic} AS {s.text}) AS _sub,
        CASE WHEN {s.subtopic} IS NULL THEN {s.fail("qrels column '{subtopic}': subtopic is null")}
            WHEN COUNT(*) OVER (PARTITION BY {key}, {s.item}) > 1
                THEN {s.fail("qrels: duplicate (query, subtopic, item) judgments")}
            WHEN NOT {s.weight_finite} OR {s.weight} < 0
                OR {varying}
                THEN {s.fail(weight)}
            ELSE {s.relevance} END AS _rel,
        {s.weight} AS _w
    FROM {s.relation} AS x
)"""



def _in(families: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{f}'" for f in families) + ")"


def _discount(d: Dialect, pos: str) -> str:
    """The family's weight of position ``pos`` (from 1): 1/log2(pos + 1), 1/pos or
    beta^(pos - 1)."""
    p = f"CAST({pos} AS {d.double})"
    return (
        f"(CASE WHEN s._family IN ('alpha_DCG', 'alpha_nDCG') THEN LN(2.0) / LN({p} + 1)"
        f" WHEN s._family IN ('ERR_IA', 'nERR_IA') THEN 1.0 / {p}"
        f" ELSE POWER(s._p_beta, {p} - 1) END)"
    )


ALPHA = "COALESCE(s._p_alpha, 0.5)"  # ERR_IA and nERR_IA: ndeval's fixed 0.5


def _pairs_sql(d: Dialect) -> str:
    """CTEs: the relevant pairs per spec, their subtopics' counts, N and the weights'
    sum per (spec, query), the kept run rows and their relevant pairs with c."""
    g, gj, D = d.g, d.gj, d.double
    return f"""
    _divpairs AS (
        SELECT s._idx, q._q, q._item, q._sub,
            CAST(CASE WHEN s._family IN {_in(WEIGHTED)} THEN q._w ELSE 1 END AS {D}) AS _w
        FROM _subq AS q
        JOIN _specs AS s ON s._family IN {_in(FAMILIES)} AND q._rel >= s._level
    ),
    _divsubs AS (
        SELECT p._idx, p._q, p._sub, COUNT(*) AS _nrel, MAX(p._w) AS _w
        FROM _divpairs AS p GROUP BY p._idx, p._q, p._sub
    ),
    _divn AS (
        SELECT x._idx, x._q, COUNT(*) AS _n,
            {d.ordered('SUM(x._w ORDER BY x._sub)', 'SUM(x._w)')} AS _wsum
        FROM _divsubs AS x GROUP BY x._idx, x._q
    ),
    _divkept AS (
        SELECT {g('r')}r._q, r._item, r._pos
        FROM _ranked AS r
        LEFT JOIN _dropped AS dr ON {gj('dr', 'r')}dr._q = r._q AND dr._pos = r._pos
        WHERE ({d.top} IS NULL OR r._pos <= {d.top}) AND dr._pos IS NULL
            AND {d.asked(f"EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN {_in(FAMILIES)})")}
    ),
    _divrun AS (
        SELECT p._idx, {g('k')}k._q, k._pos, p._sub, p._w, x._nrel,
            ROW_NUMBER() OVER (
                PARTITION BY p._idx, {g('k')}k._q, p._sub ORDER BY k._pos
            ) - 1 AS _c
        FROM _divkept AS k
        JOIN _divpairs AS p ON p._q = k._q AND p._item = k._item
        JOIN _divsubs AS x ON x._idx = p._idx AND x._q = p._q AND x._sub = p._sub
    ),"""


def _raw_sql(d: Dialect) -> str:
    """CTEs: per (spec, group, query) with a relevant kept row, the sums before the
    division (_sum: the discounted gains; _pw: P_IA's weights; _cover: StRecall's
    subtopics; _ap: AP_IA's weighted precisions over the subtopic's relevant items);
    the kept rows per (group, query) (P_IA without a cutoff)."""
    g, D = d.g, d.double
    intop = "(s._k IS NULL OR r._pos <= s._k)"
    gain = f"r._w * POWER(1 - {ALPHA}, r._c) * {_discount(d, 'r._pos')}"
    term = f"CASE WHEN {intop} THEN {gain} ELSE 0 END"
    weight = f"CASE WHEN {intop} THEN r._w ELSE 0 END"
    ap = f"CAST(r._c + 1 AS {D}) / r._pos * r._w / r._nrel"
    return f"""
    _divraw AS (
        SELECT r._idx, {g('r')}r._q,
            {d.ordered(f'SUM({term} ORDER BY r._pos, r._sub)', f'SUM({term})')} AS _sum,
            {d.ordered(f'SUM({weight} ORDER BY r._pos, r._sub)', f'SUM({weight})')} AS _pw,
            COUNT(DISTINCT CASE WHEN {intop} THEN r._sub END) AS _cover,
            {d.ordered(f'SUM({ap} ORDER BY r._pos, r._sub)', f'SUM({ap})')} AS _ap
        FROM _divrun AS r
        JOIN _specs AS s ON s._idx = r._idx
        GROUP BY r._idx, {g('r')}r._q
    ),
    _divret AS (
        SELECT {g('k')}k._q, COUNT(*) AS _nret FROM _divkept AS k GROUP BY {g('k')}k._q
    ),"""


def _ideal_ideal_sql(d: Dialect) -> str:
    """CTEs: the ranks 1..k of alpha_DCG's and ERR_IA's specs (recursive), and their
    ideal-ideal sum of (1 - alpha)^(i-1) x the discount."""
    term = f"POWER(1 - {ALPHA}, x._i - 1) * {_discount(d, 'x._i')}"
    return f"""
    _divii(_idx, _i) AS (
        SELECT s._idx, 1 FROM _specs AS s
        WHERE s._family IN {_in(IDEAL_IDEAL)} AND s._k >= 1
        UNION ALL
        SELECT x._idx, x._i + 1 FROM _divii AS x
        JOIN _specs AS s ON s._idx = x._idx
        WHERE x._i < s._k
    ),
    _diviisum AS (
        SELECT x._idx, {d.ordered(f'SUM({term} ORDER BY x._i)', f'SUM({term})')} AS _ii
        FROM _divii AS x JOIN _specs AS s ON s._idx = x._idx
        GROUP BY x._idx
    ),"""


def _depth(d: Dialect) -> str:
    """How many ranks of the greedy ideal a spec reads (NULL: all)."""
    beta = "s._p_beta"
    return (
        f"CASE WHEN s._family <> 'nNRBP' THEN s._k WHEN {beta} >= 1 THEN NULL"
        f" WHEN {beta} > 0 THEN CEIL({_LN_EPS} / LN({beta})) + 1 ELSE 1 END"
    )


def _greedy_sql(d: Dialect) -> str:
    """CTE ``_divgreedy``: ndeval's greedy ideal ranking, recursive.  A row per (spec,
    query, item, subtopic) pair carries c (its subtopic's placed items), whether its
    item is placed, and the rank and gain it was placed at.  A rank takes three steps,
    each one level of windows over the previous step's rows (PostgreSQL allows no
    subquery over the recursive reference): phase 0 sums each item's gain, phase 1
    picks the best item (and whether all are placed), phase 2 places it and counts it
    in its subtopics' c.  Every column is cast alike in both terms (PostgreSQL)."""
    D, T, B = d.double, d.text, "BIGINT"
    best = f"PARTITION BY w._idx, w._q ORDER BY w._placed, w._gi DESC, {d.bytes_order('w._item')} DESC"
    chosen = f"w._phase = 2 AND CAST(w._item AS {T}) = w._best"
    cover = f"MAX(CASE WHEN CAST(w._item AS {T}) = w._best THEN 1 ELSE 0 END) OVER (PARTITION BY w._idx, w._q, w._sub)"
    return f"""
    _divgreedy(_idx, _q, _item, _sub, _w, _a, _depth, _phase, _step, _c, _placed, _gi, _best,
               _bgain, _full, _ipos, _igain) AS (
        SELECT p._idx, p._q, p._item, p._sub, p._w, CAST(1 - {ALPHA} AS {D}),
            CAST({_depth(d)} AS {D}), CAST(0 AS {B}), CAST(0 AS {B}), CAST(0 AS {B}),
            CAST(0 AS {B}), CAST(NULL AS {D}), CAST(NULL AS {T}), CAST(NULL AS {D}),
            CAST(0 AS {B}), CAST(NULL AS {B}), CAST(NULL AS {D})
        FROM _divpairs AS p
        JOIN _specs AS s ON s._idx = p._idx AND s._family IN {_in(NORMALISED)}
        UNION ALL
        SELECT w._idx, w._q, w._item, w._sub, w._w, w._a, w._depth,
            CAST(CASE WHEN w._phase = 2 THEN 0 ELSE w._phase + 1 END AS {B}),
            CAST(CASE WHEN w._phase = 2 THEN w._step + 1 ELSE w._step END AS {B}),
            CAST(CASE WHEN w._phase = 2 THEN w._c + {cover} ELSE w._c END AS {B}),
            CAST(CASE WHEN {chosen} THEN 1 ELSE w._placed END AS {B}),
            CAST(CASE WHEN w._phase = 0 THEN SUM(w._w * POWER(w._a, w._c)) OVER (
                PARTITION BY w._idx, w._q, w._item) ELSE w._gi END AS {D}),
            CAST(CASE WHEN w._phase = 1 THEN FIRST_VALUE(CAST(w._item AS {T})) OVER ({best})
                 ELSE w._best END AS {T}),
            CAST(CASE WHEN w._phase = 1 THEN FIRST_VALUE(w._gi) OVER ({best})
                 ELSE w._bgain END AS {D}),
            CAST(CASE WHEN w._phase = 1 THEN MIN(w._placed) OVER (PARTITION BY w._idx, w._q)
                 ELSE w._full END AS {B}),
            CAST(CASE WHEN {chosen} THEN w._step + 1 ELSE w._ipos END AS {B}),
            CAST(CASE WHEN {chosen} THEN w._bgain ELSE w._igain END AS {D})
        FROM _divgreedy AS w
        -- phase 1 stops at the depth, phase 2 once every item is placed
        WHERE (w._phase <> 1 OR w._depth IS NULL OR w._step < w._depth)
            AND (w._phase <> 2 OR w._full = 0)
    ),"""


def _ideal_sql(d: Dialect) -> str:
    """CTE ``_divideal``: the greedy ideal's discounted sum per (spec, query) within the
    cutoff (from the recursive ``_divgreedy``)."""
    ideal = f"i._igain * {_discount(d, 'i._ipos')}"
    return f"""
    _divideal AS (
        SELECT i._idx, i._q, {d.ordered(f'SUM({ideal} ORDER BY i._ipos)', f'SUM({ideal})')} AS _ideal
        FROM (
            SELECT DISTINCT x._idx, x._q, x._ipos, x._igain FROM _divgreedy AS x
            WHERE x._ipos IS NOT NULL
        ) AS i
        JOIN _specs AS s ON s._idx = i._idx
        WHERE s._k IS NULL OR i._ipos <= s._k
        GROUP BY i._idx, i._q
    ),"""


def _values_sql(d: Dialect) -> str:
    """CTE ``_divvals``: one value per (spec, group, query) with a relevant kept row."""
    g, gj, D = d.g, d.gj, d.double
    scale = "n._wsum"
    cut = f"CAST(CASE WHEN s._k IS NULL THEN c._nret ELSE s._k END AS {D})"
    nrbp = f"r._sum * (1.0 - (1.0 - s._p_alpha) * s._p_beta) / {scale}"
    value = f"""CASE
            WHEN s._family IN {_in(NORMALISED)} THEN
                CASE WHEN r._sum > 0 AND di._ideal > 0 THEN r._sum / di._ideal ELSE 0 END
            WHEN s._family IN {_in(IDEAL_IDEAL)} THEN
                CASE WHEN {scale} * ii._ii > 0 THEN r._sum / ({scale} * ii._ii) ELSE 0 END
            WHEN s._family = 'NRBP' THEN CASE WHEN {scale} > 0 THEN {nrbp} ELSE 0 END
            WHEN {scale} <= 0 THEN 0
            WHEN s._family = 'P_IA' THEN r._pw / {cut} / {scale}
            WHEN s._family = 'StRecall' THEN CAST(r._cover AS {D}) / {scale}
            ELSE r._ap / {scale} END"""
    return f"""
    _divvals AS (
        SELECT r._idx, {g('r')}r._q, CAST({value} AS {D}) AS _v
        FROM _divraw AS r
        JOIN _specs AS s ON s._idx = r._idx
        JOIN _divn AS n ON n._idx = r._idx AND n._q = r._q
        JOIN _divret AS c ON {gj('c', 'r')}c._q = r._q
        LEFT JOIN _diviisum AS ii ON ii._idx = r._idx
        LEFT JOIN _divideal AS di ON di._idx = r._idx AND di._q = r._q
    ),"""


def _fold_ideal_ideal_sql(d: Dialect) -> str:
    """CTE ``_diviisum`` without recursion: alpha_DCG's and ERR_IA's ideal-ideal sum as
    a fold over the ranks 1..k (AGGREGATE over SEQUENCE, in rank order)."""
    term = f"POWER(1 - {ALPHA}, _r - 1) * {_discount(d, '_r')}"
    return f"""
    _diviisum AS (
        SELECT s._idx, AGGREGATE(SEQUENCE(1, s._k), CAST(0 AS {d.double}), (_acc, _r) -> _acc + {term}) AS _ii
        FROM _specs AS s
        WHERE s._family IN {_in(IDEAL_IDEAL)} AND s._k >= 1
    ),"""


def _fold_step(d: Dialect) -> str:
    """One rank of the greedy ideal as a lambda over the state (c: placed items per
    subtopic index, placed: per item, g: the gains placed so far): the best item (unplaced
    first, then the largest gain given c, then the item greatest in byte order: the
    struct order of ARRAY_MAX) is placed and counted in its subtopics."""
    a = f"(1 - {ALPHA})"
    gain = f"AGGREGATE(_it.subs, CAST(0 AS {d.double}), (_a, _u) -> _a + _u.w * POWER({a}, _st.c[_u.s]))"
    best = (
        "ARRAY_MAX(TRANSFORM(l._items, (_it, _j) -> NAMED_STRUCT('free', NOT _st.placed[_j], "
        f"'gain', {gain}, 'item', _it.item, 'j', _j)))"
    )
    covered = "ARRAY_CONTAINS(TRANSFORM(l._items[_b.j].subs, _u -> _u.s), _si)"
    return (
        f"(_st, _step) -> ELEMENT_AT(TRANSFORM(ARRAY({best}), _b -> NAMED_STRUCT("
        f"'c', TRANSFORM(_st.c, (_cv, _si) -> _cv + IF({covered}, 1, 0)), "
        "'placed', TRANSFORM(_st.placed, (_pv, _pj) -> _pv OR _pj = _b.j), "
        "'g', CONCAT(_st.g, ARRAY(_b.gain)))), 1)"
    )


def _fold_greedy_sql(d: Dialect) -> str:
    """CTEs: ndeval's greedy ideal ranking without recursion (dialects with higher-order
    array functions, Spark): per (spec, query) its items with their (subtopic index,
    weight) pairs in one array, the ranks a fold (AGGREGATE over SEQUENCE(1, depth)) of
    :func:`_fold_step`, to the depth the measure reads or every item; ``_divideal`` the
    discounted sum of the gains in rank order."""
    D, T = d.double, d.text
    n = "SIZE(l._items)"
    depth = f"CAST(GREATEST(1, LEAST({n}, COALESCE({_depth(d)}, {n}))) AS INT)"
    init = (
        "NAMED_STRUCT('c', ARRAY_REPEAT(0, CAST(dn._n AS INT)), 'placed', "
        f"ARRAY_REPEAT(FALSE, {n}), 'g', CAST(ARRAY() AS ARRAY<{D}>))"
    )
    ideal = f"AGGREGATE(TRANSFORM(o._gains, (_x, _i) -> _x * {_discount(d, '_i + 1')}), CAST(0 AS {D}), (_acc, _v) -> _acc + _v)"
    return f"""
    _divsubidx AS (
        SELECT x._idx, x._q, x._sub,
            CAST(DENSE_RANK() OVER (PARTITION BY x._idx, x._q ORDER BY x._sub) - 1 AS INT) AS _si
        FROM _divsubs AS x
        JOIN _specs AS s ON s._idx = x._idx AND s._family IN {_in(NORMALISED)}
    ),
    _divitems AS (
        SELECT p._idx, p._q, CAST(p._item AS {T}) AS _item,
            ARRAY_SORT(COLLECT_LIST(NAMED_STRUCT('s', x._si, 'w', p._w))) AS _subs
        FROM _divpairs AS p
        JOIN _divsubidx AS x ON x._idx = p._idx AND x._q = p._q AND x._sub = p._sub
        GROUP BY p._idx, p._q, p._item
    ),
    _divlists AS (
        SELECT i._idx, i._q,
            ARRAY_SORT(COLLECT_LIST(NAMED_STRUCT('item', i._item, 'subs', i._subs))) AS _items
        FROM _divitems AS i GROUP BY i._idx, i._q
    ),
    _divorder AS (
        SELECT l._idx, l._q, AGGREGATE(SEQUENCE(1, {depth}), {init}, {_fold_step(d)}).g AS _gains
        FROM _divlists AS l
        JOIN _specs AS s ON s._idx = l._idx
        JOIN _divn AS dn ON dn._idx = l._idx AND dn._q = l._q
    ),
    _divideal AS (
        SELECT o._idx, o._q, {ideal} AS _ideal
        FROM _divorder AS o JOIN _specs AS s ON s._idx = o._idx
    ),"""


def ctes_sql(d: Dialect) -> str:
    """The CTEs after ``_ranked``, ``_dropped``, ``_agg`` and ``_specs`` (with ``_subq``
    as an input), each ending with a comma; ``_divvals`` holds one value per (spec,
    group, query) that has a relevant kept row.  The greedy ideal is a recursive CTE
    (``Dialect.recursive``: DuckDB, PostgreSQL) or a fold over arrays (``Dialect.arrays``:
    Spark); without either, ``_divvals`` is empty (its renderings refuse the family)."""
    if d.recursive:
        return (
            _pairs_sql(d) + _raw_sql(d) + _ideal_ideal_sql(d) + _greedy_sql(d) + _ideal_sql(d)
            + _values_sql(d)
        )  # fmt: skip
    if d.arrays:
        return (
            _pairs_sql(d) + _raw_sql(d) + _fold_ideal_ideal_sql(d) + _fold_greedy_sql(d)
            + _values_sql(d)
        )  # fmt: skip
    return empty_sql(d)


def empty_sql(d: Dialect) -> str:
    """CTE: an empty ``_divvals`` (a rendering without the family's CTEs)."""
    return f"""
    _divvals AS (
        SELECT a._idx, {d.g('a')}a._q, CAST(NULL AS {d.double}) AS _v FROM _agg AS a WHERE 1 = 0
    ),"""
