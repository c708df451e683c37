"""Helpers shared by the test modules (test modules never import from each other).

Repository paths, the small frame builders the hand-worked tests write runs and qrels
with, their readers, the conversion of rows into pytrec_eval's dicts, and the example
count of a hypothesis test under the loaded profile (``tests/conftest.py`` registers
``default`` and ``full``; ``HYPOTHESIS_PROFILE=full`` selects the full grid).

>>> qrels_frame({"q": {"a": 1, "b": 0}}).rows()
[('q', 'a', 1), ('q', 'b', 0)]
>>> pytrec_run([("q", 7, 2.0), ("q", "b", 1)])
{'q': {'7': 2.0, 'b': 1.0}}
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]  # the repository
SHARED = ROOT.parent / "shared"  # trec_eval sources and other tools' fixtures, beside it
CONFORMANCE = SHARED / "conformance"

# max_examples of the `full` profile (hypothesis' own default): the counts written in
# the tests are the full grid, scaled by the loaded profile's max_examples over this.
FULL_EXAMPLES = 100
# the loaded profile is ``full`` (HYPOTHESIS_PROFILE=full): the tests' full grids; by
# default some run on smaller data or fewer engine paths (each says which)
FULL_PROFILE = settings.default.max_examples >= FULL_EXAMPLES

# Families without a SQL twin or a formula in sql/rankeval.sql, which the SQL paths
# would refuse by name: none since Compat and InterpAP got theirs (_sqlcompat.py,
# _sqlinterp.py); the grids and parity tests still leave out whatever is put here.
POLARS_ONLY: frozenset[str] = frozenset()
# Families the one-pass SQL (sql/rankeval.sql, render, dbt) computes but that have no
# low-level file sql/<Family>.sql: their value is not an aggregate of rankeval_joined's
# rows (a running product or sum of gains that depend on min_rel / max_rel: a window per
# measure, which the one-pass SQL has, _sqlcwl.py).
# Compat and InterpAP: windows per measure too (a running sum / maximum from the bottom).
NO_FAMILY_FILE = POLARS_ONLY | {
    "INST", "NERR8", "NERR9", "NERR10", "NERR11", "BPM", "Compat", "InterpAP",
}  # fmt: skip


def examples(full: int) -> int:
    """The example count of a test whose full grid is ``full`` examples: ``full`` under
    ``HYPOTHESIS_PROFILE=full``, scaled down by the ``default`` profile (at least 2)."""
    scaled = round(full * settings.default.max_examples / FULL_EXAMPLES)
    return min(full, max(2, scaled))


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No automatic cyclic garbage collection inside the block, one pass over the young
    objects it left at its end.  For sqlglot's parse of a rendered statement: a tree of
    hundreds of thousands of nodes, each linked to its parent, which every full
    collection rescanned while the parser was still building it (about a quarter of
    ``tests/sql/test_sql_render.py``'s CPU); the block's trees, unreachable by its end,
    are freed by the one pass.

    >>> with gc_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.collect(0)  # what the block allocated is still in the youngest generation


class LazyModule:
    """A module imported at the first use of one of its attributes, not when the test
    module naming it is collected: every pytest-xdist worker collects every test module,
    so a reference library's import at module level (``scipy.stats``: ~0.7 s of CPU) is
    paid by the worker that never runs its tests too.

    >>> math = LazyModule("math")
    >>> math.sqrt(4.0)
    2.0
    """

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)


@functools.cache
def entry_point_connection() -> Any:
    """One DuckDB connection per test process with the shipped SQL entry point
    (``sql/rankeval.sql``) installed: installing it costs ~0.15 s a time.  The tests that
    use it register their own tables on it (``con.register``) before each query."""
    import duckdb

    from polars_rankeval.engines.duckdb import install_entry_point

    con = duckdb.connect()
    install_entry_point(con)
    return con


# ------------------------------------------------------------------ frame builders


def ranked_run(
    rankings: Mapping[Any, list[Any]], **columns: Mapping[Any, list[Any]]
) -> pl.DataFrame:
    """A run from ordered lists: (query, item, rank) with rank 1 = first, plus any
    per-row columns given as lists aligned with the items."""
    rows: dict[str, list[Any]] = {"query": [], "item": [], "rank": []}
    extra: dict[str, list[Any]] = {name: [] for name in columns}
    for q, items in rankings.items():
        for i, item in enumerate(items):
            rows["query"].append(q)
            rows["item"].append(item)
            rows["rank"].append(i + 1)
            for name, values in columns.items():
                extra[name].append(values[q][i])
    return pl.DataFrame({**rows, **extra})


def qrels_frame(judgments: Mapping[Any, Mapping[Any, float]]) -> pl.DataFrame:
    """(query, item, relevance) rows from ``{query: {item: relevance}}``."""
    return pl.DataFrame(
        [(q, item, rel) for q, items in judgments.items() for item, rel in items.items()],
        schema=["query", "item", "relevance"],
        orient="row",
    )


def values(frame: pl.DataFrame) -> dict[str, float]:
    """An overall result as ``{measure: value}``."""
    return dict(frame.select("measure", "value").iter_rows())


def per_query(frame: pl.DataFrame) -> dict[tuple[Any, str], float]:
    """A per-query result as ``{(query, measure): value}``."""
    return {(q, m): v for q, m, v in frame.select("query", "measure", "value").iter_rows()}


# --------------------------------------------------------------------- pytrec_eval


def pytrec_qrels(rows: Iterable[tuple[Any, Any, Any]]) -> dict[str, dict[str, int]]:
    """pytrec_eval's qrels ``{query: {item: int}}`` from (query, item, relevance) rows;
    pytrec_eval takes only ``str`` ids, so integer ids become their decimal text."""
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for q, item, r in rows:
        out[str(q)][str(item)] = int(r)
    return dict(out)


def pytrec_run(rows: Iterable[tuple[Any, Any, Any]]) -> dict[str, dict[str, float]]:
    """pytrec_eval's run ``{query: {item: float}}`` from (query, item, score) rows."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for q, item, s in rows:
        out[str(q)][str(item)] = float(s)
    return dict(out)


