"""Data and expected values of the warehouse option tests (``test_postgres_options.py``,
``test_spark_options.py``): a run with two grouping columns and custom column names,
evaluated with ``by``, ``complete``, ``top``, ``duplicates="first"`` and ``rel``.

Expected values come from the polars engine (every option, 1e-9) and, independently,
from pytrec_eval for the measures trec_eval has: each (system, day) group's run cut to
its top rows in trec_eval's order (computed here in Python: score descending, item
descending in byte order), every qrels query kept with ``complete``.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
from hypothesis import settings

from polars_rankeval._parse import parse_measure
from polars_rankeval._sqlprune import READERS
from tests.helpers import FULL_EXAMPLES
from tests.parity import GRID, Expected, oracle, polars_reference, random_cases

BY = ["system", "day"]
NAMES = {"query": "qid", "item": "doc id", "score": "sim", "relevance": "grade"}
OPTIONS: dict[str, Any] = {
    "by": BY, "complete": True, "top": 4, "duplicates": "first", "rel": 2,
    "query": "qid", "item": "doc id", "score": "sim", "relevance": "grade",
}  # fmt: skip

# A warehouse statement costs by its width (Spark: Catalyst planning its projections, ~35 s
# of JVM CPU for GRID's 810 measures): by default the warehouse tests ask for a cover of
# their grid (every family, every value of each parameter, with and without a cutoff, each
# rel level), the whole grid under HYPOTHESIS_PROFILE=full.
FULL_GRIDS = settings.default.max_examples >= FULL_EXAMPLES
_CUTOFF_ROTATION = (3, 10, 1)


def _features(name: str) -> set[tuple[object, ...]]:
    measure = parse_measure(name)
    family, params = measure.family.name, dict(measure.params)
    features: set[tuple[object, ...]] = {
        (family, "param", key, value) for key, value in params.items() if key != "rel"
    }
    features.add((family, "cutoff", measure.k is not None))
    features.add((family, "rel", params.get("rel", 1.0)))
    return features


def cover(grid: list[str]) -> list[str]:
    """The fewest names of ``grid`` (greedily, in its order) that hold every family with
    each value of each of its parameters, with and without a cutoff (the cutoffs 3, 10
    and 1 in turn over the families) and at each rel level; ``grid`` itself under
    HYPOTHESIS_PROFILE=full: ``["P@1", "P(rel=2)@1", "P@3", "P", "RR"]`` -> ``["P(rel=2)@1",
    "P@3", "P", "RR"]`` (P's cutoff turn is @3; P@1 then adds nothing)."""
    if FULL_GRIDS:
        return grid
    left = {name: _features(name) for name in grid}
    needed = set().union(*left.values())
    families = list(dict.fromkeys(parse_measure(name).family.name for name in grid))

    def gain(name: str) -> tuple[int, bool]:
        measure = parse_measure(name)
        turn = _CUTOFF_ROTATION[families.index(measure.family.name) % len(_CUTOFF_ROTATION)]
        return len(left[name] & needed), measure.k == turn

    picked = set()
    while needed:
        best = max(left, key=gain)
        picked.add(best)
        needed -= left.pop(best)
    return [name for name in grid if name in picked]


def cover_families(grid: list[str]) -> list[str]:
    """One name of each family of ``grid`` (its first at the cutoff 3 where the family
    has one: the ranking's tie-break decides which tied rows are inside it), and one name
    of each optional piece of the SQL read with one parameter value only
    (``_sqlprune.READERS``' ``param``, e.g. nDCG(ideal=run)): every CTE of ``grid``'s
    statement, each family's formula once, for a check of what the families share (the
    ranking, the joins on the ids); ``grid`` itself under HYPOTHESIS_PROFILE=full:
    ``["P", "P@3", "nDCG", "nDCG(ideal=run)", "RR"]`` -> ``["P@3", "nDCG",
    "nDCG(ideal=run)", "RR"]``."""
    if FULL_GRIDS:
        return grid
    parsed = {name: parse_measure(name) for name in grid}
    picked: dict[object, str] = {}
    for name, measure in parsed.items():
        family = measure.family.name
        if family not in picked or (measure.k == 3 and parsed[picked[family]].k != 3):
            picked[family] = name
    for piece, readers in READERS.items():
        if readers.param is not None:
            key, value = readers.param
            picked[piece] = next(n for n, m in parsed.items()
                                 if m.family.name in readers.families and dict(m.params).get(key) == value)  # fmt: skip
    return [name for name in grid if name in picked.values()]


# the grid's measures that take the default rel (rel=2 then applies to them too), covered
MEASURES = cover([n for n in GRID if "rel=" not in n])


def option_case(seed: int, cases: int, *, duplicates: bool) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(run, qrels) under the custom names: four (system, day) groups drawn from one
    random case set (each keeps a random part of the run with new scores); with
    ``duplicates``, some groups repeat a (query, item) row with another score."""
    data = random_cases(seed, cases, int_ids=False)
    rng = random.Random(seed)
    base = data["run"].rows()
    groups = []
    for system in ("A", "B"):
        for day in (1, 2):
            rows = [
                (system, day, q, it, rng.choice((0.0, 0.5, 1.0, 2.0)))
                for q, it, _ in base
                if rng.random() < 0.8
            ]
            if duplicates:
                rows += [(system, day, q, it, rng.choice((0.5, 3.0)))
                         for _, _, q, it, _ in rng.sample(rows, min(4, len(rows)))]  # fmt: skip
            groups += rows
    run = pl.DataFrame(
        groups,
        schema={"system": pl.String, "day": pl.Int64, "qid": pl.String, "doc id": pl.String,
                "sim": pl.Float64},
        orient="row",
    )
    qrels = data["qrels"].rename({"query": "qid", "item": "doc id", "relevance": "grade"})
    return run, qrels


def both_option_cases(seed: int, cases: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run of :func:`option_case` without repeated rows and, beside it under the
    systems ``"A+repeated"`` and ``"B+repeated"``, the one with repeated rows (both draw
    the same qrels from ``seed``): the ``by`` groups are evaluated independently, so one
    warehouse query checks both cases, and the oracle's groups are the distinct ones."""
    distinct, qrels = option_case(seed, cases, duplicates=False)
    repeated, same_qrels = option_case(seed, cases, duplicates=True)
    assert same_qrels.equals(qrels)
    repeated = repeated.with_columns(pl.col("system") + "+repeated")
    return pl.concat([distinct, repeated]), qrels


def polars_values(run: pl.DataFrame, qrels: pl.DataFrame, *, per_query: bool) -> pl.DataFrame:
    return polars_reference(run, qrels, MEASURES, per_query=per_query, **OPTIONS)


def pytrec_expected(run: pl.DataFrame, qrels: pl.DataFrame) -> Expected:
    """pytrec_eval's per-query values keyed by ("<system>/<day>", query, measure), on
    each group's top ``OPTIONS["top"]`` rows (a run without repeated rows)."""
    top = OPTIONS["top"]
    ranked = (
        run.with_columns(
            pl.format("{}/{}", "system", "day").alias("group"),
            pl.col("doc id").map_elements(lambda s: s.encode(), return_dtype=pl.Binary).alias("b"),
        )
        .sort(["group", "qid", "sim", "b"], descending=[False, False, True, True])
        .with_columns(pl.int_range(1, pl.len() + 1).over("group", "qid").alias("rank"))
        .filter(pl.col("rank") <= top)
        .select("group", pl.col("qid").alias("query"), pl.col("doc id").alias("item"), "rank")
    )
    judged = qrels.rename({"qid": "query", "doc id": "item", "grade": "relevance"})
    return oracle(ranked, judged, MEASURES, complete=True, by="group", by_rank=True, rel=2)


def with_group(frame: pl.DataFrame) -> pl.DataFrame:
    """Our result with the oracle's key: one ``group`` column, ``query``."""
    return frame.with_columns(pl.format("{}/{}", "system", "day").alias("group")).rename(
        {"qid": "query"}, strict=False
    )
