"""Rank-biased precision (RBP, Moffat & Zobel 2008), as trec_eval 10's ``rbp``.

The arithmetic is trec_eval's, to the last bit (its numbers are the ones papers cite):
m_rbp.c and m_rbp_resid.c weigh position i by ``cur_p``, grown by one multiplication per
position (``cur_p = cur_p * p``), not by ``pow(p, i)`` (they differ in the last bits), and
add the terms one by one in rank order.  Here the weights are a table of those products
(:func:`powers`, read by position) and the sums are cumulative sums, which add in row
order (a polars ``sum`` adds pairwise, in another order).
"""

from __future__ import annotations

from functools import lru_cache

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register

PERSISTENCE = Param(
    "p",
    0.9,
    "persistence: the probability that the user goes on to the next item (trec_eval's "
    "default 0.9; ir_measures uses 0.8)",
    minimum=0.0,
    maximum=1.0,
)

# Longest table of powers: p^i underflows to 0 (and stays there) after ~7,000 positions
# at p = 0.9 and ~745,000 at p = 0.999; past this length (p > 0.9993 and rankings deeper
# than a million) the weight falls back to pow(), equal to ~1e-16 relative.
POWERS_MAX = 1 << 20
_CHUNK = 4096


@lru_cache(maxsize=16)
def powers(p: float) -> pl.Series:
    """``[1, p, p*p, (p*p)*p, ...]``: trec_eval's ``cur_p`` at positions 1, 2, 3, ...,
    up to its fixed point (0, or a subnormal that times p rounds back to itself: the
    weight of every later position) or :data:`POWERS_MAX` values.  ``cum_prod``
    multiplies in order, as trec_eval's loop does.

    >>> powers(0.5)[:4].to_list()
    [1.0, 0.5, 0.25, 0.125]
    >>> powers(0.9)[4], 0.9**4  # four multiplications, one rounding each
    (0.6561000000000001, 0.6561)
    """
    chunks, last, size, fixed = [pl.Series([1.0])], 1.0, 1, False
    while not fixed and size < POWERS_MAX:
        chunk = pl.Series([last] + [p] * _CHUNK, dtype=pl.Float64).cum_prod()[1:]
        chunks.append(chunk)
        last, size, fixed = chunk[-1], size + _CHUNK, chunk[-1] == chunk[-2]
    table = pl.concat(chunks)
    if fixed:  # keep it up to the first occurrence of the fixed point
        table = table.head(int((table == last).arg_max() or 0) + 1)
    return table


def lookup(table: pl.Series, index: pl.Expr) -> pl.Expr:
    """``table[index]``, the last value past its end.  An element-wise replace: in an
    aggregation it runs once over all the rows (a gather from a literal runs per group,
    20x slower)."""
    size = len(table)
    keys = pl.int_range(0, size, dtype=pl.Int64, eager=True)
    clipped = index.cast(pl.Int64).clip(0, size - 1)
    return clipped.replace_strict(keys, table, return_dtype=pl.Float64)


def weight(p: float, index: pl.Expr) -> pl.Expr:
    """trec_eval's ``cur_p`` after ``index`` multiplications (position ``index + 1``)."""
    table = powers(p)
    size = len(table)
    if size < POWERS_MAX or table[-1] * p == table[-1]:  # a fixed point ends the table
        return lookup(table, index)
    # the table stopped before its fixed point: pow() past it (within ~1e-16)
    beyond = table[-1] * pl.lit(p).pow((index - (size - 1)).cast(pl.Float64))
    return pl.when(index < size).then(lookup(table, index)).otherwise(beyond)


def ordered_sum(terms: pl.Expr) -> pl.Expr:
    """The sum of ``terms`` added one by one in row order, as a C loop adds (0 when
    there are none)."""
    return terms.cum_sum().last().fill_null(0.0)


def _gain(m: Measure, j: Judged) -> pl.Expr:
    if m["gain"] == "binary":
        return j.is_relevant(m.rel).cast(pl.Float64)
    # trec_eval m_rbp.c: the judged level, divided by the query's highest level when that
    # is above 1 (levels scaled to 0..1); unjudged and negative judgments gain 0
    top = pl.max_horizontal(j.stat(Stat("max_rel")).fill_null(1.0), pl.lit(1.0))
    return pl.when(j.rel > 0).then(j.rel / top).otherwise(pl.lit(0.0))


def in_rank_order(terms: pl.Expr, j: Judged) -> pl.Expr:
    """``terms`` in rank order: judged-only rows are sorted by position already; every
    row of a query comes in the run's row order."""
    return terms if j.judged_only else terms.sort_by(j.pos)


def _expression(m: Measure, j: Judged) -> pl.Expr:
    p = float(m["p"])
    # m_rbp.c: sum += gain * cur_p over the ranking, then (1 - p) * sum; a 0 term (an
    # unjudged row, absent from judged-only rows) leaves the sum as it is
    terms = pl.when(j.in_top(m.k)).then(_gain(m, j) * weight(p, j.pos - 1)).otherwise(0.0)
    return (1.0 - p) * ordered_sum(in_rank_order(terms, j))


RBP = register(
    Family(
        name="RBP",
        order=190,
        examples=("RBP(p=0.5,gain=binary)@3", "RBP(gain=binary)@3"),
        summary="Rank-biased precision: the expected gain per item seen by a user who goes "
        "on to the next item with probability p.",
        formula="(1 - p) * sum over top k of gain * p^(position - 1); gain = relevance / "
        "max(1, the query's highest judged level) (graded, trec_eval rbp; rel= is ignored) "
        "or 1 if relevance >= rel (binary, ranx, ir_measures RBP(rel=...))",
        trec_eval="rbp (no cutoff)",
        params=(
            PERSISTENCE,
            Param(
                "gain",
                "graded",
                "graded = relevance scaled by the query's highest level when above 1 "
                "(trec_eval), binary = relevant or not at rel",
                choices=("graded", "binary"),
            ),
        ),
        expression=_expression,
        stats=lambda m: (Stat("max_rel"),) if m["gain"] == "graded" else (),
    )
)
