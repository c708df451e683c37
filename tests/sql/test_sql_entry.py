"""sql/rankeval.sql: rankeval_per_query / rankeval_summary on a SQL user's own tables,
equal to the polars engine (rk.evaluate) for every registered family and option."""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlentry import FAMILIES_SQL
from polars_rankeval._sqlgen import generated_files
from tests.helpers import POLARS_ONLY
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
OPTIONS = [
    {},
    {"conventions": "kaggle"},
    {"conventions": "spark"},
    {"conventions": "torchmetrics"},
    {"rel": 2},
    {"complete": True},
    {"top": 3},
    {"complete": True, "top": 2, "rel": 2},
]


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


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    connection.execute(SQL.read_text())
    return connection


def sql_call(name: str, measures: list[str], by: list[str], **options) -> str:
    args = [f"{k} := {v!r}" if not isinstance(v, bool) else f"{k} := {str(v).lower()}"
            for k, v in {**COLUMNS, **options}.items()]
    return (
        f"SELECT * FROM {name}('runs', 'judgments', {measures!r}, by := {by!r}, "
        + ", ".join(args) + ")"
    )


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


def test_every_family_is_computed():
    assert set(REGISTRY) - POLARS_ONLY <= set(FAMILIES_SQL)
    assert set(REGISTRY) - POLARS_ONLY <= {
        rk._parse.parse_measure(m).family.name for m in MEASURES  # type: ignore[attr-defined]
    }


def test_gain_families_by_hand(con) -> None:
    # the docstring examples of measures/g.py, ndcg_rel.py, rndcg.py: run a, b, c; qrels
    # b=2, c=1, z=1 (ideal gains 2, 1, 1; ideal cost 2, 3, 4; run gains 0, 2, 1)
    # G: (2 / log2(2 + 3 - 2) + 1 / log2(2 + 4 - 3)) / (2 + 1 + 1) = 3 / log2(3) / 4
    # nDCG_rel: DCG at 2, 3 = 2/log2(3), + 1/2; IDCG at 2, 3 = 2 + 1/log2(3), + 1/2;
    #   (DCG2/IDCG2 + 2 * DCG3/IDCG3) / 3 (z, not retrieved, counts nDCG at the end)
    # RnDCG: levels end at 1 and 3: (0 / 2 + DCG3 / IDCG3) / 2
    con.execute(
        "CREATE OR REPLACE TABLE gains_run AS SELECT * FROM (VALUES ('q1', 'a', 3.0),"
        " ('q1', 'b', 2.0), ('q1', 'c', 1.0)) AS t(query, item, score)"
    )
    con.execute(
        "CREATE OR REPLACE TABLE gains_qrels AS SELECT * FROM (VALUES ('q1', 'b', 2),"
        " ('q1', 'c', 1), ('q1', 'z', 1)) AS t(query, item, relevance)"
    )
    rows = dict(con.execute(
        "SELECT * FROM rankeval_summary('gains_run', 'gains_qrels', ['G', 'ndcg_rel', 'Rndcg'])"
    ).fetchall())
    log2_3 = math.log2(3)
    dcg2, dcg3 = 2 / log2_3, 2 / log2_3 + 0.5
    idcg2, idcg3 = 2 + 1 / log2_3, 2 + 1 / log2_3 + 0.5
    assert rows["G"] == pytest.approx(3 / log2_3 / 4, abs=1e-12)
    assert rows["ndcg_rel"] == pytest.approx((dcg2 / idcg2 + 2 * dcg3 / idcg3) / 3, abs=1e-12)
    assert rows["Rndcg"] == pytest.approx(dcg3 / idcg3 / 2, abs=1e-12)


def test_generated_files_are_fresh():
    stale = [str(p) for p, text in generated_files().items()
             if not p.exists() or p.read_text() != text]
    assert not stale, f"run python -m polars_rankeval._sqlgen; stale: {stale}"


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-")
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_parity_with_polars(con, seed, options):
    runs, qrels = make_data(seed)
    con.register("runs", runs)
    con.register("judgments", qrels)
    by = ["system", "day"]
    count = 0
    for per_query, name in ((True, "rankeval_per_query"), (False, "rankeval_summary")):
        sql = con.sql(sql_call(name, MEASURES, by, **options)).pl()
        expected = polars_result(runs, qrels, MEASURES, by, per_query, **options)
        keys = [*by, "qid"] if per_query else by
        count += assert_same(sql, expected, keys)
    assert count > len(MEASURES) * 4


