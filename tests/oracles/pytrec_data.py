"""The data of the pytrec_eval oracle tests (``test_oracle_pytrec_eval.py`` and
``test_oracle_pytrec_eval_more.py``; the reasons for each choice are in the first's
docstring): a hypothesis strategy of runs and qrels where implementations disagree,
the pinned cases every test also runs, and the settings they share."""

from __future__ import annotations

import string
from collections import defaultdict
from typing import Any

import polars as pl
from hypothesis import HealthCheck, example, settings
from hypothesis import strategies as st

from tests.helpers import FULL_PROFILE, examples

SCORES = (-0.0, 0.0, 0.5, 1.0, 2.0)  # -0.0 ties with 0.0, as in C
LEVELS = (-1, 0, 1, 2, 3)
ID_ALPHABET = string.ascii_letters + string.digits + "-_.#"

Row = tuple  # (query, item, score) or (query, item, relevance)
INT_DTYPES = (pl.Int64, pl.Int32, pl.Int16)
STRING_DTYPES = (pl.String, pl.Categorical)


@st.composite
def cases(draw: st.DrawFn, id_dtype: Any = None) -> tuple[Any, list[Row], list[Row]]:
    """(the run's id dtype, run rows (query, item, score), qrels rows (query, item,
    relevance)).  Integer ids: the qrels use Int64, the run any integer dtype; string
    ids: the qrels use String, the run String or Categorical (drawn unless given)."""
    if id_dtype is None:
        int_ids = draw(st.booleans())
        id_dtype = draw(st.sampled_from(INT_DTYPES if int_ids else STRING_DTYPES))
    ids: st.SearchStrategy[Any]
    if id_dtype.is_integer():
        ids = st.integers(min_value=-20, max_value=120)  # "-5" < "10" < "100" < "9" as text
    else:
        ids = st.text(alphabet=ID_ALPHABET, min_size=1, max_size=3)
    queries = draw(st.lists(ids, min_size=1, max_size=5, unique=True))
    items = draw(st.lists(ids, min_size=1, max_size=9, unique=True))
    run_rows: list[Row] = []
    qrels_rows: list[Row] = []
    for i, q in enumerate(queries):
        # the first query is in both, so run and qrels always share one
        kind = "both" if i == 0 else draw(st.sampled_from(["both", "both", "run", "qrels"]))
        if kind in ("both", "run"):
            retrieved = draw(st.lists(st.sampled_from(items), min_size=1, unique=True))
            run_rows += [(q, it, draw(st.sampled_from(SCORES))) for it in retrieved]
        if kind in ("both", "qrels"):
            judged = draw(st.lists(st.sampled_from(items), min_size=1, unique=True))
            levels = [draw(st.sampled_from(LEVELS)) for _ in judged]
            if max(levels) < 0:  # see ALL_NEGATIVE_QUIRK: pytrec_eval crashes on these
                levels[0] = draw(st.sampled_from([lv for lv in LEVELS if lv >= 0]))
            qrels_rows += list(zip([q] * len(judged), judged, levels))
    return id_dtype, run_rows, qrels_rows


Case = tuple[Any, list[Row], list[Row]]  # (the run's id dtype, run rows, qrels rows)


def stack_cases(parts: list[Case]) -> Case:
    """Cases of one id dtype as one case: the queries of the i-th (i >= 1) renamed
    apart (``i/query``, or query + 1000 i for integer ids), so that each query is
    evaluated on its own case's rows as in a call of its own, and one call per engine
    checks them all (DuckDB plans its SQL ~0.3 s a call, whatever the rows).

    >>> stack_cases([(pl.Int16, [(5, 1, 0.5)], [(5, 1, 1)]), (pl.Int16, [(5, 2, 1.0)], [])])
    (Int16, [(5, 1, 0.5), (1005, 2, 1.0)], [(5, 1, 1)])
    >>> stack_cases([(pl.String, [("q", "a", 1.0)], []), (pl.String, [], [("q", "a", 2)])])
    (String, [('q', 'a', 1.0)], [('1/q', 'a', 2)])
    """
    id_dtype = parts[0][0]
    assert all(part[0] == id_dtype for part in parts), [part[0] for part in parts]

    def tag(i: int, q: Any) -> Any:
        if i == 0:  # the first case keeps its ids (negative integers too)
            return q
        return q + 1000 * i if id_dtype.is_integer() else f"{i}/{q}"

    run_rows = [(tag(i, q), *rest) for i, (_, run, _) in enumerate(parts) for q, *rest in run]
    qrels_rows = [
        (tag(i, q), *rest) for i, (_, _, qrels) in enumerate(parts) for q, *rest in qrels
    ]
    return id_dtype, run_rows, qrels_rows


BATCH = 10  # cases per drawn batch, at most


