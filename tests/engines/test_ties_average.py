"""``evaluate(..., ties="average")``: the expected value over every ordering of tied rows.

Brute force: every ordering of each query's tie groups (rows with equal score, or equal
rank with ``score=None``) is enumerated and evaluated with the default tie rule, given
explicit distinct scores (ranks) in that order; the mean over the orderings must equal
``ties="average"`` to 1e-12 per query, for every measure that supports it (each
family x parameter value x cutoff x relevance level), through the polars engine (eager
and lazy streaming) and the DuckDB engine.  Plus known answers, the case without ties
(equal to ``ties="trec_eval"`` exactly) and the errors.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import defaultdict
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY
from tests.helpers import POLARS_ONLY, examples

TOL = 1e-12
CUTOFFS = (None, 1, 2, 3, 5, 8)
SCORES = (0.0, 1.0, 2.0)
GRADES = (-1, 0, 1, 2, 3)
ITEMS = ("a", "B", "b", "c", "d", "e", "f", "g", "h")

# every engine runs the grid (INSQ and SDCG too: their brute force over orderings is
# also in tests/oracles/test_measure_cwl.py)
SUPPORTED = [
    name for name, family in REGISTRY.items()
    if family.expected is not None and name not in POLARS_ONLY
]  # fmt: skip


def tie_grid(rels: tuple[int, ...] = (1, 2)) -> list[str]:
    """Every family with an expected value x each value of its choice parameters x
    cutoffs x relevance levels (AP(norm=hits) only without a cutoff)."""
    names: list[str] = []
    for family in REGISTRY.values():
        if family.expected is None:
            continue
        # choice parameters: each value; numeric ones at their default (EXTRA below)
        axes = [[(p.name, c) for c in p.choices] for p in family.params if p.choices]
        for combo in itertools.product(*axes):
            for k in CUTOFFS if family.cutoff else (None,):
                if family.name == "AP" and ("norm", "hits") in combo and k is not None:
                    continue
                for level in rels:
                    params = [f"{n}={v}" for n, v in combo]
                    if level != 1:
                        params.append(f"rel={level}")
                    name = family.name + (f"({','.join(params)})" if params else "")
                    names.append(name + (f"@{k}" if k is not None else ""))
    return names


# numeric parameters that change the gains or weights of an averaged family
EXTRA = ["INSQ(T=0.5,max_rel=3)", "SDCG(min_rel=-1,max_rel=3)@2", "SDCG(max_rel=2)@5"]
GRID = tie_grid() + EXTRA
# without qrels NumRel reads a qrels stat in the polars engine (see test_sql_parity)
GRID_NO_QRELS = [n for n in GRID if parse_measure(n).family.name != "NumRel"]


# ------------------------------------------------------------------------------- data


@st.composite
def tied_runs(draw: st.DrawFn, *, mode: str) -> dict[str, Any]:
    """Queries of <= 7 run rows with scores from {0, 1, 2} (ties everywhere), graded
    judgments -1..3 and judged items that were not retrieved.  ``mode``: "qrels" (run +
    qrels), "labels" (run with its own ``relevant`` column) or "rank" (a rank column
    with ties, score=None)."""
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, unique=True))
    run_rows: list[tuple[Any, ...]] = []
    qrels_rows: list[tuple[Any, ...]] = []
    for q in queries:
        retrieved = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=7, unique=True))
        for item in retrieved:
            grade = draw(st.sampled_from(GRADES))
            run_rows.append((q, item, draw(st.sampled_from(SCORES)), grade))
            if draw(st.booleans()):  # judged (else unjudged: not relevant)
                qrels_rows.append((q, item, grade))
        for item in draw(st.lists(st.sampled_from(ITEMS), max_size=3, unique=True)):
            if item not in retrieved:  # judged, not retrieved (often relevant)
                qrels_rows.append((q, item, draw(st.sampled_from((0, 1, 1, 2, 3)))))
        if q == queries[0] and not any(row[0] == q for row in qrels_rows):
            qrels_rows.append((q, "zz", draw(st.sampled_from((0, 1, 2)))))  # shares a query
    run = pl.DataFrame(
        run_rows,
        schema={"query": pl.String, "item": pl.String, "score": pl.Float64, "relevant": pl.Int64},
        orient="row",
    )
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.String, "item": pl.String, "relevance": pl.Int64},
        orient="row",
    )
    if mode == "qrels":
        return {"run": run.drop("relevant"), "qrels": qrels, "kw": {}}
    if mode == "labels":
        return {"run": run, "qrels": None, "kw": {}}
    ranked = run.drop("relevant").with_columns(
        pl.col("score").rank("dense", descending=True).over("query").cast(pl.Int64).alias("rank")
    )
    return {"run": ranked.drop("score"), "qrels": qrels, "kw": {"score": None}}


# ------------------------------------------------------------------------ brute force


def orderings(run: pl.DataFrame, order: str) -> pl.DataFrame:
    """Every ordering of each query's tie groups: the run once per ordering (column
    ``perm``, numbered per query), with ``order`` replaced by distinct values that
    rank the rows in that ordering."""
    descending = order == "score"
    out: list[dict[str, Any]] = []
    for rows in run.partition_by("query", maintain_order=True):
        groups = [
            g.to_dicts()
            for _, g in sorted(
                rows.partition_by(order, as_dict=True).items(),
                key=lambda kv: kv[0][0],
                reverse=descending,
            )
        ]
        per_group = [list(itertools.permutations(g)) for g in groups]
        for perm, choice in enumerate(itertools.product(*per_group)):
            ranked = [row for group in choice for row in group]
            for position, row in enumerate(ranked, start=1):
                value = float(len(ranked) - position) if descending else position
                out.append({**row, order: value, "perm": perm})
    return pl.DataFrame(out, schema={**run.schema, "perm": pl.Int64})


def brute_force(
    run: pl.DataFrame, qrels: pl.DataFrame | None, names: list[str], kw: dict[str, Any]
) -> dict[tuple[str, str], float]:
    """Mean over the orderings of the default (trec_eval) value, per (query, measure);
    each ordering is a by-group, evaluated as its own run against the same qrels."""
    order = "rank" if kw.get("score", "score") is None else "score"
    every = orderings(run, order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        values = rk.evaluate(every, qrels, names, per_query=True, by="perm", **kw)
    collected: dict[tuple[str, str], list[float]] = defaultdict(list)
    for q, m, v in values.select("query", "measure", "value").iter_rows():
        collected[(q, m)].append(v)
    return {key: math.fsum(vs) / len(vs) for key, vs in collected.items()}


ENGINES = {
    "polars eager": lambda run, qrels, names, kw: rk.evaluate(run, qrels, names, **kw),
    "polars lazy streaming": lambda run, qrels, names, kw: rk.evaluate(
        run.lazy(), None if qrels is None else qrels.lazy(), names, **kw
    ).collect(engine="streaming"),
    "duckdb": lambda run, qrels, names, kw: rk.evaluate(run, qrels, names, engine="duckdb", **kw),
}

# largest |average - brute force| seen per engine, and how many values were compared
MAX_DIFF: dict[str, float] = defaultdict(float)
COMPARED: dict[str, int] = defaultdict(int)


def _averaged(engine: str, run, qrels, names, kw, *, per_query: bool = True) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return ENGINES[engine](run, qrels, names, {**kw, "ties": "average", "per_query": per_query})


def check_against_brute_force(data: dict[str, Any], names: list[str]) -> None:
    run, qrels, kw = data["run"], data["qrels"], data["kw"]
    want = brute_force(run, qrels, names, kw)
    for engine in ENGINES:
        got = _averaged(engine, run, qrels, names, kw)
        values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
        assert values.keys() == want.keys(), (engine, sorted(values.keys() ^ want.keys())[:5])
        for key, expected in want.items():
            diff = abs(values[key] - expected)
            assert diff <= TOL, (engine, key, values[key], expected)
            MAX_DIFF[engine] = max(MAX_DIFF[engine], diff)
            COMPARED[engine] += 1
        # the summary: means over queries (sums for the counts) of the same values
        summary = dict(_averaged(engine, run, qrels, names, kw, per_query=False).iter_rows())
        for name in names:
            per_query = [v for (_, m), v in want.items() if m == name]
            if not per_query:
                continue
            total = math.fsum(per_query)
            mean = (
                total if parse_measure(name).family.aggregate == "sum" else total / len(per_query)
            )
            assert summary[name] == pytest.approx(mean, abs=1e-9), (engine, name)


SETTINGS = settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

# pinned: one query, every row tied (7! orderings), relevant rows among them
ALL_TIED = {
    "run": pl.DataFrame({"query": ["q1"] * 7, "item": list("abcdefg"), "score": [1.0] * 7}),
    "qrels": pl.DataFrame(
        {"query": ["q1"] * 5, "item": ["a", "c", "d", "g", "z"], "relevance": [1, 2, -1, 3, 1]}
    ),
    "kw": {},
}


@pytest.mark.slow
@SETTINGS
@given(data=tied_runs(mode="qrels"))
@example(data=ALL_TIED)
def test_brute_force_with_qrels(data: dict[str, Any]) -> None:
    check_against_brute_force(data, GRID)


@pytest.mark.slow
@SETTINGS
@given(data=tied_runs(mode="labels"))
def test_brute_force_without_qrels(data: dict[str, Any]) -> None:
    """Relevance, R and the ideal from the run's own labels."""
    check_against_brute_force(data, GRID_NO_QRELS)


