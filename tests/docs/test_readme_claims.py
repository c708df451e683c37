"""README claims that no other test held (issue 17): each test names the sentence it holds.

The README's "What the tests hold" table points here for these; every value is computed
by hand in a comment, or is the package's documented configuration (profiles, extras).
"""

from __future__ import annotations

import math
import re
import types

import numpy as np
import polars as pl
import pytest
from hypothesis import settings

import polars_rankeval as rk
import polars_rankeval.expr as rx
from polars_rankeval import _significance as sig
from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import REGISTRY
from polars_rankeval.cli import main
from tests.helpers import FULL_EXAMPLES, ROOT, examples

README = (ROOT / "README.md").read_text(encoding="utf-8")
RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q1", "q2", "q2"], "item": ["a", "b", "c", "a", "d"],
     "score": [3.0, 2.0, 1.0, 2.0, 1.0]}
)  # fmt: skip
QRELS = pl.DataFrame({"query": ["q1", "q1", "q2"], "item": ["b", "c", "d"], "relevance": [1, 2, 1]})


# ---------------------------------------------------------------- the opening: test tiers


def test_hypothesis_profiles_are_the_fractions_the_readme_gives(monkeypatch):
    """'runs each property test with a twentieth of its examples' (-m "not slow"),
    'full example counts', 'by default a fifth of them'."""
    from tests import conftest

    full, default, fast = (
        settings.get_profile(n).max_examples for n in ("full", "default", "fast")
    )
    assert (full, default, fast) == (FULL_EXAMPLES, FULL_EXAMPLES // 5, FULL_EXAMPLES // 20)
    previous = settings.get_current_profile_name()
    monkeypatch.delenv("HYPOTHESIS_PROFILE", raising=False)
    try:
        conftest.pytest_configure(types.SimpleNamespace(option=types.SimpleNamespace(
            markexpr="not slow")))  # fmt: skip
        assert settings.get_current_profile_name() == "fast"
        assert examples(100) == 5  # a twentieth
        settings.load_profile("default")
        assert examples(100) == 20  # a fifth
    finally:
        settings.load_profile(previous)
    # the slow tier holds the modules that drive external programs (README's list)
    for module in ("test_trec_eval_oracle", "test_sql_dbt", "test_spark_oracle",
                   "test_postgres_oracle", "test_report_browser"):  # fmt: skip
        assert any(module in path for path in conftest.SLOW), module


def test_the_parity_grids_draw_batches_under_the_full_profile_only():
    """'by default only each test's explicit example (a seeded batch), under full also
    its drawn batches'."""
    from hypothesis import Phase

    from tests import parity

    full = settings.get_current_profile_name() == "full"
    assert parity.FULL_PROFILE == full
    assert set(parity.BATCH_SETTINGS.phases) == (set(Phase) if full else {Phase.explicit})
    assert parity.seeded_batch(1, 3, int_ids=False)["cases"] == 3
    # 'per query through every engine path but polars' lazy in-memory one ... summarised
    # through eager polars and streaming DuckDB; under full ... every path both ways'
    every = tuple(parity.RUNNERS)
    assert parity.PER_QUERY_RUNNERS == (
        every if full else tuple(r for r in every if r != "polars lazy")
    )
    assert parity.SUMMARY_RUNNERS == (every if full else ("polars eager", "duckdb lazy streaming"))
    # 'the whole grid through each engine's eager path and a cover of it through the
    # others, and summarised on the cover ...; under full ... on the whole grid'
    from tests.sql.warehouse_cases import cover

    covered = cover(parity.GRID)
    for runner in every:
        assert parity.runner_names(runner, parity.GRID, per_query=True) == (
            parity.GRID if full or runner in ("polars eager", "duckdb eager") else covered
        )
        assert parity.runner_names(runner, parity.GRID, per_query=False) == covered
    assert len(covered) == (len(parity.GRID) if full else 90)
    assert list(parity.covered(tuple(parity.GRID))) == covered
    # '(the by-group, rank-column and duplicates="first" shapes on the cover in every
    # path)': those tests evaluate VARIANT_GRID (the cover, the grid under full)
    source = (ROOT / "tests" / "engines" / "test_sql_parity.py").read_text()
    assert "VARIANT_GRID = list(covered(tuple(GRID)))" in source
    for test in ("test_grid_by_groups", "test_grid_rank_column", "test_grid_duplicates_first"):
        body = source.split(f"def {test}(", 1)[1].split("\ndef ", 1)[0]
        assert "VARIANT_GRID" in body and "GRID," not in body.replace("VARIANT_GRID", ""), test
    # every drawn batch of the grid module has its seeded explicit example beside it
    drawn = source.count("@given(data=batches(")
    assert drawn >= 5 and source.count("@example(data=seeded_batch(") == drawn


def test_the_warehouse_tests_cover_the_grids_unless_full():
    """'The PostgreSQL and Spark tests ask by default for a cover of their measure grids
    (every family with each value of its parameters, with and without a cutoff, at each
    rel level: 90 of the parity grid's 810 names), the whole grids under `full`; the Spark
    modules and `examples/spark_eval.py` share one JVM ... the example also runs in a JVM
    of its own under `full`'."""
    from polars_rankeval._parse import parse_measure
    from tests import conftest
    from tests.parity import GRID
    from tests.sql.warehouse_cases import cover

    def held(names):
        measures = [parse_measure(name) for name in names]
        return {(m.family.name, key, value) for m in measures for key, value in m.params} | {
            (m.family.name, "cutoff", m.k is None) for m in measures
        }

    names = cover(GRID)
    assert set(names) <= set(GRID) and held(names) == held(GRID)
    assert {parse_measure(name).k for name in names} == {parse_measure(name).k for name in GRID}
    if settings.get_current_profile_name() == "full":
        assert names == GRID
    else:
        assert (len(names), len(GRID)) == (90, 810)
    # 'Spark's integer-id case each family once, 45 names': every family, every optional
    # piece of the SQL that the cover's statement reads (_sqlprune's decisions, as
    # sql.render takes them from the names' families and parameters)
    from dataclasses import replace

    from polars_rankeval._sqlentry import DUCKDB
    from polars_rankeval._sqlprune import READERS, reads
    from tests.sql.warehouse_cases import cover_families

    def pieces(chosen):
        measures = [parse_measure(name) for name in chosen]
        d = replace(DUCKDB, families=frozenset(m.family.name for m in measures),
                    settings=frozenset((m.family.name, p, str(v)) for m in measures for p, v in m.params))  # fmt: skip
        return {piece for piece in [*READERS, *d.families] if reads(d, piece)}

    int_ids = cover_families(GRID)
    assert set(int_ids) <= set(GRID) and pieces(int_ids) == pieces(GRID)
    assert len(int_ids) == (len(GRID) if settings.get_current_profile_name() == "full" else 45)
    source = (ROOT / "tests/sql/test_spark.py").read_text()
    assert "INT_ID_GRID = cover_families(GRID)" in source
    assert 'data["qrels"], INT_ID_GRID, shapes=PER_QUERY)' in source
    spark = {path: group for path, group in conftest.SHARED_WORKER.items() if "spark" in path}
    assert len(spark) == 4 and len(set(spark.values())) == 1
    assert "examples/spark_eval.py" in (ROOT / "tests/sql/test_spark_example.py").read_text()
    in_own_jvm = 'IN_SPARK_GROUP = set() if FULL_PROFILE else {"spark_eval.py"}'
    assert in_own_jvm in (ROOT / "tests/docs/test_examples.py").read_text()


def test_the_fast_tier_leaves_out_the_measured_tests_and_the_servers():
    """'the tests measured at 0.25 s of CPU or more each ... `tests/slow_tests.txt`' and
    'PostgreSQL, Spark' (any test asking for their fixtures) are in the slow tier."""
    from tests import conftest, tiers

    assert tiers.THRESHOLD == 0.25 and "0.25 s of CPU" in README
    measured = min(tiers.listed())

    def item(nodeid, fixtures=()):
        found = types.SimpleNamespace(nodeid=nodeid, fixturenames=list(fixtures), marks=[])
        found.add_marker = found.marks.append
        return found

    items = [item(measured), item("tests/x.py::test_pg", ["postgres"]),
             item("tests/x.py::test_spark", ["spark"]), item("tests/x.py::test_cheap", ["tmp_path"])]  # fmt: skip
    conftest.pytest_collection_modifyitems(items)
    slow = {found.nodeid for found in items if any(m.name == "slow" for m in found.marks)}
    assert slow == {measured, "tests/x.py::test_pg", "tests/x.py::test_spark"}


# ---------------------------------------------------------------- data model and measures


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_dropped_duplicates_keep_occupying_their_positions(engine):
    """'the dropped rows keep occupying their positions, as on the user's screen'."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "a", "b"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["b"], "relevance": [1]})
    with pytest.warns(rk.RankevalWarning, match="dropped 1 duplicate"):
        got = rk.evaluate(run, qrels, ["RR", "NumRet"], duplicates="first", engine=engine)
    # a (3.0) at 1, its copy (2.0) dropped but still at 2, b at 3: RR = 1/3; 2 rows kept
    assert dict(got.iter_rows()) == {"RR": pytest.approx(1 / 3, abs=1e-15), "NumRet": 2.0}


@pytest.mark.parametrize(
    ("name", "canonical"),
    [("ap@10", "AP@10"), ("NDCG@10", "nDCG@10"), ("bPREF", "Bpref"), ("mrr", "RR"),
     ("recall@5", "R@5"), ("hitrate@3", "Success@3")],
)  # fmt: skip
def test_family_names_are_matched_case_insensitively(name, canonical):
    """'Family names are matched case-insensitively'."""
    assert str(rk.parse_measure(name)) == canonical


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_family_takes_rel(family):
    """'Every measure takes rel=': the name's parameter equals evaluate's default level."""
    graded = QRELS.with_columns(relevance=pl.Series([1, 2, 2]))  # q1: b 1, c 2; q2: d 2
    named = rk.evaluate(RUN, graded, [f"{family}(rel=2)"], per_query=True, complete=True)
    default = rk.evaluate(RUN, graded, [family], per_query=True, complete=True, rel=2)
    assert named["value"].to_list() == default["value"].to_list()
    # the level is used: q1 ranks a, b (1), c (2): at rel=2 only c counts (AP 1/3, not 7/12)
    if family in ("AP", "P", "NumRel"):
        plain = rk.evaluate(RUN, graded, [family], per_query=True, complete=True)
        assert plain["value"].to_list() != named["value"].to_list()


def test_errors_are_value_errors():
    """'rk.InputError (a rk.RankevalError, itself a ValueError)'."""
    assert issubclass(rk.InputError, rk.RankevalError)
    assert issubclass(rk.MeasureError, rk.RankevalError)
    assert issubclass(rk.RankevalError, ValueError)


def test_clean_data_is_read_once_and_again_only_for_an_error():
    """'Data checks are counted inside the same aggregation ... clean data pays no extra
    pass; the example row is looked up only when there is an error'."""
    calls: list[int] = []

    def spy(frame: pl.DataFrame) -> pl.DataFrame:
        calls.append(frame.height)
        return frame

    def evaluate(run: pl.DataFrame) -> None:
        lazy = run.lazy().map_batches(spy, schema=run.schema)
        rk.evaluate(lazy, QRELS.lazy(), ["AP", "nDCG@10", "P@10"]).collect()

    evaluate(RUN)
    assert calls == [5]  # one read of the 5 rows: checks and measures together
    calls.clear()
    with pytest.raises(rk.InputError, match="duplicate"):
        evaluate(pl.concat([RUN, RUN.head(1)]))
    assert len(calls) > 1  # the error's example row is a second look


# ---------------------------------------------------------------- expressions


def test_namespace_recall_rr_success_delegate_to_evaluate():
    """'run.rankeval.ap(qrels, k=10), .ndcg, .precision, .recall, .rr, .success'."""
    assert RUN.rankeval.recall(QRELS, k=2).equals(rk.evaluate(RUN, QRELS, ["R@2"]))
    assert RUN.rankeval.rr(QRELS).equals(rk.evaluate(RUN, QRELS, ["RR"]))
    assert RUN.rankeval.success(QRELS, k=1).equals(rk.evaluate(RUN, QRELS, ["Success@1"]))
    # by hand: q1 ranks a, b, c (b, c relevant), q2 a, d (d relevant); RR = (1/2 + 1/2) / 2
    assert rk.evaluate(RUN, QRELS, ["RR", "Success@1"])["value"].to_list() == [0.5, 0.0]


# the trec_eval gain families read the judged items' ideal ranking: not expressions yet
NOT_EXPRESSIONS = {"nDCG_rel", "RnDCG", "G", "Compat"}
LABELLED = pl.DataFrame({
    "query": ["q1"] * 4 + ["q2"] * 3, "item": list("abcdxyz"), "rank": [1, 2, 3, 4, 1, 2, 3],
    "relevant": [0, 2, 1, 0, 1, 0, 3],
})  # fmt: skip


@pytest.mark.parametrize("family", sorted(set(REGISTRY) - NOT_EXPRESSIONS))
def test_every_measure_is_a_plain_aggregation_equal_to_evaluate(family):
    """'Every measure (but nDCG_rel, RnDCG, G, Compat) is also a plain aggregation': in a
    group_by, R and the ideal from the group's rows, as evaluate without qrels."""
    got = LABELLED.group_by("query", maintain_order=True).agg(rx.measure(family).alias("v"))
    expected = rk.evaluate(LABELLED, None, [family], per_query=True, score=None).sort("query")
    for mine, theirs in zip(got["v"], expected["value"], strict=True):
        assert mine is not None and math.isclose(mine, theirs, abs_tol=1e-12), family


@pytest.mark.parametrize("family", sorted(NOT_EXPRESSIONS))
def test_the_ideal_ranking_measures_are_refused_as_expressions_by_name(family):
    """'(which read the judged items' ideal ranking: use evaluate)': a project error that
    names the measure and says what to call, not polars' ColumnNotFoundError."""
    with pytest.raises(MeasureError, match=rf"{family}.*rk\.evaluate"):
        rx.measure(family)


# ---------------------------------------------------------------- the command line


@pytest.fixture
def files(tmp_path):
    # q1: d1 (1), d2 (0), d3 (2); q2: d1 (1), d5 (-1: pooled, unjudged); q3: x (0)
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d5 -1\n"
                                    "q3 0 x 0\n")  # fmt: skip
    (tmp_path / "run").write_text("q1 Q0 d1 1 3 r\nq1 Q0 d9 1 2 r\nq2 Q0 d7 1 2 r\n"
                                  "q2 Q0 d5 1 1 r\nq3 Q0 y 1 1 r\n")  # fmt: skip
    return tmp_path


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_relstring_is_left_out_of_other_formats_saying_so(capsys, files):
    """'other formats leave it out and say so'."""
    code, out, err = cli(capsys, "-q", "-m", "relstring", "-m", "num_ret", "--format", "csv",
                         files / "qrels", files / "run")  # fmt: skip
    assert code == 0 and "relstring" not in out and "num_ret" in out
    assert "relstring" in err and "left out" in err
    code, out, _ = cli(capsys, "-q", "-m", "relstring", files / "qrels", files / "run")
    # trec format: d1 judged 1, d9 not judged -> '1-'
    assert code == 0 and out.splitlines()[0] == "relstring             \tq1\t'1-'"


