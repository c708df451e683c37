"""``validate(run, qrels)``: a report of everything in the data that would change numbers.

Where :func:`polars_rankeval.evaluate` is strict (bad input raises), ``validate`` never
raises on bad data: it reports each problem with a count and an example, so a user can
see all of them at once before evaluating.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankeval._errors import InputError

__all__ = ["validate"]

OK, WARNING, ERROR, SKIPPED = "ok", "warning", "error", "skipped"
SCHEMA = {
    "check": pl.String,
    "status": pl.String,
    "count": pl.Int64,
    "detail": pl.String,
    "example": pl.String,
}


@dataclass
class _Report:
    rows: list[dict]

    def add(self, check: str, status: str, count: int, detail: str, example: str = "") -> None:
        self.rows.append(
            {"check": check, "status": status, "count": int(count), "detail": detail,
             "example": example}
        )

    def flag(self, check: str, bad: pl.DataFrame, detail: str, status: str = ERROR) -> None:
        """One row: ok when ``bad`` is empty, else ``status`` with the first bad row."""
        if bad.height == 0:
            self.add(check, OK, 0, "none")
        else:
            shown = bad.select(c for c in bad.columns if not c.startswith("_"))
            self.add(check, status, bad.height, detail, _first(shown))


def _first(frame: pl.DataFrame) -> str:
    return str(frame.row(0, named=True)) if frame.height else ""


def _is_key(dtype: pl.DataType) -> bool:
    return dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum)


def _collect(frame: pl.DataFrame | pl.LazyFrame, what: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        try:
            return frame.collect()
        except pl.exceptions.PolarsError as error:
            raise InputError(f"cannot read the {what}: {error}") from error
    if isinstance(frame, pl.DataFrame):
        return frame
    raise InputError(f"{what} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}")


def validate(
    run: pl.DataFrame | pl.LazyFrame,
    qrels: pl.DataFrame | pl.LazyFrame | None = None,
    *,
    cutoffs: Sequence[int] = (10,),
    query: str = "query",
    item: str = "item",
    rank: str | None = "rank",
    score: str | None = "score",
    relevant: str = "relevant",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Report what in ``run`` and ``qrels`` would change numbers; never raises on bad data.

    Returns a DataFrame with one row per check: ``check``, ``status`` (``ok``,
    ``warning``: numbers depend on it; ``error``: ``evaluate`` refuses it; ``skipped``: a
    column it needs is missing or unusable), ``count`` (rows, queries or items
    concerned), ``detail`` and ``example`` (a first offending row).  Lazy inputs are
    collected: this is a diagnostic, not a pipeline step.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rankeval as rk
    >>> run = pl.DataFrame({"query": ["q1", "q1", "q1", "q9"],
    ...                     "item": ["a", "a", "b", "c"], "score": [2.0, 1.0, 1.0, None]})
    >>> qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["a", "x"], "relevance": [1, 1]})
    >>> report = rk.validate(run, qrels, cutoffs=[1])
    >>> report.filter(pl.col("status") != "ok").select("check", "status", "count")
    shape: (5, 3)
    ┌─────────────────────────────┬─────────┬───────┐
    │ check                       ┆ status  ┆ count │
    │ ---                         ┆ ---     ┆ ---   │
    │ str                         ┆ str     ┆ i64   │
    ╞═════════════════════════════╪═════════╪═══════╡
    │ run score: null/NaN/inf     ┆ error   ┆ 1     │
    │ run duplicate (query, item) ┆ error   ┆ 2     │
    │ queries only in the run     ┆ warning ┆ 1     │
    │ queries only in the qrels   ┆ warning ┆ 1     │
    │ unjudged items in top 1     ┆ warning ┆ 1     │
    └─────────────────────────────┴─────────┴───────┘
    """
    report = _Report([])
    run_df = _collect(run, "run")
    qrels_df = None if qrels is None else _collect(qrels, "qrels")
    cutoffs = sorted({int(k) for k in cutoffs if int(k) > 0})

    # --- columns and types -------------------------------------------------------------
    usable_run = _columns(report, "run", run_df, {"query": query, "item": item})
    order_column = None
    if score is not None and score in run_df.columns:
        order_column = score
    elif rank is not None and rank in run_df.columns:
        order_column = rank
    if order_column is None:
        report.add("run ranking column", ERROR, 1,
                   f"no score column {score!r} and no rank column {rank!r}", _first(run_df))
    elif not run_df.schema[order_column].is_numeric():
        report.add("run ranking column", ERROR, 1,
                   f"{order_column!r} is {run_df.schema[order_column]}, not numeric",
                   _first(run_df))
        order_column = None
    else:
        report.add("run ranking column", OK, 0,
                   f"ranked by {'score' if order_column == score else 'rank'} ({order_column!r})")

    label_ok = False
    if qrels_df is None:
        label_ok = _numeric(report, "run", run_df, relevant, "relevance label")
        usable_qrels = False
    else:
        usable_qrels = _columns(report, "qrels", qrels_df, {"query": query, "item": item})
        label_ok = _numeric(report, "qrels", qrels_df, relevance, "relevance")

    # --- nulls and values --------------------------------------------------------------
    if usable_run:
        for column in (query, item):
            report.flag(f"run {column}: null", run_df.filter(pl.col(column).is_null()),
                        "null ids")
    if order_column is not None:
        values = pl.col(order_column)
        if order_column == score:
            bad = values.is_null() | (~values.is_finite() if run_df.schema[score].is_float()
                                      else pl.lit(False))
            report.flag(f"run {score}: null/NaN/inf", run_df.filter(bad), "unusable scores")
        else:
            bad = values.is_null() | (values <= 0)
            if run_df.schema[rank].is_float():
                bad = bad | ~values.is_finite() | (values != values.floor())
            report.flag(f"run {rank}: not a positive integer", run_df.filter(bad), "bad ranks")
    labels = run_df if qrels_df is None else qrels_df
    label_column = relevant if qrels_df is None else relevance
    if label_ok:
        value = pl.col(label_column)
        bad = value.is_null() | (value.cast(pl.Float64).is_nan())
        report.flag(f"{'run' if qrels_df is None else 'qrels'} {label_column}: null/NaN",
                    labels.filter(bad), "missing relevance")
    if usable_qrels:
        for column in (query, item):
            report.flag(f"qrels {column}: null", qrels_df.filter(pl.col(column).is_null()),
                        "null ids")

    # --- duplicates -----------------------------------------------------------------------
    if usable_run:
        report.flag("run duplicate (query, item)",
                    run_df.filter(pl.struct(query, item).is_duplicated()),
                    "rows sharing a (query, item); evaluate(duplicates='first') keeps the "
                    "best-ranked")
    if usable_qrels:
        report.flag("qrels duplicate (query, item)",
                    qrels_df.filter(pl.struct(query, item).is_duplicated()),
                    "judgments sharing a (query, item)")

    # --- run vs qrels ----------------------------------------------------------------------
    if usable_run and usable_qrels:
        for column in (query, item):
            left, right = run_df.schema[column], qrels_df.schema[column]
            if left.is_integer() != right.is_integer():
                report.add(f"{column} id types", ERROR, 1,
                           f"run {column} is {left}, qrels {column} is {right}: ids never match",
                           f"run {_first(run_df.select(column))}, "
                           f"qrels {_first(qrels_df.select(column))}")
            else:
                report.add(f"{column} id types", OK, 0, f"{left} / {right}")
        run_q = run_df.select(pl.col(query).cast(pl.String)).unique().drop_nulls()
        qrels_q = qrels_df.select(pl.col(query).cast(pl.String)).unique().drop_nulls()
        only_run = run_q.join(qrels_q, on=query, how="anti").sort(query)
        only_qrels = qrels_q.join(run_q, on=query, how="anti").sort(query)
        report.flag("queries only in the run", only_run,
                    "ignored by evaluate (a warning counts them)", WARNING)
        report.flag("queries only in the qrels", only_qrels,
                    "ignored, or scored 0 with complete=True", WARNING)
        no_relevant = (
            qrels_df.group_by(pl.col(query).cast(pl.String))
            .agg((pl.col(relevance) >= 1).sum().alias("relevant"))
            .filter(pl.col("relevant") == 0)
            if label_ok else pl.DataFrame()
        )
        report.flag("qrels queries without a relevant item", no_relevant,
                    "they score 0 on every measure that divides by R", WARNING)

    # --- ranking -----------------------------------------------------------------------------
    if usable_run and order_column is not None:
        ranked = _ranked(run_df, query, item, order_column, descending=order_column == score)
        if rank is not None and rank in run_df.columns and run_df.schema[rank].is_numeric():
            gaps = ranked.group_by(query).agg(
                (pl.col(rank).sort() != pl.int_range(1, pl.len() + 1)).any().alias("gap")
            ).filter(pl.col("gap"))
            report.flag("rank column is not 1..n per query", gaps,
                        "gaps or repeats: positions are renumbered 1..n", WARNING)
            if order_column == score:
                disagree = ranked.filter(pl.col(rank) != pl.col("_pos"))
                report.flag("rank column disagrees with the score order", disagree,
                            "evaluate ranks by score (as trec_eval); pass score=None to use "
                            "the rank column", WARNING)
        for k in cutoffs:
            if order_column != score:
                break
            at_k = ranked.filter(pl.col("_pos").is_in([k, k + 1]))
            straddle = at_k.group_by(query).agg(
                ((pl.len() == 2) & (pl.col(score).n_unique() == 1)).alias("_tie")
            ).filter(pl.col("_tie"))
            report.flag(f"score ties across @{k}", straddle,
                        f"queries whose items at positions {k} and {k + 1} tie: @{k} values "
                        "depend on the tie-break (item id, descending)", WARNING)
        if usable_qrels:
            judged = qrels_df.select(
                pl.col(query).cast(pl.String), pl.col(item).cast(pl.String),
                pl.lit(True).alias("_judged"),
            ).unique(subset=[query, item])
            joined = ranked.with_columns(
                pl.col(query).cast(pl.String), pl.col(item).cast(pl.String)
            ).join(judged, on=[query, item], how="left")
            for k in cutoffs:
                unjudged = joined.filter((pl.col("_pos") <= k) & pl.col("_judged").is_null())
                top = joined.filter(pl.col("_pos") <= k).height
                share = f"{unjudged.height / top:.1%}" if top else "n/a"
                report.flag(f"unjudged items in top {k}", unjudged,
                            f"{share} of the top {k}: counted as not relevant", WARNING)
        num_ret = ranked.group_by(query).len()["len"]
        report.add("num_ret per query", OK, num_ret.len(), _spread(num_ret))
    if usable_qrels and label_ok:
        num_rel = qrels_df.group_by(query).agg((pl.col(relevance) >= 1).sum())[relevance]
        report.add("num_rel per query", OK, num_rel.len(), _spread(num_rel))
    return pl.DataFrame(report.rows, schema=SCHEMA)