# A judged non-relevant item that no test run retrieves (run ids are short strings or
# integers' decimal text): see :func:`pytrec_judged_safely`.
PYTREC_PAD_ITEM = "pytrec-eval:pad"


def pytrec_judged_safely(qrels: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    """``qrels`` with a judged non-relevant item (:data:`PYTREC_PAD_ITEM`, grade 0, never
    retrieved) added to each query whose judgments are all negative; the values of
    trec_eval's measures do not change (R = 0 there, so every measure but the counts of
    retrieved rows is 0; the one extra judged non-relevant item is read only by bpref,
    as a denominator that R = 0 leaves unused).

    Why: pytrec_eval-terrier 0.5.11 (trec_eval's form_res_rels.c) reads freed or NULL
    memory on such a query.  Its highest grade is -1, so it asks ``te_chk_and_malloc`` for
    0 relevance-level counters, which hands back the old buffer without checking it: NULL
    on a process's first evaluation (the measure returns UNDEF but the query stays cached,
    so the next measure asked reads NULL: bpref's segfault), else the buffer the previous
    ``evaluate()`` freed at its end, read with the previous query's level count (nDCG's
    ideal gains from garbage counts: the hang seen in ``test_numrel_without_qrels_duckdb``).

    >>> pytrec_judged_safely({"q": {"a": -1}, "r": {"a": -1, "b": 0}})
    {'q': {'a': -1, 'pytrec-eval:pad': 0}, 'r': {'a': -1, 'b': 0}}
    """
    return {
        q: dict(items) if any(r >= 0 for r in items.values()) else {**items, PYTREC_PAD_ITEM: 0}
        for q, items in qrels.items()
    }
