"""The one place where ranks are derived and the run meets the qrels.

``judge(...)`` turns a user's run (and qrels) into lazy frames with fixed internal
column names that every measure expression reads:

* ``rows``: the rows the measures aggregate: the key columns (``by`` + query), ``_pos``
  (1-based position, trec_eval order), ``_rel`` (relevance value, null when not in the
  qrels) and, with qrels, the per-query stat columns (``Stat.column``) copied from the
  qrels side.  With qrels (and trec_eval's tie order, duplicates an error) only the
  *judged* retrieved rows, with the query's ``_num_ret``: the measures never need the
  unjudged rows, only how many there are (see ``Judged.judged_only``).  Otherwise
  every kept run row.
* ``queries``: with judged-only rows, one row per run query with ``_num_ret``, the run
  checks' counts and ``_in_run`` (a query none of whose rows is judged is only here).
* ``qstats``: with qrels, one row per qrels query with the stat columns.

It also declares the data checks (``Check``) that the engines count while they
aggregate, so bad input costs no extra pass and is reported with an example row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval._registry import Judged, Measure, Stat, Ties
from polars_rankeval._stats import gain, stat_expr

__all__ = ["Check", "Columns", "Judgement", "judge", "tie_needs"]

POS = "_pos"
REL = "_rel"
NUM_RET = "_num_ret"
IN_RUN = "_in_run"


@dataclass(frozen=True)
class Columns:
    """The user's column names (every one a keyword of ``evaluate``)."""

    query: str = "query"
    item: str = "item"
    rank: str | None = "rank"
    score: str | None = "score"
    relevant: str = "relevant"
    relevance: str = "relevance"


@dataclass(frozen=True)
class Check:
    """A data check: rows matching ``predicate`` are bad.

    ``counter`` is an aggregation counting bad rows per query (engines add it to their
    per-query aggregation); ``predicate`` finds an example row when the count is not 0.
    """

    frame: str  # "run" or "qrels"
    column: str
    problem: str
    predicate: pl.Expr
    counter: pl.Expr
    # for a counter that may over-count (a hash-based one): the exact count over the
    # whole frame, computed only when the counter is not 0
    recount: Callable[[pl.LazyFrame], int] | None = None

    @property
    def name(self) -> str:
        slug = re.sub(r"[^0-9a-zA-Z]+", "_", self.problem)[:40]
        return f"_check_{self.frame}_{len(self.column)}_{self.column}_{slug}"


def _row_check(frame: str, column: str, problem: str, predicate: pl.Expr) -> Check:
    return Check(frame, column, problem, predicate, predicate.fill_null(True).sum())


def _duplicate_check(frame: str, keys: Sequence[str], item: str, problem: str) -> Check:
    """Rows repeating the (keys, item) of another row, counted per query by hashing the
    items (measured 1.3x faster than an exact ``n_unique`` on strings): a hash collision
    can only over-count, so a non-zero count is recounted exactly before it is reported."""
    keys = list(keys)

    def recount(source: pl.LazyFrame) -> int:
        extra = source.group_by(keys).agg((pl.len() - pl.col(item).n_unique()).alias("_n"))
        return int(extra.select(pl.col("_n").sum()).collect().item() or 0)

    return Check(
        frame,
        item,
        problem,
        pl.struct(*keys, item).is_duplicated(),
        pl.len() - pl.col(item).hash().n_unique(),
        recount,
    )


@dataclass(frozen=True)
class Judgement:
    """Everything the engines need, lazily: see the module docstring."""

    rows: pl.LazyFrame
    # with judged-only rows: one row per run query, keys, _num_ret, run checks, _in_run
    queries: pl.LazyFrame | None
    qstats: pl.LazyFrame | None
    keys: list[str]  # by columns + query
    query: str
    judged: Judged
    run_checks: list[Check]
    qrels_checks: list[Check]
    run: pl.LazyFrame  # the user's run, for examples of bad rows
    ranked: pl.LazyFrame  # every kept run row with keys, item and _pos
    qrels: pl.LazyFrame | None
    duplicates_dropped: pl.LazyFrame | None  # keys + _dropped, with duplicates="first"


