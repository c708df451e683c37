"""The C/W/L measures as ir_measures names them (its ``cwl_eval`` provider, which runs
cwl-eval 1.0.12, Azzopardi, Thomas & Moffat 2019): INST, INSQ, NERR8-NERR11, SDCG, BPM.

A C/W/L measure is the expected gain per item inspected, ``sum_i W_i g_i``, where the
weight ``W_i`` of position i is ``prod_{j<i} C_j`` (the user went on past every item above
it) divided by ``sum_m prod_{j<m} C_j``; the measure is its continuation probability
``C_i``.  As cwl-eval (and ir_measures, which fixes ``max_n=1000``):

* the ranking is the run's top :data:`DEPTH` (1000) rows, padded to 1000 positions with
  gain 0: the weights are normalised over all 1000 positions, so a short run's value
  depends on the positions past its end;
* the gain of a judged item is its relevance clipped at 0, then to ``[min_rel,
  max_rel]``, scaled to ``(rel - min_rel) / (max_rel - min_rel)``; an unjudged item or a
  position past the run's end gains 0 (cwl-eval's lower bound, ``worse_case``);
* every item costs 1.

Tied scores: cwl-eval reads the run in file order (it ignores the score and rank
columns) and ir_measures sorts by score, ties in input order; here, as for every
measure, ties="trec_eval" orders them as trec_eval does (item descending).

With ``ties="average"``, INSQ and SDCG (linear in the gains) put each tie group's mean
gain at its positions; the others (products of the gains) refuse it.

Per position the weights have closed forms (``B(m)`` a table of cumulative sums of
``b``), so only the judged rows are aggregated; the unjudged positions between them are
sums of ``b`` over ranges.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
...                     "score": [3.0, 2.0, 1.0]})
>>> qrels = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "c"], "relevance": [2, 1]})
>>> # gains 1, 0, 0.5 (max_rel=2).  BPM(T=1)@3: the goal is reached at 1: 1 / 1;
>>> # BPM(T=2)@3: never reached, the user stops at k = 3: (1 + 0 + 0.5) / 3 = 0.5
>>> rk.evaluate(run, qrels, ["BPM(max_rel=2)@3", "BPM(T=2,max_rel=2)@3"])["value"].to_list()
[1.0, 0.5]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

import polars as pl

from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import Family, Judged, Measure, Param, register
from polars_rankeval.measures.rbp import lookup

# cwl-eval's --max_depth default, which ir_measures' provider fixes (max_n=1000)
DEPTH = 1000

MIN_REL = Param("min_rel", 0.0, "relevance that gains 0 (ir_measures' min_rel)")
MAX_REL = Param(
    "max_rel",
    1.0,
    "relevance that gains 1 (ir_measures' max_rel, which it requires; here 1, binary "
    "gains, unless given)",
)
GOAL = Param("T", 1.0, "total desired gain (ir_measures' T)", minimum=0.0)
GAIN_NOTE = (
    "; gain = (clip(max(relevance, 0), min_rel, max_rel) - min_rel) / (max_rel - "
    "min_rel), 0 unjudged; positions 1..1000, past the run gain 0 (cwl-eval); rel= is "
    "ignored"
)


def _gain(m: Measure, j: Judged) -> pl.Expr:
    lo, hi = float(m["min_rel"]), float(m["max_rel"])
    if not lo < hi:
        raise MeasureError(f"{m}: min_rel ({lo:g}) must be below max_rel ({hi:g})")
    # ir_measures' provider: negative judgments count as 0, then clipped and scaled
    clipped = j.rel.clip(lower_bound=0.0).clip(lo, hi)
    return ((clipped - lo) / (hi - lo)).fill_null(0.0)


def _depth(m: Measure) -> int:
    """The last position with a weight: the cutoff (no deeper than 1000), else 1000."""
    return DEPTH if m.k is None else min(m.k, DEPTH)


@lru_cache(maxsize=64)
def _table(kind: str, value: float, depth: int) -> pl.Series:
    """B(m) = sum over positions i <= m (m = 0..depth) of the base weight b(i)."""
    bases: dict[str, Callable[[int], float]] = {
        "one": lambda i: 1.0,  # NERR8
        "harmonic": lambda i: 1.0 / i,  # NERR9: prod_{j<i} j / (j + 1) = 1 / i
        "geometric": lambda i: value ** (i - 1),  # NERR10: p^(i - 1)
        # INSQ, NERR11: prod_{j<i} ((j + 2T - 1) / (j + 2T))^2 = (2T / (i - 1 + 2T))^2
        "square": lambda i: 1.0 / (i - 1 + 2.0 * value) ** 2,
        # SDCG: prod_{j<i} log(j + 1) / log(j + 2) = 1 / log2(i + 1)
        "log": lambda i: 1.0 / math.log2(i + 1),
    }
    base = bases[kind]
    return pl.Series([0.0] + [base(i) for i in range(1, depth + 1)]).cum_sum()


def _rows(m: Measure, j: Judged, gain: pl.Expr | None = None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(position, gain, next position) of the rows within the depth, in rank order; the
    next position of the last row is depth + 1.  ``gain``: per row, in rank order
    (default: the row's own)."""
    keep = (j.pos <= _depth(m)).sort_by(j.pos)
    pos = j.pos.sort().filter(keep).cast(pl.Float64)
    gain = (_gain(m, j).sort_by(j.pos) if gain is None else gain).filter(keep)
    return pos, gain, pos.shift(-1, fill_value=float(_depth(m)))