@pytest.mark.slow
@SETTINGS
@given(data=tied_runs(mode="rank"))
def test_brute_force_rank_column(data: dict[str, Any]) -> None:
    """score=None: a tie group is the rows with an equal rank value."""
    check_against_brute_force(data, GRID)


def test_grid_covers_the_supported_families() -> None:
    assert {parse_measure(n).family.name for n in GRID} == set(SUPPORTED)
    assert {"AP", "P", "R", "nDCG", "RR", "NumRelRet", "Success"} <= set(SUPPORTED)
    assert "AP(norm=hits)" in GRID and "AP(norm=min)@3" in GRID
    assert "nDCG(gain=exp,ideal=run)@2" in GRID


# ----------------------------------------------------------------------- known answers


@pytest.mark.parametrize("engine", list(ENGINES))
def test_all_tied_known_answers(engine: str) -> None:
    """One query, n = 4 rows all tied, r = 2 relevant (R = 2)."""
    run = pl.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [1.0] * 4})
    qrels = pl.DataFrame({"query": ["q"] * 2, "item": ["b", "d"], "relevance": [1, 1]})
    got = dict(
        _averaged(
            engine, run, qrels,
            ["P@4", "P@1", "R@2", "Success@1", "NumRelRet@3", "RR", "AP", "nDCG"], {},
            per_query=False,
        ).iter_rows()
    )  # fmt: skip
    assert got["P@4"] == pytest.approx(2 / 4, abs=TOL)  # r / n
    assert got["P@1"] == pytest.approx(2 / 4, abs=TOL)
    assert got["R@2"] == pytest.approx(2 * (2 / 4) / 2, abs=TOL)  # two positions, r/n each
    assert got["Success@1"] == pytest.approx(1 / 2, abs=TOL)
    assert got["NumRelRet@3"] == pytest.approx(3 * 2 / 4, abs=TOL)
    # P(first relevant at 1, 2, 3) = 1/2, 1/3, 1/6 (the 6 arrangements of RRNN)
    assert got["RR"] == pytest.approx(1 / 2 + 1 / 3 / 2 + 1 / 6 / 3, abs=TOL)
    # the 6 arrangements' AP: RRNN 1, RNRN 5/6, RNNR 3/4, NRRN 7/12, NRNR 1/2, NNRR 5/12
    assert got["AP"] == pytest.approx((1 + 5 / 6 + 3 / 4 + 7 / 12 + 1 / 2 + 5 / 12) / 6, abs=TOL)
    # every position has expected gain 1/2; the ideal puts the two relevant first
    dcg = sum(0.5 / math.log2(p + 1) for p in range(1, 5))
    assert got["nDCG"] == pytest.approx(dcg / (1 + 1 / math.log2(3)), abs=TOL)