def _schema(frame: pl.LazyFrame, what: str) -> pl.Schema:
    try:
        return frame.collect_schema()
    except pl.exceptions.PolarsError as error:
        raise InputError(f"cannot read the {what}: {error}") from error


def _example(frame: pl.LazyFrame, predicate: pl.Expr | None = None) -> str:
    """A first row (matching ``predicate``), for error messages; only on error paths."""
    try:
        rows = (frame if predicate is None else frame.filter(predicate)).head(1).collect()
    except pl.exceptions.PolarsError:
        return "(no example available)"
    return str(rows.row(0, named=True)) if rows.height else "(none)"


def _require(
    schema: pl.Schema, frame: pl.LazyFrame, what: str, names: dict[str, str]
) -> None:
    """``names`` maps the evaluate keyword to the column name it gave."""
    for keyword, name in names.items():
        if name not in schema:
            raise InputError(
                f"{what} has no column {name!r} (columns: {list(schema)}); pass the right "
                f"name as a keyword, e.g. {keyword}='my_{keyword}_column'; "
                f"example row: {_example(frame)}"
            )


def _require_numeric(
    schema: pl.Schema, frame: pl.LazyFrame, what: str, column: str, *, allow_bool: bool = False
) -> None:
    dtype = schema[column]
    if dtype.is_numeric() or (allow_bool and dtype == pl.Boolean):
        return
    raise InputError(
        f"{what} column {column!r} must be numeric{' or boolean' if allow_bool else ''}, "
        f"got {dtype}; example row: {_example(frame)}"
    )


def _key_dtype(schema: pl.Schema, frame: pl.LazyFrame, what: str, column: str) -> pl.DataType:
    dtype = schema[column]
    if dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return dtype
    raise InputError(
        f"{what} column {column!r} must hold string or integer ids, got {dtype}; "
        f"example row: {_example(frame)}"
    )


