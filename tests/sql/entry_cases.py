"""The SQL entry point's shared cases (sql/rankeval.sql): the file, every registered
family in one measure list, the tie-heavy grouped data with custom column names, the
polars engine's values for it and the comparison to 1e-9.

Shared by the test modules (test modules never import from each other):
``sql/test_sql_entry.py``, ``sql/test_sql_entry_ties.py`` and ``sql/test_sql_dbt.py``.
"""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import polars as pl

import polars_rankeval as rk
from tests.strategies import GRADES, ITEM_IDS, QUERY_IDS, SCORES

SQL = Path(__file__).resolve().parents[2] / "sql" / "rankeval.sql"

# every family, its parameters and presets, aliases and trec_eval names
MEASURES = [
    "AP", "MAP", "AP@5", "AP(norm=min)@5", "AP(norm=hits)@5", "AP(norm=hits)", "AP(rel=2)",
    "map_cut_10", "nDCG", "nDCG@5", "NDCG(gain=exp)@3", "nDCG(ideal=run)@5",
    "nDCG(gain=exp, ideal=run)", "ndcg_cut_10", "ndcg", "P@5", "P(norm=ret)@5", "P",
    "P(rel=2)@3", "set_P", "P_10", "R@5", "R(norm=min)@3", "R", "recall_10", "Recall@2",
    "RR", "RR@3", "MRR", "recip_rank", "Success@1", "Success@5", "success_10", "HitRate@2",
    "NumRet", "NumRet@3", "num_ret", "NumRel", "NumRel(rel=2)", "num_rel", "NumRelRet",
    "NumRelRet@3", "num_rel_ret", "NumQ", "num_q", "GMAP", "GMAP@5", "gm_map", "Bpref",
    "Bpref(rel=2)", "bpref", "infAP", "InfAP(rel=2)", "Rprec", "Rprec(rel=2)",
    "Rprec_mult(mult=0.5)", "Rprec_mult_2.00", "F1", "F1@5", "F(beta=0.5)@3", "set_F",
    "IPrec@0.1", "IPrec(rounding=v9)@0.5", "iprec_at_recall_0.00", "iprec_at_recall_1.00",
    "IPrec11pt", "IPrec11pt(rounding=v9)", "11pt_avg", "ERR", "ERR@5", "Judged@5", "Judged",
    "Unjudged@5", "unj_10", "Unjudged", "RBP", "RBP(p=0.8)", "RBP(gain=binary, rel=2)",
    "RBP@5", "rbp", "RBP_resid", "RBP_resid(p=0.5)", "rbp_resid",
    "SetAP", "SetAP@3", "SetAP(rel=2)@5", "set_map", "RelP", "RelP@1", "RelP@5",
    "RelativeP(rel=2)@3", "relative_P_5", "set_relative_P", "Utility", "Utility@3",
    "Utility(a=2,b=-0.5)", "Utility(a=1, b=-1, c=-0.5, d=0.25, docs=40)@5", "Utility(rel=2)",
    "utility", "binG", "binG@3", "BinG(rel=2)", "GMBpref", "GMBpref(rel=2)", "gm_bpref",
    "NumNonRelJudgedRet", "NumNonRelJudgedRet(rel=2)", "num_nonrel_judged_ret",
    "G", "G@3", "G(rel=2)@5", "nDCG_rel", "NDCG_rel@3", "nDCG_rel(rel=2)", "RnDCG",
    "Rndcg@2", "RnDCG(rel=3)", "RnDCG@7", "YAAP", "yaap", "YAAP@3", "YAAP(rel=2)",
    "Accuracy", "Accuracy@3", "Accuracy(rel=2)@5",
    "INSQ", "INSQ(T=0.5,max_rel=3)", "INSQ(min_rel=-0.5, rel=2)", "SDCG", "SDCG@5",
    "SDCG(max_rel=2,min_rel=1)@3", "SDCG(max_rel=3)@2000", "NERR8@5", "NERR8(min_rel=-1)",
    "NERR9(max_rel=3)@3", "NERR10", "NERR10(p=0.5,max_rel=2)", "NERR10(p=0)", "NERR11(T=2)",
    "BPM@5", "BPM(T=2,max_rel=3)@10", "BPM(T=0.5)", "BPM(T=3)@2", "INST", "INST(T=2,max_rel=3)",
    "INST(T=0.5,min_rel=-0.5)", "InterpAP", "InterpAP(interp=voc11)@5",
    "InterpAP(interp=coco101, rel=2)", "Compat", "Compat(p=0.5,normalize=false)", "Compat(p=1)",
]  # fmt: skip
COLUMNS = {"query": "qid", "item": "doc_id", "score": "sim", "relevance": "grade"}


def make_data(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A tie-heavy graded run of 2 systems x 2 days (queries missing from the qrels,
    qrels queries missing from some groups) and its judgments, custom column names."""
    rng = random.Random(seed)
    judged = {}
    qrels_rows = []
    for q in QUERY_IDS:
        if rng.random() < 0.8:
            items = rng.sample(ITEM_IDS, rng.randint(0, 9))
            judged[q] = items
            qrels_rows += [(q, i, rng.choice(GRADES)) for i in items]
    qrels_rows.append(("q_only_judged", "a", 1))
    run_rows = []
    for system in ("bm25", "dense"):
        for day in (1, 2):
            for q in rng.sample([*QUERY_IDS, "q_unjudged"], rng.randint(1, 5)):
                for item in rng.sample(ITEM_IDS, rng.randint(1, len(ITEM_IDS))):
                    run_rows.append((system, day, q, item, rng.choice(SCORES)))
    runs = pl.DataFrame(
        run_rows, schema=["system", "day", "qid", "doc_id", "sim"], orient="row"
    )
    qrels = pl.DataFrame(qrels_rows, schema=["qid", "doc_id", "grade"], orient="row")
    return runs, qrels


def stacked_seeds(seeds: tuple[int, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`make_data` of each seed, stacked: systems and query ids tagged ``"s<seed>/"``,
    so each seed's (system, day) groups are evaluated on their own queries and judgments,
    as in a call of their own (not with ``complete``, which averages each group over
    every qrels query): one SQL call checks every seed."""
    parts = []
    for seed in seeds:
        runs, qrels = make_data(seed)
        tag = pl.lit(f"s{seed}/")
        parts.append((
            runs.with_columns((tag + pl.col("system")).alias("system"), (tag + pl.col("qid")).alias("qid")),
            qrels.with_columns((tag + pl.col("qid")).alias("qid")),
        ))  # fmt: skip
    return pl.concat(r for r, _ in parts), pl.concat(q for _, q in parts)


def polars_result(runs, qrels, measures, by, per_query, **options) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate(
            runs, qrels, measures, by=by, per_query=per_query, **COLUMNS, **options
        )


def assert_same(sql: pl.DataFrame, expected: pl.DataFrame, keys: list[str]) -> int:
    assert sql.columns == expected.columns
    joined = expected.join(sql, on=[*keys, "measure"], how="full", suffix="_sql")
    missing = joined.filter(pl.col("value").is_null() | pl.col("value_sql").is_null())
    assert missing.height == 0, missing
    bad = joined.filter((pl.col("value") - pl.col("value_sql")).abs() > 1e-9)
    assert bad.height == 0, bad.select(*keys, "measure", "value", "value_sql").rows()
    return joined.height