def test_rank_column_and_no_by(con):
    runs, qrels = make_data(7)
    ranked = runs.with_columns(
        pl.col("sim").rank("ordinal", descending=True).over("system", "day", "qid").cast(pl.Int64).alias("pos")
    ).drop("sim")
    con.register("runs_ranked", ranked)
    con.register("judgments", qrels)
    query = (
        f"SELECT * FROM rankeval_per_query('runs_ranked', 'judgments', {MEASURES!r}, "
        "query := 'qid', item := 'doc_id', rank := 'pos', relevance := 'grade')"
    )
    single = ranked.filter((pl.col("system") == "bm25") & (pl.col("day") == 1)).drop(
        "system", "day"
    )
    con.register("runs_ranked", single)
    sql = con.sql(query).pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate(single, qrels, MEASURES, per_query=True, query="qid",
                               item="doc_id", rank="pos", score=None, relevance="grade")
    assert assert_same(sql, expected, ["qid"]) > 0


def with_duplicates(runs: pl.DataFrame, seed: int) -> pl.DataFrame:
    """``runs`` with some (system, day, qid, doc_id) rows repeated at other scores (the
    repeat ranks above, below or ties with the original)."""
    rng = random.Random(seed)
    extra = [
        (system, day, q, item, rng.choice(SCORES))
        for system, day, q, item, _ in runs.iter_rows()
        if rng.random() < 0.2
    ]
    return pl.concat([runs, pl.DataFrame(extra, schema=runs.schema, orient="row")])


def seeds_as_groups(seeds: tuple[int, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """:func:`make_data` with :func:`with_duplicates` for each seed, stacked: systems and
    query ids tagged ``"s<seed>/"``, so each seed's (system, day) groups are evaluated
    on their own queries and judgments, as in a call of their own (without ``complete``,
    which averages each group over every qrels query)."""
    parts = []
    for seed in seeds:
        runs, qrels = make_data(seed)
        tag = pl.lit(f"s{seed}/")
        parts.append((
            with_duplicates(runs, seed).with_columns(
                (tag + pl.col("system")).alias("system"), (tag + pl.col("qid")).alias("qid")
            ),
            qrels.with_columns((tag + pl.col("qid")).alias("qid")),
        ))  # fmt: skip
    return pl.concat(r for r, _ in parts), pl.concat(q for _, q in parts)


@pytest.mark.parametrize(
    "options",
    [{}, {"top": 3}, {"complete": True, "rel": 2}, {"top": 5, "conventions": "kaggle"}],
    ids=lambda o: ",".join(map(str, o.items())) or "-",
)
def test_duplicates_first(con, options):
    """Seeds 1 and 2: one call per output shape with the seeds as by groups, or one per
    seed with ``complete``."""
    seed_sets = [(1,), (2,)] if options.get("complete") else [(1, 2)]
    by = ["system", "day"]
    for seeds in seed_sets:
        runs, qrels = seeds_as_groups(seeds)
        con.register("runs", runs)
        con.register("judgments", qrels)
        count = 0
        for per_query, name in ((True, "rankeval_per_query"), (False, "rankeval_summary")):
            sql = con.sql(sql_call(name, MEASURES, by, duplicates="first", **options)).pl()
            expected = polars_result(
                runs, qrels, MEASURES, by, per_query, duplicates="first", **options
            )
            keys = [*by, "qid"] if per_query else by
            count += assert_same(sql, expected, keys)
        assert count > len(MEASURES) * 4 * len(seeds)
        # the default still refuses them
        with pytest.raises(duckdb.Error, match="duplicate"):
            con.sql(sql_call("rankeval_summary", ["MAP"], by, **options)).fetchall()