def _columns(report: _Report, what: str, frame: pl.DataFrame, names: dict[str, str]) -> bool:
    usable = True
    for keyword, name in names.items():
        if name not in frame.columns:
            report.add(f"{what} {name}: present", ERROR, 1,
                       f"no column {name!r} (columns: {frame.columns}); pass {keyword}=...",
                       _first(frame))
            usable = False
        elif not _is_key(frame.schema[name]):
            report.add(f"{what} {name}: id type", ERROR, 1,
                       f"{frame.schema[name]} ids: use strings or integers", _first(frame))
            usable = False
    return usable


def _numeric(report: _Report, what: str, frame: pl.DataFrame, name: str, role: str) -> bool:
    if name not in frame.columns:
        report.add(f"{what} {name}: present", ERROR, 1, f"no {role} column {name!r}",
                   _first(frame))
        return False
    dtype = frame.schema[name]
    if not (dtype.is_numeric() or dtype == pl.Boolean):
        report.add(f"{what} {name}: numeric", ERROR, 1, f"{role} is {dtype}", _first(frame))
        return False
    return True


def _ranked(frame: pl.DataFrame, query: str, item: str, by: str, *, descending: bool):
    key = pl.col(by) if descending else -pl.col(by)
    rows = frame.filter(pl.col(query).is_not_null() & pl.col(item).is_not_null())
    return rows.with_columns(
        pl.struct(key, pl.col(item).cast(pl.String))
        .rank("ordinal", descending=True)
        .over(query)
        .cast(pl.Int64)
        .alias("_pos")
    )


def _spread(values: pl.Series) -> str:
    if values.len() == 0:
        return "no queries"
    return f"min {values.min()}, median {values.median():g}, max {values.max()}"
