"""The shape of the API: lazy in/lazy out, namespaces, expressions, by, complete."""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk
import polars_rankeval.expr as rx

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})
# per query by hand: q1 ranks a, b, c with b, c relevant (R = 2): AP = (1/2 + 2/3) / 2 = 7/12
#                    q2 ranks a, d with d relevant (R = 1):      AP = (1/2) / 1 = 1/2
AP_Q1, AP_Q2 = 7 / 12, 1 / 2


def test_lazy_in_lazy_out_and_nothing_is_collected_at_call_time():
    calls = []

    def spy(frame: pl.DataFrame) -> pl.DataFrame:
        calls.append(frame.height)
        return frame

    run = RUN.lazy().map_batches(spy, schema=RUN.schema)
    result = rk.evaluate(run, QRELS.lazy(), ["AP", "nDCG@10"], per_query=True)
    assert isinstance(result, pl.LazyFrame)
    assert calls == []  # the run was not read
    values = result.filter(pl.col("measure") == "AP").sort("query").collect()["value"].to_list()
    assert calls  # ...until collect
    assert values == pytest.approx([AP_Q1, AP_Q2], abs=1e-12)


def test_dataframe_in_dataframe_out_with_the_documented_columns():
    mean = rk.evaluate(RUN, QRELS, ["AP", "map"])
    assert isinstance(mean, pl.DataFrame)
    assert mean.schema == pl.Schema({"measure": pl.String, "value": pl.Float64})
    assert mean["measure"].to_list() == ["AP", "map"]  # the names as given, in order
    assert mean["value"].to_list() == pytest.approx([(AP_Q1 + AP_Q2) / 2] * 2, abs=1e-12)
    per_query = rk.evaluate(RUN, QRELS, ["AP"], per_query=True)
    assert per_query.columns == ["query", "measure", "value"]


def test_user_column_names_are_keywords_and_kept_in_the_output():
    run = RUN.rename({"query": "qid", "item": "docno", "score": "sim"})
    qrels = QRELS.rename({"query": "qid", "item": "docno", "relevance": "grade"})
    got = rk.evaluate(run, qrels, ["AP"], per_query=True, query="qid", item="docno",
                      score="sim", relevance="grade")
    assert got.columns == ["qid", "measure", "value"]
    assert got["value"].to_list() == pytest.approx([AP_Q1, AP_Q2], abs=1e-12)


def test_ties_in_score_are_broken_by_item_descending_in_byte_order():
    # all scores tie: trec_eval orders "b" > "a" > "B" > "A" (byte order, descending)
    run = pl.DataFrame({"query": ["q"] * 4, "item": ["A", "B", "a", "b"], "score": [1.0] * 4})
    qrels = pl.DataFrame({"query": ["q"], "item": ["B"], "relevance": [1]})
    # "B" is third: RR = 1/3
    assert rk.evaluate(run, qrels, ["RR"])["value"].item() == pytest.approx(1 / 3)


def test_integer_items_tie_break_on_their_text_as_trec_eval_does():
    # ids 9 and 10 tie; as text "9" > "10", so 9 comes first
    run = pl.DataFrame({"query": [1, 1], "item": [10, 9], "score": [0.5, 0.5]})
    qrels = pl.DataFrame({"query": [1], "item": [10], "relevance": [1]})
    assert rk.evaluate(run, qrels, ["RR"])["value"].item() == 0.5


def test_rank_column_is_used_when_there_is_no_score():
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["x", "y", "z"], "rank": [3, 1, 2],
                        "score": [9.0, 8.0, 7.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["y"], "relevance": [1]})
    assert rk.evaluate(run, qrels, ["RR"])["value"].item() == pytest.approx(1 / 2)  # by score
    assert rk.evaluate(run, qrels, ["RR"], score=None)["value"].item() == 1.0  # by rank


def test_without_qrels_relevance_comes_from_the_run():
    run = RUN.with_columns(relevant=pl.Series([0, 1, 1, 0, 1]))
    got = rk.evaluate(run, None, ["AP"], per_query=True)
    assert got["value"].to_list() == pytest.approx([AP_Q1, AP_Q2], abs=1e-12)


def test_by_evaluates_each_group_as_its_own_run():
    reversed_run = RUN.with_columns(score=-pl.col("score"))
    both = pl.concat([RUN.with_columns(arm=pl.lit("A")), reversed_run.with_columns(arm=pl.lit("B"))])
    got = rk.evaluate(both, QRELS, ["AP"], by="arm")
    assert got.columns == ["arm", "measure", "value"]
    # arm B: q1 ranks c, b, a -> AP = (1 + 1) / 2 = 1; q2 ranks d, a -> 1
    assert got.sort("arm")["value"].to_list() == pytest.approx([(AP_Q1 + AP_Q2) / 2, 1.0])


def test_complete_averages_over_all_qrels_queries():
    only_q1 = RUN.filter(pl.col("query") == "q1")
    assert rk.evaluate(only_q1, QRELS, ["AP"])["value"].item() == pytest.approx(AP_Q1)
    got = rk.evaluate(only_q1, QRELS, ["AP", "NumRel", "NumRet"], complete=True, per_query=True)
    q2 = dict(got.filter(pl.col("query") == "q2").select("measure", "value").iter_rows())
    assert q2 == {"AP": 0.0, "NumRel": 1.0, "NumRet": 0.0}  # missing query: 0, R still counted
    mean = rk.evaluate(only_q1, QRELS, ["AP"], complete=True)["value"].item()
    assert mean == pytest.approx(AP_Q1 / 2)


