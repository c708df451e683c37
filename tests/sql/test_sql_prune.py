"""sql/rankeval.sql plans only what a call's measures read (polars_rankeval/_sqlprune.py):
a guard may leave a piece of the SQL out only when no name of the call can be of one of
the families that read it (READERS).  The names' families come from the Python parser
(parse_measure), the SQL parser's twin, not from the guards' patterns."""

from __future__ import annotations

import duckdb
import pytest

from polars_rankeval._errors import MeasureError
from polars_rankeval._parse import TREC_ALIASES, parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlprune import COMMON_FAMILIES, READERS
from polars_rankeval.diversity.families import DIVERSITY
from polars_rankeval.duckdb import install


def _names() -> list[str]:
    """Every family's name and aliases, plain, with a cutoff and with a parameter,
    other spellings, and every trec_eval name (numbers filled in)."""
    names = []
    for family in [*REGISTRY.values(), *DIVERSITY.values()]:
        for word in (family.name, *family.aliases):
            names += [word, f"{word}@10", f"{word}@0.5", word.lower(), f" {word}",
                      f"{word}(rel=2)", f"{word}(rel=2)@5"]
    for pattern in TREC_ALIASES:
        names.append(pattern.replace(r"(\d+\.\d+)", "0.25").replace(r"(\d+)", "10"))
    return names + ["AP(interp=voc11)", "nDCG(ideal=run)@10", "MAP(interp=coco101)",
                    "AP(norm=min,interp=all)@10", "ndcg(ideal=run)", "NDCG(gain=exp,ideal=run)",
                    "IPrec@0.5", "iPrec(rel=2)@0.25", "RBP(p=0.8)", "RBP(p=0.8)@10"]


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    install(connection)
    return connection


@pytest.mark.parametrize("piece", sorted(READERS))
def test_a_piece_is_planned_whenever_a_name_can_read_it(con, piece):
    readers = READERS[piece]
    names = _names()
    asked = con.execute(
        f"SELECT n, rankeval_may_ask_{piece}([n]) FROM unnest($names) AS t(n)", {"names": names}
    ).fetchall()
    missed = []
    for name, may_ask in asked:
        try:
            measure = parse_measure(name)
        except MeasureError:
            continue  # the parser raises for the call whatever is planned
        param = readers.param
        if (measure.family.name in readers.families and not may_ask
                and (param is None or dict(measure.params).get(param[0]) == param[1])):
            missed.append((name, measure.family.name))
    assert not missed, f"{piece}: pruned although asked: {missed}"


def test_common_names_leave_the_rarer_families_out(con):
    plain = ["AP", "MAP", "nDCG@10", "P@5", "R@100", "RR", "map", "P_10", "ndcg_cut_20",
             "recip_rank", "num_rel_ret", "success_1"]
    assert all(parse_measure(n).family.name in COMMON_FAMILIES for n in plain)
    for piece in READERS:
        if piece in ("idcg", "irun"):  # nDCG's (nDCG@10, ndcg_cut_20): planned
            continue
        assert con.execute(f"SELECT rankeval_may_ask_{piece}($m)", {"m": plain}).fetchone() == (
            False,
        ), piece
    # unknown callers' names (NULL), another spelling or another list type: planned
    for measures in ("NULL", "['AP', ' AP(norm=min)']", "['AP', 'ap@5']", "[1, 2]",
                     "[]::VARCHAR[]"):
        assert con.execute(f"SELECT rankeval_may_ask_rare({measures})").fetchone() == (True,)


def test_names_with_parameters_are_pruned_by_their_word(con):
    # the family is the word's before ( and @, whatever the parameters: AP(norm=min)@10
    # is AP, as map_cut_10; RBP(p=0.8) plans RBP's branch only
    names = ["AP(norm=min)@10", "nDCG(gain=exp)@10", "P(rel=2)@5", "map_cut_10", "RBP(p=0.8)"]
    asked = {piece: con.execute(f"SELECT rankeval_may_ask_{piece}($m)", {"m": names}).fetchone()[0]
             for piece in READERS}
    assert asked == {piece: piece in ("idcg", "rare") for piece in READERS}
    # a parameter that makes AP InterpAP, or nDCG read its ideal from the run: planned
    for name, piece in (("AP(interp=voc11)", "interp"), ("MAP(interp=all)@10", "windowed"),
                        ("nDCG(ideal=run)@10", "irun")):
        assert con.execute(f"SELECT rankeval_may_ask_{piece}(['P@5', '{name}'])").fetchone() == (
            True,
        ), name


def test_a_pruned_call_gives_its_values(con):
    # (the operators planned, 754 -> 430 for a 5-measure call, are in benchmarks/RESULTS.md:
    # EXPLAIN of this macro takes 2 s to render, too slow for a test)
    con.execute("CREATE TABLE run AS SELECT * FROM (VALUES ('q1', 'a', 2.0), ('q1', 'b', 1.0))"
                " AS t(query, item, score)")
    con.execute("CREATE TABLE qrels AS SELECT * FROM (VALUES ('q1', 'b', 1)) AS t(query, item, relevance)")
    for measures in ("['AP', 'P@5']", "['AP', 'P@5', 'INSQ', 'Compat']"):
        rows = con.execute("SELECT measure, value FROM rankeval_summary('run', 'qrels', "
                           f"{measures})").fetchall()
        assert rows[:2] == [("AP", 0.5), ("P@5", 0.2)]


