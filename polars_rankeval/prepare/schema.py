"""Schema checks of the run and the qrels: columns present, of usable types, ids of one
type on both sides.  They run when the plan is built (schemas only, no data)."""

from __future__ import annotations

import polars as pl

from polars_rankeval._errors import InputError
from polars_rankeval.prepare.checks import example

__all__ = ["align_key", "key_dtype", "read_schema", "require", "require_numeric"]


def read_schema(frame: pl.LazyFrame, what: str) -> pl.Schema:
    try:
        return frame.collect_schema()
    except pl.exceptions.PolarsError as error:
        raise InputError(f"cannot read the {what}: {error}") from error


def require(schema: pl.Schema, frame: pl.LazyFrame, what: str, names: dict[str, str]) -> None:
    """``names`` maps the evaluate keyword to the column name it gave."""
    for keyword, name in names.items():
        if name not in schema:
            raise InputError(
                f"{what} has no column {name!r} (columns: {list(schema)}); pass the right "
                f"name as a keyword, e.g. {keyword}='my_{keyword}_column'; "
                f"example row: {example(frame)}"
            )


def require_numeric(
    schema: pl.Schema, frame: pl.LazyFrame, what: str, column: str, *, allow_bool: bool = False
) -> None:
    dtype = schema[column]
    if dtype.is_numeric() or (allow_bool and dtype == pl.Boolean):
        return
    raise InputError(
        f"{what} column {column!r} must be numeric{' or boolean' if allow_bool else ''}, "
        f"got {dtype}; example row: {example(frame)}"
    )


def key_dtype(schema: pl.Schema, frame: pl.LazyFrame, what: str, column: str) -> pl.DataType:
    dtype = schema[column]
    if dtype.is_integer() or dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return dtype
    raise InputError(
        f"{what} column {column!r} must hold string or integer ids, got {dtype}; "
        f"example row: {example(frame)}"
    )


def _common_int(a: pl.DataType, b: pl.DataType) -> pl.DataType:
    """An integer dtype that holds every value of both: Int64, unless an id does not
    fit (UInt64 ids above 2^63, 128-bit ids)."""
    wide = {pl.UInt64, pl.Int128, pl.UInt128}
    if a not in wide and b not in wide:
        return pl.Int64()
    if a.is_unsigned_integer() and b.is_unsigned_integer():
        return pl.UInt128() if pl.UInt128 in (a, b) else pl.UInt64()
    return pl.Int128()


def align_key(
    run: pl.LazyFrame,
    qrels: pl.LazyFrame,
    column: str,
    run_t: pl.DataType,
    qrels_t: pl.DataType,
) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """Give a join key one dtype on both sides; int vs str ids is an error, not a guess."""
    run_str = not run_t.is_integer()
    qrels_str = not qrels_t.is_integer()
    if run_str != qrels_str:
        raise InputError(
            f"run column {column!r} is {run_t} but qrels column {column!r} is {qrels_t}: "
            f"ids of different types never match (cast one side, e.g. "
            f"pl.col({column!r}).cast(pl.String)); example run row: {example(run)}; "
            f"example qrels row: {example(qrels)}"
        )
    target = pl.String if run_str else _common_int(run_t, qrels_t)
    return (
        run.with_columns(pl.col(column).cast(target)),
        qrels.with_columns(pl.col(column).cast(target)),
    )
