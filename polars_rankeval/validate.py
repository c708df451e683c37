"""``validate(run, qrels)``: a report of everything in the data that would change numbers.

Where :func:`polars_rankeval.evaluate` is strict (bad input raises), ``validate`` never
raises on bad data: it reports each problem with a count and an example, so a user can
see all of them at once before evaluating.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import polars as pl

from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import InputError, not_a_frame
from polars_rankeval.options import Columns
from polars_rankeval.prepare.checks import rank_check
from polars_rankeval.prepare.names import alias_columns
from polars_rankeval.prepare.ranking import order_column, order_key, position

__all__ = ["validate"]

OK, WARNING, ERROR, SKIPPED = "ok", "warning", "error", "skipped"
SCHEMA = {
    "check": pl.String,
    "status": pl.String,
    "count": pl.Int64,
    "detail": pl.String,
    "example": pl.String,
}


class _Report(NamedTuple):
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
    raise not_a_frame(what, frame)


@fill_params
def validate(
    run: pl.DataFrame | pl.LazyFrame, qrels: pl.DataFrame | pl.LazyFrame | None = None, *,
    cutoffs: Sequence[int] | int = (10,), query: str = "query", item: str = "item",
    rank: str | None = "rank", score: str | None = "score", relevant: str = "relevant",
    relevance: str = "relevance", subtopic: str = "subtopic", intent_weight: str | None = None,
) -> pl.DataFrame:  # fmt: skip
    """Report what in ``run`` and ``qrels`` would change numbers; never raises on bad data.

    Lazy inputs are collected: this is a diagnostic, not a pipeline step.  Subtopic qrels
    are checked as ``evaluate`` reads them: a null subtopic or a repeated (query,
    subtopic, item) is an error, as is, with ``intent_weight=``, a weight that is not a
    finite number >= 0 or that differs within a (query, subtopic); the other checks read
    an item's highest relevance over its subtopics.

    Parameters
    ----------
    {params: run, qrels, cutoffs, query, item, rank, score, relevant, relevance, subtopic,
    intent_weight}

    Returns
    -------
    One row per check: ``check``, ``status`` (``ok``; ``warning``: numbers depend on it;
    ``error``: ``evaluate`` refuses it; ``skipped``: a column it needs is missing or
    unusable), ``count`` (rows, queries or items concerned), ``detail`` and ``example``
    (a first offending row).

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
    cutoffs = _cutoffs(cutoffs)
    columns = Columns(query, item, rank, score, relevant, relevance, subtopic, intent_weight)
    run_df = _collect(run, "run")
    qrels_df = None if qrels is None else _collect(qrels, "qrels")
    # columns named like internal ones or pl.col patterns ('*') are checked under an alias
    aliases = alias_columns(run_df, qrels_df, columns, ())
    checks = _Validation(_Report([]), aliases.run, aliases.qrels, aliases.columns)  # type: ignore[arg-type]
    checks.run_all(cutoffs)
    return _named_back(pl.DataFrame(checks.report.rows, schema=SCHEMA), aliases.back)


def _named_back(report: pl.DataFrame, back: dict[str, str]) -> pl.DataFrame:
    """The report with the user's column names where aliases were checked."""
    text = pl.col("check", "detail", "example")
    for alias, user in back.items():
        text = text.str.replace_all(f"'{alias}'", repr(user), literal=True)
        text = text.str.replace_all(rf"\b{alias}\b", user.replace("$", "$$"))
    return report.with_columns(text)


def _cutoffs(cutoffs: object) -> list[int]:
    """Validated cutoffs: positive integers (a bare int is one cutoff)."""
    if isinstance(cutoffs, int) and not isinstance(cutoffs, bool):
        cutoffs = [cutoffs]
    if isinstance(cutoffs, str) or not isinstance(cutoffs, Sequence):
        raise InputError(f"cutoffs={cutoffs!r}: give a list of positive integers, e.g. [5, 10]")
    bad = [k for k in cutoffs if isinstance(k, bool) or not isinstance(k, int) or k <= 0]
    if bad:
        raise InputError(
            f"cutoffs={list(cutoffs)!r}: {bad[0]!r} is not a positive integer; "
            "give cutoffs such as [5, 10]"
        )
    return sorted(set(cutoffs))


