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
