"""Tests written for mutants that survived ``tests/mutation/run.py`` (see its RESULTS.md):
the ranking's ``keep_top`` / ``order_column`` (trec_eval ``-M``) and the aggregation over
queries.  Expected values are hand computations (the arithmetic in a comment) or
trec_eval's rules as its sources state them.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

from polars_rankeval._errors import InputError
from polars_rankeval.options import Columns
from polars_rankeval.prepare.ranking import keep_top, order_column

# ---------------------------------------------------------------- ranking: -M


def _run(**names: str) -> pl.LazyFrame:
    query, item, score = names.get("query", "query"), names.get("item", "item"), "score"
    score = names.get("score", score)
    return pl.LazyFrame(
        {query: ["q", "q", "q", "r", "r"], item: ["a", "b", "c", "a", "b"],
         score: [3.0, 2.0, 1.0, 5.0, 5.0]}
    )  # fmt: skip


def test_keep_top_keeps_exactly_n_rows_per_query():
    # trec_eval -M 2 keeps ranks 1..2: q -> a (3.0), b (2.0); r: a and b tie at 5.0, both
    # within 2.  A run of exactly n rows (r) is kept whole.
    top = keep_top(_run(), 2).collect().sort("query", "item")
    assert top.select("query", "item").rows() == [("q", "a"), ("q", "b"), ("r", "a"), ("r", "b")]
    # -M 1: q's best is a (3.0); r's tie at 5.0 goes to the item later in byte order, b
    one = keep_top(_run(), 1).collect().sort("query")
    assert one.select("query", "item").rows() == [("q", "a"), ("r", "b")]


def test_keep_top_uses_the_columns_given():
    # the user's own names: qid/doc/sim; with the default names this frame has no score
    run = _run(query="qid", item="doc", score="sim")
    columns = Columns(query="qid", item="doc", score="sim")
    top = keep_top(run, 1, columns=columns).collect().sort("qid")
    assert top.select("qid", "doc").rows() == [("q", "a"), ("r", "b")]


def test_keep_top_per_by_group():
    # by=["system"]: each (system, query) keeps its own top 1
    run = pl.concat(
        [_run().with_columns(system=pl.lit("s1")),
         _run().with_columns(system=pl.lit("s2"), score=-pl.col("score"))]
    )  # fmt: skip
    top = keep_top(run, 1, by=["system"]).collect().sort("system", "query")
    # s2's scores negated: q's best is c (-1.0); r's tie at -5.0 again goes to b
    assert top.select("system", "query", "item").rows() == [
        ("s1", "q", "a"), ("s1", "r", "b"), ("s2", "q", "c"), ("s2", "r", "b"),
    ]  # fmt: skip


def test_keep_top_without_score_or_rank_is_an_input_error():
    run = pl.LazyFrame({"query": ["q"], "item": ["a"], "points": [1.0]})
    with pytest.raises(InputError, match="score column .'score'. or a rank column .'rank'."):
        keep_top(run, 1)


def test_order_column_prefers_score_then_rank_then_none():
    both = pl.Schema({"score": pl.Float64, "rank": pl.Int64})
    assert order_column(Columns(), both) == "score"
    assert order_column(Columns(), pl.Schema({"rank": pl.Int64})) == "rank"
    assert order_column(Columns(), pl.Schema({"points": pl.Float64})) is None
    assert order_column(Columns(score=None), both) == "rank"
    assert order_column(Columns(score=None, rank=None), both) is None


def test_keep_top_options_are_keyword_only():
    # the project's rule (STYLE.md): options after the data are keyword-only, so a
    # positional Columns is refused rather than read as something else
    with pytest.raises(TypeError):
        keep_top(_run(), 1, Columns())  # type: ignore[misc]


# ------------------------------------------- ranking: the rank-given path (judge)

# q: ranks 1..4 in shuffled rows (the fast path takes them as positions); g: a gap (3
# missing), evaluated again in trec_eval's order: rank ascending -> a, b, c
_RANKS = pl.DataFrame(
    {"query": ["q"] * 4 + ["g"] * 3, "item": ["a", "b", "c", "d", "a", "b", "c"],
     "rank": [3, 1, 4, 2, 1, 2, 4]}
)  # fmt: skip
_RANKS_QRELS = pl.DataFrame(
    {"query": ["q", "q", "g", "g"], "item": ["b", "a", "b", "c"], "relevance": [1, 1, 1, 1]}
)


@pytest.mark.parametrize("order", ["rank", "score"])
def test_top_keeps_positions_1_to_n_on_both_ranking_paths(order: str):
    from polars_rankeval import evaluate

    run = _RANKS if order == "rank" else _RANKS.with_columns(score=-pl.col("rank")).drop("rank")
    columns = {"score": None} if order == "rank" else {}
    got = evaluate(run, _RANKS_QRELS, ["NumRet", "NumRelRet"], per_query=True, top=2, **columns)
    # top 2 by hand: q -> b (rank 1), d (rank 2): b relevant -> 1; g -> a, b: b -> 1
    # (keeping positions below 2 only would leave q's b and g's a: 1 and 0)
    values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
    assert values == {
        ("q", "NumRet"): 2.0, ("q", "NumRelRet"): 1.0,
        ("g", "NumRet"): 2.0, ("g", "NumRelRet"): 1.0,
    }  # fmt: skip


def test_a_misranked_query_in_a_null_by_group_is_evaluated_again():
    from polars_rankeval import evaluate

    # arm is null on every row: g (a gap) is redone in trec_eval's order and matched back
    # to its (null, g) key, null equal to null: a, b, c -> RR 1/2 (b), P@2 1/2 (a, b)
    run = _RANKS.with_columns(arm=pl.lit(None, pl.String))
    got = evaluate(run, _RANKS_QRELS, ["RR", "P@2"], per_query=True, by="arm", score=None)
    # q: b (rank 1) is relevant -> RR 1, P@2 = 1/2 (b, d)
    assert sorted(got.select("arm", "query", "measure", "value").rows()) == [
        (None, "g", "P@2", 0.5), (None, "g", "RR", 0.5),
        (None, "q", "P@2", 0.5), (None, "q", "RR", 1.0),
    ]  # fmt: skip


def test_a_repeated_rank_in_a_null_by_group_is_evaluated_again():
    from polars_rankeval import evaluate

    # session 20: the exact check of repeated ranks (repeated_ranks) matches its answer
    # back to the (arm, query) keys, null equal to null.  arm null: a, b, c ranked 3, 1, 3
    # (1..n by their ends, out of row order, 3 repeated): trec_eval's order by hand is
    # b (1), then c before a (the tie at 3, item descending): relevant c, a at positions 2
    # and 3 -> AP (1/2 + 2/3) / 2 = 7/12, RR 1/2, P@1 0.  arm x: a, b ranked 1, 2 (a valid
    # ranking in row order): a relevant at 1 -> AP 1/2 (R = 2), RR 1, P@1 1
    run = pl.DataFrame(
        {"arm": [None, None, None, "x", "x"], "query": ["q"] * 5,
         "item": ["a", "b", "c", "a", "b"], "rank": [3, 1, 3, 1, 2]}
    )  # fmt: skip
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    got = evaluate(run, qrels, ["AP", "RR", "P@1"], per_query=True, by="arm", score=None)
    values = {(a, m): v for a, m, v in got.select("arm", "measure", "value").iter_rows()}
    assert values == {
        (None, "AP"): pytest.approx(7 / 12, abs=1e-15), (None, "RR"): 0.5, (None, "P@1"): 0.0,
        ("x", "AP"): 0.5, ("x", "RR"): 1.0, ("x", "P@1"): 1.0,
    }  # fmt: skip


def test_a_nan_rank_is_the_rank_error_also_when_the_repeat_check_reads_every_row():
    from polars_rankeval import evaluate

    # session 20: q1 and q2 are valid rankings out of row order (2, 1), so the exact check
    # of repeated ranks runs on 2 of the 3 queries: more than half, it reads every row of
    # the run, q3's NaN among them.  The NaN is the rank check's error (InputError naming
    # the column and the row), not a cast failure inside that check
    run = pl.DataFrame(
        {"query": ["q1", "q1", "q2", "q2", "q3", "q3"], "item": ["a", "b"] * 3,
         "rank": [2.0, 1.0, 2.0, 1.0, 1.0, float("nan")]}
    )  # fmt: skip
    qrels = pl.DataFrame({"query": ["q1"], "item": ["a"], "relevance": [1]})
    with pytest.raises(
        InputError, match=r"run column 'rank': rank must be a positive integer.*'q3'"
    ):
        evaluate(run, qrels, ["AP"], per_query=True, score=None)


def test_duplicate_rows_are_an_error_unless_duplicates_first():
    from polars_rankeval import evaluate

    # q retrieves a twice (scores 3 and 1) and b (2); a is the one relevant item
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(InputError, match=r"duplicate \(query, item\) rows"):
        evaluate(run, qrels, ["P@3"])
    # "first" keeps a at position 1; its dropped copy still occupies position 3 (the
    # rows as the user saw them): P@3 = 1/3, RR = 1
    with pytest.warns(Warning, match="dropped 1 duplicate"):
        got = evaluate(run, qrels, ["P@3", "RR"], duplicates="first")
    assert dict(got.select("measure", "value").iter_rows()) == {"P@3": 1 / 3, "RR": 1.0}


# ---------------------------------------------------------------- aggregation


def _p10_run(system: str) -> pl.DataFrame:
    # P@10 per query: q1 has 1 relevant item in its top 10 -> 1/10, q2 2 -> 2/10,
    # q3 3 -> 3/10; the rows come in the order q3, q2, q1 (not trec_eval's)
    rows = [
        (system, query, f"d{i}", float(10 - i), i < relevant)
        for query, relevant in (("q3", 3), ("q2", 2), ("q1", 1))
        for i in range(10)
    ]
    return pl.DataFrame(rows, schema=["system", "query", "item", "score", "relevant"], orient="row")


def test_the_mean_adds_queries_in_trec_eval_order_in_every_by_group():
    from polars_rankeval import evaluate

    # trec_eval adds the queries in its order (q1, q2, q3): (0.1 + 0.2) + 0.3 is
    # 0.6000000000000001 in doubles, / 3 -> 0.20000000000000004; the input order
    # (0.3 + 0.2) + 0.1 = 0.6 would give 0.19999999999999998
    expected = ((0.1 + 0.2) + 0.3) / 3
    assert expected != ((0.3 + 0.2) + 0.1) / 3  # the test tells the two orders apart
    alone = evaluate(_p10_run("s"), measures=["P@10"])
    assert alone["value"].to_list() == [expected]
    # with by=: each group in trec_eval's order too; groups come out sorted
    both = pl.concat([_p10_run("s2"), _p10_run("s1")])
    grouped = evaluate(both, measures=["P@10"], by="system")
    assert grouped.rows() == [("s1", "P@10", expected), ("s2", "P@10", expected)]


# ---------------------------------------------------------------- measures


def test_rndcg_level_ends_and_the_implied_end_at_n():
    from polars_rankeval import evaluate

    qrels = pl.DataFrame(
        {"query": ["q1", "q1", "q1", "q2", "q3", "q3", "q3"],
         "item": ["a", "b", "c", "a", "a", "b", "c"],
         "relevance": [2, 1, 1, 1, 1, 1, 0]}
    )  # fmt: skip
    run = pl.DataFrame(
        {"query": ["q1", "q1", "q1", "q2", "q2", "q2", "q3", "q3"],
         "item": ["b", "x", "a", "a", "y", "z", "z", "a"],
         "score": [3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0]}
    )  # fmt: skip
    # linear gains, discount 1 / log2(pos + 1); m_Rndcg.c: the mean over the ends b of
    # the ideal ranking's gain levels of DCG(b) / IDCG(b), plus DCG(n) / IDCG(Npos) when
    # n >= Npos + 2.
    # q1: ideal 2, 1, 1 -> ends 1 and 3 (Npos 3); run b(1) x a(2), n = 3 < 5: no extra.
    #     DCG@1 / IDCG@1 = 1 / 2; DCG@3 = 1 + 2 / 2 = 2, IDCG@3 = 2 + 1/log2(3) + 1/2
    #     -> (0.5 + 2 / 3.1309298) / 2 = 0.5693945
    # q2: one relevant (R = 1), run a y z: end 1 -> 1 / 1; n = 3 >= 1 + 2: DCG(3) /
    #     IDCG(1) = 1 -> (1 + 1) / 2 = 1
    # q3: ideal 1, 1 -> end 2; run z a, n = 2 < 4: DCG@2 / IDCG@2 = 0.6309298 / 1.6309298
    # trec_eval 10.0 (-q -m Rndcg) prints 0.5694, 1.0000, 0.3869, all 0.6521
    ideal3 = 2 + 1 / math.log2(3) + 1 / 2
    expected = {
        "q1": (0.5 + 2 / ideal3) / 2,
        "q2": 1.0,
        "q3": (1 / math.log2(3)) / (1 + 1 / math.log2(3)),
    }
    got = evaluate(run, qrels, ["RnDCG"], per_query=True)
    assert dict(got.select("query", "value").iter_rows()) == pytest.approx(expected, abs=1e-12)
    for query, printed in (("q1", 0.5694), ("q2", 1.0), ("q3", 0.3869)):
        assert expected[query] == pytest.approx(printed, abs=5e-5)


def test_relp_under_average_ties():
    from polars_rankeval import evaluate

    # a and b tie; a is relevant, c is relevant but not retrieved: R = 2.
    # ties="average": the mean over the two orders (a, b) and (b, a).
    # RelP@1 = hits in top 1 / min(1, R): 1 / 1 or 0 / 1 -> 0.5
    # RelP (no cutoff) = relevant retrieved / min(retrieved, R) = 1 / min(2, 2) = 0.5
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    got = evaluate(run, qrels, ["RelP@1", "RelP"], ties="average")
    assert got.rows() == [("RelP@1", 0.5), ("RelP", 0.5)]


def test_rprec_under_average_ties_counts_position_r():
    from polars_rankeval import evaluate

    # a and b tie at positions 1-2; a and c are relevant (R = 2).  Either order puts
    # a and b in the top R = 2: 1 relevant of 2 -> Rprec = 0.5 (ties="average" too)
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    assert evaluate(run, qrels, ["Rprec"], ties="average")["value"].to_list() == [0.5]


def test_iprec_takes_no_rank_cutoff():
    # IPrec's @ is the recall level (IPrec@0.1), never a rank cutoff: the measure table
    # (README's, generated from the families) says "no" in its @k column
    from polars_rankeval._docs import measure_table

    [row] = [r for r in measure_table().splitlines() if r.startswith("| `IPrec` ")]
    assert row.split(" | ")[1] == "no"


def test_utility_counts_the_non_relevant_items_not_retrieved():
    from polars_rankeval import evaluate

    # a collection of 10 items; 3 retrieved (a, b, x), 3 relevant (a, b, c): hits 2.
    # non-relevant not retrieved = 10 - retrieved - (relevant not retrieved)
    # = 10 - 3 - (3 - 2) = 6; with a = b = c = 0, d = 1 the utility is 6
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "x"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "relevance": [1, 1, 1]})
    got = evaluate(run, qrels, ["Utility(a=0, b=0, c=0, d=1, docs=10)"])
    assert got["value"].to_list() == [6.0]
