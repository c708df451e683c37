"""sql/rankeval.sql against independent oracles: pytrec_eval (trec_eval 9.x) for the
trec_eval measures, per (system, day) group, and table names given as CTE names and
Parquet paths."""

from __future__ import annotations

import math
import random
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.strategies import ITEM_IDS, QUERY_IDS, SCORES

pytrec_eval = pytest.importorskip("pytrec_eval")
SQL = Path(__file__).resolve().parents[2] / "sql" / "rankeval.sql"
# trec_eval name -> pytrec_eval's measure to request
TREC = {
    "map": "map", "map_cut_5": "map_cut.5", "ndcg": "ndcg", "ndcg_cut_10": "ndcg_cut.10",
    "P_5": "P.5", "recall_10": "recall.10", "recip_rank": "recip_rank", "Rprec": "Rprec",
    "bpref": "bpref", "num_ret": "num_ret", "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret", "set_F": "set_F", "success_5": "success.5",
    "set_P": "set_P", "set_recall": "set_recall", "infAP": "infAP", "set_map": "set_map",
    "relative_P_5": "relative_P.5", "set_relative_P": "set_relative_P", "utility": "utility",
    "binG": "binG", "num_nonrel_judged_ret": "num_nonrel_judged_ret", "gm_bpref": "gm_bpref",
    "G": "G", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
}  # fmt: skip
# trec_eval stores gm_bpref per query as ln(max(bpref, 1e-5)) (m_gm_bpref.c); ours is bpref
PER_QUERY = {"gm_bpref": lambda value: math.log(max(value, 0.00001))}


def data(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Tie-heavy runs of 2 systems x 2 days; every qrels query has a judgment >= 0
    (pytrec_eval crashes on all-negative queries) and some -1 judgments."""
    rng = random.Random(seed)
    qrels = []
    for q in QUERY_IDS:
        items = rng.sample(ITEM_IDS, rng.randint(1, 9))
        qrels += [(q, i, rng.choice([-1, 0, 1, 1, 2, 3])) for i in items[1:]]
        qrels.append((q, items[0], rng.choice([0, 1, 2])))
    runs = []
    for system in ("a", "b"):
        for day in (1, 2):
            for q in rng.sample(QUERY_IDS, rng.randint(1, len(QUERY_IDS))):
                for item in rng.sample(ITEM_IDS, rng.randint(1, len(ITEM_IDS))):
                    runs.append((system, day, q, item, rng.choice(SCORES)))
    return (
        pl.DataFrame(runs, schema=["system", "day", "qid", "doc_id", "sim"], orient="row"),
        pl.DataFrame(qrels, schema=["qid", "doc_id", "grade"], orient="row"),
    )


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    c.execute(SQL.read_text())
    return c


@pytest.mark.parametrize("seed", range(6))
def test_pytrec_eval(con, seed):
    runs, qrels = data(seed)
    con.register("runs", runs)
    con.register("judgments", qrels)
    sql = con.sql(
        f"SELECT * FROM rankeval_per_query('runs', 'judgments', {list(TREC)!r},"
        " by := ['system', 'day'], query := 'qid', item := 'doc_id', score := 'sim',"
        " relevance := 'grade')"
    ).pl()
    judged: dict[str, dict[str, int]] = {}
    for q, i, g in qrels.iter_rows():
        judged.setdefault(q, {})[i] = g
    evaluator = pytrec_eval.RelevanceEvaluator(judged, set(TREC.values()))
    checked = 0
    for (system, day), group in runs.group_by(["system", "day"]):
        run: dict[str, dict[str, float]] = {}
        for _, _, q, i, s in group.iter_rows():
            run.setdefault(q, {})[i] = s
        expected = evaluator.evaluate(run)
        mine = sql.filter((pl.col("system") == system) & (pl.col("day") == day))
        assert set(mine["qid"]) == set(expected)
        for q, i, measure, value in mine.select("qid", "system", "measure", "value").iter_rows():
            value = PER_QUERY.get(measure, float)(value)
            assert value == pytest.approx(expected[q][measure], abs=1e-9), (q, measure)
            checked += 1
    assert checked > 0


def test_cte_names_and_parquet_paths(con, tmp_path):
    runs, qrels = data(9)
    runs.write_parquet(tmp_path / "runs.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    args = (", by := ['system', 'day'], query := 'qid', item := 'doc_id', score := 'sim',"
            " relevance := 'grade'")
    from_files = con.sql(
        f"SELECT * FROM rankeval_summary('{tmp_path / 'runs.parquet'}',"
        f" '{tmp_path / 'qrels.parquet'}', ['MAP', 'nDCG@10']{args})"
    ).fetchall()
    con.register("runs_frame", runs)
    con.register("qrels_frame", qrels)
    from_ctes = con.sql(
        "WITH r AS (SELECT * FROM runs_frame), j AS (SELECT * FROM qrels_frame) "
        f"SELECT * FROM rankeval_summary('r', 'j', ['MAP', 'nDCG@10']{args})"
    ).fetchall()
    assert len(from_files) == 2 * 2 * 2
    assert from_files == from_ctes
