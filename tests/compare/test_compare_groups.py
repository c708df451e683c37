"""compare(by=...), the interval that matches each test, GMAP and counts summarised as
evaluate() does, TestOptions, and bounded memory for the resampling tests.

References: ``scipy.stats.ttest_rel`` (p and its ``confidence_interval``),
``scipy.stats.bootstrap(method="percentile")``, ``scipy.stats.permutation_test``
(one sample, ``permutation_type="samples"``: sign flips) and hand computations.
"""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import polars as pl
import pytest

pytest.importorskip("scipy")

import polars_rankeval as rk
from polars_rankeval import _significance as sig
from polars_rankeval.compare import compare
from polars_rankeval.options import MAX_RESAMPLES, TestOptions
from polars_rankeval.report import build_report, latex_table, write_report
from tests.helpers import LazyModule
from tests.strategies import make_runs

scipy_stats = LazyModule("scipy.stats")  # imported by the first test that uses it

# ---------------------------------------------------------------- by= groups

# Each system ranks each query's one relevant item "r" at the given position (1-based),
# below filler items, so its RR on that query is 1 / position.
POSITIONS = {
    # group x: b finds the item at 1 where a finds it at 2, on 7 of 8 queries
    "x": {"a": [2, 2, 2, 2, 2, 2, 2, 1], "b": [1, 1, 1, 1, 1, 1, 1, 1],
          "c": [2, 1, 2, 2, 1, 2, 2, 1]},
    # group y: b wins and loses as often: differences +-0.5, mean 0
    "y": {"a": [1, 2, 1, 2, 1, 2], "b": [2, 1, 2, 1, 1, 2], "c": [1, 1, 2, 2, 1, 1]},
}  # fmt: skip


def grouped_runs() -> tuple[dict[str, pl.DataFrame], pl.DataFrame]:
    rows: dict[str, list[tuple[str, str, str, float]]] = {"a": [], "b": [], "c": []}
    qrels = []
    for segment, systems in POSITIONS.items():
        for system, positions in systems.items():
            for i, position in enumerate(positions):
                query = f"{segment}{i}"
                ranking = [f"f{j}" for j in range(1, position)] + ["r", "f9"]
                for rank, item in enumerate(ranking, start=1):
                    rows[system].append((query, item, segment, float(10 - rank)))
        qrels += [(f"{segment}{i}", "r", 1) for i in range(len(systems["a"]))]
    schema = ["query", "item", "segment", "score"]
    runs = {s: pl.DataFrame(r, schema=schema, orient="row") for s, r in rows.items()}
    return runs, pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row")


def rr(segment: str, system: str) -> np.ndarray:
    return 1.0 / np.array(POSITIONS[segment][system], dtype=float)


