"""Old import path of the ranking and the join (now :mod:`polars_rankeval.prepare`)."""

from polars_rankeval.options import Columns
from polars_rankeval.prepare import judge, keep_top

__all__ = ["Columns", "judge", "keep_top"]
