"""Subtopic qrels are subtopic qrels for every measure, in every engine (issue 11).

``rk.evaluate`` reads qrels holding the column named by ``subtopic=`` (default
``"subtopic"``) as subtopic qrels (``query, subtopic, item, relevance``) whatever the
measures: a plain measure sees an item's highest relevance over its subtopics (checked
against topic qrels collapsed here in plain Python, and against pytrec_eval on them),
and the subtopic qrels' checks (null subtopic, repeated (query, subtopic, item), intent
weights) raise the same error with or without a diversity measure beside.  Spark and
``sql.render``: ``tests/sql/test_spark_oracle.py``, ``tests/sql/test_sql_render_diversity.py``.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._errors import InputError
from tests.diversity_cases import (
    MISSING_COLUMN_CASES,
    SUBTOPIC_QRELS,
    check_missing_column_error,
    oracle_run,
    stacked_cases,
)
from tests.helpers import per_query, pytrec_judged_safely, pytrec_run

ENGINES = ["polars", "duckdb"]
# our names and pytrec_eval's
PLAIN = {"AP": "map", "nDCG@5": "ndcg_cut_5", "P@5": "P_5", "RR": "recip_rank",
         "R@5": "recall_5", "nDCG": "ndcg"}  # fmt: skip


def _case(seed: int) -> tuple[pl.DataFrame, pl.DataFrame, dict[tuple[str, str], int]]:
    """Run (distinct scores, trec_eval's order), subtopic qrels with items judged under
    several subtopics, and the topic judgments: an item's highest relevance, in Python."""
    qrels, run = stacked_cases(seed, 12)
    sub = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(oracle_run(run), schema=["query", "item", "score"], orient="row")
    topic: dict[tuple[str, str], int] = {}
    for q, _, item, rel in qrels:
        topic[(q, item)] = max(rel, topic.get((q, item), rel))
    assert len(topic) < len(qrels)  # some item is judged under two subtopics
    return r, sub, topic


def _topic_frame(topic: dict[tuple[str, str], int]) -> pl.DataFrame:
    rows = [(q, item, rel) for (q, item), rel in topic.items()]
    return pl.DataFrame(rows, schema=["query", "item", "relevance"], orient="row")


@pytest.mark.parametrize("engine", ENGINES)
def test_plain_measures_see_the_highest_relevance_over_subtopics(engine: str) -> None:
    """AP, nDCG... over subtopic qrels, asked alone: the values over the topic qrels
    (collapsed in the test), pytrec_eval's on them, and those asked beside alpha-nDCG."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    r, sub, topic = _case(7)
    names = list(PLAIN)
    got = per_query(rk.evaluate(r, sub, names, per_query=True, engine=engine))
    alone = per_query(rk.evaluate(r, _topic_frame(topic), names, per_query=True, engine=engine))
    assert got == alone
    beside = rk.evaluate(r, sub, [*names, "alpha_nDCG@5"], per_query=True, engine=engine)
    assert per_query(beside.filter(pl.col("measure") != "alpha_nDCG@5")) == got
    qrels: dict[str, dict[str, int]] = {}
    for (q, item), rel in topic.items():
        qrels.setdefault(q, {})[item] = rel
    evaluator = pytrec_eval.RelevanceEvaluator(pytrec_judged_safely(qrels), set(PLAIN.values()))
    want = evaluator.evaluate(pytrec_run(r.iter_rows()))
    expected = {(q, ours): values[theirs] for q, values in want.items() for ours, theirs in PLAIN.items()}
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key


def _bad(which: str) -> tuple[pl.DataFrame, dict[str, str], str]:
    """Subtopic qrels with one problem, the keywords that read them, the error."""
    sub = pl.DataFrame({
        "query": ["q", "q", "q"], "subtopic": ["1", "2", "1"], "item": ["a", "a", "c"],
        "relevance": [1, 1, 0], "w": [1.0, 2.0, 1.0],
    })  # fmt: skip
    if which == "null subtopic":
        return sub.with_columns(subtopic=pl.Series([None, "2", "1"])), {}, "qrels column 'subtopic' is null"
    if which == "repeated":
        return sub.with_columns(item=pl.lit("a")), {}, r"duplicate \(query, subtopic, item\)"
    if which == "varying weight":
        return sub.with_columns(w=pl.Series([1.0, 2.0, 3.0])), {"intent_weight": "w"}, "differs within"
    return sub.with_columns(w=pl.Series([-1.0, 2.0, -1.0])), {"intent_weight": "w"}, "finite weight >= 0"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("which", ["null subtopic", "repeated", "varying weight", "negative weight"])
def test_subtopic_checks_run_without_a_diversity_measure(engine: str, which: str) -> None:
    """The subtopic qrels' checks raise for AP alone, with the message they give beside
    a diversity measure."""
    sub, keywords, message = _bad(which)
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    errors = []
    for names in (["AP"], ["nDCG@3", "AP"], ["alpha_nDCG@3", "AP"]):
        with pytest.raises(InputError, match=message) as error:
            rk.evaluate(run, sub, names, engine=engine, **keywords)  # type: ignore[arg-type]
        errors.append(str(error.value))
    assert errors[0] == errors[1] == errors[2]


@pytest.mark.parametrize("engine", ENGINES)
def test_without_the_subtopic_column_the_qrels_are_topic_qrels(engine: str) -> None:
    """Qrels without the ``subtopic=`` column: a repeated (query, item) is an error, and
    a diversity measure raises naming itself; ``subtopic=`` names another column."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    sub = pl.DataFrame({"query": ["q", "q"], "aspect": ["1", "2"], "item": ["b", "b"], "relevance": [1, 2]})
    with pytest.raises(InputError, match=r"duplicate \(query, item\) judgments"):
        rk.evaluate(run, sub, ["AP"], engine=engine)
    with pytest.raises(InputError, match="diversity measures need subtopic qrels"):
        rk.evaluate(run, sub, ["AP", "alpha_nDCG@3"], engine=engine)
    with pytest.raises(InputError, match="alpha_nDCG@3: diversity measures need subtopic qrels"):
        rk.evaluate(run.with_columns(relevant=pl.lit(1)), None, ["alpha_nDCG@3"], engine=engine)
    # by hand: b (relevance 2, its highest) at rank 2: AP 1/2, nDCG@3 = (2 / log2 3) / 2
    got = rk.evaluate(run, sub, ["AP", "nDCG@3"], subtopic="aspect", engine=engine)
    assert got["value"].to_list() == pytest.approx([0.5, 1 / 1.584962500721156])


@pytest.mark.parametrize("engine", ENGINES)
def test_by_columns_the_subtopic_qrels_carry_are_query_attributes(engine: str) -> None:
    """complete=True with ``by`` columns the subtopic qrels carry: each group averaged
    over its own qrels queries, as over the topic qrels carrying them."""
    sub = pl.DataFrame({
        "query": ["q1", "q1", "q2", "q3"], "subtopic": ["1", "2", "1", "1"],
        "item": ["a", "a", "b", "c"], "relevance": [1, 2, 1, 1], "seg": ["x", "x", "y", "y"],
    })  # fmt: skip
    topic = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["a", "b", "c"], "relevance": [2, 1, 1],
                          "seg": ["x", "y", "y"]})  # fmt: skip
    run = pl.DataFrame({"seg": ["x", "y"], "query": ["q1", "q2"], "item": ["a", "b"], "score": [1.0, 1.0]})
    kw = {"by": "seg", "complete": True, "engine": engine}
    got = rk.evaluate(run, sub, ["AP", "nDCG@2"], **kw).sort("seg", "measure")  # type: ignore[arg-type]
    want = rk.evaluate(run, topic, ["AP", "nDCG@2"], **kw).sort("seg", "measure")  # type: ignore[arg-type]
    assert got.equals(want)
    # by hand: x holds q1 (AP 1), y holds q2 (AP 1) and q3 (missed: 0)
    assert got.filter(pl.col("measure") == "AP")["value"].to_list() == [1.0, 0.5]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("drop", "names", "keywords", "start", "named"), MISSING_COLUMN_CASES)
def test_a_missing_column_is_named_and_no_diversity_measure_blamed(
    engine: str, drop: str | None, names: list[str], keywords: dict, start: str, named: str
) -> None:
    """Subtopic qrels missing a column (the intent weight, the relevance, the subtopic):
    the error names the column and its argument, and says a diversity measure needs
    them only when one is asked (plain measures over subtopic qrels blamed one)."""
    qrels = pl.DataFrame(SUBTOPIC_QRELS)
    run = pl.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [2.0, 1.0]})
    with pytest.raises(InputError) as error:
        rk.evaluate(run, qrels.drop(drop) if drop else qrels, names, engine=engine, **keywords)
    check_missing_column_error(str(error.value), start, named)
