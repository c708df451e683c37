"""Every measure as a plain polars aggregation expression.

Use them in ``group_by(query).agg(...)`` or as windows with ``.over(query)`` on any
frame that has, per row, a rank (1 = top, unique within a query) and a relevance label,
to compose evaluation with your own columns (segments, dates, A/B arms)::

    df.group_by("query", "arm").agg(rx.measure("AP@10"), rx.measure("nDCG@10"))

Within such a group the judged set is the group's own rows: R and the ideal nDCG ranking
come from the rows' labels (relative recall), unless ``num_relevant`` names a column
that holds R for the row's query.  To rank by score, with qrels, and with trec_eval's
tie-breaking, use :func:`polars_rankeval.evaluate`.

The contract: a group whose rows cannot be a ranking gives **null** for that group,
never an impossible value.  A group is invalid when a rank is null, not a positive
integer or repeated; when a label is null, NaN or infinite; or, with ``num_relevant``,
when that column is null, not finite, not one value for the whole group, or smaller than
the relevant rows found in the group.  A value that is not finite (e.g. ``gain=exp``
with labels above 1023, where 2^label overflows a double) is null too.
:func:`polars_rankeval.validate` names the bad rows.
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import MeasureError
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import Judged, Measure, Stat
from polars_rankeval._stats import stat_expr

__all__ = [
    "average_precision",
    "measure",
    "ndcg",
    "precision",
    "recall",
    "reciprocal_rank",
    "success",
]

IntoExpr = str | pl.Expr


def _expr(value: IntoExpr) -> pl.Expr:
    return pl.col(value) if isinstance(value, str) else value


@fill_params
def measure(
    name: str, *, rank: IntoExpr = "rank", relevance: IntoExpr = "relevant",
    num_relevant: IntoExpr | None = None, conventions: str = "trec_eval",
) -> pl.Expr:  # fmt: skip
    """The aggregation expression of a measure, named by its canonical name.

    Parameters
    ----------
    name
        A measure name (``"AP@10"``, ``"nDCG(gain=exp)@5"``, ``"map_cut_10"``...).
    {params: rank@expr, relevance@expr, num_relevant, conventions}

    Returns
    -------
    A Float64 aggregation, **null** for a group that is not a ranking (a null,
    non-positive, fractional or repeated rank; a null, NaN or infinite label;
    ``num_relevant`` null, not one value per group or below the relevant rows found) and
    for a value that would not be finite: never an impossible value.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1, 2, 2],
    ...     "rank": [1, 2, 3, 1, 2],
    ...     "relevant": [0, 1, 1, 1, 0],
    ... })
    >>> df.group_by("query", maintain_order=True).agg(rx.measure("AP"), rx.measure("P@2"))
    shape: (2, 3)
    ┌───────┬──────────┬─────┐
    │ query ┆ AP       ┆ P@2 │
    │ ---   ┆ ---      ┆ --- │
    │ i64   ┆ f64      ┆ f64 │
    ╞═══════╪══════════╪═════╡
    │ 1     ┆ 0.583333 ┆ 0.5 │
    │ 2     ┆ 1.0      ┆ 0.5 │
    └───────┴──────────┴─────┘
    >>> df.with_columns(rx.measure("RR").over("query"))["RR"].to_list()
    [0.5, 0.5, 0.5, 1.0, 1.0]
    >>> # rank 1 twice is not a ranking: null, not AP = 1.5
    >>> bad = pl.DataFrame({"query": [1, 1], "rank": [1, 1], "relevant": [1, 1]})
    >>> bad.group_by("query").agg(rx.measure("AP"))["AP"].to_list()
    [None]
    """
    m = parse_measure(name, conventions=conventions)
    if m.ideal():
        # their per-row ideal-ranking columns come from the judged items (judge()), which
        # a group of rows does not carry
        raise MeasureError(
            f"{m} compares each position with the ideal ranking of the judged items, so it"
            f" is not a plain aggregation; use rk.evaluate(run, qrels, [{str(m)!r}])"
        )
    rel = _expr(relevance).cast(pl.Float64)
    value = m.expression(_judged(_expr(rank), rel, num_relevant))
    valid = _valid_group(m, _expr(rank), rel, num_relevant)
    # null, never an impossible value, for a group that is not a ranking
    return pl.when(valid & value.is_finite()).then(value).alias(str(m))


def _judged(rank: pl.Expr, rel: pl.Expr, num_relevant: IntoExpr | None) -> Judged:
    """What a measure's expression reads, from the group's own rows: R is the number of
    relevant rows unless ``num_relevant`` names a column holding it."""

    def stat(s: Stat) -> pl.Expr:
        if s.kind == "num_rel" and num_relevant is not None:
            return _expr(num_relevant).cast(pl.Float64).max()
        return stat_expr(s, rel)

    return Judged(pos=rank, rel=rel, stat=stat)


def _valid_group(
    m: Measure, rank: pl.Expr, rel: pl.Expr, num_relevant: IntoExpr | None
) -> pl.Expr:
    """True for a group whose rows are a ranking (see the module docstring)."""
    pos = rank.cast(pl.Float64)
    good_rank = (pos.is_finite() & (pos > 0) & (pos == pos.floor())).fill_null(False)
    valid = good_rank.all() & (rank.n_unique() == rank.len()) & rel.is_finite().fill_null(False).all()
    if num_relevant is None:
        return valid
    r = _expr(num_relevant).cast(pl.Float64)
    valid = valid & r.is_finite().fill_null(False).all() & (r.n_unique() == 1)
    for s in m.stats():
        if s.kind == "num_rel" and s.level is not None:
            found = (rel >= s.level).fill_null(False).sum()
            valid = valid & (r.max() >= found)
    return valid


def _name(family: str, k: int | None, **params: object) -> str:
    given = ",".join(f"{key}={value}" for key, value in params.items() if value is not None)
    return family + (f"({given})" if given else "") + (f"@{k}" if k is not None else "")


def average_precision(
    *,
    k: int | None = None,
    norm: str | None = None,
    rel: float | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
    num_relevant: IntoExpr | None = None,
) -> pl.Expr:
    """AP (``norm`` R | min | hits); see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> # relevant {a, b}, ranking d, a, c, b: AP = (1/2 + 2/4) / 2 = 0.5
    >>> df = pl.DataFrame({"rank": [1, 2, 3, 4], "relevant": [0, 1, 0, 1]})
    >>> df.select(rx.average_precision()).item()
    0.5
    """
    name = _name("AP", k, norm=norm, rel=rel)
    return measure(name, rank=rank, relevance=relevance, num_relevant=num_relevant)


def precision(
    *,
    k: int | None = None,
    norm: str | None = None,
    rel: float | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
) -> pl.Expr:
    """P@k (``norm`` k | ret); see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> pl.DataFrame({"rank": [1, 2], "relevant": [1, 0]}).select(rx.precision(k=4)).item()
    0.25
    """
    return measure(_name("P", k, norm=norm, rel=rel), rank=rank, relevance=relevance)


def recall(
    *,
    k: int | None = None,
    norm: str | None = None,
    rel: float | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
    num_relevant: IntoExpr | None = None,
) -> pl.Expr:
    """R@k (``norm`` R | min); see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> df = pl.DataFrame({"rank": [1, 2], "relevant": [1, 0], "R": [4, 4]})
    >>> df.select(rx.recall(k=2, num_relevant="R")).item()
    0.25
    """
    name = _name("R", k, norm=norm, rel=rel)
    return measure(name, rank=rank, relevance=relevance, num_relevant=num_relevant)


def reciprocal_rank(
    *,
    k: int | None = None,
    rel: float | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
) -> pl.Expr:
    """RR (MRR is its mean); see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> pl.DataFrame({"rank": [1, 2, 3], "relevant": [0, 0, 1]}).select(rx.reciprocal_rank()).item()
    0.3333333333333333
    """
    return measure(_name("RR", k, rel=rel), rank=rank, relevance=relevance)


def ndcg(
    *,
    k: int | None = None,
    gain: str | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
) -> pl.Expr:
    """nDCG@k with the ideal ranking of the group's own rows; see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> # DCG = 1/log2(2) + 2/log2(3) = 2.26186; ideal = 2/log2(2) + 1/log2(3) = 2.63093
    >>> df = pl.DataFrame({"rank": [1, 2], "relevant": [1, 2]})
    >>> round(df.select(rx.ndcg()).item(), 6)
    0.859719
    """
    return measure(_name("nDCG", k, gain=gain), rank=rank, relevance=relevance)


def success(
    *,
    k: int | None = None,
    rel: float | None = None,
    rank: IntoExpr = "rank",
    relevance: IntoExpr = "relevant",
) -> pl.Expr:
    """Success@k (hit rate); see :func:`measure`.

    Null for a group that is not a ranking (see :func:`measure`).

    >>> import polars as pl
    >>> import polars_rankeval.expr as rx
    >>> pl.DataFrame({"rank": [1, 2, 3], "relevant": [0, 0, 1]}).select(rx.success(k=2)).item()
    0.0
    """
    return measure(_name("Success", k, rel=rel), rank=rank, relevance=relevance)
