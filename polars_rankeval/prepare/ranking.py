"""The one trec_eval ranking: which column orders a run, the order key, the position.

trec_eval sorts a query's rows by score descending, ties broken by item descending in
byte order (``strcmp``), and keeps scores in a C ``float``.  Every path that ranks
(``evaluate``'s engines, ``validate``, ``keep_top``) uses these functions; the SQL twin's
``rankeval_ranked`` is their one SQL counterpart.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.options import Columns

__all__ = ["POS", "keep_top", "order_column", "order_key", "position"]

POS = "_pos"


def order_column(c: Columns, schema: pl.Schema) -> str | None:
    """The column the run is ranked by: score if present, else rank (None: neither)."""
    if c.score is not None and c.score in schema:
        return c.score
    if c.rank is not None and c.rank in schema:
        return c.rank
    return None


def order_key(c: Columns, column: str) -> pl.Expr:
    """The value rows are ranked by, higher first: the score as trec_eval compares it,
    in single precision (trec_eval keeps scores in a C ``float``, so scores equal in
    float32 tie), or minus the rank."""
    if column == c.score:
        return pl.col(column).cast(pl.Float32)
    # as a double, as the SQL twin does: an unsigned rank (polars' own rank() and
    # with_row_index are UInt32) cannot be negated
    return -pl.col(column).cast(pl.Float64)


def position(c: Columns, column: str, keys: Sequence[str]) -> pl.Expr:
    """The 1-based position of each run row within its query: trec_eval's order.

    Score descending (or rank ascending), ties broken by item descending in byte order
    (integer ids compare as text, as trec_eval's strcmp does).  It is the ordinal rank of
    (key, item) descending, i.e. ROW_NUMBER() OVER (ORDER BY key DESC, item DESC); measured
    ~2x faster than int_range().over(order_by=...) on string items.

    >>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                     "score": [1.0, 2.0, 2.0]})
    >>> # b and c tie at 2.0: item descending puts c first
    >>> run.select(position(Columns(), "score", ["query"]))["score"].to_list()
    [3, 2, 1]
    """
    order = pl.struct(order_key(c, column), pl.col(c.item).cast(pl.String))
    return order.rank("ordinal", descending=True).over(list(keys)).cast(pl.Int64)


def keep_top(
    run: pl.LazyFrame, n: int, *, columns: Columns | None = None, by: Sequence[str] = ()
) -> pl.LazyFrame:
    """The top ``n`` rows of each query in trec_eval's order (trec_eval ``-M``).

    >>> run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                     "score": [1.0, 2.0, 2.0]})
    >>> keep_top(run.lazy(), 2).collect()["item"].sort().to_list()
    ['b', 'c']
    """
    columns = columns or Columns()
    column = order_column(columns, run.collect_schema())
    if column is None:
        raise InputError(
            f"run needs a score column ({columns.score!r}) or a rank column ({columns.rank!r})"
        )
    return run.filter(position(columns, column, [*by, columns.query]) <= n)