def _weighted(
    m: Measure, j: Judged, table: pl.Series, *, stopping: bool, gain: pl.Expr | None = None
) -> pl.Expr:
    """sum_r S_{r-1} g_r b(p_r) / (B(p_1) + sum_r S_r (B(next_r) - B(p_r))): S_r is the
    product of (1 - g) over rows 1..r when the gain stops the user (NERR), else 1."""
    pos, gain, nxt = _rows(m, j, gain)
    index = pos.cast(pl.Int64)
    b = lookup(table, index) - lookup(table, index - 1)
    after = (1.0 - gain).cum_prod() if stopping else pl.lit(1.0)
    before = after.shift(1, fill_value=1.0) if stopping else pl.lit(1.0)
    # a lookup of one value is a list of one in an aggregation: .first() makes it a scalar
    first = lookup(table, pos.first().fill_null(float(_depth(m))).cast(pl.Int64)).first()
    rest = after * (lookup(table, nxt.cast(pl.Int64)) - lookup(table, index))
    return (before * gain * b).sum() / (first + rest.sum())


def _tie_mean_gain(m: Measure, j: Judged) -> pl.Expr:
    """Per row, in rank order: the mean gain of its tie group (every row of the query is
    there with ties="average", at positions 1..n; the group holds above+1..above+size)."""
    assert j.ties is not None
    gain = _gain(m, j).sort_by(j.pos)
    size = j.ties.size.sort_by(j.pos)
    start = j.ties.above.sort_by(j.pos).cast(pl.Int64)  # 0-based index of its first row
    total = gain.cum_sum()
    # the group's sum: the running sum at its last row minus the one before its first
    return (total.gather(start + size.cast(pl.Int64) - 1) - (total - gain).gather(start)) / size


def _linear(kind: str, value: Callable[[Measure], float], depth: Callable[[Measure], int]):
    """(expression, expected): a measure linear in the gains (INSQ, SDCG), whose expected
    value over the orderings of tied rows puts each group's mean gain at its positions."""

    def expression(m: Measure, j: Judged) -> pl.Expr:
        return _weighted(m, j, _table(kind, value(m), depth(m)), stopping=False)

    def expected(m: Measure, j: Judged) -> pl.Expr:
        table = _table(kind, value(m), depth(m))
        return _weighted(m, j, table, stopping=False, gain=_tie_mean_gain(m, j))

    return expression, expected


# psi'(x) = sum_{n>=0} 1 / (x + n)^2 for x > 0: TRIGAMMA_HEAD terms, then the asymptotic
# series at z = x + TRIGAMMA_HEAD, sum of sign * 1 / (denominator * z^power) (error below
# 1e-13).  _sqlcwl renders the same series as SQL.
TRIGAMMA_HEAD = 10
TRIGAMMA_TAIL = ((1, 1, 1), (1, 2, 2), (1, 6, 3), (-1, 30, 5), (1, 42, 7), (-1, 30, 9), (5, 66, 11))