def test_a_piece_read_by_an_argument_is_planned_whenever_it_is_given(con):
    """READERS' ``given`` (the windowed piece's subtopic): the subtopic qrels are checked
    (a null subtopic raises) on a call that gives them, though no measure of it is a
    diversity measure."""
    con.execute("CREATE OR REPLACE TABLE srun AS SELECT * FROM (VALUES ('q1', 'a', 2.0)) AS t(query, item, score)")
    con.execute("CREATE OR REPLACE TABLE squal AS SELECT * FROM (VALUES ('q1', NULL, 'a', 1))"
                " AS t(query, subtopic, item, relevance)")
    assert con.execute("SELECT value FROM rankeval_summary('srun', 'squal', ['AP'])").fetchall() == [(1.0,)]
    with pytest.raises(duckdb.Error, match="qrels column 'subtopic': subtopic is null"):
        con.execute("SELECT * FROM rankeval_summary('srun', 'squal', ['AP'], subtopic := 'subtopic')").fetchall()


def _planned_ctes(con: duckdb.DuckDBPyConnection, sql: str, path: str) -> set[str]:
    """The names of the CTEs in the plan of ``sql`` run unoptimized (nothing folded away:
    every CTE bound is there)."""
    import json

    cursor = con.cursor()
    cursor.execute("PRAGMA disable_optimizer")
    cursor.execute("SET enable_profiling = 'json'")
    cursor.execute(f"SET profiling_output = '{path}'")
    cursor.execute(sql).fetchall()
    cursor.execute("SET enable_profiling = 'no_output'")
    with open(path) as profile:
        tree = json.load(profile)
    names, todo = set(), list(tree.get("operator") or tree["children"])
    while todo:
        node = todo.pop()
        names.add(node.get("extra_info", {}).get("CTE Name"))
        todo += node.get("children", [])
    return names - {None}


@pytest.mark.skipif(duckdb.__version__.startswith("1."), reason="DuckDB 1.x binds every CTE")
def test_a_usual_call_binds_only_the_usual_values(con, tmp_path):
    # _values_usual (COMMON_FAMILIES' formulas over _agg_usual) is the CTE read; the rarer
    # families' CTEs are never bound (benchmarks/RESULTS.md, duckbind31: -41% CPU)
    con.execute("CREATE OR REPLACE TABLE urun AS SELECT * FROM (VALUES ('q1', 'a', 2.0),"
                " ('q1', 'b', 1.0)) AS t(query, item, score)")
    con.execute("CREATE OR REPLACE TABLE uqrels AS SELECT * FROM (VALUES ('q1', 'b', 1))"
                " AS t(query, item, relevance)")
    call = "SELECT * FROM rankeval_summary('urun', 'uqrels', {})"
    usual = _planned_ctes(con, call.format("['AP', 'nDCG@10', 'P@5']"), str(tmp_path / "u.json"))
    every = _planned_ctes(con, call.format("['AP', 'INSQ']"), str(tmp_path / "e.json"))
    assert "_values_usual" in usual and "_agg_usual" in usual
    assert not {"_values", "_agg", "_cwlagg", "_cwlnorm", "_windowed"} & usual
    assert {"_values", "_agg", "_cwlagg", "_windowed"} <= every and "_values_usual" not in every


@pytest.mark.parametrize("options", [
    "", ", \"by\" := ['g']", ", complete := true", ", ties := 'average'",
    ", duplicates := 'first', top := 3", ", rel := 2",
])
def test_the_usual_values_are_the_same_bits_as_every_familys(con, options):
    # a name with a leading space is not plain: the call reads _values, every family's
    # CTEs; the plain names read _values_usual.  Same values, bit for bit.
    con.execute("""CREATE OR REPLACE TABLE brun AS SELECT 'g' || (i % 2) AS g,
        'q' || (i // 2 % 7) AS query, 'd' || (i // 14) AS item,
        CAST(hash(i) % 5 AS DOUBLE) / 3 AS score FROM range(140) AS t(i)""")
    con.execute("""CREATE OR REPLACE TABLE bqrels AS SELECT 'q' || (i % 8) AS query,
        'd' || (i // 8) AS item, CAST(hash(i * 7) % 4 AS INTEGER) - 1 AS relevance
        FROM range(80) AS t(i)""")
    run = "brun" if "by" in options else "(SELECT DISTINCT ON (query, item) * FROM brun)"
    con.execute(f"CREATE OR REPLACE TEMP VIEW brun_v AS SELECT * FROM {run}")
    names = ["AP", "nDCG@10", "P@5", "R@10", "RR", "Rprec", "NumRelRet"]
    names += [] if "average" in options else ["F1@5", "GMAP", "Success@3", "NumRet"]
    values = {}
    for prefix in ("", " "):
        measures = "[" + ", ".join(f"'{prefix}{n}'" for n in names) + "]"
        for macro in ("rankeval_summary", "rankeval_per_query"):
            rows = con.execute(f"SELECT * EXCLUDE (measure) FROM {macro}('brun_v', 'bqrels', "
                               f"{measures}{options})").fetchall()
            values[(prefix, macro)] = [tuple(repr(v) for v in row) for row in rows]
    for macro in ("rankeval_summary", "rankeval_per_query"):
        assert values[("", macro)] == values[(" ", macro)] and values[("", macro)]
