"""Compare three retrieval systems with significance tests, and write a report.

    python examples/compare_systems.py [REPORT.html]

The data in ``examples/data/compare/`` is small and synthetic (seeded; rebuild it with
``python examples/compare_systems.py --regenerate``): 30 queries, graded judgments
(0, 1, 2) and three TREC run files.  ``bm25`` and ``dense`` score each candidate from
its true grade plus independent noise (dense with a stronger signal); ``hybrid``
averages their scores.  The same comparison on the command line:

    rankeval compare examples/data/compare/qrels.txt examples/data/compare/*.run \\
        --baseline bm25 -m map -m ndcg_cut.10 -m P.10 -m recip_rank --report report.html
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np
import polars as pl

import polars_rankeval as rk
from polars_rankeval.compare import compare
from polars_rankeval.report import markdown_table, write_report

DATA = Path(__file__).parent / "data" / "compare"
SYSTEMS = ("bm25", "dense", "hybrid")


def make_data(directory: Path = DATA, *, seed: int = 42, queries: int = 30) -> None:
    """Write qrels.txt and one ``<system>.run`` per system (TREC formats) to directory."""
    rng = np.random.default_rng(seed)
    candidates, depth = 60, 25
    qrels_lines, runs = [], {name: [] for name in SYSTEMS}
    for q in range(1, queries + 1):
        query = f"q{q:02d}"
        items = [f"D{i:04d}" for i in rng.choice(5000, size=candidates, replace=False)]
        grades = rng.choice([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2], size=candidates)
        judged = grades > 0
        judged[rng.choice(candidates, size=15, replace=False)] = True  # judged non-relevant
        qrels_lines += [f"{query} 0 {it} {g}\n" for it, g, j in zip(items, grades, judged) if j]
        bm25 = 1.0 * grades + rng.normal(0, 1.5, candidates)
        dense = 1.2 * grades + rng.normal(0, 1.5, candidates)
        for name, score in (("bm25", bm25), ("dense", dense), ("hybrid", (bm25 + dense) / 2)):
            order = np.argsort(-score, kind="stable")[:depth]
            runs[name] += [
                f"{query} Q0 {items[i]} {rank} {score[i]:.4f} {name}\n"
                for rank, i in enumerate(order, start=1)
            ]
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "qrels.txt").write_text("".join(qrels_lines))
    for name, lines in runs.items():
        (directory / f"{name}.run").write_text("".join(lines))


def main(report_path: Path | None = None) -> None:
    qrels = rk.read_trec_qrels(DATA / "qrels.txt")
    runs = {name: rk.read_trec_run(DATA / f"{name}.run") for name in SYSTEMS}
    measures = ["AP", "nDCG@10", "P@10", "RR"]

    # 1. one evaluation per system
    for name, run in runs.items():
        values = rk.evaluate(run, qrels, measures).collect()
        print(name, dict(values.iter_rows()))

    # 2. paired tests against the baseline (t-test, Holm correction over the comparisons)
    comparison = compare(runs, qrels, measures, baseline="bm25")
    with pl.Config(tbl_cols=-1, tbl_width_chars=140, float_precision=4):
        print(comparison.select("system", "measure", "mean", "delta", "p_value_corrected",
                                "effect_size", "significant"))  # fmt: skip

    # 3. the ranx-style table, with a randomization test this time
    comparison = compare(runs, qrels, measures, baseline="bm25", test="randomization")
    print(markdown_table(comparison, test="randomization"))

    # 4. an HTML report with plots (needs the `report` extra: matplotlib)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: pip install 'polars_rankeval[report]'")
        return
    if report_path is None:
        report_path = Path(tempfile.mkdtemp()) / "compare_systems.html"
    write_report(report_path, runs, qrels, measures, baseline="bm25", title="Three systems")
    print(f"report written to {report_path}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--regenerate"]:
        make_data()
        print(f"wrote {DATA}")
    else:
        main(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
