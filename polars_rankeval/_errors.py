"""The project's exception types."""

from __future__ import annotations


class RankevalError(ValueError):
    """Base class of every error polars_rankeval raises on bad input.

    Subclasses ``ValueError`` so ``except ValueError`` keeps working.
    """


class InputError(RankevalError):
    """A run or qrels frame that cannot be evaluated as given.

    The message names the column, the problem and an example row.
    """


class MeasureError(RankevalError):
    """An unknown measure name or a bad measure parameter."""


class RankevalWarning(UserWarning):
    """Data that was skipped or de-duplicated by a documented policy, with counts."""


# how to turn what users often pass instead of a polars frame into one (by type name prefix)
_CONVERSIONS = {
    "pandas.": "pl.from_pandas(df)",
    "pyarrow.": "pl.from_arrow(table)",
    "dict": "pl.DataFrame(data)",
    "list": "pl.DataFrame(rows, orient='row')",
    "str": "pl.scan_parquet(path), pl.scan_csv(path) or rk.read_trec_run(path)",
    "pathlib.": "pl.scan_parquet(path), pl.scan_csv(path) or rk.read_trec_run(path)",
    "duckdb.": "relation.pl()",
}


def not_a_frame(
    what: str, frame: object, accepted: str = "a polars DataFrame or LazyFrame"
) -> InputError:
    """The error for an argument that is not a frame, naming its type and, for the types
    users often pass instead, the call that converts it.

    >>> print(not_a_frame("run", {"query": ["q1"]}))
    run must be a polars DataFrame or LazyFrame, got dict (convert it: pl.DataFrame(data))
    """
    kind = type(frame)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    hint = next((how for prefix, how in _CONVERSIONS.items() if name.startswith(prefix)), None)
    return InputError(
        f"{what} must be {accepted}, got {name}" + (f" (convert it: {hint})" if hint else "")
    )
