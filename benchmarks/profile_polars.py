"""Where the polars engine's time goes: the plan, and the pieces of it timed one by one.

polars 2 has no ``LazyFrame.profile()`` (removed with the streaming engine as the
default), so this times growing prefixes of the plan ``rk.evaluate`` builds (taken
from ``polars_rankeval.prepare.judge``, the same objects the engine uses) and a few
alternative formulations, in one process, each the best of ``--repeats`` runs, with
wall and CPU time (CPU time is steadier on a busy machine).  Every stage ends in a
small ``select`` that consumes every column it computed, so projection pushdown cannot
skip the work.  A developer tool: it reads internals, which may change.

    python benchmarks/profile_polars.py                      # 10M rows, streaming engine
    python benchmarks/profile_polars.py --engine in-memory --queries 10000
    python benchmarks/profile_polars.py --int-ids            # Int64 ids instead of strings
    python benchmarks/profile_polars.py --explain            # print the optimised plan
    python benchmarks/profile_polars.py --decompose --data benchmarks/data
        # issue 15's decomposition: each component's cost over the floors, why it is
        # needed, what was tried; whole processes and the pytrec_eval argument
        # (benchmarks/decompose_polars.py)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from decompose_polars import consume
from generate import DATA, Spec, generate

import polars_rankeval as rk
from polars_rankeval._parse import resolve_measures
from polars_rankeval.options import Columns
from polars_rankeval.prepare import judge

FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


class Timer:
    def __init__(self, engine: str, repeats: int) -> None:
        self.engine = engine
        self.repeats = repeats
        self.rows: list[tuple[str, float, float]] = []

    def __call__(self, name: str, lf: pl.LazyFrame, *, raw: bool = False) -> pl.DataFrame:
        query = lf if raw else consume(lf)
        best = (float("inf"), 0.0)
        out = None
        for _ in range(self.repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            out = query.collect(engine=self.engine)
            best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
        self.rows.append((name, *best))
        print(f"{name:<72} {best[0]:7.2f} s wall {best[1]:7.2f} s CPU", flush=True)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=100_000, help="default 100000 = 10M rows")
    parser.add_argument("--engine", default="streaming", choices=["streaming", "in-memory"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--int-ids", action="store_true")
    parser.add_argument("--ties", action="store_true")
    parser.add_argument("--shuffle", action="store_true", help="run rows in random order")
    parser.add_argument("--explain", action="store_true", help="print the optimised plan")
    parser.add_argument("--only", default="", help="comma separated substrings of stage names")
    parser.add_argument(
        "--decompose", action="store_true",
        help="issue 15's decomposition (benchmarks/decompose_polars.py): the components of "
        "both run shapes over the floors, medians of --repeats rounds, then whole processes",
    )
    parser.add_argument("--data", type=Path, default=DATA, help="data folder (benchmarks/data)")
    parser.add_argument(
        "--partitions", type=int, default=None,
        help="--decompose: evaluate()'s partitions in the last stage (default: the engine's)",
    )
    args = parser.parse_args(argv)
    if args.decompose:
        from decompose_polars import main as decompose

        return decompose(args.data, args.queries, args.repeats, args.partitions)

    run_path, qrels_path = generate(
        Spec(args.queries, ties=args.ties, int_ids=args.int_ids, shuffle=args.shuffle), data=DATA
    )
    run, qrels = pl.scan_parquet(run_path), pl.scan_parquet(qrels_path)
    measures = [m for _, m in resolve_measures(FIVE)]
    judgement = judge(
        run,
        qrels,
        columns=Columns(),
        by=[],
        stats=[s for m in measures for s in m.stats()],
        duplicates="error",
    )
    full = rk.evaluate(run, qrels, FIVE)
    if args.explain:
        print(full.explain())
        return 0

    only = [s for s in args.only.split(",") if s]
    timer = Timer(args.engine, args.repeats)

    def stage(name: str, lf: pl.LazyFrame, **kw) -> None:
        if not only or any(s in name for s in only):
            timer(name, lf, **kw)

    j, keys = judgement.judged, judgement.keys
    item_key = pl.col("item").cast(pl.String)
    print(f"{run_path.name}: engine {args.engine}, best of {args.repeats}", flush=True)

    # -- the yardsticks
    stage("0 read the run (every column)", run)
    stage("0 read the qrels", qrels)
    stage(
        "0 floor: run ⋈ qrels (left, on query+item), group_by count",
        run.join(qrels, on=["query", "item"], how="left")
        .group_by("query")
        .agg(pl.len(), pl.col("relevance").sum()),
    )
    stage(
        "0 group_by(query) count, no join",
        run.group_by("query").agg(pl.len(), pl.col("score").sum()),
    )

    # -- the plan, growing
    stage("1 rank: _pos (judge()'s expression)", _ranked(run))
    stage(
        "2 qrels side: judge()'s per-query stats (R, idcg@10, qrels checks)", _qrels_side(judgement)
    )
    stage("3 rank + run ⋈ qrels rows (judgement.rows)", judgement.rows)
    measure_exprs = [m.expression(j).alias(f"_m{i}") for i, m in enumerate(measures)]
    check_exprs = [c.counter.alias(c.name) for c in judgement.run_checks]
    stage("4 + group_by(query).agg(5 measures)", judgement.rows.group_by(keys).agg(*measure_exprs))
    stage(
        "5 + agg: 5 measures + run checks",
        judgement.rows.group_by(keys).agg(*measure_exprs, *check_exprs),
    )
    stage("6 rk.evaluate(...) whole (FIVE)", full, raw=True)
    if not only:
        expected = dict(full.collect(engine=args.engine).iter_rows())
        got = _judged_only(run, qrels, checks=True).collect(engine=args.engine).row(0, named=True)
        worst = max(abs(expected[k] - got[k]) for k in expected)
        print(
            f"   (C2 recipe below agrees with rk.evaluate to {worst:.1e}; checks found {got['bad']} bad rows)"
        )

    # -- each measure and check alone, on top of stage 3
    for i, m in enumerate(measures):
        stage(f"4.{i} agg: {m} alone", judgement.rows.group_by(keys).agg(measure_exprs[i]))
    for c in judgement.run_checks:
        stage(
            f"5.x agg: check {c.problem[:40]!r} alone",
            judgement.rows.group_by(keys).agg(c.counter.alias("c")),
        )
    stage(
        "5.y agg: pl.len() alone (the group_by itself)", judgement.rows.group_by(keys).agg(pl.len())
    )

    # -- alternative ways to rank (stage 1 replacements)
    def rank_with(expr: pl.Expr) -> pl.LazyFrame:
        return run.with_columns(expr.alias("_pos")).select("_pos")

    stage(
        "A1 rank: struct(score, item).rank('ordinal', desc).over(query)",
        rank_with(pl.struct("score", item_key).rank("ordinal", descending=True).over("query")),
    )
    stage(
        "A2 rank: int_range.over(query, order_by=[score, item], desc)",
        rank_with(
            pl.int_range(1, pl.len() + 1).over(
                "query", order_by=["score", item_key], descending=True
            )
        ),
    )
    stage(
        "A3 rank: score.rank('ordinal', desc).over(query) (ignores ties)",
        rank_with(pl.col("score").rank("ordinal", descending=True).over("query")),
    )
    stage(
        "A4 rank: sort(query, score, item) then int_range.over(query)",
        run.sort(["query", "score", "item"], descending=[False, True, True])
        .with_columns(pl.int_range(1, pl.len() + 1).over("query").alias("_pos"))
        .select("_pos"),
    )

    # -- alternative plan: aggregate the judged retrieved rows only (inner join)
    stage(
        "C1 rank window + inner join: only judged retrieved rows aggregated",
        _judged_only(run, qrels),
        raw=True,
    )
    stage(
        "C2 C1 + run checks (nulls, duplicates) in a separate group_by",
        _judged_only(run, qrels, checks=True),
        raw=True,
    )
    stage(
        "C3 C2 with the rank by score alone (exact only without ties)",
        _judged_only(run, qrels, checks=True, tie_key=False),
        raw=True,
    )

    # -- the qrels side: per-query R and ideal DCG@10
    judged = qrels.select("query", pl.col("relevance").cast(pl.Float64).alias("_rel"))
    gain = pl.col("_rel").clip(lower_bound=0)
    discount = pl.int_range(2, 12).cast(pl.Float64).log(2)
    stage("Q0 qrels: judge()'s qstats (R, idcg@10, qrels checks)", judgement.qstats)
    stage("Q1 qrels: R only", judged.group_by("query").agg((pl.col("_rel") >= 1).sum()))
    stage(
        "Q2 qrels: idcg@10 by sort(desc).head(10) in agg",
        judged.group_by("query").agg(
            (gain.sort(descending=True).head(10) / discount.head(pl.len())).sum()
        ),
    )
    stage(
        "Q3 qrels: idcg@10 by top_k(10) in agg",
        judged.group_by("query").agg((gain.top_k(10) / discount.head(pl.len())).sum()),
    )
    stage(
        "Q4 qrels: idcg@10 by rank window, then a plain sum",
        judged.with_columns(
            pl.col("_rel").rank("ordinal", descending=True).over("query").alias("_i")
        )
        .filter(pl.col("_i") <= 10)
        .group_by("query")
        .agg((gain / (pl.col("_i").cast(pl.Float64) + 1).log(2)).sum()),
    )

    # -- the run checks, alternatives (on the run alone)
    stage("K0 per-query: len() only", run.group_by("query").agg(pl.len()))
    stage(
        "K1 per-query: len() - item.n_unique() (duplicates)",
        run.group_by("query").agg(pl.len() - pl.col("item").n_unique()),
    )
    stage(
        "K2 per-query: len() - item.hash().n_unique() (exact recheck on error only)",
        run.group_by("query").agg(pl.len() - pl.col("item").hash().n_unique()),
    )
    stage(
        "K3 global: struct(query, item).is_duplicated().sum()",
        run.select(pl.struct("query", "item").is_duplicated().sum()),
    )
    stage(
        "K4 global: null_count(query), null_count(item), (~score.is_finite()).sum()",
        run.select(
            pl.col("query").null_count(),
            pl.col("item").null_count(),
            (~pl.col("score").is_finite()).sum(),
        ),
    )
    stage(
        "K5 per-query: is_null().sum() x2 + (~is_finite()).sum() (as now)",
        run.group_by("query").agg(
            pl.col("query").is_null().sum().alias("nq"),
            pl.col("item").is_null().sum(),
            (~pl.col("score").is_finite()).sum(),
        ),
    )

    # -- key types
    stage(
        "T1 floor with query, item cast to Categorical first",
        run.with_columns(pl.col("query", "item").cast(pl.Categorical))
        .join(
            qrels.with_columns(pl.col("query", "item").cast(pl.Categorical)),
            on=["query", "item"],
            how="left",
        )
        .group_by("query")
        .agg(pl.len(), pl.col("relevance").sum()),
    )

    # -- alternative plan: join first, rank inside the aggregation (no window)
    stage(
        "B1 run ⋈ qrels first, then agg with sort_by([score, item]) inside",
        _join_then_agg(run, qrels),
    )
    stage(
        "B2 same, + duplicate check len() - n_unique(item)",
        _join_then_agg(run, qrels, dup_check=True),
    )

    print("\n| stage | wall s | CPU s |\n|---|---|---|")
    for name, wall, cpu in timer.rows:
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    return 0


def _ranked(run: pl.LazyFrame) -> pl.LazyFrame:
    """Stage 1: the rank column alone, with judge()'s own expression (judge() without
    qrels ranks the run the same way and adds only a relevance label)."""
    labelled = run.with_columns(pl.lit(0.0).alias("relevant"))
    return judge(
        labelled, None, columns=Columns(), by=[], stats=[], duplicates="error"
    ).rows.select("_pos")


def _qrels_side(judgement) -> pl.LazyFrame:
    return judgement.qstats if judgement.qstats is not None else pl.LazyFrame()


def _judged_only(
    run: pl.LazyFrame, qrels: pl.LazyFrame, *, checks: bool = False, tie_key: bool = True
) -> pl.LazyFrame:
    """The five measures, aggregating only the judged retrieved rows.

    Every measure here (and P, R, nDCG, RR, Success, Rprec, AP in general) reads only
    the positions of the judged retrieved rows plus per-query counts; the 10M-row side
    then needs nothing but a rank window, the join and streamable reductions, so the
    streaming engine never falls back to an in-memory aggregation of the joined rows.
    The engine now follows this recipe (``judge()``, judged-only rows); unlike it, this
    sketch ranks float64 scores where trec_eval and ``rk.evaluate`` rank float32.
    """
    judged = qrels.select("query", "item", pl.col("relevance").cast(pl.Float64).alias("_rel"))
    stats = judged.group_by("query").agg(
        (pl.col("_rel") >= 1).sum().cast(pl.Float64).alias("R"),
        (
            pl.col("_rel").clip(lower_bound=0).sort(descending=True).head(10)
            / pl.int_range(2, 12).cast(pl.Float64).log(2).head(pl.len())
        )
        .sum()
        .alias("idcg10"),
    )
    key = pl.struct("score", pl.col("item").cast(pl.String)) if tie_key else pl.col("score")
    ranked = run.with_columns(key.rank("ordinal", descending=True).over("query").alias("_pos"))
    hits = ranked.join(judged, on=["query", "item"], how="inner")
    pos = pl.col("_pos").cast(pl.Float64)
    relevant = pl.col("_rel") >= 1
    per_query = hits.group_by("query").agg(
        # i-th relevant item at position p contributes i / p
        (pos.filter(relevant).rank("ordinal") / pos.filter(relevant)).sum().alias("ap"),
        (pl.col("_rel").clip(lower_bound=0) / (pos + 1).log(2))
        .filter(pos <= 10)
        .sum()
        .alias("dcg10"),
        (relevant & (pos <= 10)).sum().alias("p10"),
        (relevant & (pos <= 100)).sum().alias("hits100"),
        (1.0 / pos.filter(relevant).min()).alias("rr"),
    )
    queries = run.group_by("query").agg(
        pl.len().alias("n"),
        *(
            [
                pl.col("query").null_count().alias("null_query"),
                pl.col("item").null_count().alias("null_item"),
                (~pl.col("score").is_finite()).sum().alias("bad_score"),
                (pl.len() - pl.col("item").n_unique()).alias("dups"),
            ]
            if checks
            else []
        ),
    )
    both = queries.join(stats, on="query", how="inner").join(per_query, on="query", how="left")
    zero = pl.lit(0.0)
    return both.select(
        pl.when(pl.col("R") > 0)
        .then(pl.col("ap") / pl.col("R"))
        .otherwise(zero)
        .fill_null(0)
        .mean()
        .alias("AP"),
        pl.when(pl.col("idcg10") > 0)
        .then(pl.col("dcg10") / pl.col("idcg10"))
        .otherwise(zero)
        .fill_null(0)
        .mean()
        .alias("nDCG@10"),
        (pl.col("p10").fill_null(0) / 10).mean().alias("P@10"),
        pl.when(pl.col("R") > 0)
        .then(pl.col("hits100") / pl.col("R"))
        .otherwise(zero)
        .fill_null(0)
        .mean()
        .alias("R@100"),
        pl.col("rr").fill_null(0).mean().alias("RR"),
        *(
            [
                pl.sum_horizontal(
                    pl.col("null_query", "null_item", "bad_score", "dups").sum()
                ).alias("bad")
            ]
            if checks
            else []
        ),
    )


def _join_then_agg(
    run: pl.LazyFrame, qrels: pl.LazyFrame, *, dup_check: bool = False
) -> pl.LazyFrame:
    """The five measures with no window: join, then order inside each query's group."""
    judged = qrels.select("query", "item", pl.col("relevance").cast(pl.Float64).alias("_rel"))
    stats = judged.group_by("query").agg(
        (pl.col("_rel") >= 1).sum().cast(pl.Float64).alias("R"),
        (
            pl.col("_rel").clip(lower_bound=0).sort(descending=True).head(10)
            / pl.int_range(2, 12).cast(pl.Float64).log(2).head(pl.len())
        )
        .sum()
        .alias("idcg10"),
    )
    rel = pl.col("_rel").sort_by(["score", "item"], descending=True)
    pos = pl.int_range(1, pl.len() + 1)
    hit = (rel >= 1).fill_null(False)
    per_query = (
        run.join(judged, on=["query", "item"], how="left")
        .group_by("query")
        .agg(
            (hit.cum_sum() / pos).filter(hit).sum().alias("ap"),
            (
                rel.fill_null(0).clip(lower_bound=0).head(10)
                / pl.int_range(2, 12).cast(pl.Float64).log(2).head(pl.len())
            )
            .sum()
            .alias("dcg10"),
            hit.head(10).sum().alias("p10"),
            hit.head(100).sum().alias("hits100"),
            (1.0 / pos.filter(hit).first()).fill_null(0).alias("rr"),
            *([(pl.len() - pl.col("item").n_unique()).alias("dups")] if dup_check else []),
        )
    )
    return per_query.join(stats, on="query").select(
        (pl.col("ap") / pl.col("R")).mean().alias("AP"),
        (pl.col("dcg10") / pl.col("idcg10")).mean().alias("nDCG@10"),
        (pl.col("p10") / 10).mean().alias("P@10"),
        (pl.col("hits100") / pl.col("R")).mean().alias("R@100"),
        pl.col("rr").mean().alias("RR"),
        *([pl.col("dups").sum()] if dup_check else []),
    )


if __name__ == "__main__":
    raise SystemExit(main())