def _trigamma(x: pl.Expr) -> pl.Expr:
    """psi'(x) by the series of ``TRIGAMMA_HEAD`` and ``TRIGAMMA_TAIL``."""
    head = pl.sum_horizontal([1.0 / (x + float(n)) ** 2 for n in range(TRIGAMMA_HEAD)])
    z = x + float(TRIGAMMA_HEAD)
    tail = pl.lit(0.0)
    for numerator, denominator, power in TRIGAMMA_TAIL:
        term = abs(numerator) / (float(denominator) * z**power)
        tail = tail + term if numerator > 0 else tail - term
    return head + tail


def _inst(m: Measure, j: Judged) -> pl.Expr:
    # C_i = ((a_i - 1) / a_i)^2, a_i = i + 2T - G_i (G_i: the gain at positions <= i).
    # Where G is constant (c = 2T - G), prod_{j=lo}^{i-1} C_j = ((lo-1+c) / (i-1+c))^2:
    # position i of the stretch after row r weighs A_r / (i - 1 + c_r)^2.
    two_t = 2.0 * float(m["T"])
    pos, gain, nxt = _rows(m, j)
    c_after = two_t - gain.cum_sum()
    c_before = c_after.shift(1, fill_value=two_t)
    ratio = ((pos - 1.0 + c_after) / (pos - 1.0 + c_before)) ** 2
    a_after = two_t**2 * ratio.cum_prod()
    a_before = a_after.shift(1, fill_value=two_t**2)
    numerator = (a_before * gain / (pos - 1.0 + c_before) ** 2).sum()
    # sum over i in (lo, hi] of 1 / (i - 1 + c)^2 = psi'(lo + c) - psi'(hi + c)
    first = pos.first().fill_null(float(_depth(m)))
    head = two_t**2 * (_trigamma(pl.lit(two_t)) - _trigamma(first + two_t))
    rest = a_after * (_trigamma(pos + c_after) - _trigamma(nxt + c_after))
    return numerator / (head + rest.sum())


def _bpm(m: Measure, j: Judged) -> pl.Expr:
    # C_i = 1 while the gain so far is below T and i < k: the user reads positions
    # 1..s, s = min(k, 1000, first position where the gain reaches T); value G_s / s
    pos, gain, _ = _rows(m, j)
    goal = float(m["T"])
    reached = pos.filter(gain.cum_sum() >= goal).first()
    stop = pl.min_horizontal(reached.fill_null(float(_depth(m))), pl.lit(float(_depth(m))))
    if goal <= 0:  # reached at position 1, judged or not
        stop = pl.lit(1.0)
    return gain.filter(pos <= stop).sum() / stop


def _family(name: str, order: int, **kw: object) -> Family:
    return register(Family(name=name, order=order, trec_eval="- (cwl-eval)", **kw))  # type: ignore[arg-type]


_INSQ = _linear("square", lambda m: float(m["T"]), lambda m: DEPTH)
_SDCG = _linear("log", lambda m: 0.0, _depth)