def test_judged_only_nan_is_trec_format_only(capsys, files):
    """'-J ... a query left empty ... prints trec_eval's -nan ...; in the trec format
    only, the library's values stay numbers'."""
    args = ["-J", "-q", "-m", "iprec_at_recall.0.5", files / "qrels", files / "run"]
    code, out, _ = cli(capsys, *args)
    assert code == 0 and out.splitlines()[2] == "iprec_at_recall_0.50  \tq3\t  -nan"
    code, out, _ = cli(capsys, "--format", "csv", *args)
    rows = [line.split(",") for line in out.splitlines()[1:]]
    # q3 keeps no row under -J: 0 here; the mean (1 + 0 + 0) / 3
    assert [(q, float(v)) for _, q, _, v in rows] == [
        ("q1", 1.0),
        ("q2", 0.0),
        ("q3", 0.0),
        ("", pytest.approx(1 / 3)),
    ]


def test_a_negative_level_does_not_count_unjudged_documents(capsys, files):
    """'a negative -l (... here relevance >= the level is relevant, a negative judgment
    included, and an unjudged document never)': q2's d5 judged -1 is relevant."""
    code, out, _ = cli(capsys, "-q", "-l", "-1", "-m", "map", files / "qrels", files / "run")
    # relevant at -l -1: every judged line. q1: R = 3, d1 at 1 -> AP 1/3 (d9 unjudged);
    # q2: R = 2, d5 at 2 -> (1/2) / 2 = 1/4 (d7 unjudged); q3: y unjudged -> 0
    assert code == 0
    assert [line.split("\t")[2] for line in out.splitlines()] == [
        "0.3333",
        "0.2500",
        "0.0000",
        f"{(1 / 3 + 1 / 4) / 3:.4f}",
    ]


