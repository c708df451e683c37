"""Write the small example data shipped in examples/data/ (seeded, so it is reproducible).

    python examples/make_example_data.py

A search log of 50 queries: each retrieved 20 products with a model score, and a
judgment file grading 8 products per query from 0 (bad) to 3 (perfect), some of which
the model did not retrieve.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).parent / "data"


def make(seed: int = 7, queries: int = 50, retrieved: int = 20, judged: int = 8) -> None:
    rng = np.random.default_rng(seed)
    run_rows, qrels_rows = [], []
    for q in range(1, queries + 1):
        catalogue = rng.choice(500, size=retrieved + 5, replace=False)
        items = [f"P{i:04d}" for i in catalogue]
        grades = rng.choice([0, 0, 1, 1, 2, 3], size=judged)
        judged_items = rng.choice(items, size=judged, replace=False)
        grade_of = dict(zip(judged_items, grades, strict=True))
        for item in items[:retrieved]:
            # the model is better than random: judged-relevant items tend to score higher
            signal = grade_of.get(item, 0) * 0.6
            score = round(float(signal + rng.normal()), 2)  # 2 decimals: some ties
            run_rows.append((f"q{q:02d}", item, score))
        qrels_rows += [(f"q{q:02d}", item, int(g)) for item, g in grade_of.items()]
    HERE.mkdir(exist_ok=True)
    pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row").write_parquet(
        HERE / "quickstart_run.parquet"
    )
    pl.DataFrame(qrels_rows, schema=["query", "item", "relevance"], orient="row").write_parquet(
        HERE / "quickstart_qrels.parquet"
    )


if __name__ == "__main__":
    make()
