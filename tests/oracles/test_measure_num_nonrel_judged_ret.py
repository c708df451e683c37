"""NumNonRelJudgedRet (trec_eval num_nonrel_judged_ret): trec_eval 10.0's own outputs,
pytrec_eval on generated data, and the SQL twin, through every engine."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import polars_rankeval as rk

TREC = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "trec_eval"
ENGINES = ["polars", "duckdb"]


@pytest.mark.skipif(not TREC.is_dir(), reason=f"no trec_eval conformance data at {TREC}")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("qrels", "rel", "expected"),
    [
        # out.test.aq (-q): 301 188, 302 214, 303 205, all 607 (a sum)
        ("qrels.test", 1, {"301": 188, "302": 214, "303": 205, "all": 607}),
        # out.test.aql (-q -l2): grade-1 judgments now count as non-relevant
        ("qrels.rel_level", 2, {"301": 258, "302": 214, "303": 138, "all": 610}),
    ],
)
def test_trec_eval_outputs(qrels: str, rel: int, expected: dict[str, int], engine: str) -> None:
    run = rk.read_trec_run(TREC / "results.test")
    judged = rk.read_trec_qrels(TREC / qrels)
    names = ["num_nonrel_judged_ret"]
    per_query = rk.evaluate(run, judged, names, per_query=True, rel=rel, engine=engine)
    total = rk.evaluate(run, judged, names, rel=rel, engine=engine).collect()
    got = dict(per_query.collect().select("query", "value").iter_rows())
    got["all"] = total["value"].item()
    assert got == {q: float(v) for q, v in expected.items()}


@pytest.mark.parametrize("engine", ENGINES)
def test_against_pytrec_eval(engine: str) -> None:
    """Graded and negative judgments, unjudged and one-sided queries."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run = pl.DataFrame({
        "query": ["a"] * 5 + ["b"] * 3 + ["c"] * 2,
        "item": ["d1", "d2", "d3", "d4", "d5", "d1", "d6", "d7", "d8", "d9"],
        "score": [5.0, 4.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0, 1.0],
    })
    qrels = pl.DataFrame({
        "query": ["a", "a", "a", "a", "b", "b", "c", "z"],
        "item": ["d1", "d2", "d3", "d9", "d6", "d7", "d8", "d1"],
        "relevance": [0, 2, -1, 1, 0, 1, 0, 1],
    })
    qrels_dict: dict[str, dict[str, int]] = {}
    for q, i, r in qrels.iter_rows():
        qrels_dict.setdefault(q, {})[i] = r
    run_dict: dict[str, dict[str, float]] = {}
    for q, i, s in run.iter_rows():
        run_dict.setdefault(q, {})[i] = s
    for rel in (1, 2):
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels_dict, {"num_nonrel_judged_ret"}, relevance_level=rel
        )
        want = {q: v["num_nonrel_judged_ret"] for q, v in evaluator.evaluate(run_dict).items()}
        # by hand: a: d1 (0) counts, d3 (-1) is unjudged in pool, d2 (2) is relevant: 1;
        # b: d6 (0), and d7 (1) when rel=2: 1 | 2; c: d8 (0): 1
        assert want == {"a": 1, "b": 1 if rel == 1 else 2, "c": 1}
        got = rk.evaluate(run, qrels, ["NumNonRelJudgedRet"], per_query=True, rel=rel,
                          engine=engine)
        assert dict(got.select("query", "value").iter_rows()) == want
