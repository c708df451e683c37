"""``engine="duckdb"`` with ``ties="average"``: the one case the public entry point
(``rankeval_per_query``, sql/rankeval.sql) does not compute yet.

It runs the low-level layer instead (DESIGN.md §4): each family's public
``rankeval_<family>_expected`` macro over ``rankeval_tied``, assembled into one query
by :func:`polars_rankeval.engines.sqltwin.build.build_query`.  Every other option runs
the entry point (:mod:`polars_rankeval.engines.duckdb`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import polars as pl

from polars_rankeval._registry import Measure
from polars_rankeval.engines.duckdb_entry import fetch
from polars_rankeval.engines.spec import Spec
from polars_rankeval.engines.sqltwin.build import Query, build_query, expected_macro

if TYPE_CHECKING:
    import duckdb as _duckdb

__all__ = ["AverageQuery", "supports_average"]

RUN_VIEW = "_rk_run"
QRELS_VIEW = "_rk_qrels"
QRELS_BY_VIEW = "_rk_qrels_by"


def supports_average(measure: Measure) -> str | None:
    """None when the measure's family has an ``rankeval_<family>_expected`` macro."""
    try:
        expected_macro(measure.family.name)
    except Exception as error:  # noqa: BLE001 - the reason is the message
        return str(error)
    return None


def _views(
    spec: Spec, score_mode: bool, run_source: str
) -> tuple[list[str], str, Callable[[str], str]]:
    """Views over the sources in the shape the low-level macros read (query, item, score
    [, relevance]); the qrels view to join and how a run key names its raw query."""
    by, has_qrels = spec.options.by, spec.qrels is not None
    parts = [*(f"b{n} := _b{n}" for n in range(len(by))), "q := _q"]
    key = f"struct_pack({', '.join(parts)})" if by else "_q"
    # trec_eval compares scores in single precision (a C float): so do the macros
    score = "CAST(CAST(score AS REAL) AS DOUBLE)" if score_mode else "-CAST(_rank AS DOUBLE)"
    relevance = "" if has_qrels else ", relevance"
    views = [
        (f"CREATE TEMP VIEW {RUN_VIEW} AS SELECT {key} AS query, item, {score} AS score"
         f"{relevance} FROM {run_source}")
    ]
    if not has_qrels:
        first = spec.options.duplicates == "first"
        ranked = f"rankeval_ranked('{RUN_VIEW}', duplicates := 'first')" if first else RUN_VIEW
        views.append(
            f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT r.query AS query, r.item AS item, "
            f"r.relevance AS relevance FROM {ranked} AS r"
        )
        return views, QRELS_VIEW, lambda alias: f"{alias}.query"
    views.append(
        f"CREATE TEMP VIEW {QRELS_VIEW} AS SELECT _q AS query, item, relevance "
        f"FROM _rk_qrels_src"
    )
    if not by:
        return views, QRELS_VIEW, lambda alias: f"{alias}.query"
    views.append(
        f"CREATE TEMP VIEW {QRELS_BY_VIEW} AS SELECT k.query AS query, q.item AS item, "
        f"q.relevance AS relevance FROM (SELECT DISTINCT r.query FROM {RUN_VIEW} AS r) "
        f"AS k JOIN {QRELS_VIEW} AS q ON k.query.q = q.query"
    )
    return views, QRELS_BY_VIEW, lambda alias: f"{alias}.query.q"


class AverageQuery:
    """The low-level query of one evaluation with ``ties="average"``: :meth:`run` gives
    the engine's per-query frame (``_b0``.., ``_q``, ``_m{i}``, stats, flags)."""

    def __init__(self, spec: Spec, *, score_mode: bool, run_source: str) -> None:
        self.views, qrels_view, raw_query = _views(spec, score_mode, run_source)
        self.query: Query = build_query(
            spec.measures, run_view=RUN_VIEW, qrels_view=qrels_view, stats_view=QRELS_VIEW,
            raw_query=raw_query, duplicates=spec.options.duplicates, final="engine",
            has_qrels=spec.qrels is not None, by=spec.options.by, ties="average",
        )
        self.stat_columns = self.query.stat_columns

    def run(self, con: _duckdb.DuckDBPyConnection) -> pl.DataFrame:
        for view in self.views:
            con.execute(view)
        return fetch(con, self.query.sql, self.query.params)