@dataclass
class _Validation:
    """The checks of :func:`validate`, section by section, into one report."""

    report: _Report
    run: pl.DataFrame
    qrels: pl.DataFrame | None
    c: Columns
    order: str | None = None
    usable_run: bool = False
    usable_qrels: bool = False
    label_ok: bool = False

    def run_all(self, cutoffs: Sequence[int]) -> None:
        """Every section, in the report's order (each reads what the ones before found)."""
        self.schema()
        self.values()
        self.subtopics()
        self.duplicates()
        self.overlap()
        self.ranking(cutoffs)
        self.counts()

    def schema(self) -> None:
        """Columns present and of usable types; which column ranks the run."""
        report, run, c = self.report, self.run, self.c
        self.usable_run = _columns(report, "run", run, {"query": c.query, "item": c.item})
        order = order_column(c, run.schema)
        if order is None:
            report.add("run ranking column", ERROR, 1,
                       f"no score column {c.score!r} and no rank column {c.rank!r}", _first(run))
        elif not run.schema[order].is_numeric():
            report.add("run ranking column", ERROR, 1,
                       f"{order!r} is {run.schema[order]}, not numeric", _first(run))
            order = None
        else:
            kind = "score" if order == c.score else "rank"
            report.add("run ranking column", OK, 0, f"ranked by {kind} ({order!r})")
        self.order = order
        if self.qrels is None:
            self.label_ok = _numeric(report, "run", run, c.relevant, "relevance label", "relevant")
        else:
            names = {"query": c.query, "item": c.item}
            self.usable_qrels = _columns(report, "qrels", self.qrels, names)
            self.label_ok = _numeric(report, "qrels", self.qrels, c.relevance, "relevance", "relevance")

    def values(self) -> None:
        """Null ids, unusable scores or ranks, missing relevance."""
        report, run, c, order = self.report, self.run, self.c, self.order
        if self.usable_run:
            for column in (c.query, c.item):
                report.flag(f"run {column}: null", run.filter(pl.col(column).is_null()),
                            "null ids")
        if order is not None and order == c.score:
            values = pl.col(order)
            finite = ~values.is_finite() if run.schema[order].is_float() else pl.lit(False)
            report.flag(f"run {order}: null/NaN/inf", run.filter(values.is_null() | finite),
                        "unusable scores")
        elif order is not None:
            report.flag(f"run {order}: not a positive integer",
                        run.filter(rank_check(order, run.schema[order]).predicate), "bad ranks")
        labels = run if self.qrels is None else self.qrels
        label_column = c.relevant if self.qrels is None else c.relevance
        if self.label_ok:
            value = pl.col(label_column)
            bad = value.is_null() | (value.cast(pl.Float64).is_nan())
            report.flag(f"{'run' if self.qrels is None else 'qrels'} {label_column}: null/NaN",
                        labels.filter(bad), "missing relevance")
        if self.usable_qrels and self.qrels is not None:
            for column in (c.query, c.item):
                report.flag(f"qrels {column}: null",
                            self.qrels.filter(pl.col(column).is_null()), "null ids")

    def subtopics(self) -> None:
        """Subtopic qrels (they hold the ``subtopic=`` column): their own checks, then the
        topic qrels for the checks after (an item's highest relevance over its subtopics,
        as ``evaluate`` judges the measures that are not diversity measures)."""
        qrels, c = self.qrels, self.c
        if not (self.usable_qrels and qrels is not None and c.subtopic in qrels.columns):
            return
        self.report.flag(f"qrels {c.subtopic}: null", qrels.filter(pl.col(c.subtopic).is_null()),
                         "null subtopic ids")
        self.report.flag(
            "qrels duplicate (query, subtopic, item)",
            qrels.filter(pl.struct(c.query, c.subtopic, c.item).is_duplicated()),
            "judgments sharing a (query, subtopic, item)",
        )
        if c.intent_weight is not None:
            self._intent_weights(qrels, c.intent_weight)
        # diversity.compute.topic_qrels's collapse, kept in row order here so the report's
        # example rows are the same on every call (and without a relevance column)
        highest = [pl.col(c.relevance).max()] if c.relevance in qrels.columns else []
        self.qrels = qrels.group_by(c.query, c.item, maintain_order=True).agg(highest)

    def _intent_weights(self, qrels: pl.DataFrame, name: str) -> None:
        """``intent_weight=``: the column present, numeric, and what ``evaluate`` refuses
        in it (one rule, :func:`~polars_rankeval.diversity.compute.weight_problems`)."""
        # imported here: the diversity code is loaded only when subtopic qrels are read
        from polars_rankeval.diversity.compute import weight_problems

        if name not in qrels.columns:
            self.report.add(f"qrels {name}: present", ERROR, 1,
                            f"no intent weight column {name!r} (columns: {qrels.columns}); "
                            "pass intent_weight=... or leave it None (equal weights)",
                            _first(qrels))
            return
        if not qrels.schema[name].is_numeric():
            self.report.add(f"qrels {name}: numeric", ERROR, 1,
                            f"intent weight is {qrels.schema[name]}", _first(qrels))
            return
        unusable, varying = weight_problems(qrels, pl.col(name).cast(pl.Float64), self.c)
        self.report.flag(f"qrels {name}: not a finite weight >= 0", unusable,
                         "unusable intent weights")
        self.report.flag(f"qrels {name}: differs within a (query, subtopic)", varying,
                         "a (query, subtopic) has one intent weight")

    def duplicates(self) -> None:
        c = self.c
        if self.usable_run:
            self.report.flag(
                "run duplicate (query, item)",
                self.run.filter(pl.struct(c.query, c.item).is_duplicated()),
                "rows sharing a (query, item); evaluate(duplicates='first') keeps the "
                "best-ranked",
            )
        if self.usable_qrels and self.qrels is not None:
            self.report.flag(
                "qrels duplicate (query, item)",
                self.qrels.filter(pl.struct(c.query, c.item).is_duplicated()),
                "judgments sharing a (query, item)",
            )

    def overlap(self) -> None:
        """Id types on both sides, queries on one side only, queries without relevant."""
        if not (self.usable_run and self.usable_qrels and self.qrels is not None):
            return
        report, run, qrels, c = self.report, self.run, self.qrels, self.c
        for column in (c.query, c.item):
            left, right = run.schema[column], qrels.schema[column]
            if left.is_integer() != right.is_integer():
                report.add(f"{column} id types", ERROR, 1,
                           f"run {column} is {left}, qrels {column} is {right}: ids never match",
                           f"run {_first(run.select(column))}, "
                           f"qrels {_first(qrels.select(column))}")
            else:
                report.add(f"{column} id types", OK, 0, f"{left} / {right}")
        run_q = run.select(pl.col(c.query).cast(pl.String)).unique().drop_nulls()
        qrels_q = qrels.select(pl.col(c.query).cast(pl.String)).unique().drop_nulls()
        report.flag("queries only in the run", run_q.join(qrels_q, on=c.query, how="anti")
                    .sort(c.query), "ignored by evaluate (a warning counts them)", WARNING)
        report.flag("queries only in the qrels", qrels_q.join(run_q, on=c.query, how="anti")
                    .sort(c.query), "ignored, or scored 0 with complete=True", WARNING)
        no_relevant = (
            qrels.group_by(pl.col(c.query).cast(pl.String))
            .agg((pl.col(c.relevance) >= 1).sum().alias("relevant"))
            .filter(pl.col("relevant") == 0)
            if self.label_ok else pl.DataFrame()
        )
        report.flag("qrels queries without a relevant item", no_relevant,
                    "they score 0 on every measure that divides by R", WARNING)

    def ranking(self, cutoffs: Sequence[int]) -> None:
        """Rank gaps, rank/score disagreement, ties across cutoffs, unjudged in the top k."""
        if not self.usable_run or self.order is None:
            return
        c, order = self.c, self.order
        ranked = _ranked(self.run, c, order)
        if c.rank is not None and c.rank in self.run.columns and \
                self.run.schema[c.rank].is_numeric():
            self._rank_column(ranked)
        if order == c.score:
            for k in cutoffs:
                at_k = ranked.filter(pl.col("_pos").is_in([k, k + 1]))
                straddle = at_k.group_by(c.query).agg(
                    ((pl.len() == 2) & (order_key(c, order).n_unique() == 1)).alias("_tie")
                ).filter(pl.col("_tie"))
                self.report.flag(f"score ties across @{k}", straddle,
                                 f"queries whose items at positions {k} and {k + 1} tie: @{k} "
                                 "values depend on the tie-break (item id, descending)", WARNING)
        if self.usable_qrels:
            self._unjudged(ranked, cutoffs)
        num_ret = ranked.group_by(c.query).len()["len"]
        self.report.add("num_ret per query", OK, num_ret.len(), _spread(num_ret))

    def _rank_column(self, ranked: pl.DataFrame) -> None:
        c = self.c
        assert c.rank is not None
        gaps = ranked.group_by(c.query).agg(
            (pl.col(c.rank).sort() != pl.int_range(1, pl.len() + 1)).any().alias("gap")
        ).filter(pl.col("gap"))
        self.report.flag("rank column is not 1..n per query", gaps,
                         "gaps or repeats: positions are renumbered 1..n", WARNING)
        if self.order == c.score:
            disagree = ranked.filter(pl.col(c.rank) != pl.col("_pos"))
            self.report.flag("rank column disagrees with the score order", disagree,
                             "evaluate ranks by score (as trec_eval); pass score=None to use "
                             "the rank column", WARNING)

    def _unjudged(self, ranked: pl.DataFrame, cutoffs: Sequence[int]) -> None:
        c, qrels = self.c, self.qrels
        assert qrels is not None
        judged = qrels.select(
            pl.col(c.query).cast(pl.String), pl.col(c.item).cast(pl.String),
            pl.lit(True).alias("_judged"),
        ).unique(subset=[c.query, c.item])
        joined = ranked.with_columns(
            pl.col(c.query).cast(pl.String), pl.col(c.item).cast(pl.String)
        ).join(judged, on=[c.query, c.item], how="left")
        for k in cutoffs:
            unjudged = joined.filter((pl.col("_pos") <= k) & pl.col("_judged").is_null())
            top = joined.filter(pl.col("_pos") <= k).height
            share = f"{unjudged.height / top:.1%}" if top else "n/a"
            self.report.flag(f"unjudged items in top {k}", unjudged,
                             f"{share} of the top {k}: counted as not relevant", WARNING)

    def counts(self) -> None:
        if self.usable_qrels and self.label_ok and self.qrels is not None:
            c = self.c
            num_rel = self.qrels.group_by(c.query).agg((pl.col(c.relevance) >= 1).sum())
            self.report.add("num_rel per query", OK, num_rel.height, _spread(num_rel[c.relevance]))


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


def _numeric(
    report: _Report, what: str, frame: pl.DataFrame, name: str, role: str, keyword: str
) -> bool:
    if name not in frame.columns:
        report.add(f"{what} {name}: present", ERROR, 1,
                   f"no {role} column {name!r} (columns: {frame.columns}); pass {keyword}=...",
                   _first(frame))
        return False
    dtype = frame.schema[name]
    if not (dtype.is_numeric() or dtype == pl.Boolean):
        report.add(f"{what} {name}: numeric", ERROR, 1, f"{role} is {dtype}", _first(frame))
        return False
    return True


def _ranked(frame: pl.DataFrame, columns: Columns, order: str) -> pl.DataFrame:
    """The rows with usable ids, positioned as ``evaluate`` positions them (the one
    trec_eval ranking: float32 scores, ties by item descending)."""
    rows = frame.filter(pl.col(columns.query).is_not_null() & pl.col(columns.item).is_not_null())
    return rows.with_columns(position(columns, order, [columns.query]).alias("_pos"))


def _spread(values: pl.Series) -> str:
    if values.len() == 0:
        return "no queries"
    median = values.cast(pl.Float64).median()
    assert isinstance(median, float)
    return f"min {values.min()!r}, median {median:g}, max {values.max()!r}"
