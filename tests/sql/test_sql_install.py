"""One ``rankeval_summary``: ``install(con)``, ``.read sql/rankeval.sql`` and the
low-level files all give the SQL entry point's macro, which with no measures named
computes trec_eval's default set at ``k := 10`` (what the low-level ``rankeval_summary``
of earlier versions computed)."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
import pytrec_eval

from polars_rankeval.duckdb import install, install_entry_point

RUNS = pl.DataFrame({
    "system": ["bm25"] * 4 + ["dense"] * 4,
    "qid": ["q1", "q1", "q2", "q2"] * 2,
    "doc_id": ["a", "b", "c", "d", "b", "a", "d", "c"],
    "sim": [2.0, 1.0, 0.5, 0.25, 2.0, 1.0, 0.5, 0.25],
})  # fmt: skip
JUDGMENTS = pl.DataFrame({"qid": ["q1", "q2", "q2"], "doc_id": ["b", "c", "d"], "grade": [1, 2, 1]})

# trec_eval's names of the default set at k = 1 (pytrec_eval, the independent oracle)
TREC_NAMES = {
    "AP": "map", "AP@1": "map_cut_1", "nDCG": "ndcg", "nDCG@1": "ndcg_cut_1", "P@1": "P_1",
    "R@1": "recall_1", "RR": "recip_rank", "Rprec": "Rprec", "Bpref": "bpref",
    "Success@1": "success_1", "NumRet": "num_ret", "NumRel": "num_rel",
    "NumRelRet": "num_rel_ret",
}  # fmt: skip


def _connection(*installers) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for installer in installers:
        installer(con)
    con.register("runs", RUNS.to_arrow())
    con.register("judgments", JUDGMENTS.to_arrow())
    return con


def _pytrec_eval_means(system: str) -> dict[str, float]:
    run: dict[str, dict[str, float]] = {}
    for row in RUNS.filter(pl.col("system") == system).iter_rows(named=True):
        run.setdefault(row["qid"], {})[row["doc_id"]] = row["sim"]
    qrels: dict[str, dict[str, int]] = {}
    for row in JUDGMENTS.iter_rows(named=True):
        qrels.setdefault(row["qid"], {})[row["doc_id"]] = row["grade"]
    measures = {"map", "map_cut", "ndcg", "ndcg_cut", "P", "recall", "recip_rank", "Rprec",
                "bpref", "success", "num_ret", "num_rel", "num_rel_ret"}  # fmt: skip
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=1)
    per_query = evaluator.evaluate(run)
    # pytrec_eval's cut lists are fixed (5, 10, ...); P_1 and friends need a custom list
    custom = pytrec_eval.RelevanceEvaluator(
        qrels, {"map_cut.1", "ndcg_cut.1", "P.1", "recall.1", "success.1"}
    ).evaluate(run)
    for query, values in custom.items():
        per_query[query].update(values)
    sums = ("num_ret", "num_rel", "num_rel_ret")
    out = {}
    for name in TREC_NAMES.values():
        values = [per_query[q][name] for q in sorted(per_query)]
        out[name] = sum(values) if name in sums else sum(values) / len(values)
    return out


@pytest.mark.parametrize(
    "installers",
    [(install,), (install_entry_point,), (install_entry_point, install), (install, install)],
    ids=["install", "install_entry_point", "both", "twice"],
)
def test_install_gives_the_entry_point(installers) -> None:
    con = _connection(*installers)
    rows = con.execute(
        "SELECT * FROM rankeval_summary('runs', 'judgments', ['MRR', 'P@1'], by := ['system'],"
        " query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade')"
    ).fetchall()
    # by hand: bm25 ranks b (relevant) second on q1, c first on q2; dense the other way
    assert rows == [("bm25", "MRR", 0.75), ("bm25", "P@1", 0.5),
                    ("dense", "MRR", 1.0), ("dense", "P@1", 1.0)]  # fmt: skip


def test_no_measures_named_is_trec_evals_default_set() -> None:
    con = _connection(install)
    rows = con.execute(
        "SELECT system, measure, value FROM rankeval_summary('runs', 'judgments', by := ['system'],"
        " query := 'qid', item := 'doc_id', score := 'sim', relevance := 'grade', k := 1)"
    ).fetchall()
    for system in ("bm25", "dense"):
        got = {m: v for s, m, v in rows if s == system}
        assert list(got) == list(TREC_NAMES)
        want = _pytrec_eval_means(system)
        for name, trec_name in TREC_NAMES.items():
            assert got[name] == pytest.approx(want[trec_name], rel=1e-12, abs=1e-15), name


def test_rankeval_evaluate_is_the_per_query_entry_point() -> None:
    con = _connection(install)
    con.register(
        "run",
        RUNS.filter(pl.col("system") == "bm25")
        .select(query="qid", item="doc_id", score="sim")
        .to_arrow(),
    )
    con.register(
        "qrels", JUDGMENTS.select(query="qid", item="doc_id", relevance="grade").to_arrow()
    )
    evaluate = con.execute(
        "SELECT * FROM rankeval_evaluate('run', 'qrels', k := 1, rel := 2)"
    ).fetchall()
    per_query = con.execute(
        "SELECT * FROM rankeval_per_query('run', 'qrels', k := 1, rel := 2)"
    ).fetchall()
    assert evaluate == per_query
    assert [m for q, m, _ in evaluate if q == "q2"][:5] == [
        "AP(rel=2)",
        "AP(rel=2)@1",
        "nDCG(rel=2)",
        "nDCG(rel=2)@1",
        "P(rel=2)@1",
    ]
    # q2 (c graded 2 first): every measure at rel=2 finds its one relevant row at rank 1
    assert {m: v for q, m, v in evaluate if q == "q2"}["P(rel=2)@1"] == 1.0


def test_k_with_named_measures_is_refused_naming_k() -> None:
    con = _connection(install)
    with pytest.raises(duckdb.Error, match=r"k := 10 sets the cutoffs of the default measures"):
        con.execute(
            "SELECT * FROM rankeval_summary('runs', 'judgments', ['P@5'], query := 'qid',"
            " item := 'doc_id', score := 'sim', relevance := 'grade', k := 10)"
        ).fetchall()