def _align_key(
    run: pl.LazyFrame, qrels: pl.LazyFrame, run_col: str, qrels_col: str, run_t, qrels_t
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Give a join key one dtype on both sides; int vs str ids is an error, not a guess."""
    run_str = not run_t.is_integer()
    qrels_str = not qrels_t.is_integer()
    if run_str != qrels_str:
        raise InputError(
            f"run column {run_col!r} is {run_t} but qrels column {qrels_col!r} is {qrels_t}: "
            f"ids of different types never match (cast one side, e.g. "
            f"pl.col({run_col!r}).cast(pl.String)); example run row: {_example(run)}; "
            f"example qrels row: {_example(qrels)}"
        )
    target = pl.String if run_str else pl.Int64
    return (
        run.with_columns(pl.col(run_col).cast(target)),
        qrels.with_columns(pl.col(qrels_col).cast(target)),
    )


def _float_checks(frame: str, column: str, dtype: pl.DataType, what: str) -> list[Check]:
    col = pl.col(column)
    if dtype.is_float():
        return [_row_check(frame, column, f"{what} is null, NaN or infinite", ~col.is_finite())]
    return [_row_check(frame, column, f"{what} is null", col.is_null())]


def _order_column(c: Columns, schema: pl.Schema) -> str | None:
    """The column the run is ranked by: score if present, else rank."""
    if c.score is not None and c.score in schema:
        return c.score
    if c.rank is not None and c.rank in schema:
        return c.rank
    return None


def order_key(c: Columns, order_column: str) -> pl.Expr:
    """The value rows are ranked by, higher first: the score as trec_eval compares it,
    in single precision (trec_eval keeps scores in a C ``float``, so scores equal in
    float32 tie), or minus the rank."""
    if order_column == c.score:
        return pl.col(order_column).cast(pl.Float32)
    return -pl.col(order_column)


def position(c: Columns, order_column: str, keys: Sequence[str]) -> pl.Expr:
    """The 1-based position of each run row within its query: trec_eval's order.

    Score descending (or rank ascending), ties broken by item descending in byte order
    (integer ids compare as text, as trec_eval's strcmp does).  It is the ordinal rank of
    (key, item) descending, i.e. ROW_NUMBER() OVER (ORDER BY key DESC, item DESC); measured
    ~2x faster than int_range().over(order_by=...) on string items.
    """
    order = pl.struct(order_key(c, order_column), pl.col(c.item).cast(pl.String))
    return order.rank("ordinal", descending=True).over(list(keys)).cast(pl.Int64)


def keep_top(
    run: pl.LazyFrame, n: int, *, columns: Columns = Columns(), by: Sequence[str] = ()
) -> pl.LazyFrame:
    """The top ``n`` rows of each query in trec_eval's order (trec_eval ``-M``).

    >>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                     "score": [1.0, 2.0, 2.0]})
    >>> keep_top(run.lazy(), 2).collect()["item"].sort().to_list()
    ['b', 'c']
    """
    order_column = _order_column(columns, run.collect_schema())
    if order_column is None:
        raise InputError(
            f"run needs a score column ({columns.score!r}) or a rank column ({columns.rank!r})"
        )
    return run.filter(position(columns, order_column, [*by, columns.query]) <= n)


TIES = ("trec_eval", "average")


def tie_needs(measures: Sequence[Measure]) -> tuple[list[float], list[str]]:
    """The relevance levels and gain kinds whose tie-group columns ``measures`` read."""
    levels = list(dict.fromkeys(m.rel for m in measures))
    gains = list(dict.fromkeys(str(p) for m in measures for n, p in m.params if n == "gain"))
    return levels, gains


def _tie_suffix(level: float) -> str:
    return f"{level:g}".replace(".", "p").replace("-", "m")


def _with_ties(
    rows: pl.LazyFrame,
    keys: Sequence[str],
    columns: Columns,
    order_column: str,
    levels: Sequence[float],
    gains: Sequence[str],
) -> tuple[pl.LazyFrame, Ties]:
    """Add the tie-group columns (see :class:`Ties`) to the judged rows: windows over
    (keys, order value).  A group's rows hold consecutive positions (ties are broken
    by item only among equal order values), so with ``s`` = its top position - 1 a
    row's place in it is ``pos - s``."""
    keys = list(keys)
    group = [*keys, order_key(columns, order_column)]
    pos = pl.col(POS)

    def relevant(level: float) -> pl.Expr:
        return (pl.col(REL) >= level).fill_null(False).cast(pl.Float64)

    def name(what: str, level: float) -> str:
        return f"_tie_{what}_{_tie_suffix(level)}"

    rows = rows.with_columns(
        pl.len().over(group).cast(pl.Float64).alias("_tie_n"),
        (pos.min().over(group) - 1).cast(pl.Float64).alias("_tie_s"),
        *[relevant(v).sum().over(group).alias(name("r", v)) for v in levels],
        # relevant rows at positions <= pos, for h below
        *[relevant(v).cum_sum().over(keys, order_by=POS).alias(name("c", v)) for v in levels],
        *[gain(pl.col(REL), g).mean().over(group).alias(f"_tie_gain_{g}") for g in gains],
    )
    j = pos.cast(pl.Float64) - pl.col("_tie_s")
    n = pl.col("_tie_n")
    second: list[pl.Expr] = []
    for v in levels:
        # h: the cumulative count just above the group's top row
        h = (pl.col(name("c", v)) - relevant(v)).min().over(group)
        # Q(j) = product over the group's rows above this one of (n - r - j' + 1) / (n - j' + 1)
        factor = (n - pl.col(name("r", v)) - j + 1.0) / (n - j + 1.0)
        q = factor.cum_prod().shift(1, fill_value=1.0).over(group, order_by=POS)
        second += [h.alias(name("h", v)), q.alias(name("q", v))]
    rows = rows.with_columns(second)
    ties = Ties(
        size=pl.col("_tie_n"),
        above=pl.col("_tie_s"),
        relevant=lambda v: pl.col(name("r", v)),
        relevant_above=lambda v: pl.col(name("h", v)),
        none_before=lambda v: pl.col(name("q", v)),
        mean_gain=lambda g: pl.col(f"_tie_gain_{g}"),
    )
    return rows, ties


