"""``sql.render`` writes only what the asked measures read: a statement for one family
holds the shared CTEs and that family's own, no other family's CTE, join or formula
(Spark, PostgreSQL and DuckDB parse, analyse and plan every CTE of a statement).

The CTE owners are written here from the SQL's design, not read from the renderer.  The
values of the pruned statements are held by every rendered-SQL parity test
(tests/sql/test_sql_render*.py, test_postgres*.py, test_spark*.py); here, in DuckDB, one
statement per family equals one statement of every family on the same data.
"""

from __future__ import annotations

import re
import warnings

import duckdb
import pytest

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval.sql import render
from tests.parity import GRID, random_cases

pytest.importorskip("sqlglot")

# CTEs every statement has (the inputs, ranking, checks, per-query stats, judged rows)
SHARED = {
    "_specs", "_run", "_qrels", "_levels", "_ranked", "_rows", "_rq", "_rdup", "_qq",
    "_qdup", "_check", "_dropped", "_ideal", "_qstat", "_judged", "_jl", "_agg", "_groups",
    "_universe", "_dropk", "_extra", "_values",
}  # fmt: skip
# ... and the duplicate pre-checks of the dialects with a 64-bit hash (DuckDB)
HASHED = {"_fp", "_qfp"}
# the C/W/L families (cwl_eval's) and the diversity families (ndeval's)
CWL = {"SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM"}
DIVERSITY = {"alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "StRecall",
             "P_IA", "AP_IA"}  # fmt: skip


def owners(cte: str) -> set[str] | None:
    """The families that read ``cte`` (None: a shared CTE, read by all)."""
    if cte in SHARED | HASHED:
        return None
    if cte in ("_gideal", "_gq"):
        return {"G", "nDCG_rel", "RnDCG"}
    if cte in ("_idcg", "_irun"):
        return {"nDCG"}
    if cte.startswith("_cwl"):
        return CWL
    if cte.startswith("_interp"):
        return {"InterpAP"}
    if cte.startswith("_compat"):
        return {"Compat"}
    if cte.startswith("_div") or cte == "_subq":
        return DIVERSITY
    if cte == "_windowed":
        return {"InterpAP", "Compat"} | DIVERSITY
    raise AssertionError(f"a CTE this test does not know: {cte}")


def ctes(sql: str) -> list[str]:
    return re.findall(r"^\s*(\w+) AS \(", sql, re.MULTILINE)


def one_per_family() -> dict[str, str]:
    """A name of each family of the parity grid (the first)."""
    names: dict[str, str] = {}
    for name in GRID:
        names.setdefault(parse_measure(name).family.name, name)
    return names


@pytest.mark.parametrize("dialect", ["spark", "postgres", "duckdb"])
def test_single_family_render_holds_only_its_own_ctes(dialect):
    families = one_per_family()
    assert len(families) > 40 and CWL <= families.keys()
    for family, name in [*families.items(), ("alpha_nDCG", "alpha_nDCG@20")]:
        kw = {"subtopic": "subtopic"} if family in DIVERSITY else {}
        sql = render([name], dialect, **kw)
        found = ctes(sql)
        assert len(found) == len(set(found)), (name, found)
        strangers = [c for c in found if (o := owners(c)) is not None and family not in o]
        assert not strangers, (name, strangers)
        assert SHARED <= set(found), (name, SHARED - set(found))
        # the formulas: this family's alone
        assert re.findall(r"WHEN '(\w+)' THEN CAST", sql) == [family], name


def test_own_ctes_present_where_asked():
    """The pruning leaves nothing a family reads out: its own CTEs are there
    (nDCG(ideal=run)'s ideal DCG only where a measure sets ideal=run)."""
    assert "_irun" not in ctes(render(["nDCG@10", "nDCG(ideal=qrels)"], "spark"))
    for name, own in (
        ("G", {"_gideal", "_gq"}), ("nDCG@10", {"_idcg"}),
        ("nDCG(ideal=run)@10", {"_idcg", "_irun"}),
        ("SDCG@10", {"_cwltab", "_cwlnorm", "_cwlagg"}),
        ("InterpAP", {"_interprows", "_interpvals", "_windowed"}),
        ("Compat", {"_compatvals", "_windowed"}),
    ):  # fmt: skip
        assert own <= set(ctes(render([name], "spark"))), name
    every = ctes(render([*one_per_family().values(), "nDCG(ideal=run)"], "spark"))
    assert {c for c in every if owners(c) is not None} >= {
        "_gideal", "_gq", "_idcg", "_irun", "_cwlagg", "_interpvals", "_compatvals",
        "_windowed",
    }  # fmt: skip


@pytest.mark.slow  # 45 DuckDB statements, ~2 s
def test_family_statements_equal_one_statement_of_every_family():
    """DuckDB: one pruned statement per family gives the values of one statement of
    every family (the least pruned), bit for bit, per query."""
    frames = random_cases(2111, 12, int_ids=False)
    con = duckdb.connect()
    con.register("run", frames["run"].to_arrow())
    con.register("qrels", frames["qrels"].to_arrow())
    names = list(one_per_family().values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        together = con.execute(render(names, "duckdb")).fetchall()
        alone = [row for name in names for row in con.execute(render([name], "duckdb")).fetchall()]
    assert len(together) >= 10 * len(names)
    assert sorted(alone, key=repr) == sorted(together, key=repr)


def _qstat_reads(sql: str) -> int:
    return len(re.findall(r"JOIN _qstat AS", sql))


def test_spark_statement_runs_no_scalar_subquery_and_reads_qstat_once():
    """Spark runs each scalar subquery (EXISTS included) as a job of its own and computes
    a CTE once per reference: a rendered Spark statement has none (its data checks one
    aggregate, the pieces' EXISTS guards decided in Python), and _qstat is joined once
    (by _values) unless a family's sums over the judged rows read its columns."""
    names = [*one_per_family().values(), "nDCG(ideal=run)", "alpha_nDCG@20"]
    for measures in (["AP", "nDCG@10", "P@10", "R@100", "RR"], names):
        sql = render(measures, "spark", subtopic="subtopic")
        assert not re.search(r"\(\s*SELECT (SUM|MIN|MAX|COUNT)\(|EXISTS", sql), measures
    assert _qstat_reads(render(["AP", "nDCG@10", "P@10", "R@100", "RR"], "spark")) == 1
    for name in ("Bpref", "Rprec", "InterpAP", "G", "RBP"):  # their sums read _qstat's columns
        assert _qstat_reads(render(["AP", name], "spark")) == 2, name
    # the other dialects' checks keep their scalar subqueries (planned once there)
    assert "(SELECT SUM(x._n) FROM _rq AS x)" in render(["AP"], "postgres")