INST = _family(
    "INST", 320, cutoff=False, params=(GOAL, MIN_REL, MAX_REL),
    examples=("INST(T=2,max_rel=4)", "INST(T=0.5,min_rel=1,max_rel=3)"),
    summary="INST (Moffat et al. 2015): adaptive expected gain per item of a user who wants "
    "T units of gain and reads on while it is missing.",
    formula="sum_i W_i g_i, W_i = prod_{j<i} C_j / sum_m prod_{j<m} C_j, C_i = ((i + 2T - G_i "
    "- 1) / (i + 2T - G_i))^2, G_i = gain at positions <= i" + GAIN_NOTE,
    expression=_inst,
)  # fmt: skip
INSQ = _family(
    "INSQ", 321, cutoff=False, params=(GOAL, MIN_REL, MAX_REL),
    examples=("INSQ(T=2,max_rel=4)", "INSQ(T=0.5,min_rel=1,max_rel=3)"),
    summary="INSQ (Moffat et al. 2012): expected gain per item with the continuation "
    "((i + 2T - 1) / (i + 2T))^2.",
    formula="sum_i g_i / (i + 2T - 1)^2 / sum_{i=1..1000} 1 / (i + 2T - 1)^2" + GAIN_NOTE,
    expression=_INSQ[0], expected=_INSQ[1],
)  # fmt: skip
NERR8 = _family(
    "NERR8", 322, params=(MIN_REL, MAX_REL), examples=("NERR8(max_rel=4)@5",),
    summary="Not (but nearly) ERR, Eq. 8 of Azzopardi et al. 2021: the user stops at an "
    "item with probability its gain, and at k.",
    formula="sum_{i<=k} S_i g_i / sum_{i<=k} S_i, S_i = prod_{j<i} (1 - g_j); k = 1000 "
    "without a cutoff" + GAIN_NOTE,
    expression=lambda m, j: _weighted(m, j, _table("one", 0.0, _depth(m)), stopping=True),
)  # fmt: skip
NERR9 = _family(
    "NERR9", 323, params=(MIN_REL, MAX_REL), examples=("NERR9(max_rel=4)@5",),
    summary="Not (but nearly) ERR, Eq. 9 of Azzopardi et al. 2021: NERR8 with the "
    "continuation also discounted by i / (i + 1).",
    formula="sum_{i<=k} S_i g_i / i / sum_{i<=k} S_i / i, S_i = prod_{j<i} (1 - g_j); "
    "k = 1000 without a cutoff" + GAIN_NOTE,
    expression=lambda m, j: _weighted(m, j, _table("harmonic", 0.0, _depth(m)), stopping=True),
)  # fmt: skip
NERR10 = _family(
    "NERR10", 324, cutoff=False, examples=("NERR10(p=0.5,max_rel=4)",),
    params=(Param("p", 0.9, "persistence (ir_measures' p)", minimum=0.0, maximum=1.0,
                  closed=True), MIN_REL, MAX_REL),
    summary="Not (but nearly) ERR, Eq. 10 of Azzopardi et al. 2021: gain-based stopping "
    "with RBP's persistence p.",
    formula="sum_i p^(i-1) S_i g_i / sum_{i=1..1000} p^(i-1) S_i, S_i = prod_{j<i} "
    "(1 - g_j)" + GAIN_NOTE,
    expression=lambda m, j: _weighted(m, j, _table("geometric", float(m["p"]), DEPTH), stopping=True),
)  # fmt: skip
NERR11 = _family(
    "NERR11", 325, cutoff=False, params=(GOAL, MIN_REL, MAX_REL),
    examples=("NERR11(T=2,max_rel=4)",),
    summary="Not (but nearly) ERR, Eq. 11 of Azzopardi et al. 2021: gain-based stopping "
    "with INSQ's continuation for a goal T.",
    formula="sum_i S_i g_i / (i + 2T - 1)^2 / sum_{i=1..1000} S_i / (i + 2T - 1)^2, S_i = "
    "prod_{j<i} (1 - g_j)" + GAIN_NOTE,
    expression=lambda m, j: _weighted(m, j, _table("square", float(m["T"]), DEPTH), stopping=True),
)  # fmt: skip
SDCG = _family(
    "SDCG", 326, params=(MIN_REL, MAX_REL), examples=("SDCG(max_rel=4)@5",),
    summary="Scaled DCG (cwl-eval's NDCG-k): DCG@k divided by the DCG of k items of gain "
    "1, as if k fully relevant items existed.",
    formula="sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1); k = 1000 without "
    "a cutoff" + GAIN_NOTE,
    expression=_SDCG[0], expected=_SDCG[1],
)  # fmt: skip
BPM = _family(
    "BPM", 327, params=(GOAL, MIN_REL, MAX_REL), examples=("BPM(T=2,max_rel=4)@5",),
    summary="Bejeweled player model (Zhang et al. 2017), static: the user reads until "
    "gain T is reached or k items are read, whichever first.",
    formula="G_s / s, s = min(k, 1000, the first position i where G_i >= T), G_i = gain "
    "at positions <= i; k = 1000 without a cutoff" + GAIN_NOTE,
    expression=_bpm,
)  # fmt: skip