def test_cli_ids_are_read_as_strings(capsys, tmp_path):
    """'Ids are read as strings, as trec_eval does' (CSV and Parquet too)."""
    (tmp_path / "run.csv").write_text("query,item,score\n007,010,1.0\n007,9,1.0\n")
    (tmp_path / "qrels.csv").write_text("query,item,relevance\n007,010,1\n")
    code, out, err = cli(capsys, "-q", "-m", "recip_rank", tmp_path / "qrels.csv",
                         tmp_path / "run.csv")  # fmt: skip
    # "007" keeps its zeros; the tie breaks on text: "9" > "010", so 010 is second: RR 1/2
    assert code == 0, err
    assert out.splitlines()[0] == "recip_rank            \t007\t0.5000"


def test_the_oracle_grid_has_the_option_sets_the_readme_counts():
    """'on generated data under N option sets' (tests/cli/test_trec_eval_oracle.py)."""
    from tests.cli._grid import GRID

    match = re.search(r"generated data under (\d+) option sets", README)
    assert match and int(match.group(1)) == len(GRID)


# ---------------------------------------------------------------- comparing systems


def test_t_interval_agrees_with_its_p_value():
    """'for the t and randomization tests 0 is outside it exactly when p_value <= alpha'
    (the randomization half: test_compare_groups.py)."""
    rng = np.random.default_rng(11)
    batch = rng.normal(0.0, 0.1, size=(60, 25)) + np.linspace(-0.08, 0.08, 60)[:, None]
    results = sig.run_tests(batch, test="t", alpha=0.05, n_resamples=1, seed=0)
    outcomes = {(r.p_value <= 0.05, not (r.ci_low <= 0 <= r.ci_high)) for r in results}
    assert outcomes == {(True, True), (False, False)}  # both kinds occur, never a mismatch


