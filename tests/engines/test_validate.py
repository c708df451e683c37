"""validate() reports what would change numbers, and never raises on bad data."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples
from tests.strategies import CORRUPTIONS, run_and_qrels

RUN = pl.DataFrame({
    "query": ["q1", "q1", "q1", "q1", "q9"],
    "item": ["a", "b", "c", "c", "x"],
    "score": [3.0, 2.0, 2.0, 1.0, 1.0],
    "rank": [1, 2, 4, 5, 1],
})
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["a", "zz", "d"], "relevance": [1, 0, 0]})


def status(report: pl.DataFrame, check: str) -> tuple[str, int]:
    row = report.filter(pl.col("check") == check)
    assert row.height == 1, f"no check {check!r} in {report['check'].to_list()}"
    return row["status"].item(), row["count"].item()


def test_each_problem_is_reported_with_its_count():
    report = rk.validate(RUN, QRELS, cutoffs=[1, 2])
    assert report.columns == ["check", "status", "count", "detail", "example"]
    assert status(report, "run duplicate (query, item)") == ("error", 2)  # the two "c" rows
    assert status(report, "queries only in the run") == ("warning", 1)  # q9
    assert status(report, "queries only in the qrels") == ("warning", 1)  # q2
    assert status(report, "qrels queries without a relevant item") == ("warning", 1)  # q2
    # q1 by score: a 3.0, then b and c tie at 2.0 (c first: item descending) -> positions 2, 3
    assert status(report, "score ties across @2") == ("warning", 1)
    assert status(report, "score ties across @1") == ("ok", 0)
    # rank column: q1 has ranks 1, 2, 4, 5 (a gap); and disagrees with the score order
    assert status(report, "rank column is not 1..n per query") == ("warning", 1)
    assert status(report, "rank column disagrees with the score order")[0] == "warning"
    # top 2: q1 a (judged), c (unjudged); q9 x (unjudged) -> 2 unjudged
    assert status(report, "unjudged items in top 2") == ("warning", 2)
    assert status(report, "num_ret per query") == ("ok", 2)


def test_key_type_mismatch_is_reported_not_raised():
    report = rk.validate(RUN.with_columns(pl.col("query").str.slice(1).cast(pl.Int64)), QRELS)
    assert status(report, "query id types") == ("error", 1)


def test_missing_columns_are_reported_and_dependent_checks_skipped():
    report = rk.validate(pl.DataFrame({"x": [1]}), None)
    assert set(report["status"]) == {"error"}
    assert report.height == 4


def test_namespace_and_lazy_input():
    assert RUN.lazy().rankeval.validate(QRELS.lazy()).equals(rk.validate(RUN, QRELS))


@settings(
    max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=run_and_qrels(), corruption=st.sampled_from(list(CORRUPTIONS)), row=st.integers(0, 99))
def test_validate_never_raises_and_flags_what_evaluate_refuses(data, corruption, row):
    run, qrels = data
    if qrels.height == 0:
        qrels = pl.DataFrame({"query": [run["query"][0]], "item": ["zz"], "relevance": [1]})
    corrupt, expect_error = CORRUPTIONS[corruption]
    bad_run, bad_qrels = corrupt(run, qrels, row)
    report = rk.validate(bad_run, bad_qrels)
    if expect_error and bad_run.height:
        assert "error" in report["status"].to_list() or "share" in corruption, corruption


def test_clean_fully_judged_data_validates_clean():
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "b"], "relevance": [1, 0]})
    report = rk.validate(run, qrels)
    assert set(report["status"]) == {"ok"}
    assert rk.evaluate(run, qrels, ["AP"])["value"].item() == 1.0


SUBTOPIC_RUN = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
# ndeval's format: item a judged under two subtopics, c not relevant
SUBTOPIC_QRELS = pl.DataFrame({
    "query": ["q"] * 3, "aspect": ["1", "2", "1"], "item": ["a", "a", "c"], "relevance": [1, 2, 0],
})
NULL_SUBTOPIC = SUBTOPIC_QRELS.with_columns(
    aspect=pl.when(pl.col("item") == "c").then(None).otherwise(pl.col("aspect"))
)
REPEATED = pl.concat([SUBTOPIC_QRELS, SUBTOPIC_QRELS.head(1)])


def test_subtopic_qrels_are_read_as_evaluate_reads_them():
    """Qrels holding the subtopic= column: a second subtopic of an item is no duplicate,
    and num_rel counts items (here 1: only a is relevant), as evaluate's AP does."""
    report = rk.validate(SUBTOPIC_RUN, SUBTOPIC_QRELS, subtopic="aspect")
    assert "error" not in report["status"].to_list()
    assert status(report, "qrels duplicate (query, item)") == ("ok", 0)
    assert status(report, "qrels duplicate (query, subtopic, item)") == ("ok", 0)
    assert report.filter(pl.col("check") == "num_rel per query")["detail"].item() == "min 1, median 1, max 1"
    # evaluate accepts them: a at rank 1 is the one relevant item, AP 1
    assert rk.evaluate(SUBTOPIC_RUN, SUBTOPIC_QRELS, ["AP"], subtopic="aspect")["value"].item() == 1.0
    # without subtopic= naming the column they are plain qrels with a repeated (query, item)
    assert status(rk.validate(SUBTOPIC_RUN, SUBTOPIC_QRELS), "qrels duplicate (query, item)") == ("error", 2)