@st.composite
def case_batches(draw: st.DrawFn) -> Case:
    """1 to :data:`BATCH` cases of one id dtype, stacked (:func:`stack_cases`): a case
    for the tests of :func:`cases`, whose every example checks several cases in one call
    per engine.  The simplest one (hypothesis' first example) is one simplest case."""
    first = draw(cases())
    rest = draw(st.lists(cases(id_dtype=first[0]), max_size=BATCH - 1))
    return stack_cases([first, *rest])


def frames(id_dtype: Any, run_rows: list[Row], qrels_rows: list[Row]):
    qrels_dtype = pl.Int64 if id_dtype.is_integer() else pl.String
    run = pl.DataFrame(
        run_rows,
        schema={"query": qrels_dtype, "item": qrels_dtype, "score": pl.Float64},
        orient="row",
    ).with_columns(pl.col("query", "item").cast(id_dtype))
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": qrels_dtype, "item": qrels_dtype, "relevance": pl.Int64},
        orient="row",
    )
    return run, qrels


# Pinned cases: tie order by bytes, a query without relevant items, -1 judgments,
# run-only and qrels-only queries, integer ids whose text order is not numeric order.
PINNED = [
    (
        pl.String,
        [("q", "a", 1.0), ("q", "B", 1.0), ("q", "b", 1.0), ("q", "-", 0.5), ("q", "#", 0.5)],
        [("q", "a", 1), ("q", "B", 2), ("q", "#", -1), ("q", "-", 0), ("q", "zz", 3)],
    ),
    (
        pl.Categorical,
        [("Q1", "x.1", 2.0), ("Q1", "x_1", 2.0), ("q1", "x.1", 0.0), ("only_run", "x", 1.0)],
        [
            ("Q1", "x_1", 1),
            ("Q1", "x.1", 0),
            ("q1", "x.1", 0),
            ("q1", "y", -1),
            ("only_qrels", "x", 1),
        ],
    ),
    (
        pl.Int32,
        [(7, 9, 0.5), (7, 10, 0.5), (7, 100, 0.5), (7, 2, 0.0), (8, 1, 1.0)],
        [(7, 10, 1), (7, 9, 3), (7, 2, 2), (7, 55, 1), (8, 1, -1), (8, 2, 0), (9, 1, 2)],
    ),
    (
        pl.Int64,
        [(0, 0, -0.0), (0, -1, 0.0), (-3, 1, 1.0)],  # "0" > "-1": 0 ranks first
        [(0, -1, 1), (0, 0, 0)],
    ),
]


def pinned(test):
    for case in PINNED:
        test = example(case)(test)
    return test


SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
# The same full grid in batches (:func:`case_batches`, ~5.5 cases each on average): 15
# batches hold ~80 cases where SETTINGS' 60 examples held 60, in a quarter of the calls;
# the default profile's 3 (the simplest case, then two batches) hold ~12, as its 12 did.
BATCH_SETTINGS = settings(
    SETTINGS,
    max_examples=examples(15),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# The engines whose summary (trec_eval's ``all`` line) the oracle tests check.  A summary is
# the shared finish (``engines.finish.summarize``) of the engine's per-query frame, which
# the tests hold to pytrec_eval in both engines: by default the summary is checked through
# the polars engine (a DuckDB call costs ~0.2 s of CPU, however few rows), through both
# under HYPOTHESIS_PROFILE=full.
SUMMARY_ENGINES = ("polars", "duckdb") if FULL_PROFILE else ("polars",)


def trec_ranks(run: pl.DataFrame) -> pl.DataFrame:
    """Replace score by the rank trec_eval gives: score descending, then item id
    descending in byte order (of the decimal text for integer ids); computed in
    Python, independently of the package."""
    rows = run.rows()
    by_query: dict[object, list[tuple]] = defaultdict(list)
    for q, it, s in rows:
        by_query[q].append((q, it, s))
    out = []
    for q, group in by_query.items():
        # Python str comparison is code-point order = byte order for ASCII
        group.sort(key=lambda row: str(row[1]).encode(), reverse=True)
        group.sort(key=lambda row: row[2], reverse=True)  # stable: ties keep item order
        out += [(q, it, rank) for rank, (q, it, _) in enumerate(group, start=1)]
    return pl.DataFrame(
        out,
        schema={"query": run.schema["query"], "item": run.schema["item"], "rank": pl.Int64},
        orient="row",
    )


def pytrec_dicts(run_rows: list[Row], qrels_rows: list[Row], top: int | None):
    """pytrec_eval's qrels and run dicts; with ``top``, only the top rows in trec_eval's
    order, scored so that pytrec_eval keeps that order."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for q, it, r in qrels_rows:
        qrels[str(q)][str(it)] = int(r)
    run: dict[str, dict[str, float]] = defaultdict(dict)
    if top is None:
        for q, it, s in run_rows:
            run[str(q)][str(it)] = float(s)
    else:
        ranked = trec_ranks(pl.DataFrame(run_rows, orient="row", schema=["query", "item", "score"]))
        for q, it, rank in ranked.rows():
            if rank <= top:
                run[str(q)][str(it)] = float(-rank)
    return qrels, run
