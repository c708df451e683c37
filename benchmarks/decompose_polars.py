"""Issue 15's decomposition: where the polars engine's time goes beyond the floors, and
why each part is there.

    python benchmarks/profile_polars.py --decompose --data benchmarks/data

For each run shape (rank-given ``query, rank, item`` and score-only ``query, item,
score``) a chain of plans, each one adding one component of the engine's work to the one
before: it starts at the issue's floor (the sorted floor for the score-only run) and ends
at ``rk.evaluate(...).collect()`` itself, built from the engine's own objects
(``engines/polars.py``, ``prepare/judge.py``) so that the chain is the plan the engine
runs.  Every plan is collected in one process, all of them in turn (round robin), for
``--repeats`` rounds; a component's cost is the median of its plan minus the median of
the plan before it (wall and CPU, CPU = user + system of every thread), so the components
add up to the engine's median exactly and the spread (the per-round differences, min and
max) says how far each one can be trusted.  Every plan ends in a sum over every column it
computed, so projection pushdown cannot skip the work.

Then the issue's whole processes (``run.py``'s variants: the floors, both run shapes and
pytrec_eval, in turn, medians), for the process start and imports the in-process chain
does not see, and for the pytrec_eval argument: pytrec_eval's wall time / 8 against the
floors.  A developer tool: it reads internals, which may change; the smoke test in
``tests/benchmarks/`` keeps it running.
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


import variants
from generate import Spec as DataSpec
from generate import generate, write_ranked

import polars_rankeval as rk
from polars_rankeval._parse import resolve_measures
from polars_rankeval.engines import polars as engine
from polars_rankeval.engines.spec import Spec
from polars_rankeval.options import Columns, EvalOptions
from polars_rankeval.prepare.judge import _run_queries
from polars_rankeval.prepare.ranking import position

FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
KEYS = ["query"]


def consume(lf: pl.LazyFrame) -> pl.LazyFrame:
    """Sum every column (string columns by length), so nothing can be pruned."""
    schema = lf.collect_schema()
    exprs = []
    for name, dtype in schema.items():
        col = pl.col(name)
        if dtype == pl.String:
            exprs.append(col.str.len_bytes().sum().alias(name))
        elif dtype == pl.Boolean:
            exprs.append(col.sum().alias(name))
        elif dtype.is_numeric():
            exprs.append(col.cast(pl.Float64).sum().alias(name))
        else:
            exprs.append(col.len().alias(name))
    return lf.select(exprs)


@dataclass
class Stage:
    """One plan of a chain: what it adds over the plan before it, why that work is
    necessary, and what was tried to make it cheaper."""

    name: str
    run: Callable[[], object]
    needed: str = ""
    tried: str = ""
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)

    def time(self) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        self.run()
        self.walls.append(time.perf_counter() - wall)
        self.cpus.append(time.process_time() - cpu)


def collected(lf: pl.LazyFrame) -> Callable[[], object]:
    query = consume(lf)
    return lambda: query.collect()


def _spec(run: pl.LazyFrame, qrels: pl.LazyFrame, *, ranked: bool) -> Spec:
    """The Spec ``rk.evaluate(run, qrels, FIVE[, score=None])`` builds (default names)."""
    resolved = resolve_measures(FIVE)
    columns = Columns(score=None) if ranked else Columns()
    return Spec(
        run, qrels, [m for _, m in resolved], [n for n, _ in resolved], columns, EvalOptions()
    )


def _shape(
    run: pl.LazyFrame, qrels: pl.LazyFrame, pos: pl.Expr, *, queries: pl.LazyFrame | None = None,
    rows: pl.LazyFrame | None = None, qstats: pl.LazyFrame | None = None,
) -> pl.LazyFrame:
    """The engine's shape of the floor: one row per run query (``queries``, or just its
    row count), the judged rows (``rows``, or the run ranked by ``pos`` inner-joined
    with the qrels) counted and summed per query beside it, and (``qstats``) the qrels'
    per-query stats full-joined."""
    if queries is None:
        queries = run.group_by(KEYS).agg(pl.len().alias("_num_ret"))
    if rows is None:
        judged = qrels.select("query", "item", pl.col("relevance").cast(pl.Float64).alias("_rel"))
        rows = run.with_columns(pos.alias("_pos")).join(judged, on=["query", "item"], how="inner")
    per_query = rows.group_by(KEYS).agg(
        pl.len().alias("_hits"), pl.col("_pos").sum().alias("_pos_sum"), pl.col("_rel").sum()
    )
    out = queries.join(per_query, on=KEYS, how="left", nulls_equal=True)
    if qstats is not None:
        out = out.join(qstats, on="query", how="full", coalesce=True)
    return out


def chain(
    paths: dict[str, str], *, ranked: bool, parts: int | None
) -> list[Stage]:
    """The chain of plans for one run shape (see the module docstring)."""
    run_path = paths["ranked"] if ranked else paths["run"]
    run, qrels = pl.scan_parquet(run_path), pl.scan_parquet(paths["qrels"])
    spec = _spec(run, qrels, ranked=ranked)
    judgement = engine.judgement_for(spec, given_ranks=True)
    order = "rank" if ranked else "score"
    prepared = run.select("query", "item", order)
    pos = (
        pl.col("rank").cast(pl.Int64, strict=False)
        if ranked
        else position(Columns(), "score", KEYS)
    )
    row_checks = [c for c in judgement.run_checks if c.kind != "duplicate"]
    checks_only = _run_queries(
        prepared, KEYS, row_checks, None, "rank" if ranked else None, 1
    )
    extra = {"score": None} if ranked else {}
    texts = RANK_GIVEN if ranked else SCORE_ONLY
    stages = [
        Stage(
            "floor" if ranked else "sorted floor",
            collected(
                variants.floor_plan(paths["run"], paths["qrels"])
                if ranked
                else variants.floor_sorted_plan(paths["run"], paths["qrels"])
            ),
        )
    ]
    plans = []
    if ranked:
        plans.append(variants.floor_plan(run_path, paths["qrels"]))
    plans += [
        _shape(prepared, qrels, pos),
        _shape(prepared, qrels, pos, queries=checks_only),
        _shape(prepared, qrels, pos, queries=judgement.queries),
        _shape(prepared, qrels, pos, queries=judgement.queries, qstats=judgement.qstats),
        _shape(
            prepared, qrels, pos, queries=judgement.queries, rows=judgement.rows,
            qstats=judgement.qstats,
        ),
        engine._joined(judgement, spec)[0],
    ]
    runs: list[Callable[[], object]] = [collected(plan) for plan in plans]
    runs.append(lambda: rk.evaluate(run, qrels, FIVE, partitions=1, **extra).collect())
    runs.append(lambda: rk.evaluate(run, qrels, FIVE, partitions=parts, **extra).collect())
    for (name, needed, tried), job in zip(texts, runs, strict=True):
        stages.append(Stage(name, job, needed, tried))
    return stages


# (component, why it is necessary, what was tried to make it cheaper), one per plan
# after the reference; RESULTS.md names the sessions that measured each "tried"
RANK_GIVEN = [
    (
        "the rank-given file in place of the score file (the floor's plan)",
        "the run as the user gives it: query, rank, item (DESIGN.md 3, `score=None`)",
        "nothing to try: a narrower file (int ranks instead of float scores)",
    ),
    (
        ("the engine's shape: run rows counted per query, judged rows (inner join) "
        "aggregated per query, the two joined"),
        ("the measures read only the judged retrieved rows and each query's count "
        "(judge(), judged-only rows); the count covers every run row"),
        "the floor's left join of every row (session 14: aggregating every row cost more)",
    ),
    (
        ("run row checks: null query/item, rank not an integer >= 1, the ranks-are-1..n "
        "flags (min, max, rank - row) with the row number"),
        ("DESIGN.md: bad input is an error naming the column and an example row; the "
        "given ranks are positions only where a query's ranks are 1..n (else trec_eval's "
        "order), so every query needs the proof"),
        ("rank.n_unique() per query (perf19: 0.48 s against 0.28 s for min/max of "
        "rank - row); global null counts (one pass more)"),
    ),
    (
        "the run's duplicate check: len - item.hash().n_unique() per query",
        ("DESIGN.md 2: duplicate (query, item) rows are an error by default (trec_eval "
        "too); only counting per query says which query and how many"),
        ("exact n_unique on strings (1.3x), sort + diff (perf20: 1.83 against 0.63 s), "
        "a global hash distinct (1.36), buckets of a global hash (1.77-2.62), one group "
        "per (query, item hash) (2.0); u32 hashes (0.56 against 0.63, not kept: "
        "collisions only over-count, then an exact recount)"),
    ),
    (
        ("the qrels side: per-query R, ideal DCG@10 and the qrels checks (nulls, "
        "relevance, duplicate judgments), full-joined"),
        ("AP and R@100 divide by R, nDCG@10 by the ideal DCG from all judgments "
        "(trec_eval m_ndcg_cut.c); DESIGN.md: bad qrels are an error"),
        ("top_k / sort().head() / a rank window for the ideal DCG (profile stages Q2-Q4); "
        "the stats joined to the judged rows only (308 against 356 MiB)"),
    ),
    (
        ("the judged rows in full: _num_ret window, stats and ideal joined, sorted by "
        "(query, position)"),
        ("DESIGN.md determinism: a query's sums add in rank order whatever the row "
        "order (the sort, ~1/20 of the run); each row carries its query's count and "
        "stats so the measures read them in one aggregation"),
        ("a join of per-query counts for _num_ret (0.6 s more), maintain_order on the "
        "join instead of the sort (1.7 s more)"),
    ),
    (
        "the five measures aggregated per query (and joined to the checks' frame)",
        "the values asked for (AP, nDCG@10, P@10, R@100, RR), over the judged rows only",
        "20 measures cost 1.6x one (issue 15, kept); measures over every row (session 14)",
    ),
    (
        ("evaluate() at one partition: plan building, the rank fix-up check, "
        "check_per_query, the choice of queries, the summary"),
        ("the errors and warnings (DESIGN.md), the exact check of queries whose ranks "
        "were not proved distinct (repeated_ranks; 10 queries here), the means in "
        "trec_eval's query order"),
        ("the checks' frame collected in-memory (perf19: 4.67 against 3.31 s at 100k "
        "queries); the re-read filtered (is_in) or whole (perf19: chosen by share)"),
    ),
    (
        "query-hash partitions (the default count, each partition re-reads the run)",
        ("the memory goal (<= 0.2x pytrec_eval's peak): at 10M rows 1 partition peaked "
        "at 827 MiB (0.29x), 2 at 493 (0.17x), the default 4 at 337 (perf21, load 3-12)"),
        ("fewer partitions at 10M: the same CPU time (3.23-3.37 s for 1, 2 and 4), so "
        "no cheaper choice; 2 would keep the goal here but not for the score-only run"),
    ),
]
SCORE_ONLY = [
    (
        ("the engine's shape with trec_eval's order: rank by (float32 score, item) "
        "descending, run rows counted, judged rows aggregated, joined"),
        ("DESIGN.md 2: trec_eval's order, score (as float32, trec_eval reads floats) "
        "descending then item descending in byte order; the sorted floor ranks by the "
        "float64 score alone and breaks no tie"),
        ("int_range.over(order_by=...) (~2x slower on string items), a sort then "
        "int_range (profile stages A1-A4); the rank by score alone is exact only "
        "without ties (C3)"),
    ),
    (
        "run row checks: null query/item, NaN/inf scores",
        "DESIGN.md: bad input is an error naming the column and an example row",
        "global null counts (one pass more: stage K4 against K5)",
    ),
    RANK_GIVEN[3],
    RANK_GIVEN[4],
    RANK_GIVEN[5],
    RANK_GIVEN[6],
    (
        ("evaluate() at one partition: plan building, check_per_query, the choice of "
        "queries, the summary"),
        "the errors and warnings (DESIGN.md), the means in trec_eval's query order",
        "",
    ),
    (
        "query-hash partitions (the default count, each partition re-reads the run)",
        ("the memory goal (<= 0.2x pytrec_eval's peak): at 10M rows 1 partition peaked "
        "at 1131 MiB (0.39x), 2 at 682 (0.24x), the default 4 at 424 (0.15x; perf21, "
        "load 3-12)"),
        ("fewer partitions: the same CPU time (4.61-4.79 s for 1, 2 and 4) and over the "
        "memory goal below 3"),
    ),
]


def data_paths(data: Path, queries: int) -> dict[str, str]:
    """The run, its rank-given copy and the qrels of ``queries`` x 100 rows in ``data``
    (written there when missing)."""
    run_path, qrels_path = generate(DataSpec(queries), data=data, quiet=True)
    return {"run": str(run_path), "ranked": str(write_ranked(run_path)), "qrels": str(qrels_path)}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def render_chain(title: str, stages: list[Stage]) -> list[str]:
    """One shape's table: each component's marginal cost (wall, CPU) over the plan before
    it, its spread over the rounds, and the cumulative ratio to the reference."""
    ref = stages[0]
    ref_wall, ref_cpu = _median(ref.walls), _median(ref.cpus)
    lines = [
        f"### {title}",
        "",
        ("| component | + wall s | + CPU s | spread CPU s (min-max) | cumulative × ref "
        "(wall / CPU) | why it is needed | what was tried |"),
        "|---|---|---|---|---|---|---|",
        (f"| {ref.name} (the reference) | {ref_wall:.2f} | {ref_cpu:.2f} | "
        f"{min(ref.cpus):.2f}-{max(ref.cpus):.2f} | 1.00 / 1.00 | | |"),
    ]
    before = ref
    for stage in stages[1:]:
        wall = _median(stage.walls) - _median(before.walls)
        cpu = _median(stage.cpus) - _median(before.cpus)
        rounds = [a - b for a, b in zip(stage.cpus, before.cpus, strict=True)]
        lines.append(
            f"| {stage.name} | {wall:+.2f} | {cpu:+.2f} | {min(rounds):+.2f}..{max(rounds):+.2f} "
            f"| {_median(stage.walls) / ref_wall:.2f} / {_median(stage.cpus) / ref_cpu:.2f} "
            f"| {stage.needed} | {stage.tried} |"
        )
        before = stage
    total_wall, total_cpu = _median(stages[-1].walls), _median(stages[-1].cpus)
    parts_wall = sum(_median(s.walls) - _median(p.walls) for p, s in itertools.pairwise(stages))
    parts_cpu = sum(_median(s.cpus) - _median(p.cpus) for p, s in itertools.pairwise(stages))
    lines += [
        "",
        (f"In-process total {total_wall:.2f} s wall, {total_cpu:.2f} s CPU = the reference "
        f"{ref_wall:.2f} / {ref_cpu:.2f} + the components {parts_wall:+.2f} / "
        f"{parts_cpu:+.2f}: **{total_wall / ref_wall:.2f}× / {total_cpu / ref_cpu:.2f}× "
        f"the {ref.name}** (in-process)."),
        "",
    ]
    return lines


def whole_processes(paths: dict[str, str], repeats: int) -> dict[str, dict[str, float]]:
    """The issue's variants as whole processes (``run.py``'s), in turn, medians: wall,
    CPU, in-process seconds, peak MiB, and the means of each (for the check)."""
    import run as runner

    keys = ["floor", "floor-sorted", "polars-rank", "polars", "pytrec_eval"]
    runs: dict[str, list] = {key: [] for key in keys}
    for _ in range(repeats):
        for key in keys:
            variant = runner.BY_KEY[key]
            runs[key].append(
                runner.run_process(
                    variant, (Path(paths["run"]), Path(paths["qrels"])), list(variant.measures),
                    timeout=600, env={},
                )
            )
    out: dict[str, dict[str, float]] = {}
    for key, done in runs.items():
        ok = [r for r in done if r.status == "ok"]
        if not ok:
            out[key] = {"status": float("nan")}
            continue
        out[key] = {
            "wall": _median([r.wall for r in ok]),
            "cpu": _median([r.cpu for r in ok]),
            "eval": _median([float(r.payload.get("seconds", {}).get("eval", "nan")) for r in ok]),
            "rss": _median([r.rss_kib / 1024 for r in ok]),
            "means": ok[-1].payload.get("means", {}),
        }
    return out


def render_processes(figures: dict[str, dict]) -> list[str]:
    """The whole-process table, the link to the in-process chains (process start and
    imports), and the pytrec_eval argument."""
    lines = [
        "### Whole processes (run.py's variants, in turn, medians)",
        "",
        "| variant | wall s | CPU s | in-process s | peak MiB |",
        "|---|---|---|---|---|",
    ]
    for key, f in figures.items():
        if "wall" not in f:
            lines.append(f"| {key} | not run | | | |")
            continue
        lines.append(
            f"| {key} | {f['wall']:.2f} | {f['cpu']:.2f} | {f['eval']:.2f} | {f['rss']:.0f} |"
        )
    lines.append("")
    need = ("floor", "floor-sorted", "polars-rank", "polars")
    if not all("wall" in figures[k] for k in need):
        return lines
    floor, sorted_floor = figures["floor"], figures["floor-sorted"]
    for key, ref, label in (("polars-rank", floor, "floor"), ("polars", sorted_floor, "sorted floor")):
        f = figures[key]
        start = (f["wall"] - f["eval"]) - (ref["wall"] - ref["eval"])
        lines.append(
            f"- {key}: {f['wall'] / ref['wall']:.2f}× / {f['cpu'] / ref['cpu']:.2f}× the "
            f"{label} (wall / CPU, whole process); the process start and imports beyond the "
            f"{label}'s (polars_rankeval's import, the measures' registry): {start:+.2f} s wall."
        )
    trec = figures.get("pytrec_eval", {})
    if "wall" in trec:
        eighth = trec["wall"] / 8
        lines += [
            (f"- pytrec_eval: {trec['wall']:.2f} s wall, {trec['cpu']:.2f} s CPU, "
            f"{trec['rss']:.0f} MiB; {trec['wall'] / figures['polars']['wall']:.2f}× the "
            f"score-only run, {trec['wall'] / figures['polars-rank']['wall']:.2f}× the "
            "rank-given run (wall)."),
            f"- **pytrec_eval / 8 = {eighth:.2f} s** against the floor {floor['wall']:.2f} s "
            f"and the sorted floor {sorted_floor['wall']:.2f} s: an 8× ratio needs the "
            f"score-only run at {eighth / sorted_floor['wall']:.2f}× the sorted floor and the "
            f"rank-given run at {eighth / floor['wall']:.2f}× the floor. "
            + (
                "Below 1: no score-only evaluator that reads the same Parquet and ranks it "
                "can reach 8×."
                if eighth < sorted_floor["wall"]
                else "Above 1: not ruled out by the floors' wall times."
            ),
            (f"- In CPU time (the figure that survives load; pytrec_eval uses one core): "
            f"pytrec_eval / 8 = {trec['cpu'] / 8:.2f} s against the floor's {floor['cpu']:.2f} s "
            f"and the sorted floor's {sorted_floor['cpu']:.2f} s "
            f"({trec['cpu'] / 8 / floor['cpu']:.2f}× and "
            f"{trec['cpu'] / 8 / sorted_floor['cpu']:.2f}×)."),
            (f"- peak memory against pytrec_eval's: score-only "
            f"{figures['polars']['rss'] / trec['rss']:.2f}×, rank-given "
            f"{figures['polars-rank']['rss'] / trec['rss']:.2f}× (goal <= 0.2×)."),
        ]
        lines.append(_check(figures))
    return lines


def _check(figures: dict[str, dict]) -> str:
    """Both shapes' means against pytrec_eval's."""
    reference = figures["pytrec_eval"].get("means", {})
    worst = 0.0
    for key in ("polars-rank", "polars"):
        means = figures[key].get("means", {})
        for name, value in reference.items():
            worst = max(worst, abs(means.get(name, float("nan")) - value))
    return f"- the means of both shapes against pytrec_eval's: max difference {worst:.1e}."


def main(data: Path, queries: int, repeats: int, parts: int | None) -> int:
    paths = data_paths(data, queries)
    load = os.getloadavg()
    started = time.perf_counter()
    chains = {
        "rank-given run (query, rank, item) against the floor": chain(
            paths, ranked=True, parts=parts
        ),
        "score-only run (query, item, score) against the sorted floor": chain(
            paths, ranked=False, parts=parts
        ),
    }
    # the whole processes first: a child forked from this process once the chains have
    # grown it would report this process's peak as its own (ru_maxrss counts the fork)
    figures = whole_processes(paths, repeats)
    every = [stage for stages in chains.values() for stage in stages]
    for path in paths.values():  # warm the page cache
        pl.read_parquet(path)
    for _ in range(repeats):
        for stage in every:
            stage.time()
    print(f"## Decomposition: {Path(paths['run']).name}, {repeats} rounds, "
          f"load {load[0]:.2f} at the start", flush=True)
    print()
    for title, stages in chains.items():
        print("\n".join(render_chain(title, stages)), flush=True)
    print("\n".join(render_processes(figures)))
    end = os.getloadavg()
    print(f"\n{time.perf_counter() - started:.0f} s; load {load[0]:.2f} at the start, "
          f"{end[0]:.2f} at the end (1-minute averages).")
    return 0
