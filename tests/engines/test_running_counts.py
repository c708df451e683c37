"""IPrec through the engine's running count of relevant rows (``judge._running_counts``,
``Judged.running``) against its ranked form (``expr.measure``, a user's ``group_by``,
where the rows are in no order): the same bits per query, on tie-heavy graded runs with
negative judgments and unjudged rows, at several relevance levels and both roundings,
through the judged-only rows, every row (``duplicates="first"``), ``by`` groups and
partitions."""

from __future__ import annotations

import importlib
import random

import polars as pl
import pytest

import polars_rankeval as rk
import polars_rankeval.expr as rx
from polars_rankeval.options import Columns
from polars_rankeval.prepare.ranking import position

LEVELS = (0.0, 0.1, 0.3, 0.5, 0.7, 1.0)
# the module (the package binds its judge function under the same name)
judge_module = importlib.import_module("polars_rankeval.prepare.judge")


def _data(seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Runs of 0-30 rows per query with few distinct scores (ties by item decide),
    qrels with grades -1..3 over part of the retrieved items and some never retrieved."""
    rng = random.Random(seed)
    run_rows, qrels_rows = [], []
    for q in range(25):
        items = [f"d{rng.randrange(60)}" for _ in range(rng.randrange(31))]
        for item in dict.fromkeys(items):
            run_rows.append((f"q{q}", item, float(rng.randrange(4)), rng.choice(("a", "b"))))
        for i in rng.sample(range(60), rng.randrange(12)):
            qrels_rows.append((f"q{q}", f"d{i}", rng.randrange(-1, 4)))
    run = pl.DataFrame(run_rows, schema=["query", "item", "score", "arm"], orient="row")
    qrels = pl.DataFrame(qrels_rows, schema=["query", "item", "relevance"], orient="row")
    return run.sample(fraction=1.0, shuffle=True, seed=seed), qrels


def _ranked_form(
    run: pl.DataFrame, qrels: pl.DataFrame, names: list[str], rel: float, by: list[str]
) -> pl.DataFrame:
    """The measures by ``expr.measure`` over each query's whole ranking, rows shuffled:
    an unjudged row is -1 (never relevant at these levels), R from the qrels."""
    keys = [*by, "query"]
    num_rel = qrels.group_by("query").agg((pl.col("relevance") >= rel).sum().alias("_R"))
    rows = (
        run.with_columns(position(Columns(), "score", keys).alias("_pos"))
        .join(qrels, on=["query", "item"], how="left")
        .join(num_rel, on="query", how="inner")  # queries with qrels, as evaluate's
        .with_columns(pl.col("relevance").fill_null(-1))
        .sample(fraction=1.0, shuffle=True, seed=1)
    )
    measured = [rx.measure(n, rank="_pos", relevance="relevance", num_relevant="_R") for n in names]
    return rows.group_by(keys).agg(*measured).sort(keys)


@pytest.mark.filterwarnings("ignore:.*run quer.* not in the qrels")  # queries without qrels
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("rel", [1.0, 2.0])
@pytest.mark.parametrize("rounding", ["v10", "v9"])
def test_iprec_by_running_count_is_its_ranked_form(seed: int, rel: float, rounding: str) -> None:
    run, qrels = _data(seed)
    names = [f"IPrec(rel={rel:g}, rounding={rounding})@{level:g}" for level in LEVELS]
    for kwargs, by in (
        ({}, []),  # the judged-only rows
        ({"duplicates": "first"}, []),  # every row (no duplicate here: the same values)
        ({"by": "arm"}, ["arm"]),
        ({"partitions": 3}, []),
    ):
        wide = (
            rk.evaluate(run, qrels, names, per_query=True, **kwargs)
            .pivot(on="measure", index=[*by, "query"], values="value")
            .sort([*by, "query"])
        )
        expected = _ranked_form(run, qrels, names, rel, by)
        got = wide.join(expected.select(*by, "query"), on=[*by, "query"], how="semi")
        assert got.height == expected.height > 10
        # the measures' columns in the order asked (each side names them its own way)
        values = [c for c in got.columns if c not in (*by, "query")]
        ranked = expected.columns[len(by) + 1 :]
        assert len(values) == len(ranked) == len(names)
        for name, column, want in zip(names, values, ranked):
            assert got[column].to_list() == expected[want].to_list(), (kwargs, name)


def test_iprec_reads_the_running_count_and_other_measures_do_not() -> None:
    run, qrels = _data(0)
    plan = rk.evaluate(run.lazy(), qrels.lazy(), ["IPrec@0.3", "IPrec@0.5"], per_query=True)
    assert "_stat_running_1" in plan.explain()
    # no measure reads it: the column is not computed (pruned)
    assert "_stat_running" not in rk.evaluate(run.lazy(), qrels.lazy(), ["P@5", "AP"]).explain()


@pytest.mark.filterwarnings("ignore:.*run quer.* not in the qrels")
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_running_counts_give_the_ranked_forms_values_in_evaluate(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bpref (whose N counts the qrels' judged non-relevant items, not a group's rows)
    and IPrec: evaluate with the running counts against evaluate with the ranked forms
    (the engine's rows without ``running``): the same bits."""
    run, qrels = _data(seed)
    names = [f"Bpref(rel={rel:g})" for rel in (0.5, 1, 2, 3)]
    names += [f"IPrec(rel={rel:g})@{level:g}" for rel in (1, 2) for level in LEVELS]
    by_running = rk.evaluate(run, qrels, names, per_query=True)
    first = rk.evaluate(run, qrels, names, per_query=True, duplicates="first")
    ranked_form = judge_module.Judged

    def without_running(**fields: object) -> object:
        return ranked_form(**{**fields, "running": None, "row_stat": None})

    monkeypatch.setattr(judge_module, "Judged", without_running)
    assert by_running.equals(rk.evaluate(run, qrels, names, per_query=True))
    assert first.equals(rk.evaluate(run, qrels, names, per_query=True, duplicates="first"))
    for family in ("Bpref", "IPrec"):  # values that test something
        mine = by_running.filter(pl.col("measure").str.starts_with(family))
        assert mine.filter((pl.col("value") > 0) & (pl.col("value") < 1)).height > 10
