"""engine="duckdb": the same errors, warnings and laziness as the polars engine; user
names never reach SQL; the macros install into a user's connection."""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankeval as rk
from polars_rankeval.duckdb import install
from polars_rankeval.engines import duckdb as duckdb_engine
from polars_rankeval.engines.spec import Spec
from polars_rankeval.options import Columns, EvalOptions

RUN = pl.DataFrame(
    {
        "query": ["q1", "q1", "q1", "q2", "q2"],
        "item": ["a", "b", "c", "a", "d"],
        "score": [3.0, 2.0, 1.0, 2.0, 1.0],
    }
)
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})
MEASURES = ["AP", "nDCG@2", "P@2", "RR", "NumRel"]
# Hand-computed means of MEASURES on RUN and QRELS (both engines must give them, not only
# agree with each other).  q1 ranks a, b, c (b: 1, c: 2, R = 2); q2 ranks a, d (d: 1).
# AP: q1 (1/2 + 2/3) / 2 = 7/12, q2 1/2.  P@2 = RR = 1/2 for both.  nDCG@2 (gain = grade):
# q1 (1 / log2 3) / (2 + 1 / log2 3), q2 (1 / log2 3) / 1.  NumRel: a sum, 2 + 1.
_G = 1 / math.log2(3)
EXPECTED = {
    "AP": (7 / 12 + 1 / 2) / 2,
    "nDCG@2": (_G / (2 + _G) + _G) / 2,
    "P@2": 0.5,
    "RR": 0.5,
    "NumRel": 3.0,
}


def _assert_values(result: pl.DataFrame, expected: dict[str, float]) -> None:
    got = dict(zip(result["measure"], result["value"]))
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert math.isclose(got[name], value, rel_tol=0, abs_tol=1e-12), (name, got[name], value)


def _outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("error", type and message) or ("ok", result), with the RankevalWarnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = call()
            if isinstance(result, pl.LazyFrame):
                result = result.collect()
            kind = "ok"
        except Exception as error:  # noqa: BLE001 - compared between engines
            kind, result = "error", (type(error).__name__, str(error))
    texts = sorted({str(w.message) for w in caught if issubclass(w.category, rk.RankevalWarning)})
    return kind, (result, texts)


def _same(run: Any, qrels: Any, measures: list[str] = MEASURES, **kw: Any) -> tuple[str, Any]:
    polars = _outcome(lambda: rk.evaluate(run, qrels, measures, **kw))
    duck = _outcome(lambda: rk.evaluate(run, qrels, measures, engine="duckdb", **kw))
    assert polars[0] == duck[0], (polars, duck)
    if polars[0] == "ok":
        assert_frame_equal(duck[1][0], polars[1][0], abs_tol=1e-12)
    else:
        assert duck[1][0] == polars[1][0]
    assert duck[1][1] == polars[1][1]
    return polars


BAD_RUNS = {
    "null query": RUN.with_columns(pl.when(pl.int_range(5) == 3).then(None).otherwise("query").alias("query")),
    "null item": RUN.with_columns(pl.when(pl.int_range(5) == 1).then(None).otherwise("item").alias("item")),
    "NaN score": RUN.with_columns(pl.Series("score", [3.0, float("nan"), 1.0, 2.0, 1.0])),
    "inf score": RUN.with_columns(pl.Series("score", [3.0, 2.0, float("inf"), 2.0, 1.0])),
    "null score": RUN.with_columns(pl.Series("score", [3.0, None, 1.0, 2.0, 1.0])),
    "null int score": RUN.with_columns(pl.Series("score", [3, None, 1, 2, 1])),
    "duplicate rows": pl.concat([RUN, RUN.head(2)]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_bad_run_rows_same_error(case: str, lazy: bool) -> None:
    run = BAD_RUNS[case]
    kind, _ = _same(run.lazy() if lazy else run, QRELS.lazy() if lazy else QRELS)
    assert kind == "error"


# A run with a query the qrels lack (q9) and rows below top=1, and qrels with a query the
# run lacks (q8): a bad value is placed in a row the macro's plan might not need (an
# unjudged row, a row below ``top``, a query that is not evaluated)
_SKIPPABLE_RUN = pl.concat(
    [RUN, pl.DataFrame({"query": ["q9", "q9"], "item": ["x", "y"], "score": [2.0, 1.0]})]
)
_SKIPPABLE_QRELS = pl.concat(
    [QRELS, pl.DataFrame({"query": ["q8", "q8"], "item": ["u", "v"], "relevance": [1, 0]})]
)


def _set(frame: pl.DataFrame, row: int, column: str, value: Any) -> pl.DataFrame:
    bad = pl.lit(value, frame.schema[column])
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == row).then(bad).otherwise(column).alias(column)
    )