@pytest.mark.parametrize("engine", list(ENGINES))
def test_tie_group_below_a_relevant_row(engine: str) -> None:
    """a (relevant) on top, then b, c, d tied with c relevant: h = 1 for the group.
    AP = (1/1 + E[2 / pos(c)]) / 2 with pos(c) uniform on 2..4; RR = 1."""
    run = pl.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [2.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]})
    got = dict(_averaged(engine, run, qrels, ["AP", "RR", "AP@2"], {}, per_query=False).iter_rows())
    assert got["AP"] == pytest.approx((1 + (2 / 2 + 2 / 3 + 2 / 4) / 3) / 2, abs=TOL)
    assert got["RR"] == pytest.approx(1.0, abs=TOL)
    assert got["AP@2"] == pytest.approx((1 + (2 / 2) / 3) / 2, abs=TOL)


@st.composite
def untied_runs(draw: st.DrawFn) -> dict[str, Any]:
    data = draw(tied_runs(mode="qrels"))
    run = data["run"]
    scores = draw(st.permutations(range(run.height)))
    return {**data, "run": run.with_columns(pl.Series("score", scores, dtype=pl.Float64))}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["polars eager", "duckdb"])
@settings(SETTINGS, max_examples=examples(15))
@given(data=untied_runs())
def test_without_ties_equals_trec_eval(data: dict[str, Any], engine: str) -> None:
    """Every group is one row (n = 1, r = 0 or 1): the same numbers, up to the last bit.
    The polars engine's default aggregates only the judged rows while ties="average"
    sums over every row (zeros included), and polars' pairwise float sums then add in
    another order; DuckDB's SUM adds in the order its window operators hand rows over,
    which the tie windows change."""
    run, qrels = data["run"], data["qrels"]
    average = _averaged(engine, run, qrels, GRID, {}).sort("query", "measure")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        default = ENGINES[engine](run, qrels, GRID, {"per_query": True}).sort("query", "measure")
    assert average.drop("value").equals(default.drop("value"))
    assert (average["value"] - default["value"]).abs().max() <= 1e-15