def test_count_measures_are_sums():
    got = dict(rk.evaluate(RUN, QRELS, ["NumRet", "NumRel", "NumRelRet"]).iter_rows())
    assert got == {"NumRet": 5.0, "NumRel": 3.0, "NumRelRet": 3.0}


def test_conventions_preset_changes_only_unset_parameters():
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "x", "y"], "relevance": [1, 1, 1]})
    # one hit at rank 1; R = 3, k = 2: trec divides by R, kaggle by min(R, k) = 2
    assert rk.evaluate(run, qrels, ["AP@2"])["value"].item() == pytest.approx(1 / 3)
    assert rk.evaluate(run, qrels, ["AP@2"], conventions="kaggle")["value"].item() == 0.5
    assert rk.evaluate(run, qrels, ["AP@2"], conventions="torchmetrics")["value"].item() == 1.0
    explicit = rk.evaluate(run, qrels, ["AP(norm=R)@2"], conventions="kaggle")
    assert explicit["value"].item() == pytest.approx(1 / 3)


def test_namespace_delegates_to_evaluate():
    assert RUN.rankeval.evaluate(QRELS, ["AP"]).equals(rk.evaluate(RUN, QRELS, ["AP"]))
    assert RUN.rankeval.ap(QRELS).equals(rk.evaluate(RUN, QRELS, ["AP"]))
    assert RUN.rankeval.ndcg(QRELS, k=10).equals(rk.evaluate(RUN, QRELS, ["nDCG@10"]))
    lazy = RUN.lazy().rankeval.precision(QRELS.lazy(), k=2, per_query=True)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect().equals(rk.evaluate(RUN, QRELS, ["P@2"], per_query=True))


def test_expressions_in_group_by_and_over_match_evaluate():
    rows = pl.DataFrame({
        "query": ["q1", "q1", "q1", "q2", "q2"], "rank": [1, 2, 3, 1, 2],
        "relevant": [0, 1, 1, 0, 1], "segment": ["x", "x", "x", "y", "y"],
    })
    grouped = rows.group_by("query", maintain_order=True).agg(
        rx.measure("AP"), rx.average_precision(k=2), pl.col("relevant").rankeval.rr()
    )
    assert grouped["AP"].to_list() == pytest.approx([AP_Q1, AP_Q2])
    # AP@2: q1 hit at 2 -> (1/2) / R=2; q2 hit at 2 -> (1/2) / 1
    assert grouped["AP@2"].to_list() == pytest.approx([0.25, 0.5])
    assert grouped["RR"].to_list() == [0.5, 0.5]
    windowed = rows.with_columns(rx.measure("nDCG").over("query"))
    assert windowed["nDCG"].n_unique() == 2
    by_segment = rows.group_by("segment", "query").agg(rx.precision(k=1)).sort("query")
    assert by_segment["P@1"].to_list() == [0.0, 0.0]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_top_keeps_the_first_rows_after_ranking_like_trec_eval_M(engine):
    # top=1: q1 keeps a (unjudged) -> AP 0; q2 keeps a (unjudged) -> AP 0; 2 rows retrieved
    got = rk.evaluate(RUN, QRELS, ["AP", "NumRet", "NumRel"], top=1, engine=engine)
    assert dict(got.iter_rows()) == {"AP": 0.0, "NumRet": 2.0, "NumRel": 3.0}
    top2 = rk.evaluate(RUN, QRELS, ["AP"], top=2, engine=engine, per_query=True)
    # q1 keeps a, b: AP = (1/2) / 2; q2 keeps a, d: AP = (1/2) / 1
    assert top2["value"].to_list() == pytest.approx([0.25, 0.5])
    with pytest.raises(rk.InputError, match="top=0"):
        rk.evaluate(RUN, QRELS, ["AP"], top=0, engine=engine)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_count_measures_without_qrels(engine):
    run = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "score": [2.0, 1.0],
                        "relevant": [1, 0]})
    got = rk.evaluate(run, None, ["NumRel", "NumRet", "NumRelRet"], engine=engine)
    assert dict(got.iter_rows()) == {"NumRel": 1.0, "NumRet": 2.0, "NumRelRet": 1.0}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_complete_with_a_null_by_group_keeps_its_values(engine):
    run = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"],
                        "score": [1.0, 2.0, 1.0], "sys": [None, None, "x"]})
    qrels = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["a", "a", "z"],
                          "relevance": [1, 1, 1]})
    # each query is in one group only: the segments warning, as the docs say
    with pytest.warns(rk.RankevalWarning, match="every run query is in one group only"):
        got = rk.evaluate(run, qrels, ["RR"], by="sys", complete=True, per_query=True,
                          engine=engine)
    # group null ranks b, a for q1 -> RR 1/2; it has no q2/q3 rows -> 0; group x: q2 -> 1
    assert got["value"].to_list() == [0.5, 0.0, 0.0, 0.0, 1.0, 0.0]


def test_complete_with_by_warns_once():
    run = pl.concat([RUN.with_columns(sys=pl.lit("A")),
                     pl.DataFrame({"query": ["zz"], "item": ["a"], "score": [1.0],
                                   "sys": ["A"]})])
    with pytest.warns(rk.RankevalWarning) as caught:
        rk.evaluate(run, QRELS, ["AP"], by="sys", complete=True)
    assert len([w for w in caught if issubclass(w.category, rk.RankevalWarning)]) == 1