def test_extras_hold_what_the_readme_says_they_need():
    """'They need numpy (polars_rankeval[compare])', 'the report extra (matplotlib)',
    'pip install polars_rankeval[spark]', '[docs]' for mkdocs."""
    text = (ROOT / "pyproject.toml").read_text()  # no tomllib on Python 3.10

    def names(extra: str) -> set[str]:
        match = re.search(rf"^{extra} = \[(.*?)\]$", text, re.MULTILINE)
        assert match, extra
        return {
            re.split(r"[<>=\[ ]", s.strip(' "'), maxsplit=1)[0] for s in match.group(1).split(",")
        }

    assert "numpy" in names("compare")
    assert {"numpy", "matplotlib"} <= names("report")
    assert {"pyspark", "sqlglot"} <= names("spark")
    assert "mkdocs" in names("docs")


# ---------------------------------------------------------------- SQL for a warehouse


def test_diversity_measures_in_duckdb_and_refused_by_name_by_render():
    """'In DuckDB too: engine="duckdb" ... The BigQuery and Snowflake renderings ... refuse
    them by name, saying why'; Spark renders them."""
    pytest.importorskip("sqlglot")
    from polars_rankeval.sql import render

    for dialect in ("bigquery", "snowflake"):
        with pytest.raises(rk.MeasureError, match="alpha_nDCG@20: .*greedy ideal ranking"):
            render(["alpha_nDCG@20"], dialect, subtopic="subtopic")
    assert "AGGREGATE(SEQUENCE" in render(["alpha_nDCG@20"], "spark", subtopic="subtopic")
    run = RUN.head(1)
    sub = pl.DataFrame({"query": ["q1"], "subtopic": ["1"], "item": ["a"], "relevance": [1]})
    got = rk.evaluate(run, sub, ["alpha_nDCG@20"], engine="duckdb")
    assert got["value"].to_list() == rk.evaluate(run, sub, ["alpha_nDCG@20"])["value"].to_list()