# ------------------------------------------------------------------------------ errors


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("name", ["Bpref", "AP(norm=hits)@5"])
def test_measure_without_expected_value(engine: str, name: str) -> None:
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.MeasureError, match=r"ties='average'") as error:
        rk.evaluate(run, qrels, ["P@1", name], ties="average", engine=engine)
    assert name in str(error.value)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"ties": "random"}, "ties='random'"),
        ({"ties": "average", "top": 2}, "top="),
        ({"ties": "average", "duplicates": "first"}, "duplicates='first'"),
    ],
)
def test_bad_ties_arguments(engine: str, kw: dict[str, Any], match: str) -> None:
    run = pl.DataFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    with pytest.raises(rk.InputError, match=match):
        rk.evaluate(run, qrels, ["P@1"], engine=engine, **kw)


def test_lazy_in_lazy_out() -> None:
    run = pl.LazyFrame({"query": ["q"] * 2, "item": ["a", "b"], "score": [1.0, 1.0]})
    qrels = pl.LazyFrame({"query": ["q"], "item": ["a"], "relevance": [1]})
    for engine in ("polars", "duckdb"):
        out = rk.evaluate(run, qrels, ["P@1"], ties="average", engine=engine)
        assert isinstance(out, pl.LazyFrame)
        assert out.collect()["value"].to_list() == [0.5]