def judge(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame | None,
    *,
    columns: Columns,
    by: Sequence[str],
    stats: Sequence[Stat],
    duplicates: str,
    top: int | None = None,
    ties: str = "trec_eval",
    tie_levels: Sequence[float] = (),
    tie_gains: Sequence[str] = (),
) -> Judgement:
    """Validate the schemas, rank the run, join the qrels; nothing is collected.

    With ``ties="average"`` the rows also get the tie-group columns of ``tie_levels``
    and ``tie_gains`` (see :class:`Ties`), read through ``judged.ties``.
    """
    c = columns
    run_schema = _schema(run, "run")
    by = list(by)
    _require(run_schema, run, "run", {"query": c.query, "item": c.item})
    for name in by:
        _require(run_schema, run, "run", {"by": name})
    if c.query in by or len(set(by)) != len(by):
        raise InputError(f"by={by!r} must not repeat columns or contain the query column")
    run_query_t = _key_dtype(run_schema, run, "run", c.query)
    run_item_t = _key_dtype(run_schema, run, "run", c.item)
    if duplicates not in ("error", "first"):
        raise InputError(f"duplicates={duplicates!r}: choose 'error' or 'first'")
    if ties not in TIES:
        raise InputError(f"ties={ties!r}: choose 'trec_eval' or 'average'")

    run_checks = [
        _row_check("run", c.query, "query id is null", pl.col(c.query).is_null()),
        _row_check("run", c.item, "item id is null", pl.col(c.item).is_null()),
    ]
    order_column = _order_column(c, run_schema)
    if order_column is None:
        raise InputError(
            f"run needs a score column ({c.score!r}) or a rank column ({c.rank!r}); "
            f"columns: {list(run_schema)}; pass score=... or rank=...; "
            f"example row: {_example(run)}"
        )
    _require_numeric(run_schema, run, "run", order_column)
    if order_column == c.score:
        run_checks += _float_checks("run", c.score, run_schema[c.score], "score")
    else:
        rank = pl.col(c.rank)
        bad_rank = rank.is_null() | (rank <= 0)
        if run_schema[c.rank].is_float():
            bad_rank = bad_rank | ~rank.is_finite() | (rank != rank.floor())
        run_checks.append(
            _row_check("run", c.rank, "rank must be a positive integer (1 = top)", bad_rank)
        )

    keys = [*by, c.query]
    qrels_checks: list[Check] = []
    if qrels is None:
        _require(
            run_schema, run, "run (no qrels given, so relevance comes from it)",
            {"relevant": c.relevant},
        )
        _require_numeric(run_schema, run, "run", c.relevant, allow_bool=True)
        run_checks += _float_checks("run", c.relevant, run_schema[c.relevant], "relevance label")
        rel = pl.col(c.relevant).cast(pl.Float64).alias(REL)
        run_prepared = run
    else:
        qrels_schema = _schema(qrels, "qrels")
        _require(
            qrels_schema, qrels, "qrels",
            {"query": c.query, "item": c.item, "relevance": c.relevance},
        )
        _require_numeric(qrels_schema, qrels, "qrels", c.relevance)
        qrels_query_t = _key_dtype(qrels_schema, qrels, "qrels", c.query)
        qrels_item_t = _key_dtype(qrels_schema, qrels, "qrels", c.item)
        run_prepared, qrels = _align_key(run, qrels, c.query, c.query, run_query_t, qrels_query_t)
        run_prepared, qrels = _align_key(
            run_prepared, qrels, c.item, c.item, run_item_t, qrels_item_t
        )
        qrels_checks = [
            _row_check("qrels", c.query, "query id is null", pl.col(c.query).is_null()),
            _row_check("qrels", c.item, "item id is null", pl.col(c.item).is_null()),
            *_float_checks("qrels", c.relevance, qrels_schema[c.relevance], "relevance"),
            _duplicate_check("qrels", [c.query], c.item, "duplicate (query, item) judgments"),
        ]
        rel = pl.col(REL)

    judged_only = qrels is not None and ties == "trec_eval" and duplicates == "error"
    retrieved = pl.len().cast(pl.Int64)
    if top is not None:
        retrieved = pl.min_horizontal(retrieved, pl.lit(top, dtype=pl.Int64))
    ranked = run_prepared.with_columns(
        position(c, order_column, keys).alias(POS),
        # judged-only rows carry their query's count: a window over the rank's own groups,
        # measured free next to it (a join of per-query counts cost 0.6 s at 10M rows)
        *([retrieved.over(keys).alias(NUM_RET)] if judged_only else []),
    )
    if top is not None:
        ranked = ranked.filter(pl.col(POS) <= top)
    duplicates_dropped = None
    if duplicates == "first":
        # keep the best-ranked row of each (query, item); the dropped rows keep
        # occupying their positions, as they did on the user's screen
        first = pl.int_range(pl.len()).over([*keys, c.item], order_by=POS) == 0
        ranked = ranked.with_columns(first.alias("_first"))
        duplicates_dropped = (
            ranked.filter(~pl.col("_first")).group_by(keys).agg(pl.len().alias("_dropped"))
        )
        ranked = ranked.filter(pl.col("_first")).drop("_first")
    else:
        run_checks.append(
            _duplicate_check(
                "run",
                keys,
                c.item,
                "duplicate (query, item) rows (pass duplicates='first' to keep the "
                "best-ranked one)",
            )
        )

    stats = list(dict.fromkeys(stats))
    num_ret = pl.len()
    queries = None
    if qrels is None:
        rows = ranked.with_columns(rel)
        qstats = None

        def stat(s: Stat) -> pl.Expr:
            return stat_expr(s, pl.col(REL))

    else:
        judged_qrels = qrels.with_columns(pl.col(c.relevance).cast(pl.Float64).alias(REL))
        qstats = judged_qrels.group_by(c.query).agg(
            *[stat_expr(s, rel).alias(s.column) for s in stats],
            *[check.counter.alias(check.name) for check in qrels_checks],
        )
        per_query = qstats.select(c.query, *[s.column for s in stats])
        qrels_rows = judged_qrels.select(c.query, c.item, REL).join(
            per_query, on=c.query, how="left"
        )
        if judged_only:
            # one row per run query: its count and the run checks' counts (the checks
            # cover every row, also beyond top)
            queries = run_prepared.group_by(keys).agg(
                retrieved.alias(NUM_RET),
                *[check.counter.alias(check.name) for check in run_checks],
                pl.lit(True).alias(IN_RUN),
            )
            rows = (
                ranked.join(qrels_rows, on=[c.query, c.item], how="inner")
                # ~1/20 of the run: sorted, a query's sums add in the same order on every
                # call (measured free; maintain_order on the join cost 1.7 s at 10M rows)
                .sort([*keys, POS], nulls_last=True)
            )
            num_ret = pl.col(NUM_RET).first()

            def stat(s: Stat) -> pl.Expr:
                return pl.col(s.column).first()

        else:
            rows = ranked.join(
                qrels_rows, on=[c.query, c.item], how="left", maintain_order="left"
            )

            def stat(s: Stat) -> pl.Expr:
                # null on rows that are not in the qrels: max() skips them
                return pl.col(s.column).max()

    tie_columns = None
    if ties == "average":
        rows, tie_columns = _with_ties(rows, keys, c, order_column, tie_levels, tie_gains)
    judged = Judged(
        pos=pl.col(POS),
        rel=pl.col(REL),
        stat=stat,
        ties=tie_columns,
        num_ret=num_ret,
        judged_only=judged_only,
    )
    return Judgement(
        rows=rows,
        queries=queries,
        qstats=qstats,
        keys=keys,
        query=c.query,
        judged=judged,
        run_checks=run_checks,
        qrels_checks=qrels_checks,
        run=run,
        ranked=ranked,
        qrels=qrels,
        duplicates_dropped=duplicates_dropped,
    )


def raise_for_checks(
    frame: pl.DataFrame, checks: Sequence[Check], source: Callable[[str], pl.LazyFrame | None]
) -> None:
    """Raise :class:`InputError` for the first check with a non-zero count in ``frame``."""
    for check in checks:
        if check.name not in frame.columns:
            continue
        count = int(frame[check.name].fill_null(0).sum())
        origin = source(check.frame) if count else None
        if count and check.recount is not None and origin is not None:
            count = check.recount(origin)
        if count:
            example = _example(origin, check.predicate) if origin is not None else "(none)"
            raise InputError(
                f"{check.frame} column {check.column!r}: {check.problem}: {count} row(s); "
                f"example row: {example}"
            )