def test_by_groups_test_each_segment_like_ttest_rel():
    runs, qrels = grouped_runs()
    result = compare(runs, qrels, ["RR"], by="segment", baseline="a", correction=None)
    assert result.columns[:3] == ["segment", "system", "baseline"]
    assert result.select("segment", "system").rows() == [
        ("x", "b"), ("x", "c"), ("y", "b"), ("y", "c")
    ]  # fmt: skip
    for row in result.iter_rows(named=True):
        x, y = rr(row["segment"], "a"), rr(row["segment"], row["system"])
        theirs = scipy_stats.ttest_rel(y, x)
        interval = theirs.confidence_interval(0.95)
        assert row["n_queries"] == len(x)
        assert row["mean"] == pytest.approx(y.mean(), rel=1e-12)
        assert row["delta"] == pytest.approx(y.mean() - x.mean(), rel=1e-12, abs=1e-15)
        assert row["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
        assert row["ci_low"] == pytest.approx(interval.low, rel=1e-9)
        assert row["ci_high"] == pytest.approx(interval.high, rel=1e-9)
    b = {r["segment"]: r for r in result.filter(pl.col("system") == "b").iter_rows(named=True)}
    # x: differences 0.5 (7 times) and 0: mean 7/16; squared deviations 7 (1/16)^2 + (7/16)^2
    # = 56/256, variance 56/256/7 = 1/32, standard error sqrt(1/32 / 8) = 1/16: t = 7
    assert b["x"]["delta"] == pytest.approx(7 / 16)
    assert b["x"]["p_value"] < 0.001 and b["x"]["significant"]
    # y: differences -0.5, 0.5, -0.5, 0.5, 0, 0: mean 0, t = 0, p = 1
    assert b["y"]["delta"] == pytest.approx(0.0, abs=1e-15)
    assert b["y"]["p_value"] == pytest.approx(1.0) and not b["y"]["significant"]


def test_by_correction_family_is_every_comparison_of_a_measure_in_every_group():
    runs, qrels = grouped_runs()
    plain = compare(runs, qrels, ["RR", "P@1"], by=["segment"], correction=None)
    for correction in ("bonferroni", "holm", "bh"):
        result = compare(runs, qrels, ["RR", "P@1"], by=["segment"], correction=correction)
        for measure in ("RR", "P@1"):
            part = result.filter(pl.col("measure") == measure)
            # 2 groups x 3 pairs of systems = 6 p-values in one family
            assert part.height == 6
            p = plain.filter(pl.col("measure") == measure)["p_value"].to_numpy()
            expected = sig.adjust(p, correction)
            assert part["p_value_corrected"].to_numpy() == pytest.approx(expected)
            if correction == "bonferroni":
                assert part["p_value_corrected"].to_numpy() == pytest.approx(np.minimum(1, 6 * p))
    assert set(result["correction"]) == {"bh"}


def test_by_without_groups_splitting_equals_the_plain_comparison():
    qrels, runs = make_runs(n_queries=12)
    tagged = {k: v.with_columns(day=pl.lit("mon")) for k, v in runs.items()}
    grouped = compare(tagged, qrels, ["AP"], by="day", baseline="bm25")
    plain = compare(runs, qrels, ["AP"], baseline="bm25")
    assert grouped["day"].to_list() == ["mon", "mon"]
    assert grouped.drop("day").equals(plain)


def test_by_bad_arguments_and_small_groups():
    runs, qrels = grouped_runs()
    with pytest.raises(rk.InputError, match="by='query' is the query column"):
        compare(runs, qrels, ["RR"], by="query")
    with pytest.raises(rk.InputError, match="name of a result column"):
        compare({k: v.rename({"segment": "measure"}) for k, v in runs.items()}, qrels, ["RR"],
                by="measure")  # fmt: skip
    with pytest.raises(rk.InputError, match="column name or a list"):
        compare(runs, qrels, ["RR"], by=[3])
    # a group where a pair shares one query: named in the error
    small = {k: v.filter(pl.col("query").is_in(["x0", "x1", "y0"])) for k, v in runs.items()}
    with pytest.raises(
        rk.InputError, match=r"only 1 evaluated query in common in group \{'segment': 'y'\}"
    ):
        compare(small, qrels, ["RR"], by="segment")


def test_report_with_by_has_a_table_per_group(tmp_path):
    runs, qrels = grouped_runs()
    report = build_report(runs, qrels, ["RR"], by="segment", baseline="a", curves=False)
    assert report.summary.columns[:2] == ["segment", "system"]
    text = report.markdown()
    assert text.count("| # | System | RR |") == 2
    assert "**segment = x**" in text and "**segment = y**" in text
    assert "over the comparisons of each measure in all groups" in text
    # b beats a in group x only: a's letter on b's x value
    x_table = text.split("**segment = y**")[0]
    assert "| b | b | **1.0000**<sup>a</sup> |" in x_table
    assert "<sup>" not in text.split("**segment = y**")[1].split("Best value")[0]
    assert latex_table(report.comparison).count(r"\begin{table}") == 2
    path = write_report(tmp_path / "r.md", runs, qrels, ["RR"], by="segment")
    assert path.read_text().count("| # | System | RR |") == 2


def test_html_report_with_by(tmp_path):
    pytest.importorskip("matplotlib")
    runs, qrels = grouped_runs()
    path = write_report(tmp_path / "r.html", runs, qrels, ["RR"], by="segment", baseline="a")
    page = path.read_text()
    assert "<h3>segment = x</h3>" in page and "<h3>segment = y</h3>" in page
    assert "<th>segment</th>" in page
    assert "95% t interval of Δ" in page


# ---------------------------------------------------------------- the interval of each test


def test_each_test_reports_its_own_interval_labelled():
    qrels, runs = make_runs(n_queries=25, seed=3)
    labels = {}
    for test in ("t", "randomization", "bootstrap"):
        result = compare(runs, qrels, ["AP"], baseline="bm25", test=test, n_resamples=2000,
                         alpha=0.1)  # fmt: skip
        labels[test] = result.select("test", "ci_method", "ci_level").unique().rows()
    assert labels == {
        "t": [("t", "t", 0.9)],
        "randomization": [("randomization", "randomization (inverted)", 0.9)],
        "bootstrap": [("bootstrap", "bootstrap percentile", 0.9)],
    }


@pytest.mark.parametrize(("n", "seed"), [(6, 1), (9, 2), (12, 3)])
def test_randomization_interval_is_the_inverted_exact_test(n, seed):
    """At each end of the interval scipy's exact sign-flip test of d - end does not
    reject (p > alpha); a hair outside it does (p <= alpha)."""
    d = np.random.default_rng(seed).normal(0.05, 0.2, n)
    (result,) = sig.run_tests(d[None, :], test="randomization", alpha=0.1, n_resamples=10**4,
                              seed=0)  # fmt: skip

    def p(shift: float) -> float:
        return scipy_stats.permutation_test(
            (d - shift,), np.mean, permutation_type="samples", n_resamples=10**4, vectorized=True
        ).pvalue

    assert result.p_value == pytest.approx(p(0.0), rel=1e-12)
    assert result.ci_low < d.mean() < result.ci_high
    eps = 1e-9 * (1 + abs(d).max())
    assert p(result.ci_low) > 0.1 and p(result.ci_low - eps) <= 0.1
    assert p(result.ci_high) > 0.1 and p(result.ci_high + eps) <= 0.1


def test_randomization_interval_with_too_few_queries_is_infinite():
    # n = 4: the smallest exact p is 2/16 = 0.125 > 0.05, so no shift is ever rejected
    (result,) = sig.run_tests(np.array([[0.1, 0.2, 0.3, 0.4]]), test="randomization",
                              alpha=0.05, n_resamples=100, seed=0)  # fmt: skip
    assert result.ci_low == -math.inf and result.ci_high == math.inf


def test_randomization_interval_agrees_with_its_p_value():
    """Sampled sign flips: 0 is outside the interval exactly when p <= alpha."""
    rng = np.random.default_rng(7)
    batch = rng.normal(0.0, 0.1, size=(40, 30)) + np.linspace(-0.06, 0.06, 40)[:, None]
    results = sig.run_tests(batch, test="randomization", alpha=0.05, n_resamples=3000, seed=1)
    outcomes = {(r.p_value <= 0.05, not (r.ci_low <= 0 <= r.ci_high)) for r in results}
    assert outcomes <= {(True, True), (False, False)}
    assert len(outcomes) == 2  # both kinds occur


def test_bootstrap_interval_is_scipys_percentile_interval():
    """Within resampling error: 2 x 10^4 resamples each; 5% of the interval's width is
    about 7 Monte Carlo standard errors of a 2.5% quantile's position."""
    qrels, runs = make_runs(n_queries=40, seed=5)
    result = compare(runs, qrels, ["AP"], baseline="bm25", test="bootstrap", n_resamples=20_000)
    row = result.filter(pl.col("system") == "dense").row(0, named=True)
    x = rk.evaluate(runs["bm25"], qrels, ["AP"], per_query=True).sort("query")["value"]
    y = rk.evaluate(runs["dense"], qrels, ["AP"], per_query=True).sort("query")["value"]
    theirs = scipy_stats.bootstrap(
        ((y - x).to_numpy(),), np.mean, method="percentile", n_resamples=20_000, random_state=4,
        vectorized=True,
    ).confidence_interval  # fmt: skip
    width = theirs.high - theirs.low
    assert abs(row["ci_low"] - theirs.low) <= 0.05 * width
    assert abs(row["ci_high"] - theirs.high) <= 0.05 * width


# ---------------------------------------------------------------- GMAP and counts


def test_gmap_is_a_geometric_mean_in_compare_and_reports():
    qrels, runs = make_runs(n_queries=15, seed=2)
    # one query where bm25 finds nothing relevant: AP 0, floored at 1e-5 by gm_map
    runs["bm25"] = runs["bm25"].with_columns(
        pl.when(pl.col("query") == "q03").then(pl.lit("zz") + pl.col("item"))
        .otherwise(pl.col("item")).alias("item")
    )  # fmt: skip
    result = compare(runs, qrels, ["GMAP", "AP"], baseline="bm25", correction=None)
    for system in ("bm25", "dense"):
        ap = rk.evaluate(runs[system], qrels, ["AP"], per_query=True)["value"].to_numpy()
        by_hand = math.exp(np.mean(np.log(np.maximum(ap, 1e-5))))  # trec_eval gm_map
        summary = rk.evaluate(runs[system], qrels, ["GMAP"])["value"].item()
        assert summary == pytest.approx(by_hand, rel=1e-12)
        column = "baseline_mean" if system == "bm25" else "mean"
        got = result.filter(pl.col("measure") == "GMAP", pl.col("system") == "dense")[column]
        assert got.item() == pytest.approx(by_hand, rel=1e-12)
        assert got.item() < np.mean(ap)  # not the arithmetic mean
    gmap = result.filter(pl.col("measure") == "GMAP", pl.col("system") == "dense").row(
        0, named=True
    )
    assert gmap["delta"] == pytest.approx(gmap["mean"] - gmap["baseline_mean"], rel=1e-12)
    # the t-test on log(max(AP, 1e-5)); its interval mapped by baseline * (exp(.) - 1)
    log_ap = {s: np.log(np.maximum(rk.evaluate(runs[s], qrels, ["AP"], per_query=True)
                                   .sort("query")["value"].to_numpy(), 1e-5))
              for s in ("bm25", "dense")}  # fmt: skip
    theirs = scipy_stats.ttest_rel(log_ap["dense"], log_ap["bm25"])
    interval = theirs.confidence_interval(0.95)
    assert gmap["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
    base = gmap["baseline_mean"]
    assert gmap["ci_low"] == pytest.approx(base * math.expm1(interval.low), rel=1e-9)
    assert gmap["ci_high"] == pytest.approx(base * math.expm1(interval.high), rel=1e-9)
    report = build_report(runs, qrels, ["GMAP"], baseline="bm25", curves=False)
    summary_row = report.summary.filter(pl.col("system") == "dense").row(0, named=True)
    assert summary_row["mean"] == pytest.approx(gmap["mean"], rel=1e-12)
    assert summary_row["ci_low"] < summary_row["mean"] < summary_row["ci_high"]


def test_counts_are_summed_as_evaluate_sums_them():
    qrels, runs = make_runs(n_queries=10, seed=4)
    result = compare(runs, qrels, ["NumRelRet"], baseline="bm25", correction=None)
    row = result.filter(pl.col("system") == "dense").row(0, named=True)
    for system, column in (("bm25", "baseline_mean"), ("dense", "mean")):
        assert row[column] == rk.evaluate(runs[system], qrels, ["NumRelRet"])["value"].item()
    x = rk.evaluate(runs["bm25"], qrels, ["NumRelRet"], per_query=True).sort("query")["value"]
    y = rk.evaluate(runs["dense"], qrels, ["NumRelRet"], per_query=True).sort("query")["value"]
    interval = scipy_stats.ttest_rel(y.to_numpy(), x.to_numpy()).confidence_interval(0.95)
    # the interval of the sum of differences: n times that of their mean
    assert row["ci_low"] == pytest.approx(10 * interval.low, rel=1e-9)
    assert row["ci_high"] == pytest.approx(10 * interval.high, rel=1e-9)


# ---------------------------------------------------------------- options


def test_test_options_are_checked_once_with_the_same_messages():
    assert TestOptions().test == "t"
    cases = [
        ({"test": "wilcoxon"}, "test='wilcoxon'"),
        ({"correction": "fdr"}, "correction='fdr'"),
        ({"alpha": 1.0}, "alpha"),
        ({"alpha": True}, "alpha"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"n_resamples": 2.5}, "n_resamples"),
        ({"seed": -1}, "seed"),
        ({"baseline": 3}, "baseline"),
    ]
    for kwargs, message in cases:
        with pytest.raises(rk.RankevalError, match=message):
            TestOptions(**kwargs)
        with pytest.raises(rk.RankevalError, match=message):
            compare({"a": pl.DataFrame(), "b": pl.DataFrame()}, None, ["AP"], **kwargs)
    with pytest.raises(rk.RankevalError, match="baseline 'z' is not a system"):
        TestOptions(baseline="z").check_baseline(["a", "b"])
    with pytest.raises(AttributeError):
        TestOptions().alpha = 0.1  # type: ignore[misc]  # frozen


# ---------------------------------------------------------------- bounded resources


def test_huge_n_resamples_is_refused_before_anything_is_allocated():
    qrels, runs = make_runs(n_queries=2, depth=3)
    tracemalloc.start()
    started = time.perf_counter()
    with pytest.raises(rk.RankevalError, match="more than 10_000_000"):
        compare(runs, qrels, ["AP"], test="bootstrap", n_resamples=10**9)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 16 * 2**20


@pytest.mark.parametrize(
    ("test", "n", "resamples"),
    [("bootstrap", 2, 10**6), ("bootstrap", 500, 20_000), ("randomization", 20, 2**20),
     ("randomization", 300, 50_000)],
)  # fmt: skip
def test_resampling_memory_is_bounded(test, n, resamples):
    """Peak traced memory <= the kept values (bootstrap: 8 bytes x resamples x the
    comparisons of one pass) + 48 MiB (blocks of about 24 MiB and their temporaries).

    Measured (3 comparisons, numpy 2): 56, 25, 37, 25 MiB; before the blocks were
    bounded: 76, 46, 480, 48 MiB (the exact randomization test held all 2^20 x 20 sign
    patterns at once; a bootstrap of 10^9 resamples was OOM-killed at 23 GB).
    """
    d = np.random.default_rng(0).normal(0.01, 0.1, size=(3, n))
    kept = 8 * resamples * min(3, sig._chunk(n, resamples)) if test == "bootstrap" else 0
    tracemalloc.start()
    results = sig.run_tests(d, test=test, alpha=0.05, n_resamples=resamples, seed=0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(results) == 3 and all(0 < r.p_value <= 1 for r in results)
    assert peak < kept + 48 * 2**20, f"{peak / 2**20:.0f} MiB"


def test_max_resamples_is_accepted():
    assert TestOptions(n_resamples=MAX_RESAMPLES).n_resamples == 10**7