def test_scores_compare_in_double_precision_where_there_is_no_float32():
    """'BigQuery has no 32-bit float (and Snowflake's FLOAT is 64-bit), so there scores
    are compared in double precision'; PostgreSQL and Spark cast through float32."""
    pytest.importorskip("sqlglot")
    from polars_rankeval.sql import render

    def casts(dialect: str) -> set[str]:
        sql = render(["AP"], dialect, run_table="run", qrels_table="qrels")
        return set(re.findall(r"\bAS (FLOAT\w*|REAL|DOUBLE)\b", sql))

    assert casts("bigquery") == {"FLOAT64"}
    assert casts("snowflake") <= {"FLOAT", "DOUBLE"}  # both 64-bit in Snowflake
    assert "REAL" in casts("postgres") and "FLOAT" in casts("spark")  # 32-bit there


def test_nrbp_defaults_are_ndevals():
    """'NRBP's patience: beta=0.5, the default of ndeval, pyndeval and ir_measures'."""
    import inspect

    ir_measures = pytest.importorskip("ir_measures")
    pyndeval = pytest.importorskip("pyndeval")
    for name in ("NRBP", "nNRBP"):
        measure = rk.parse_measure(name)
        assert (measure["alpha"], measure["beta"]) == (0.5, 0.5)
        assert ir_measures.parse_measure(name).params == {}  # theirs: the defaults
        supported = ir_measures.parse_measure(name).SUPPORTED_PARAMS
        assert (supported["alpha"].default, supported["beta"].default) == (0.5, 0.5)
    defaults = inspect.signature(pyndeval.RelevanceEvaluator).parameters
    assert (defaults["alpha"].default, defaults["beta"].default) == (0.5, 0.5)


def test_the_readme_lists_the_families_with_a_closed_form_under_ties():
    """'for AP (...), P, RelP, R, nDCG, RR, Success, Rprec, the counts, and INSQ and SDCG':
    the registry's families with an expected value over tied orderings, no more."""
    counts = {"NumRet", "NumRel", "NumRelRet", "NumNonRelJudgedRet"}
    listed = {"AP", "P", "RelP", "R", "nDCG", "RR", "Success", "Rprec", "INSQ", "SDCG"}
    supported = {name for name, family in REGISTRY.items() if family.expected is not None}
    assert supported == listed | counts
    text = " ".join(README.split("### Tied scores", 1)[1].split("###", 1)[0].split())
    assert "P, RelP, R, nDCG, RR, Success, Rprec, the counts, and INSQ and SDCG" in text
