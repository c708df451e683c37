"""``ties="average"``'s shared cases: the grid of averaged measures, tie-heavy runs
(hypothesis), the brute force over every ordering of the tie groups and the known
answers computed by hand.

Shared by the test modules (test modules never import from each other):
``engines/test_ties_average.py`` (the engines) and ``sql/test_sql_entry_ties.py`` (the SQL
entry point's ``ties := 'average'``).
"""

from __future__ import annotations

import itertools
import math
import random
import warnings
from collections import defaultdict
from typing import Any, NamedTuple

import polars as pl
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY
from tests.helpers import FULL_PROFILE

CUTOFFS = (None, 1, 2, 3, 5, 8)
# run rows per query at most: up to 7! orderings of a tie group under the full profile,
# 5! by default (the brute force evaluates every ordering: 7 tied rows cost ~2.4 s CPU)
MAX_ROWS = 7 if FULL_PROFILE else 5
SCORES = (0.0, 1.0, 2.0)
GRADES = (-1, 0, 1, 2, 3)
ITEMS = ("a", "B", "b", "c", "d", "e", "f", "g", "h")


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
    """Queries of <= MAX_ROWS run rows with scores from {0, 1, 2} (ties everywhere), graded
    judgments -1..3 and judged items that were not retrieved.  ``mode``: "qrels" (run +
    qrels), "labels" (run with its own ``relevant`` column) or "rank" (a rank column
    with ties, score=None)."""
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3"]), min_size=1, unique=True))
    run_rows: list[tuple[Any, ...]] = []
    qrels_rows: list[tuple[Any, ...]] = []
    for q in queries:
        retrieved = draw(
            st.lists(st.sampled_from(ITEMS), min_size=1, max_size=MAX_ROWS, unique=True)
        )
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


def small_cases(seed: int, count: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``count`` queries of <= 7 rows, scores from {0, 1, 2} (ties everywhere), grades
    -1..3, judged items not retrieved; query ids c<i> (the stacked cases of one table)."""
    rng = random.Random(seed)
    run, qrels = [], []
    for case in range(count):
        q = f"c{case}"
        retrieved = rng.sample("aBbcdefgh", rng.randint(1, 7))
        for item in retrieved:
            grade = rng.choice((-1, 0, 1, 2, 3))
            run.append((q, item, float(rng.choice((0, 1, 2)))))
            if rng.random() < 0.6:
                qrels.append((q, item, grade))
        for item in rng.sample("aBbcdefgh", rng.randint(0, 3)):
            if item not in retrieved:
                qrels.append((q, item, rng.choice((0, 1, 1, 2, 3))))
    return (
        pl.DataFrame(run, schema=["query", "item", "score"], orient="row"),
        pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row"),
    )


# ------------------------------------------------------------------------ brute force


@st.composite
def tied_batches(draw: st.DrawFn, *, mode: str, size: int = 6) -> dict[str, Any]:
    """1 to ``size`` :func:`tied_runs` of one ``mode``, stacked: the queries of the i-th
    (i >= 1) renamed apart (``i/q1``), so that each is evaluated, and brute-forced, on its
    own rows as in a call of its own, and one call per engine checks them all (a call of
    the grid costs ~0.3-0.5 s of CPU whatever the rows).  The simplest (hypothesis' first
    example) is one simplest tied run."""
    first = draw(tied_runs(mode=mode))
    parts = [first, *draw(st.lists(tied_runs(mode=mode), max_size=size - 1))]

    def renamed(frame: pl.DataFrame, i: int) -> pl.DataFrame:
        return frame if i == 0 else frame.with_columns((pl.lit(f"{i}/") + pl.col("query")).alias("query"))

    stacked = {
        key: None if first[key] is None
        else pl.concat([renamed(part[key], i) for i, part in enumerate(parts)])
        for key in ("run", "qrels")
    }  # fmt: skip
    return {**stacked, "kw": first["kw"]}


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


# pinned: one query, every row tied (MAX_ROWS! orderings), relevant rows among them (and
# judged rows not retrieved: g when MAX_ROWS < 7, z)
ALL_TIED = {
    "run": pl.DataFrame(
        {"query": ["q1"] * MAX_ROWS, "item": list("abcdefg")[:MAX_ROWS], "score": [1.0] * MAX_ROWS}
    ),
    "qrels": pl.DataFrame(
        {"query": ["q1"] * 5, "item": ["a", "c", "d", "g", "z"], "relevance": [1, 2, -1, 3, 1]}
    ),
    "kw": {},
}


# ----------------------------------------------------------------------- known answers


class KnownAnswer(NamedTuple):
    """A run and qrels (columns query, item, score / relevance) and the summary values of
    ``ties="average"`` computed by hand, by measure name."""

    run: pl.DataFrame
    qrels: pl.DataFrame
    values: dict[str, float]


# One query, n = 4 rows all tied, r = 2 relevant (R = 2): the 6 arrangements of RRNN,
# each equally likely.
ALL_TIED_ANSWERS = KnownAnswer(
    run=pl.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [1.0] * 4}),
    qrels=pl.DataFrame({"query": ["q"] * 2, "item": ["b", "d"], "relevance": [1, 1]}),
    values={
        "P@4": 2 / 4,  # r / n
        "P@1": 2 / 4,
        "R@2": 2 * (2 / 4) / 2,  # two positions, r/n each
        "Success@1": 1 / 2,
        "NumRelRet@3": 3 * 2 / 4,
        # P(first relevant at 1, 2, 3) = 1/2, 1/3, 1/6 (the 6 arrangements of RRNN)
        "RR": 1 / 2 + 1 / 3 / 2 + 1 / 6 / 3,
        # the 6 arrangements' AP: RRNN 1, RNRN 5/6, RNNR 3/4, NRRN 7/12, NRNR 1/2, NNRR 5/12
        "AP": (1 + 5 / 6 + 3 / 4 + 7 / 12 + 1 / 2 + 5 / 12) / 6,
        # every position has expected gain 1/2; the ideal puts the two relevant first
        "nDCG": sum(0.5 / math.log2(p + 1) for p in range(1, 5)) / (1 + 1 / math.log2(3)),
        # Rprec: relevant among the top R = 2 positions, r / n each
        "Rprec": 2 * (2 / 4) / 2,
        "RelP@3": 3 * (2 / 4) / 2,  # / min(3, R)
        "NumRet": 4.0,
        "NumRel": 2.0,
    },
)

# a (relevant) on top, then b, c, d tied with c relevant: h = 1 for the group.
# AP = (1/1 + E[2 / pos(c)]) / 2 with pos(c) uniform on 2..4; RR = 1; Success@1 = 1.
BELOW_A_RELEVANT_ANSWERS = KnownAnswer(
    run=pl.DataFrame({"query": ["q"] * 4, "item": list("abcd"), "score": [2.0, 1.0, 1.0, 1.0]}),
    qrels=pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 1]}),
    values={
        "AP": (1 + (2 / 2 + 2 / 3 + 2 / 4) / 3) / 2,
        "RR": 1.0,
        # c at 2 with probability 1/3
        "AP@2": (1 + (2 / 2) / 3) / 2,
        "Success@1": 1.0,
        "P@2": (1 + 1 / 3) / 2,
    },
)