def test_bad_subtopic_qrels_are_errors_evaluate_refuses():
    for qrels, check, count in ((NULL_SUBTOPIC, "qrels aspect: null", 1),
                                (REPEATED, "qrels duplicate (query, subtopic, item)", 2)):
        report = rk.validate(SUBTOPIC_RUN, qrels, subtopic="aspect")
        assert status(report, check) == ("error", count)
        try:
            rk.evaluate(SUBTOPIC_RUN, qrels, ["AP"], subtopic="aspect")
        except rk.InputError:
            continue
        raise AssertionError(f"evaluate accepted what validate flags: {check}")


WEIGHTED_QRELS = SUBTOPIC_QRELS.with_columns(w=pl.Series([0.7, 0.3, 0.7]))
BAD_WEIGHTS = (  # (qrels, the check that flags them, its count)
    (WEIGHTED_QRELS.with_columns(w=pl.Series([0.7, -0.3, 0.7])), "qrels w: not a finite weight >= 0", 1),
    (WEIGHTED_QRELS.with_columns(w=pl.Series([0.7, float("nan"), 0.7])), "qrels w: not a finite weight >= 0", 1),
    (WEIGHTED_QRELS.with_columns(w=pl.Series([0.7, None, 0.7])), "qrels w: not a finite weight >= 0", 1),
    (WEIGHTED_QRELS.with_columns(w=pl.Series([0.7, 0.3, 0.5])), "qrels w: differs within a (query, subtopic)", 2),
    (WEIGHTED_QRELS.with_columns(w=pl.Series(["0.7", "0.3", "0.7"])), "qrels w: numeric", 1),
    (SUBTOPIC_QRELS, "qrels w: present", 1),
)


def test_intent_weights_evaluate_refuses_are_errors():
    """intent_weight=: each kind of weight evaluate refuses (for a diversity measure and
    for AP alike) is an error row of validate; good weights give none."""
    good = rk.validate(SUBTOPIC_RUN, WEIGHTED_QRELS, subtopic="aspect", intent_weight="w")
    assert "error" not in good["status"].to_list()
    assert status(good, "qrels w: not a finite weight >= 0") == ("ok", 0)
    assert status(good, "qrels w: differs within a (query, subtopic)") == ("ok", 0)
    rk.evaluate(SUBTOPIC_RUN, WEIGHTED_QRELS, ["AP", "ERR_IA@3"], subtopic="aspect", intent_weight="w")
    for qrels, check, count in BAD_WEIGHTS:
        report = rk.validate(SUBTOPIC_RUN, qrels, subtopic="aspect", intent_weight="w")
        assert status(report, check) == ("error", count), check
        for measures in (["AP"], ["ERR_IA@3"]):
            with pytest.raises(rk.InputError, match="'w'"):
                rk.evaluate(SUBTOPIC_RUN, qrels, measures, subtopic="aspect", intent_weight="w")


def test_plain_qrels_get_no_subtopic_rows():
    checks = rk.validate(RUN, QRELS)["check"].to_list()
    assert not [c for c in checks if "subtopic" in c]


def test_a_missing_relevance_column_names_the_argument() -> None:
    """Subtopic qrels (and plain ones) without the relevance column: the error row names
    the column, the columns there are and the argument to pass, and blames no diversity
    measure (evaluate's message for the same qrels says the same)."""
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    for qrels in (pl.DataFrame({"query": ["q1"], "subtopic": ["x"], "item": ["a"]}),
                  pl.DataFrame({"query": ["q1"], "item": ["a"], "grade": [1]})):  # fmt: skip
        bad = rk.validate(run, qrels).filter(pl.col("status") != "ok")
        assert bad.select("check", "status").rows() == [("qrels relevance: present", "error")]
        detail = bad["detail"][0]
        assert detail == f"no relevance column 'relevance' (columns: {qrels.columns}); pass relevance=..."
    bad = rk.validate(run.rename({"score": "s"}).with_columns(rel=1), None, score="s", relevant="label")
    details = bad.filter(pl.col("check") == "run label: present")["detail"].to_list()
    assert details == ["no relevance label column 'label' (columns: ['query', 'item', 's', 'rel']); pass relevant=..."]