UNREAD_BAD_ROWS = {
    "NaN score, a query not in the qrels": (_set(_SKIPPABLE_RUN, 6, "score", float("nan")), _SKIPPABLE_QRELS),
    "inf score, an unjudged row below top": (_set(_SKIPPABLE_RUN, 0, "score", float("-inf")), _SKIPPABLE_QRELS),
    "null score, a query not in the qrels": (_set(_SKIPPABLE_RUN, 5, "score", None), _SKIPPABLE_QRELS),
    "null item, a query not in the qrels": (_set(_SKIPPABLE_RUN, 6, "item", None), _SKIPPABLE_QRELS),
    "null query, a run-only row": (_set(_SKIPPABLE_RUN, 6, "query", None), _SKIPPABLE_QRELS),
    "rank 0, a query not in the qrels": (
        _SKIPPABLE_RUN.drop("score").with_columns(rank=pl.Series([1, 2, 3, 1, 2, 1, 0])), _SKIPPABLE_QRELS),
    "null relevance, a query not in the run": (_SKIPPABLE_RUN, _set(_SKIPPABLE_QRELS, 4, "relevance", None)),
    "null item, a judgment not in the run": (_SKIPPABLE_RUN, _set(_SKIPPABLE_QRELS, 3, "item", None)),
    "null query, a judgment not in the run": (_SKIPPABLE_RUN, _set(_SKIPPABLE_QRELS, 4, "query", None)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(UNREAD_BAD_ROWS))
@pytest.mark.parametrize(
    "options", [{}, {"top": 1}, {"complete": True}], ids=["plain", "top", "complete"]
)
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_bad_rows_the_plan_may_skip_same_error(
    case: str, options: dict[str, Any], lazy: bool
) -> None:
    """The engine leaves these checks to the macro (its first pass does not count
    them) and counts them when the macro raises: the macro must raise on every bad row,
    also one its judged-only plan, ``top`` or the choice of queries does not need, on
    both of the engine's databases (lazy inputs: the one with DuckDB's optimizer)."""
    run, qrels = UNREAD_BAD_ROWS[case]
    kind, _ = _same(run.lazy() if lazy else run, qrels.lazy() if lazy else qrels, **options)
    assert kind == "error"


@pytest.mark.parametrize(
    "ranks",
    [[1, 2, 0, 1, 2], [1, -2, 3, 1, 2], [1, None, 3, 1, 2], [1.0, 2.5, 3.0, 1.0, 2.0],
     [1.0, float("nan"), 3.0, 1.0, 2.0]],
    ids=["zero", "negative", "null", "fraction", "nan"],
)  # fmt: skip
def test_bad_ranks_same_error(ranks: list[Any]) -> None:
    run = RUN.drop("score").with_columns(pl.Series("rank", ranks))
    kind, (result, _) = _same(run, QRELS)
    assert kind == "error" and "rank" in result[1]


def test_rank_column_same_numbers() -> None:
    run = RUN.drop("score").with_columns(pl.Series("rank", [1, 2, 2, 1, 2]))
    kind, (result, _) = _same(run, QRELS)
    assert kind == "ok"
    # rank 2 ties b and c: c first (item descending), so q1 ranks a, c, b: AP and P@2 and
    # RR unchanged; nDCG@2 of q1 = (2 / log2 3) / (2 + 1 / log2 3)
    _assert_values(result, {**EXPECTED, "nDCG@2": (2 * _G / (2 + _G) + _G) / 2})
    # score=None: ranked by the rank column, all 1: q1 c, b, a; q2 d, a
    kind, (result, _) = _same(RUN.with_columns(rank=pl.lit(1)), QRELS, score=None)
    assert kind == "ok"
    # q1: c (2), b (1): AP 1, P@2 1, RR 1, nDCG@2 1; q2: d first: all 1 but P@2 = 1/2
    _assert_values(result, {"AP": 1.0, "nDCG@2": 1.0, "P@2": 0.75, "RR": 1.0, "NumRel": 3.0})


BAD_QRELS = {
    "null query": QRELS.with_columns(pl.Series("query", ["q1", None, "q2"])),
    "null item": QRELS.with_columns(pl.Series("item", [None, "c", "d"])),
    "NaN relevance": QRELS.with_columns(pl.Series("relevance", [1.0, float("nan"), 1.0])),
    "null relevance": QRELS.with_columns(pl.Series("relevance", [1, None, 1])),
    "duplicate judgments": pl.concat([QRELS, QRELS.tail(1)]),
}


@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_bad_qrels_same_error(case: str) -> None:
    kind, _ = _same(RUN, BAD_QRELS[case])
    assert kind == "error"


DUPLICATE_JUDGMENTS = {
    "in a shared query": (RUN, pl.concat([QRELS, QRELS.tail(1)])),
    "in a query not in the run": (RUN, pl.concat([QRELS, pl.DataFrame(
        {"query": ["q9", "q9"], "item": ["x", "x"], "relevance": [1, 1]}
    )], how="vertical_relaxed")),
}


@pytest.mark.parametrize("case", sorted(DUPLICATE_JUDGMENTS))
@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_duplicate_judgments_same_error(case: str, lazy: bool) -> None:
    """The engine leaves the qrels' duplicate check to the macro's own and counts it
    only when the macro reports repeats: the polars engine's error all the same, on
    both of the engine's databases (lazy inputs: the one with DuckDB's optimizer),
    and for repeats in a query the run never reaches."""
    run, qrels = DUPLICATE_JUDGMENTS[case]
    kind, _ = _same(run.lazy() if lazy else run, qrels.lazy() if lazy else qrels)
    assert kind == "error"


@pytest.mark.parametrize(
    "labels", [[1, 0, None, 1, 0], [1.0, float("nan"), 0.0, 1.0, 0.0]], ids=["null", "nan"]
)
def test_bad_labels_without_qrels_same_error(labels: list[Any]) -> None:
    kind, _ = _same(RUN.with_columns(pl.Series("relevant", labels)), None, ["AP", "P@2"])
    assert kind == "error"


def test_duplicates_first_same_warning_and_numbers() -> None:
    run = pl.concat([RUN, RUN.head(2).with_columns(pl.col("score") - 5)])
    kind, (result, texts) = _same(run, QRELS, duplicates="first")
    assert kind == "ok" and any("dropped 2 duplicate" in t for t in texts)
    _assert_values(result, EXPECTED)  # the lower-scored copies are the ones dropped


def test_skipped_queries_same_warning() -> None:
    run = pl.concat([RUN, pl.DataFrame({"query": ["q9"], "item": ["a"], "score": [1.0]})])
    kind, (result, texts) = _same(run, QRELS)
    assert kind == "ok" and texts and "not in the qrels" in texts[0]
    _assert_values(result, EXPECTED)  # q9 is left out of the means


@pytest.mark.parametrize(
    ("run", "qrels", "kw"),
    [
        (RUN.head(0), QRELS, {}),  # no rows
        (RUN.head(3), QRELS.with_columns(pl.lit("other").alias("query")), {}),  # share no query
        (RUN.drop("item"), QRELS, {}),  # missing column
        (RUN.with_columns(pl.col("score").cast(pl.String)), QRELS, {}),  # non-numeric score
        (RUN.with_columns(pl.lit(1).alias("query")), QRELS, {}),  # int vs str ids
        (RUN.with_columns(pl.lit(1.5).alias("item")), QRELS, {}),  # float ids
        (RUN, QRELS, {"by": "nope"}),  # unknown by column
        (RUN, QRELS, {"by": "query"}),  # by = the query column
        (RUN, QRELS, {"duplicates": "last"}),
        (RUN.with_columns(relevant=pl.lit(1)), None, {"complete": True}),
        (RUN, None, {}),  # no qrels and no relevant column
        (RUN.drop("score"), QRELS, {}),  # neither score nor rank
    ],
    ids=[
        "no rows", "share no query", "missing column", "string score", "int vs str",
        "float ids", "unknown by", "by query", "bad duplicates", "complete without qrels",
        "no relevance", "no order",
    ],
)  # fmt: skip
def test_input_errors_same(run: pl.DataFrame, qrels: pl.DataFrame | None, kw: dict) -> None:
    kind, _ = _same(run, qrels, **kw)
    assert kind == "error"


def test_schema_errors_at_call_time_data_errors_at_collect() -> None:
    with pytest.raises(rk.InputError, match="no column"):
        rk.evaluate(RUN.lazy().drop("item"), QRELS.lazy(), ["AP"], engine="duckdb")
    lazy = rk.evaluate(BAD_RUNS["NaN score"].lazy(), QRELS.lazy(), ["AP"], engine="duckdb")
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(rk.InputError, match="NaN"):
        lazy.collect()


def test_nothing_collected_at_call_time() -> None:
    calls: list[str] = []

    def source(frame: pl.DataFrame, name: str) -> pl.LazyFrame:
        def produce() -> pl.DataFrame:
            calls.append(name)
            return frame

        return pl.defer(produce, schema=frame.schema)

    lazy = rk.evaluate(source(RUN, "run"), source(QRELS, "qrels"), MEASURES, engine="duckdb")
    assert isinstance(lazy, pl.LazyFrame)
    assert calls == []
    got = lazy.collect()
    assert sorted(set(calls)) == ["qrels", "run"]
    assert_frame_equal(got, rk.evaluate(RUN, QRELS, MEASURES), abs_tol=1e-12)


def test_eager_in_eager_out_and_dtypes() -> None:
    out = rk.evaluate(RUN, QRELS, MEASURES, engine="duckdb", per_query=True)
    assert isinstance(out, pl.DataFrame)
    assert out.schema == pl.Schema({"query": pl.String, "measure": pl.String, "value": pl.Float64})


@pytest.mark.parametrize(
    ("query_type", "item_type"),
    [(pl.Int32, pl.UInt16), (pl.Categorical, pl.String), (pl.String, pl.Categorical)],
)
def test_key_dtypes_as_polars(query_type: pl.DataType, item_type: pl.DataType) -> None:
    ints = query_type.is_integer()
    run = RUN.with_columns(
        pl.col("query").str.slice(1).cast(pl.Int64) if ints else pl.col("query"),
        pl.col("item").map_elements(ord, return_dtype=pl.Int64)
        if item_type.is_integer()
        else pl.col("item"),
    ).with_columns(pl.col("query").cast(query_type), pl.col("item").cast(item_type))
    qrels = QRELS.with_columns(
        pl.col("query").str.slice(1).cast(pl.Int64) if ints else pl.col("query"),
        pl.col("item").map_elements(ord, return_dtype=pl.Int64) if item_type.is_integer() else pl.col("item"),
    )  # fmt: skip
    for with_qrels in (True, False):
        source = run if with_qrels else run.with_columns(relevant=pl.lit(1))
        kw = {"per_query": True, "by": None}
        kind, (result, _) = _same(source, qrels if with_qrels else None, ["AP", "P@2"], **kw)
        assert kind == "ok"
        if with_qrels:
            mean = result.group_by("measure").agg(pl.col("value").mean())
            _assert_values(mean, {"AP": EXPECTED["AP"], "P@2": EXPECTED["P@2"]})
        else:  # every retrieved item relevant: AP 1, P@2 1 (q1 and q2 have >= 2 rows)
            assert result["value"].to_list() == [1.0] * 4


HOSTILE = ['a"; DROP TABLE t; --', "it's", "x) OR (1=1", "/* c */", "q;uery", "名前", " "]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_column_names_are_names(name: str) -> None:
    """User column names never reach SQL: they are renamed in polars first."""
    run = RUN.rename({"query": name, "score": name + "s"}).with_columns(
        pl.lit("A").alias(name + "by")
    )
    qrels = QRELS.rename({"query": name, "relevance": name + "r"})
    kw = {"query": name, "score": name + "s", "relevance": name + "r", "by": name + "by"}
    kind, (result, _) = _same(run, qrels, per_query=True, **kw)
    assert kind == "ok" and result.columns == [name + "by", name, "measure", "value"]
    # the mean of the per-query values; NumRel per query is 2 and 1 (the total is 3)
    mean = result.group_by("measure").agg(pl.col("value").mean())
    _assert_values(mean, {**EXPECTED, "NumRel": 1.5})


def test_hostile_values_are_data() -> None:
    ids = ["'); DROP TABLE x; --", '"', "\\", "a'b"]
    run = pl.DataFrame({"query": ids, "item": ids, "score": [1.0, 2.0, 3.0, 4.0]})
    qrels = pl.DataFrame({"query": ids, "item": ids, "relevance": [1, 0, 1, 2]})
    kind, (result, _) = _same(run, qrels, per_query=True)
    assert kind == "ok"
    # each query retrieves its one judged item: relevant -> RR 1, P@2 1/2; grade 0 -> 0
    rr = result.filter(pl.col("measure") == "RR").sort("query")
    assert dict(zip(rr["query"], rr["value"])) == {
        "'); DROP TABLE x; --": 1.0, '"': 0.0, "\\": 1.0, "a'b": 1.0
    }


def test_per_query_duckdb_contract() -> None:
    """Returns (LazyFrame with keys + _m{i} Float64, keys), as the polars engine."""
    from polars_rankeval._parse import resolve_measures

    resolved = resolve_measures(["AP", "P@1"])
    spec = Spec(
        RUN.with_columns(sys=pl.lit("x")), QRELS, [m for _, m in resolved],
        [n for n, _ in resolved], Columns(), EvalOptions(by=("sys",), engine="duckdb"),
    )  # fmt: skip
    wide, keys = duckdb_engine.per_query(spec)
    assert keys == ["sys", "query"]
    assert isinstance(wide, pl.LazyFrame)
    assert wide.collect_schema() == pl.Schema(
        {"sys": pl.String, "query": pl.String, "_m0": pl.Float64, "_m1": pl.Float64}
    )
    assert wide.collect().height == 2


def test_install_into_user_connection_twice() -> None:
    con = duckdb.connect()
    install(con)
    install(con)  # CREATE OR REPLACE: idempotent
    con.register("run", RUN.to_arrow())
    con.register("qrels", QRELS.to_arrow())
    rows = con.execute(
        "SELECT query, value FROM rankeval_AP('run', 'qrels') ORDER BY query"
    ).fetchall()
    want = rk.evaluate(RUN, QRELS, ["AP"], per_query=True).sort("query")
    assert [q for q, _ in rows] == want["query"].to_list()
    for (_, value), expected in zip(rows, want["value"], strict=True):
        assert math.isclose(value, expected, abs_tol=1e-12)


@pytest.mark.parametrize("small", [True, False], ids=["small-input db", "default db"])
def test_concurrent_evaluations(small: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each evaluation has its own connection to the shared database (either one)."""
    if not small:
        monkeypatch.setattr(duckdb_engine, "SMALL_ROWS", -1)
    runs = [RUN.with_columns(pl.col("score") * (i % 3 - 1)) for i in range(8)]
    expected = [rk.evaluate(run, QRELS, MEASURES, per_query=True) for run in runs]
    barrier = threading.Barrier(4)

    def evaluate(run: pl.DataFrame) -> pl.DataFrame:
        barrier.wait(timeout=60)  # four at a time, really concurrently
        return rk.evaluate(run, QRELS, MEASURES, per_query=True, engine="duckdb")

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(evaluate, runs))
    for got, want in zip(results, expected, strict=True):
        assert_frame_equal(got, want, abs_tol=1e-12)


# a run with ties, by groups, duplicates and queries of either side only
_WIDE_RUN = pl.DataFrame({
    "sys": ["a"] * 9 + ["b"] * 5,
    "query": ["q1"] * 5 + ["q2"] * 3 + ["q4"] + ["q1"] * 3 + ["q2"] * 2,
    "item": ["a", "b", "a", "c", "e", "d", "e", "d", "z", "a", "b", "c", "d", "f"],
    "score": [5.0, 4, 3, 4, 1, 3, 2, 1, 1, 3, 2, 2, 1, 1],
})
_WIDE_QRELS = pl.DataFrame({
    "query": ["q1", "q1", "q1", "q2", "q2", "q2", "q3"],
    "item": ["a", "c", "e", "d", "x", "f", "a"],
    "relevance": [1, 2, 0, 1, 3, -1, 1],
})
_WIDE_MEASURES = [
    "MAP", "AP(norm=min)@3", "nDCG@3", "nDCG(gain=exp)", "P@2", "R@2", "RR", "NumRet",
    "NumRel", "NumRelRet", "Bpref", "infAP", "Rprec", "F1@3", "IPrec@0.3", "IPrec11pt",
    "ERR@3", "Judged@2", "Unjudged@4", "RBP(p=0.123456789)", "RBP_resid(p=0.8)", "SetAP",
    "RelP@2", "Utility(a=2.5,b=-0.1)", "binG", "G", "nDCG_rel", "RnDCG", "YAAP", "Accuracy",
    "GMAP", "GMBpref", "Success@2", "NumQ",
]  # fmt: skip
_WIDE_OPTIONS = [
    {"duplicates": "first", "by": ["sys"]},
    {"duplicates": "first", "by": ["sys"], "complete": True, "top": 2},
    {"duplicates": "first", "top": 3},
]


@pytest.mark.parametrize("kw", _WIDE_OPTIONS, ids=str)
def test_small_and_default_databases_give_the_same_bits(
    kw: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The small-input database (no optimizer, one thread) computes the same bits as the
    default one, and the polars engine's values (to 1e-12) and warnings."""
    used: list[bool] = []
    connection = duckdb_engine._connection

    def spy(*, small: bool = False) -> duckdb.DuckDBPyConnection:
        used.append(small)
        return connection(small=small)

    monkeypatch.setattr(duckdb_engine, "_connection", spy)
    kw = {**kw, "per_query": True}
    small = _outcome(lambda: rk.evaluate(_WIDE_RUN, _WIDE_QRELS, _WIDE_MEASURES, engine="duckdb", **kw))
    monkeypatch.setattr(duckdb_engine, "SMALL_ROWS", -1)
    default = _outcome(lambda: rk.evaluate(_WIDE_RUN, _WIDE_QRELS, _WIDE_MEASURES, engine="duckdb", **kw))
    polars = _outcome(lambda: rk.evaluate(_WIDE_RUN, _WIDE_QRELS, _WIDE_MEASURES, **kw))
    assert used == [True, False]
    assert small[0] == default[0] == polars[0] == "ok", (small, default, polars)
    assert small[1][0].height > 0
    assert_frame_equal(small[1][0], default[1][0], check_exact=True)
    # the polars engine adds RBP_resid's dropped-duplicate weights in another order
    # (1 ulp on sys a, q1): 1e-12 as _same
    assert_frame_equal(small[1][0], polars[1][0], abs_tol=1e-12)
    assert small[1][1] == default[1][1] == polars[1][1]


@pytest.mark.parametrize("kw", [
    {"top": 2}, {"top": 1, "duplicates": "first"},
    {"top": 3, "duplicates": "first", "by": ["sys"]},
    {"top": 2, "duplicates": "first", "by": ["sys"], "complete": True},
], ids=str)  # fmt: skip
def test_top_is_applied_by_the_macro(kw: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """With qrels, ``top`` goes to rankeval_per_query (``top :=``), the run is not cut
    in polars first: the same values, errors and warnings (the duplicates dropped within
    top) as the polars engine."""

    def no_cut(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the run was cut in polars")

    monkeypatch.setattr(duckdb_engine, "keep_top", no_cut)
    run = _WIDE_RUN if "by" in kw else _WIDE_RUN.filter(pl.col("sys") == "a")
    polars = _same(run, _WIDE_QRELS, _WIDE_MEASURES, per_query=True, **kw)
    if polars[0] == "ok":
        assert polars[1][0].height > 0


def test_top_without_qrels_still_cuts_the_run_first() -> None:
    """Without qrels the judgments are the kept rows' own labels: the run is cut in
    polars (the macro would read labels beyond top)."""
    run = RUN.with_columns(relevant=pl.Series([0, 1, 1, 1, 0]))
    _same(run, None, ["NumRel", "AP", "P@1"], top=1, per_query=True)


def test_entry_point_only_even_for_ties_average(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's database gets the entry point only, and ties='average' runs it too
    (``ties := 'average'``): one SQL path; both give the polars engine's numbers."""
    monkeypatch.setattr(duckdb_engine, "_DATABASES", {})
    entry, low_level = duckdb_engine._sql_parts()
    assert "CREATE OR REPLACE MACRO rankeval_per_query(" in entry
    assert "CREATE OR REPLACE MACRO rankeval_AP(" in low_level
    assert "rankeval_AP(" not in entry and "rankeval_per_query(" not in low_level

    def macros() -> set[str]:
        database = duckdb_engine._DATABASES[True]
        rows = database.execute("SELECT function_name FROM duckdb_functions() "
                                "WHERE function_name LIKE 'rankeval_%'").fetchall()
        return {name for (name,) in rows}

    _same(RUN, QRELS, per_query=True)
    assert "rankeval_per_query" in macros() and "rankeval_AP" not in macros()
    _same(RUN, QRELS, ["AP", "P@2"], ties="average", per_query=True)
    assert "rankeval_AP" not in macros()
