"""sql/rankeval.sql: rankeval_per_query / rankeval_summary on a SQL user's own tables,
equal to the polars engine (rk.evaluate) for every registered family and option."""

from __future__ import annotations

import math
import random
import warnings

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlentry import FAMILIES_SQL
from polars_rankeval._sqlgen import generated_files
from tests.helpers import FULL_PROFILE, POLARS_ONLY
from tests.sql.entry_cases import (
    COLUMNS,
    MEASURES,
    SQL,
    assert_same,
    make_data,
    polars_result,
    stacked_seeds,
)
from tests.strategies import SCORES

# each option alone and together; by default the three that also come together
# ({"rel": 2}, {"complete": True}, {"top": 3}) only together (two macro calls each, ~1 s
# of CPU apiece), alone too under the full profile
ALONE = [{"rel": 2}, {"complete": True}, {"top": 3}]
OPTIONS = [
    {},
    {"conventions": "kaggle"},
    {"conventions": "spark"},
    {"conventions": "torchmetrics"},
    *(ALONE if FULL_PROFILE else []),
    {"complete": True, "top": 2, "rel": 2},
]


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


def parity_count(con, seeds: tuple[int, ...], measures: list[str], options: dict) -> int:
    """Both macros on ``make_data`` of the seeds, stacked (``stacked_seeds``: each seed's
    (system, day) groups on their own queries, so one call checks every seed), grouped by
    (system, day), against the polars engine: the number of values compared (assert_same
    checks each).  With ``complete`` each group is averaged over every seed's qrels
    queries (the others' scored as missing), in SQL as in polars."""
    runs, qrels = stacked_seeds(seeds)
    con.register("runs", runs)
    con.register("judgments", qrels)
    by = ["system", "day"]
    count = 0
    for per_query, name in ((True, "rankeval_per_query"), (False, "rankeval_summary")):
        sql = con.sql(sql_call(name, measures, by, **options)).pl()
        expected = polars_result(runs, qrels, measures, by, per_query, **options)
        keys = [*by, "qid"] if per_query else by
        count += assert_same(sql, expected, keys)
    return count


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(map(str, o.items())) or "-")
def test_parity_with_polars(con, options):
    """Seeds 1, 2 and 3 in one call per macro (they were a call each)."""
    assert parity_count(con, (1, 2, 3), MEASURES, options) > len(MEASURES) * 4 * 3


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
    """Seeds 1 and 2: one call per output shape with the seeds as by groups (with
    ``complete``, each group averaged over both seeds' qrels queries, as in polars)."""
    seed_sets = [(1, 2)]
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


# Without Compat (the one family here that reads every ranked row) the judged rows are
# positioned from per-query lists of keys (_sqlentry._judged_positions_sql), not by the
# window: make_data's queries have at most 9 qrels rows, well within LIST_WORK.
LIST_MEASURES = [m for m in MEASURES if not m.startswith("Compat")]


@pytest.mark.parametrize("options", [{}, {"top": 3}, {"complete": True, "rel": 2}],
                         ids=lambda o: ",".join(map(str, o.items())) or "-")
def test_parity_with_polars_positions_from_key_lists(con, options):
    """Tie-heavy scores (4 values): most judged rows share their key with other rows of
    their query, so the tie fix-up by item decides their positions.  Seeds 4 and 5 in
    one call (stacking keeps the list passes' share of the run's rows, which picks the
    lists over the window)."""
    assert parity_count(con, (4, 5), LIST_MEASURES, options) > len(LIST_MEASURES) * 4 * 2


@pytest.mark.parametrize("deep", [False, True])
def test_parity_with_polars_rank_given_lists_and_window(con, deep):
    """A given rank with repeats (ties broken by item), no by; ``deep``: one query with
    80 judged rows of 80, whose list passes (80 x 80 + the others' > 32 x the run's 113
    rows) send every query to the ranking window instead of the lists."""
    rng = random.Random(11)
    items = [f"d{i}" for i in range(80)]
    rows = [("q1", i, rng.randint(1, 6)) for i in rng.sample(items, 25)]
    rows += [("q2", i, rng.randint(1, 3)) for i in rng.sample(items, 8)]
    judged = [("q1", i, rng.choice(GRADES_LIST)) for i in rng.sample(items, 6)]
    judged += [("q2", i, rng.choice(GRADES_LIST)) for i in items[:5]]
    if deep:
        rows += [("q3", i, rng.randint(1, 80)) for i in items]
        judged += [("q3", i, rng.choice(GRADES_LIST)) for i in items]
    runs = pl.DataFrame(rows, schema=["qid", "doc_id", "pos"], orient="row")
    qrels = pl.DataFrame(judged, schema=["qid", "doc_id", "grade"], orient="row")
    con.register("runs_ranked", runs)
    con.register("judgments", qrels)
    sql = con.sql(
        f"SELECT * FROM rankeval_per_query('runs_ranked', 'judgments', {LIST_MEASURES!r}, "
        "query := 'qid', item := 'doc_id', rank := 'pos', relevance := 'grade')"
    ).pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = rk.evaluate(runs, qrels, LIST_MEASURES, per_query=True, query="qid",
                               item="doc_id", rank="pos", score=None, relevance="grade")
    assert assert_same(sql, expected, ["qid"]) == len(LIST_MEASURES) * (3 if deep else 2)



def test_ranks_beyond_single_precision_keep_their_order(con):
    """Ranks 2^24 and 2^24 + 1 are one value in single precision, the key lists' type
    (_sqlentry.REAL_EXACT): such a run ranks with the window, so the relevant item at
    rank 2^24 + 1 is second, not tied first.  Worked by hand: RR 1/2, P@1 0, and AP 1/2
    (one relevant item, found at position 2)."""
    con.execute("CREATE OR REPLACE TABLE deep_ranks AS SELECT * FROM (VALUES "
                "('q1', 'a', 16777216), ('q1', 'b', 16777217)) t(query, item, pos)")
    con.execute("CREATE OR REPLACE TABLE deep_judged AS SELECT * FROM (VALUES "
                "('q1', 'b', 1), ('q1', 'c', 0)) t(query, item, relevance)")
    rows = con.sql("SELECT measure, value FROM rankeval_summary('deep_ranks', 'deep_judged', "
                   "['RR', 'P@1', 'AP'], rank := 'pos') ORDER BY measure").fetchall()
    assert rows == [("AP", 0.5), ("P@1", 0.0), ("RR", 0.5)]

GRADES_LIST = [-1, 0, 1, 1, 2, 3]
