"""The dbt package (sql/dbt) with real dbt: `dbt deps && dbt build` on a copy of
examples/dbt_dashboard plus parity models over every measure family, on dbt-duckdb and
on dbt-postgres (a throwaway PostgreSQL cluster), equal to the polars engine to 1e-9,
and per query to pytrec_eval on the measures trec_eval has (an oracle independent of
the package, issue 17);
the diversity family (subtopic=, intent_weight=) against pyndeval (ndeval.c) per query
and the polars engine, ndeval's documented differences skipped as in
tests/sql/test_sql_render_diversity.py (no @1 cutoffs; nNRBP's NaN)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import polars_rankeval as rk
from tests.diversity_cases import compare_with_pyndeval, ndeval_pairs, stacked_cases
from tests.parity import CUTOFFS, Expected, assert_oracle, oracle, parse_measure
from tests.sql.entry_cases import MEASURES, make_data
from tests.sql.postgres_cluster import MISSING
from tests.sql.warehouse_cases import cover, with_group
from tests.ties import GRID

# ties='average': a cover of tests/ties.py's GRID (every family with an expected value,
# each value of its parameters, with and without a cutoff, each rel level; the whole GRID
# under HYPOTHESIS_PROFILE=full): both parity_average models in both builds are rendered
# by dbt's Jinja and planned by the engine, at a cost that grows with the measures
AVERAGE = cover(GRID)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("dbt") is None or importlib.util.find_spec("dbt.adapters.duckdb")
    is None,
    reason="dbt-core / dbt-duckdb not installed (pip install 'polars-rankeval[dbt]')",
)
DASHBOARD = ["MAP", "nDCG@10", "nDCG@20", "P@5", "P@10", "Recall@100", "MRR"]
# Issue 18's spelling of object detection's AP, AP(interp=...) (MAP is AP's alias), read as
# InterpAP(interp=...) like the Python parser and the SQL entry point do; compared per query
# with the polars engine on the same names and on the InterpAP spelling.
INTERP_SPELLINGS = {
    "AP(interp=voc11)@5": "InterpAP(interp=voc11)@5",
    "AP(interp=all)": "InterpAP(interp=all)",
    "AP(rel=2, interp=coco101)": "InterpAP(interp=coco101, rel=2)",
    "MAP(interp=voc11)": "InterpAP(interp=voc11)",
}
# the parity models: every family and option of the SQL entry point, through dbt
PARITY = {
    "parity_summary": "per_query=false",
    "parity_per_query": "per_query=true",
    "parity_options": "per_query=true, complete=true, top=3, rel=2",
    "parity_kaggle": "per_query=false, conventions='kaggle'",
    # ties='average' (AVERAGE: every family with an expected value)
    "parity_average": "per_query=true, ties='average'",
    "parity_average_summary": "per_query=false, ties='average', complete=true",
    "parity_interp_spelling": "per_query=true",  # over INTERP_SPELLINGS
}
SEED_TYPES = """
seeds:
  - name: parity_runs
    config:
      column_types: {system: varchar, day: integer, qid: varchar, doc_id: varchar, sim: double precision}
  - name: parity_judgments
    config:
      column_types: {qid: varchar, doc_id: varchar, grade: integer}
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/dbt_dashboard copied, with the package by absolute path; its `dbt deps`
    runs first in the module's one dbt process (:func:`dbt_session`), which then copies
    the installed package into each project made from this one."""
    target = tmp_path_factory.mktemp("dbt") / "installed"
    shutil.copytree(ROOT / "examples" / "dbt_dashboard", target,
                    ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "*.duckdb"))
    (target / "packages.yml").write_text(f"packages:\n  - local: {ROOT / 'sql' / 'dbt'}\n")
    return target


def project(installed: Path, tmp_path: Path) -> Path:
    """The installed example with the parity seeds and models added."""
    target = tmp_path / "dbt_dashboard"
    shutil.copytree(installed, target, symlinks=True,
                    ignore=shutil.ignore_patterns("*.duckdb", "target", "logs"))
    runs, qrels = make_data(1)
    runs.write_csv(target / "seeds" / "parity_runs.csv")
    qrels.write_csv(target / "seeds" / "parity_judgments.csv")
    (target / "seeds" / "properties.yml").write_text(SEED_TYPES)
    # A macro of the project's own (it does nothing): dbt's adapter.dispatch looks for the
    # package's dialect macros in the root project first, and in a project without any
    # macro that lookup raises and catches two errors per dispatch (dbt-core's
    # MacroNamespace.get_from_package), each scanning os.environ for secrets: ~18,000
    # dispatches a build, ~1.5-2 s of its CPU.  The same macros are found either way.
    (target / "macros").mkdir()
    (target / "macros" / "project_macro.sql").write_text("{% macro project_macro() %}{% endmacro %}\n")
    for name, options in PARITY.items():
        measures = AVERAGE if "average" in options else MEASURES
        if name == "parity_interp_spelling":
            measures = list(INTERP_SPELLINGS)
        (target / "models" / f"{name}.sql").write_text(
            f"{{{{ rankeval.evaluate(ref('parity_runs'), ref('parity_judgments'), {measures!r},"
            f" by=['system', 'day'], query='qid', item='doc_id', score='sim',"
            f" relevance='grade', {options}) }}}}\n"
        )
    return target


def polars(per_query: bool, measures: list[str] = MEASURES, **options) -> pl.DataFrame:
    """The polars engine on the parity data (computed once: the DuckDB and the PostgreSQL
    builds are checked against the same frames)."""
    return _polars(per_query, tuple(measures), tuple(sorted(options.items())))


@functools.cache
def _polars(per_query: bool, measures: tuple[str, ...], options: tuple) -> pl.DataFrame:
    runs, qrels = make_data(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate(runs, qrels, list(measures), by=["system", "day"],
                           per_query=per_query, query="qid", item="doc_id", score="sim",
                           relevance="grade", **dict(options))


@functools.cache
def dashboard_polars() -> pl.DataFrame:
    seeds = ROOT / "examples" / "dbt_dashboard" / "seeds"
    text = {"qid": pl.String, "doc_id": pl.String, "day": pl.String}
    runs = pl.read_csv(seeds / "runs.csv", schema_overrides=text)
    qrels = pl.read_csv(seeds / "judgments.csv", schema_overrides=text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rk.evaluate(runs, qrels, DASHBOARD, by=["system", "day"], query="qid",
                           item="doc_id", score="sim", relevance="grade")


@functools.cache
def pytrec_expected() -> Expected:
    """pytrec_eval's per-query values of the parity data keyed by ("<system>/<day>",
    query, measure): the measures of the parity models that trec_eval has (at the
    oracle's cutoffs)."""
    runs, qrels = make_data(1)
    run = runs.select(pl.format("{}/{}", "system", "day").alias("group"),
                      pl.col("qid").alias("query"), pl.col("doc_id").alias("item"),
                      pl.col("sim").alias("score"))
    judged = qrels.rename({"qid": "query", "doc_id": "item", "grade": "relevance"})
    names = [n for n in MEASURES if parse_measure(n).k in CUTOFFS]
    expected = oracle(run, judged, names, by="group")
    assert len(expected) > 200
    return expected


def same(got: pl.DataFrame, expected: pl.DataFrame, keys: list[str]) -> int:
    got = got.with_columns(pl.col(k).cast(expected.schema[k]) for k in keys)
    joined = expected.join(got, on=[*keys, "measure"], how="full", suffix="_dbt")
    assert joined.height == expected.height == got.height
    assert joined.filter(pl.col("value").is_null() | pl.col("value_dbt").is_null()).height == 0
    worst = (joined["value"] - joined["value_dbt"]).abs().max()
    assert worst is not None and worst < 1e-9, joined.filter(
        (pl.col("value") - pl.col("value_dbt")).abs() >= 1e-9
    )
    return joined.height


def check_tables(read) -> int:
    count = same(read("dashboard").with_columns(pl.col("day").cast(pl.String)),
                 dashboard_polars(), ["system", "day"])
    count += same(read("parity_summary"), polars(False), ["system", "day"])
    per_query = read("parity_per_query")
    count += same(per_query, polars(True), ["system", "day", "qid"])
    # independent of the package: pytrec_eval on trec_eval's measures
    assert_oracle(with_group(per_query), pytrec_expected(), by="group", per_query=True)
    count += same(read("parity_options"), polars(True, complete=True, top=3, rel=2),
                  ["system", "day", "qid"])
    count += same(read("parity_kaggle"), polars(False, conventions="kaggle"), ["system", "day"])
    count += same(read("parity_average"), polars(True, AVERAGE, ties="average"),
                  ["system", "day", "qid"])
    count += same(read("parity_average_summary"),
                  polars(False, AVERAGE, ties="average", complete=True), ["system", "day"])
    spelled = read("parity_interp_spelling")
    count += same(spelled, polars(True, list(INTERP_SPELLINGS)), ["system", "day", "qid"])
    as_interp_ap = polars(True, list(INTERP_SPELLINGS.values())).with_columns(
        pl.col("measure").replace({v: k for k, v in INTERP_SPELLINGS.items()}))
    count += same(spelled, as_interp_ap, ["system", "day", "qid"])
    return count


def postgres_server(request: pytest.FixtureRequest):
    """The test PostgreSQL cluster (started here) for `dbt build --target postgres`, or
    why that cannot run (no dbt-postgres or no PostgreSQL)."""
    if importlib.util.find_spec("dbt.adapters.postgres") is None:
        return "dbt-postgres not installed"
    if MISSING:
        return f"PostgreSQL not installed (no {', '.join(MISSING)})"
    return request.getfixturevalue("postgres")


# Every dbt command of this module runs in one Python process (dbt's programmatic runner,
# the same command lines as the `dbt` CLI), one after the other: each `dbt` process paid
# Python's start and dbt's import (~2.4 s of CPU) before doing anything.  The steps:
# `dbt deps` in the installed example (its package then copied into each project), one
# `dbt build` per adapter of the whole project (the dashboard, the parity and the
# diversity models), and the `dbt parse` of each bad model (BAD_MODELS below).  A step's
# output is everything dbt printed during it (``@@rankeval-step`` markers split them).
SESSION = """
import json, os, shutil, sys
from dbt.cli.main import dbtRunner
installed, steps = sys.argv[1], json.loads(sys.argv[2])

def invoke(name, directory, args, env):
    os.environ.update(env)
    os.chdir(directory)
    print("@@rankeval-step " + name, flush=True)
    result = dbtRunner().invoke([*args, "--profiles-dir", directory, "--project-dir", directory])
    print("@@rankeval-done " + str(result.success), flush=True)

invoke("deps", installed, ["deps"], {"RANKEVAL_DBT_DUCKDB": os.path.join(installed, "deps.duckdb")})
for step in steps:
    if step.get("copy_packages"):
        shutil.copytree(os.path.join(installed, "dbt_packages"),
                        os.path.join(step["directory"], "dbt_packages"), symlinks=True)
    if step.get("partial_parse_from"):  # the saved parse of a project this one copies
        os.makedirs(os.path.join(step["directory"], "target"), exist_ok=True)
        shutil.copy(os.path.join(step["partial_parse_from"], "target", "partial_parse.msgpack"),
                    os.path.join(step["directory"], "target"))
    invoke(step["name"], step["directory"], step["args"], step["env"])
"""


def dbt_session(installed: Path, steps: list[dict]) -> dict[str, tuple[bool, str]]:
    """Run :data:`SESSION` (`dbt deps` in ``installed``, then ``steps``); each step's
    (success, output) by name (``deps`` first)."""
    result = subprocess.run([sys.executable, "-c", SESSION, str(installed), json.dumps(steps)],
                            cwd=installed, capture_output=True, text=True, timeout=900,
                            check=False,
                            env={**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"})
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    outputs = {}
    for chunk in result.stdout.split("@@rankeval-step ")[1:]:
        name, _, output = chunk.partition("\n")
        assert output.rstrip().rsplit("\n", 1)[-1].startswith("@@rankeval-done "), chunk[-3000:]
        outputs[name] = (output.rstrip().endswith("@@rankeval-done True"), output)
    assert list(outputs) == ["deps", *(step["name"] for step in steps)], result.stdout[-4000:]
    return outputs


@pytest.fixture(scope="module")
def dbt_runs(installed: Path, tmp_path_factory: pytest.TempPathFactory,
             request: pytest.FixtureRequest) -> dict:
    """The module's dbt process (:func:`dbt_session`): both builds of the whole project
    (PostgreSQL's when it can run) and the parse of each bad model; by name, each step's
    (success, output), the DuckDB file, and the PostgreSQL cluster or why it is absent."""
    root = tmp_path_factory.mktemp("dbt_runs")
    duckdb_dir = all_models_project(installed, root / "duckdb_build")
    database = str(duckdb_dir / "dashboard.duckdb")
    steps = [{"name": "build duckdb", "directory": str(duckdb_dir), "args": ["build"],
              "env": {"RANKEVAL_DBT_DUCKDB": database}, "copy_packages": True}]
    steps += parse_steps(duckdb_dir, root / "bad", database)
    server = postgres_server(request)
    if not isinstance(server, str):
        env = {"PGHOST": "127.0.0.1", "PGPORT": str(server.port), "PGUSER": "postgres",
               "PGDATABASE": "postgres", "RANKEVAL_DBT_SCHEMA": "rankeval_dbt"}
        steps.append({"name": "build postgres", "args": ["build", "--target", "postgres"],
                      "directory": str(all_models_project(installed, root / "postgres_build")),
                      "env": env, "copy_packages": True})
    outputs = dbt_session(installed, steps)
    assert outputs["deps"][0], outputs["deps"][1][-3000:]
    return {"outputs": outputs, "duckdb": Path(database), "postgres": server}


def built(runs: dict, adapter: str) -> None:
    """The build on ``adapter`` succeeded."""
    success, output = runs["outputs"][f"build {adapter}"]
    assert success, output[-4000:]


@pytest.fixture(scope="module")
def duckdb_built(dbt_runs: dict) -> Path:
    """The DuckDB file of the whole project's build."""
    built(dbt_runs, "duckdb")
    return dbt_runs["duckdb"]


@pytest.fixture(scope="module")
def postgres_built(dbt_runs: dict):
    """The PostgreSQL cluster holding the whole project's build in schema rankeval_dbt
    (a skip without dbt-postgres or PostgreSQL)."""
    if isinstance(dbt_runs["postgres"], str):
        pytest.skip(dbt_runs["postgres"])
    built(dbt_runs, "postgres")
    return dbt_runs["postgres"]


def test_dbt_duckdb(duckdb_built):
    con = duckdb.connect(str(duckdb_built), read_only=True)
    assert check_tables(lambda name: con.sql(f"SELECT * FROM main.{name}").pl()) > 1000


def test_dbt_leaves_out_what_no_measure_reads(duckdb_built):
    # the package writes a piece of the SQL only where a parsed measure reads it
    # (polars_rankeval/_sqlprune.py's READERS): the dashboard's usual measures leave the
    # C/W/L, ideal-gain, nDCG(ideal=run) and windowed CTEs out; a model of every family
    # keeps them
    compiled = duckdb_built.parent / "target" / "compiled"  # the project's folder
    dashboard = next(compiled.rglob("models/dashboard.sql")).read_text()
    every = next(compiled.rglob("models/parity_per_query.sql")).read_text()
    for cte in ("_cwlagg AS (", "_gideal AS (", "_irun AS (", "_windowed AS ("):
        assert cte not in dashboard and cte in every, cte
    assert len(dashboard) < len(every) / 2


def test_dbt_postgres(postgres_built):
    def read(name: str) -> pl.DataFrame:
        return postgres_built.query(f"SELECT * FROM rankeval_dbt.{name}", schema={
            "qid": pl.String, "day": pl.String if name == "dashboard" else pl.Int64,
        })

    assert check_tables(read) > 1000


# The models each `dbt parse` must refuse.  dbt stops at the first bad model, so each is
# parsed in a project of its own; all of them in one Python process (dbt's programmatic
# runner, the same command line as `dbt parse`): dbt's import is paid once, not per model.
BAD_MEASURES = [
    ("['Foo@10']", "unknown measure 'Foo@10'"),
    ("['AP(norm=foo)@10']", "norm='foo' is not allowed; choose one of R, min, hits"),
    ("['alpha_nDCG@20']", "measure 'alpha_nDCG@20' is a diversity measure: it needs subtopic"),
    ("['AP', 'ERR_IA'], subtopic='sub'", "measure 'ERR_IA' needs a cutoff, e.g. ERR_IA@20"),
    ("['AP_IA'], intent_weight='w'", "intent_weight='w' weighs subtopics: pass subtopic="),
]
TWO_KEYS = [
    "query='qid', item='qid', score='sim'",
    "query='qid', item='doc_id', score='qid'",
    "query='qid', item='doc_id', rank='doc_id'",
]
TIES_REFUSED = [
    ("['P@1', 'Bpref']", "measure 'Bpref' does not support ties='average'"),
    ("['AP(norm=hits)@5']", "with ties='average' the norm=hits denominator"),
]


def bad_measure_model(measures: str) -> str:
    return (f"{{{{ rankeval.evaluate(ref('runs'), ref('judgments'), {measures},"
            " query='qid', item='doc_id', score='sim', relevance='grade') }}\n")


def two_keys_model(columns: str) -> str:
    return (f"{{{{ rankeval.evaluate(ref('runs'), ref('judgments'), ['MAP'], {columns},"
            " relevance='grade') }}\n")


def ties_refused_model(measures: str) -> str:
    return (f"{{{{ rankeval.evaluate(ref('runs'), ref('judgments'), {measures}, query='qid',"
            " item='doc_id', score='sim', relevance='grade', ties='average') }}\n")


BAD_MODELS = [
    *(bad_measure_model(measures) for measures, _ in BAD_MEASURES),
    *(two_keys_model(columns) for columns in TWO_KEYS),
    *(ties_refused_model(measures) for measures, _ in TIES_REFUSED),
]
# Each bad model is parsed in a copy of the DuckDB build's project with it added (the
# build above must have succeeded: that project parses), beside the build's saved parse
# (target/partial_parse.msgpack, the same profile and database path), so that dbt parses
# there only what differs (the bad model), not the package's macros and the other models.
def parse_steps(built_dir: Path, root: Path, database: str) -> list[dict]:
    """The :data:`SESSION` steps `dbt parse` of each of :data:`BAD_MODELS`, each in its
    own copy of ``built_dir`` (made here)."""
    steps = []
    for number, model in enumerate(BAD_MODELS):
        directory = root / f"bad{number}"
        shutil.copytree(built_dir, directory, symlinks=True,
                        ignore=shutil.ignore_patterns("*.duckdb", "target", "logs"))
        (directory / "models" / "bad.sql").write_text(model)
        steps.append({"name": f"parse bad{number}", "directory": str(directory),
                      "args": ["parse"], "env": {"RANKEVAL_DBT_DUCKDB": database},
                      "copy_packages": True, "partial_parse_from": str(built_dir)})
    return steps


@pytest.fixture(scope="module")
def parse_outputs(dbt_runs: dict) -> dict[str, str]:
    """``dbt parse`` of the built project with each of :data:`BAD_MODELS` beside its
    models, each in its own copy: each must fail (dbt renders the models while parsing);
    the output of each, by model."""
    built(dbt_runs, "duckdb")
    parsed = {}
    for number, model in enumerate(BAD_MODELS):
        success, output = dbt_runs["outputs"][f"parse bad{number}"]
        assert not success, output[-3000:]
        parsed[model] = output
    return parsed


@pytest.mark.parametrize(("measures", "message"), BAD_MEASURES)
def test_dbt_bad_measure_fails_to_compile(parse_outputs, measures, message):
    """dbt renders the models while parsing the project: the first bad call stops it."""
    stdout = parse_outputs[bad_measure_model(measures)]
    assert "rankeval: " in stdout
    assert message in stdout, stdout[-3000:]


@pytest.mark.parametrize("columns", TWO_KEYS)
def test_dbt_one_column_as_two_keys_fails_to_compile(parse_outputs, columns):
    """query = item made every item its own query (a silently perfect AP), as in the SQL
    entry point before it refused it; the package refuses it while parsing."""
    stdout = parse_outputs[two_keys_model(columns)]
    assert "rankeval: the run's columns must differ" in stdout, stdout[-3000:]
    assert "name the same column twice" in stdout, stdout[-3000:]


@pytest.mark.parametrize(("measures", "message"), TIES_REFUSED)
def test_dbt_ties_average_refusals_fail_to_compile(parse_outputs, measures, message):
    """ties='average' refuses what evaluate refuses, while dbt parses the project."""
    stdout = parse_outputs[ties_refused_model(measures)]
    assert message in stdout, stdout[-3000:]


# ---------------------------------------------------------------------------------------
# The diversity family: subtopic qrels in two seeds, two systems (the second with the
# scores negated), per query against pyndeval and the polars engine, and a weighted
# summary with top= and plain measures beside against the polars engine.
ND_PAIRS = ndeval_pairs()
WEIGHTED = ["nERR_IA@5", "ERR_IA@10", "P_IA@3", "AP_IA", "alpha_nDCG@5", "nNRBP",
            "NRBP(alpha=0.3, beta=0.8)", "StRecall@4", "alpha_DCG(alpha=0.2)@3", "AP", "nDCG@5"]
DIVERSITY_SEEDS = """  - name: div_runs
    config:
      column_types: {system: varchar, qid: varchar, doc_id: varchar, sim: double precision}
  - name: div_judgments
    config:
      column_types: {qid: varchar, aspect: varchar, doc_id: varchar, grade: integer,
                     weight: double precision}
"""
COLUMNS = "query='qid', item='doc_id', score='sim', relevance='grade', subtopic='aspect'"
PLAIN = ["AP", "nDCG@5", "P@5", "RR", "nDCG"]


def diversity_data() -> tuple[list[tuple], dict[str, list[tuple]], pl.DataFrame, pl.DataFrame]:
    """The subtopic qrels, each system's run, and both as the seeds' frames."""
    qrels, run = stacked_cases(21, 50)
    runs = {"A": run, "B": [(q, item, -score) for q, item, score in run]}
    rng = random.Random(5)
    weight = {key: rng.choice([0.0, 0.5, 1.0, 3.0]) for key in sorted({(q, s) for q, s, _, _ in qrels})}
    judgments = pl.DataFrame(
        [(q, s, item, rel, weight[(q, s)]) for q, s, item, rel in qrels],
        schema=["qid", "aspect", "doc_id", "grade", "weight"], orient="row",
    )
    frame = pl.DataFrame([(system, *row) for system, rows in runs.items() for row in rows],
                         schema=["system", "qid", "doc_id", "sim"], orient="row")
    return qrels, runs, frame, judgments


def all_models_project(installed: Path, tmp_path: Path) -> Path:
    """The parity project (the installed example with the parity seeds and models) with
    the diversity seeds and models added."""
    target = project(installed, tmp_path)
    _, _, runs, judgments = diversity_data()
    runs.write_csv(target / "seeds" / "div_runs.csv")
    judgments.write_csv(target / "seeds" / "div_judgments.csv")
    (target / "seeds" / "properties.yml").write_text(SEED_TYPES + DIVERSITY_SEEDS)
    ours = [name for name, _ in ND_PAIRS]
    models = {
        "div_per_query": f"{ours!r}, by=['system'], {COLUMNS}, per_query=true",
        "div_weighted": f"{WEIGHTED!r}, by=['system'], {COLUMNS}, intent_weight='weight',"
                        " top=5, per_query=false",
        # plain measures alone over the subtopic qrels
        "div_plain": f"{PLAIN!r}, by=['system'], {COLUMNS}, per_query=true",
    }  # fmt: skip
    for name, arguments in models.items():
        (target / "models" / f"{name}.sql").write_text(
            f"{{{{ rankeval.evaluate(ref('div_runs'), ref('div_judgments'), {arguments}) }}}}\n"
        )
    return target


def check_diversity(read) -> int:
    """The two models against the polars engine (1e-12) and pyndeval (1e-9): the count
    of values compared with pyndeval."""
    pytest.importorskip("pyndeval")
    qrels, runs, frame, judgments = diversity_data()
    per_query = read("div_per_query")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        expected = rk.evaluate(frame, judgments, [n for n, _ in ND_PAIRS], by="system", per_query=True,
                               **COLUMN_NAMES)  # fmt: skip
        weighted = rk.evaluate(frame, judgments, WEIGHTED, by="system", top=5, intent_weight="weight",
                               **COLUMN_NAMES)  # fmt: skip
    same_to(per_query, expected, ["system", "qid"])
    same_to(read("div_weighted"), weighted, ["system"])
    got = {(a, q, m): v for a, q, m, v in per_query.select("system", "qid", "measure", "value").iter_rows()}
    return sum(
        compare_with_pyndeval({(q, m): v for (s, q, m), v in got.items() if s == system},
                              qrels, run, ND_PAIRS)
        for system, run in runs.items()
    )


COLUMN_NAMES = {"query": "qid", "item": "doc_id", "score": "sim", "relevance": "grade",
                "subtopic": "aspect"}  # fmt: skip


def same_to(got: pl.DataFrame, expected: pl.DataFrame, keys: list[str]) -> None:
    """Equal rows, values to 1e-12 (the engines' libm last bits)."""
    got = got.with_columns(pl.col(k).cast(expected.schema[k]) for k in keys)
    joined = expected.join(got, on=[*keys, "measure"], how="full", suffix="_dbt")
    assert joined.height == expected.height == got.height
    worst = (joined["value"] - joined["value_dbt"]).abs().max()
    assert worst is not None and worst <= 1e-12, joined.sort(
        (pl.col("value") - pl.col("value_dbt")).abs(), descending=True
    ).head(5)


def test_dbt_duckdb_diversity(duckdb_built):
    con = duckdb.connect(str(duckdb_built), read_only=True)
    assert check_diversity(lambda name: con.sql(f"SELECT * FROM main.{name}").pl()) > 2000


def test_dbt_postgres_diversity(postgres_built):
    def read(name: str) -> pl.DataFrame:
        return postgres_built.query(f"SELECT * FROM rankeval_dbt.{name}", schema={"qid": pl.String})

    assert check_diversity(read) > 2000


def check_plain(read) -> None:
    """Plain measures alone with subtopic=: the polars engine's values over topic qrels
    collapsed here (an item's highest relevance over its subtopics)."""
    qrels, _, frame, _ = diversity_data()
    best: dict[tuple[str, str], int] = {}
    for q, _, item, grade in qrels:
        best[(q, item)] = max(grade, best.get((q, item), grade))
    assert len(best) < len(qrels)  # some item is judged under two subtopics
    topic = pl.DataFrame([(q, i, g) for (q, i), g in best.items()], schema=["qid", "doc_id", "grade"], orient="row")
    names = {k: v for k, v in COLUMN_NAMES.items() if k != "subtopic"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        expected = rk.evaluate(frame, topic, PLAIN, by="system", per_query=True, **names)
    same_to(read("div_plain"), expected, ["system", "qid"])


def test_dbt_duckdb_plain_measures_over_subtopic_qrels(duckdb_built):
    con = duckdb.connect(str(duckdb_built), read_only=True)
    check_plain(lambda name: con.sql(f"SELECT * FROM main.{name}").pl())


def test_dbt_postgres_plain_measures_over_subtopic_qrels(postgres_built):
    check_plain(lambda name: postgres_built.query(f"SELECT * FROM rankeval_dbt.{name}", schema={"qid": pl.String}))
