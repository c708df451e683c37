"""The ``rankeval`` namespace on DataFrame, LazyFrame and Expr.

Thin, explicit delegations to :func:`polars_rankeval.evaluate` and
:mod:`polars_rankeval.expr` (no ``__getattr__`` magic), so every method is visible to
editors and documented where the real function is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Generic, TypeVar

import polars as pl

from polars_rankeval import expr as rx
from polars_rankeval.compare import compare
from polars_rankeval.evaluate import evaluate
from polars_rankeval.validate import validate

__all__ = ["RankevalExprNamespace", "RankevalFrameNamespace"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
QrelsT = pl.DataFrame | pl.LazyFrame | None


class RankevalFrameNamespace(Generic[FrameT]):
    """``df.rankeval`` / ``lf.rankeval``: the frame is the run.

    >>> import polars as pl
    >>> import polars_rankeval  # registers the namespace
    >>> run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "rank": [1, 2],
    ...                     "relevant": [0, 1]})
    >>> run.rankeval.ap()["value"].item()
    0.5
    >>> run.rankeval.evaluate(None, ["RR", "P@2"])["value"].to_list()
    [0.5, 0.5]
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame: FrameT = frame

    def evaluate(
        self, qrels: QrelsT = None, measures: str | Iterable[str] = ("AP",), **options: Any
    ) -> FrameT:
        """:func:`polars_rankeval.evaluate` with this frame as the run."""
        return evaluate(self._frame, qrels, measures, **options)

    def compare(
        self,
        qrels: QrelsT = None,
        measures: str | Iterable[str] = ("AP", "nDCG@10", "P@10", "R@100", "RR"),
        *,
        system: str = "system",
        **options: Any,
    ) -> pl.DataFrame:
        """:func:`polars_rankeval.compare` with this frame as the runs (its ``system``
        column names the systems); a DataFrame of comparisons."""
        return compare(self._frame, qrels, measures, system=system, **options)

    def validate(self, qrels: QrelsT = None, **options: Any) -> pl.DataFrame:
        """:func:`polars_rankeval.validate` with this frame as the run (a report frame)."""
        return validate(self._frame, qrels, **options)

    def _one(self, family: str, qrels: QrelsT, k: int | None, options: dict[str, Any]) -> FrameT:
        name = family + (f"@{k}" if k is not None else "")
        return evaluate(self._frame, qrels, [name], **options)

    def ap(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """AP (MAP as the mean); options as :func:`polars_rankeval.evaluate`."""
        return self._one("AP", qrels, k, options)

    def ndcg(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """nDCG@k; options as :func:`polars_rankeval.evaluate`."""
        return self._one("nDCG", qrels, k, options)

    def precision(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """P@k; options as :func:`polars_rankeval.evaluate`."""
        return self._one("P", qrels, k, options)

    def recall(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """R@k; options as :func:`polars_rankeval.evaluate`."""
        return self._one("R", qrels, k, options)

    def rr(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """RR (MRR as the mean); options as :func:`polars_rankeval.evaluate`."""
        return self._one("RR", qrels, k, options)

    def success(self, qrels: QrelsT = None, *, k: int | None = None, **options: Any) -> FrameT:
        """Success@k (hit rate); options as :func:`polars_rankeval.evaluate`."""
        return self._one("Success", qrels, k, options)


@pl.api.register_dataframe_namespace("rankeval")
class RankevalDataFrameNamespace(RankevalFrameNamespace[pl.DataFrame]):
    """``DataFrame.rankeval``."""


@pl.api.register_lazyframe_namespace("rankeval")
class RankevalLazyFrameNamespace(RankevalFrameNamespace[pl.LazyFrame]):
    """``LazyFrame.rankeval``."""


@pl.api.register_expr_namespace("rankeval")
class RankevalExprNamespace:
    """``pl.col("relevant").rankeval``: the expression is the relevance label; each
    method is an aggregation for ``group_by(...).agg`` or ``.over(...)``.

    >>> import polars as pl
    >>> import polars_rankeval  # registers the namespace
    >>> df = pl.DataFrame({"query": [1, 1, 2], "rank": [1, 2, 1], "rel": [0, 1, 1]})
    >>> df.group_by("query", maintain_order=True).agg(
    ...     pl.col("rel").rankeval.measure("RR")
    ... )["RR"].to_list()
    [0.5, 1.0]
    """

    def __init__(self, relevance: pl.Expr) -> None:
        self._relevance = relevance

    def measure(self, name: str, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.measure` with this expression as the relevance."""
        return rx.measure(name, rank=rank, relevance=self._relevance, **options)

    def ap(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.average_precision`."""
        return rx.average_precision(rank=rank, relevance=self._relevance, **options)

    def ndcg(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.ndcg`."""
        return rx.ndcg(rank=rank, relevance=self._relevance, **options)

    def precision(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.precision`."""
        return rx.precision(rank=rank, relevance=self._relevance, **options)

    def recall(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.recall`."""
        return rx.recall(rank=rank, relevance=self._relevance, **options)

    def rr(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.reciprocal_rank`."""
        return rx.reciprocal_rank(rank=rank, relevance=self._relevance, **options)

    def success(self, *, rank: str | pl.Expr = "rank", **options: Any) -> pl.Expr:
        """:func:`polars_rankeval.expr.success`."""
        return rx.success(rank=rank, relevance=self._relevance, **options)
