"""compare(): paired tests against scipy.stats, corrections, shapes and bad input.

scipy is the reference (a test-only dependency): ``ttest_rel`` for the t-test and its
interval, ``permutation_test(permutation_type="samples")`` for the sign-flip
randomization test (exact when 2^n <= n_resamples, like ours), ``bootstrap(method=
"percentile")`` for the bootstrap interval, ``false_discovery_control`` for BH.
Resampled results agree within Monte Carlo error: for a p-value estimated from R
resamples the standard error is sqrt(p (1 - p) / R); we allow 5 of them plus 3/R.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

pytest.importorskip("scipy")

import polars_rankeval as rk
from polars_rankeval import _significance as sig
from polars_rankeval.cli import main
from polars_rankeval.compare import compare
from tests.helpers import LazyModule
from tests.strategies import make_runs

scipy_stats = LazyModule("scipy.stats")  # imported by the first test that uses it

R = 10_000


def p_tolerance(p: float, resamples: int = R) -> float:
    return 5 * math.sqrt(max(p * (1 - p), 1e-4) / resamples) + 3 / resamples


def differences(n: int, shift: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    y = np.clip(x + rng.normal(shift, 0.15, n), 0, 1)
    return x, y


def mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


# ---------------------------------------------------------------- the t distribution


@pytest.mark.parametrize("df", [1, 2, 3, 9, 29, 99, 4999])
def test_t_distribution_matches_scipy(df):
    for t in [0.0, 0.1, 0.7, 1.96, 2.5, 4.0, 12.0, 60.0]:
        ours, theirs = sig.t_two_sided_p(t, df), 2 * scipy_stats.t.sf(t, df)
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-300)
    for q in [0.5, 0.9, 0.975, 0.995, 0.025]:
        assert sig.t_ppf(q, df) == pytest.approx(scipy_stats.t.ppf(q, df), rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------- the tests against scipy


@pytest.mark.parametrize(("n", "shift", "seed"), [(5, 0.1, 1), (30, 0.05, 2), (200, 0.0, 3)])
def test_t_test_equals_ttest_rel(n, shift, seed):
    x, y = differences(n, shift, seed)
    ours = sig.paired_t(y - x, alpha=0.05)
    theirs = scipy_stats.ttest_rel(y, x)
    interval = theirs.confidence_interval(confidence_level=0.95)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9)
    assert ours.ci_low == pytest.approx(interval.low, rel=1e-9)
    assert ours.ci_high == pytest.approx(interval.high, rel=1e-9)


@pytest.mark.parametrize(("n", "shift", "seed"), [(6, 0.1, 4), (10, 0.05, 5), (13, 0.0, 6)])
def test_randomization_is_exact_for_few_queries_and_equals_scipy(n, shift, seed):
    x, y = differences(n, shift, seed)
    ours = sig.randomization(y - x, n_resamples=R, rng=np.random.default_rng(0))
    theirs = scipy_stats.permutation_test(
        (y, x), mean_diff, permutation_type="samples", n_resamples=R, vectorized=True
    )
    assert ours == pytest.approx(theirs.pvalue, rel=1e-12)
    assert ours * 2**n == pytest.approx(round(ours * 2**n))  # a count of sign patterns


@pytest.mark.parametrize(("n", "shift", "seed"), [(25, 0.06, 7), (50, 0.02, 8), (400, 0.01, 9)])
def test_randomization_agrees_with_scipy_within_resampling_error(n, shift, seed):
    x, y = differences(n, shift, seed)
    ours = sig.randomization(y - x, n_resamples=R, rng=np.random.default_rng(0))
    theirs = scipy_stats.permutation_test(
        (y, x), mean_diff, permutation_type="samples", n_resamples=R, vectorized=True,
        random_state=1,
    ).pvalue  # fmt: skip
    assert abs(ours - theirs) <= p_tolerance(theirs)


@pytest.mark.parametrize(("n", "shift", "seed"), [(20, 0.05, 10), (60, 0.01, 11), (300, 0.02, 12)])
def test_bootstrap_agrees_with_scipy_within_resampling_error(n, shift, seed):
    x, y = differences(n, shift, seed)
    d = y - x
    ours = sig.bootstrap(d, alpha=0.05, n_resamples=R, rng=np.random.default_rng(0))
    theirs = scipy_stats.bootstrap(
        (d,), np.mean, method="percentile", n_resamples=R, random_state=1, vectorized=True
    )
    width = theirs.confidence_interval.high - theirs.confidence_interval.low
    assert abs(ours.ci_low - theirs.confidence_interval.low) <= 0.05 * width
    assert abs(ours.ci_high - theirs.confidence_interval.high) <= 0.05 * width
    # the p-value, from scipy's bootstrap distribution shifted to the null
    means = theirs.bootstrap_distribution
    observed = d.mean()
    reference = (1 + np.sum(np.abs(means - observed) >= abs(observed))) / (1 + R)
    assert abs(ours.p_value - reference) <= p_tolerance(reference)


def test_resampling_is_seeded_and_blocked_without_changing_results(monkeypatch):
    x, y = differences(300, 0.01, 13)
    d = y - x
    first = sig.randomization(d, n_resamples=3000, rng=np.random.default_rng(5))
    again = sig.randomization(d, n_resamples=3000, rng=np.random.default_rng(5))
    assert first == again
    boot = sig.bootstrap_means(d, n_resamples=3000, rng=np.random.default_rng(5))
    monkeypatch.setattr(sig, "_BLOCK_CELLS", 300 * 7)  # blocks of 7 resamples
    assert sig.bootstrap_means(d, n_resamples=3000, rng=np.random.default_rng(5)).shape == (3000,)
    assert boot.shape == (3000,)


def test_degenerate_differences():
    assert sig.paired_t(np.zeros(5), alpha=0.05).p_value == 1.0
    assert sig.paired_t(np.full(5, 0.1), alpha=0.05).p_value == 0.0
    assert math.isnan(sig.effect_size(np.full(5, 0.1)))
    assert sig.randomization(np.zeros(5), n_resamples=R, rng=np.random.default_rng(0)) == 1.0
    with pytest.raises(ValueError, match="at least 2"):
        sig.paired_t(np.array([0.3]), alpha=0.05)


def test_effect_size_is_paired_cohens_d():
    d = np.array([0.1, 0.3, -0.1, 0.2])
    assert sig.effect_size(d) == pytest.approx(d.mean() / d.std(ddof=1))


# ---------------------------------------------------------------- corrections


def test_corrections_hand_computed():
    p = np.array([0.01, 0.04, 0.03, 0.20])
    # bonferroni: p * 4, capped at 1
    assert sig.adjust(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.80])
    # holm: sorted 0.01, 0.03, 0.04, 0.20 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.20,
    # made monotone: 0.04, 0.09, 0.09, 0.20
    assert sig.adjust(p, "holm") == pytest.approx([0.04, 0.09, 0.09, 0.20])
    # bh: sorted times 4/1, 4/2, 4/3, 4/4 = 0.04, 0.06, 0.0533, 0.20, made monotone from the
    # top: 0.04, 0.0533, 0.0533, 0.20
    assert sig.adjust(p, "bh") == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.20])
    assert sig.adjust(p, None) == pytest.approx(p)
    with_nan = sig.adjust(np.array([0.01, np.nan, 0.02]), "bonferroni")
    assert with_nan[0] == pytest.approx(0.02) and math.isnan(with_nan[1])


def test_bh_equals_scipy():
    p = np.random.default_rng(3).random(17) ** 3
    assert sig.adjust(p, "bh") == pytest.approx(scipy_stats.false_discovery_control(p))


# ---------------------------------------------------------------- compare()


MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


def test_compare_t_test_equals_scipy_on_per_query_values():
    qrels, runs = make_runs()
    result = compare(runs, qrels, MEASURES, baseline="bm25", test="t", correction=None)
    assert result.height == 2 * len(MEASURES)
    for row in result.iter_rows(named=True):
        a = rk.evaluate(runs["bm25"], qrels, [row["measure"]], per_query=True).sort("query")
        b = rk.evaluate(runs[row["system"]], qrels, [row["measure"]], per_query=True).sort("query")
        x, y = a["value"].to_numpy(), b["value"].to_numpy()
        theirs = scipy_stats.ttest_rel(y, x)
        interval = theirs.confidence_interval(0.95)
        assert row["baseline"] == "bm25"
        assert row["n_queries"] == 30
        assert row["mean"] == pytest.approx(y.mean())
        assert row["baseline_mean"] == pytest.approx(x.mean())
        assert row["delta"] == pytest.approx(y.mean() - x.mean())
        assert row["p_value"] == pytest.approx(theirs.pvalue, rel=1e-9)
        assert row["p_value_corrected"] == row["p_value"]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((interval.low, interval.high))
        assert row["effect_size"] == pytest.approx((y - x).mean() / (y - x).std(ddof=1))
        assert row["significant"] == (row["p_value"] < 0.05)
    # dense is much better than bm25 on AP with 30 queries
    dense_ap = result.filter(pl.col("system") == "dense", pl.col("measure") == "AP").row(
        0, named=True
    )
    assert dense_ap["delta"] > 0 and dense_ap["significant"]


def test_compare_randomization_and_bootstrap_against_scipy():
    qrels, runs = make_runs(seed=1)
    for test in ("randomization", "bootstrap"):
        result = compare(runs, qrels, ["AP"], baseline="bm25", test=test, correction=None)
        row = result.filter(pl.col("system") == "noisy").row(0, named=True)
        x = rk.evaluate(runs["bm25"], qrels, ["AP"], per_query=True).sort("query")["value"]
        y = rk.evaluate(runs["noisy"], qrels, ["AP"], per_query=True).sort("query")["value"]
        d = (y - x).to_numpy()
        boot = scipy_stats.bootstrap(
            (d,), np.mean, method="percentile", n_resamples=R, random_state=2, vectorized=True
        )
        width = boot.confidence_interval.high - boot.confidence_interval.low
        assert abs(row["ci_low"] - boot.confidence_interval.low) <= 0.05 * width
        assert abs(row["ci_high"] - boot.confidence_interval.high) <= 0.05 * width
        if test == "randomization":
            theirs = scipy_stats.permutation_test(
                (y.to_numpy(), x.to_numpy()), mean_diff, permutation_type="samples",
                n_resamples=R, vectorized=True, random_state=2,
            ).pvalue  # fmt: skip
            assert abs(row["p_value"] - theirs) <= p_tolerance(theirs)


def test_every_pair_without_baseline_and_corrections_per_measure():
    qrels, runs = make_runs()
    result = compare(runs, qrels, MEASURES, correction="holm")
    assert result.height == 3 * len(MEASURES)
    pairs = result.filter(pl.col("measure") == "AP").select("baseline", "system").rows()
    assert pairs == [("bm25", "dense"), ("bm25", "noisy"), ("dense", "noisy")]
    for measure in MEASURES:
        part = result.filter(pl.col("measure") == measure)
        expected = sig.adjust(part["p_value"].to_numpy(), "holm")
        assert part["p_value_corrected"].to_numpy() == pytest.approx(expected)
    assert result.columns == [
        "system", "baseline", "measure", "n_queries", "mean", "baseline_mean", "delta",
        "p_value", "p_value_corrected", "effect_size", "ci_low", "ci_high", "significant",
        "test", "correction", "ci_method", "ci_level",
    ]  # fmt: skip


def test_one_frame_with_a_system_column_and_lazy_inputs_give_the_same_result():
    qrels, runs = make_runs(n_queries=12)
    by_mapping = compare(runs, qrels, ["AP", "RR"], baseline="dense")
    stacked = pl.concat([r.with_columns(team=pl.lit(n)) for n, r in runs.items()])
    by_column = compare(stacked.lazy(), qrels.lazy(), ["AP", "RR"], baseline="dense", system="team")
    assert_frame_equal(by_mapping, by_column)


def test_resampling_results_are_reproducible_and_depend_on_the_seed():
    qrels, runs = make_runs(n_queries=40)
    one = compare(runs, qrels, ["AP"], test="randomization", n_resamples=2000, seed=3)
    two = compare(runs, qrels, ["AP"], test="randomization", n_resamples=2000, seed=3)
    three = compare(runs, qrels, ["AP"], test="bootstrap", n_resamples=2000, seed=4)
    # equal up to float noise: the core's per-query sums may differ in the last bit
    assert_frame_equal(one, two, check_exact=False, rel_tol=1e-12)
    assert not one["p_value"].equals(three["p_value"])


def test_queries_only_one_system_has_are_left_out_with_a_warning():
    qrels, runs = make_runs(n_queries=10)
    runs["bm25"] = runs["bm25"].filter(pl.col("query") != "q03")
    with pytest.warns(rk.RankevalWarning, match="1 query is evaluated for only one"):
        result = compare(runs, qrels, ["AP"], baseline="bm25")
    assert result["n_queries"].to_list() == [9, 9]


def test_complete_pairs_every_qrels_query():
    qrels, runs = make_runs(n_queries=10)
    runs["bm25"] = runs["bm25"].filter(pl.col("query") != "q03")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare(runs, qrels, ["AP"], baseline="bm25", complete=True)
    assert result["n_queries"].to_list() == [10, 10]


# ---------------------------------------------------------------- bad input


def test_unknown_baseline_test_and_correction():
    qrels, runs = make_runs(n_queries=5)
    with pytest.raises(rk.RankevalError, match="baseline 'bm26' is not a system.*bm25"):
        compare(runs, qrels, ["AP"], baseline="bm26")
    with pytest.raises(rk.RankevalError, match="test='wilcoxon'.*randomization"):
        compare(runs, qrels, ["AP"], test="wilcoxon")
    with pytest.raises(rk.RankevalError, match="correction='fdr'"):
        compare(runs, qrels, ["AP"], correction="fdr")
    with pytest.raises(rk.RankevalError, match="alpha"):
        compare(runs, qrels, ["AP"], alpha=1.5)
    with pytest.raises(rk.RankevalError, match="n_resamples"):
        compare(runs, qrels, ["AP"], n_resamples=0)
    with pytest.raises(rk.MeasureError):
        compare(runs, qrels, ["NoSuchMeasure"])


def test_systems_without_common_queries():
    qrels, runs = make_runs(n_queries=6)
    runs["bm25"] = runs["bm25"].filter(pl.col("query").is_in(["q00", "q01", "q02"]))
    runs["dense"] = runs["dense"].filter(pl.col("query").is_in(["q03", "q04", "q05"]))
    with pytest.raises(rk.InputError, match="'bm25' and 'dense' have no evaluated query in common"):
        compare({"bm25": runs["bm25"], "dense": runs["dense"]}, qrels, ["AP"])


def test_bad_runs_arguments():
    qrels, runs = make_runs(n_queries=4)
    with pytest.raises(rk.InputError, match="at least two systems"):
        compare({"bm25": runs["bm25"]}, qrels, ["AP"])
    with pytest.raises(rk.InputError, match="no 'system' column"):
        compare(runs["bm25"], qrels, ["AP"])
    with pytest.raises(rk.InputError, match="already has a 'system' column"):
        compare({"a": runs["bm25"].with_columns(system=pl.lit("x")), "b": runs["dense"]}, qrels)
    with pytest.raises(rk.InputError, match="mapping"):
        compare([runs["bm25"], runs["dense"]], qrels)


# ---------------------------------------------------------------- the command


@pytest.fixture
def run_files(tmp_path):
    qrels, runs = make_runs(n_queries=15)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {i} {r}\n" for q, i, r in qrels.iter_rows()))
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {i} 0 {s:.6f} {name}\n" for q, i, s in run.iter_rows()))
        paths.append(path)
    return qrels_path, paths, qrels, runs


def test_compare_command(capsys, run_files):
    qrels_path, paths, qrels, runs = run_files
    code = main(["compare", str(qrels_path), *map(str, paths), "--baseline", "bm25",
                 "-m", "map", "-m", "P.10", "--format", "csv"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    frame = pl.read_csv(out.encode())
    assert set(frame["system"]) == {"dense", "noisy"}
    assert frame["measure"].unique(maintain_order=True).to_list() == ["map", "P_10"]
    rounded = {k: v for k, v in runs.items()}
    expected = compare(
        {k: v.with_columns(pl.col("score").round(6)) for k, v in rounded.items()},
        qrels, ["map", "P_10"], baseline="bm25",
    )  # fmt: skip
    assert frame["p_value"].to_list() == pytest.approx(expected["p_value"].to_list())

    code = main(["compare", str(qrels_path), *map(str, paths)])
    out, _ = capsys.readouterr()
    assert code == 0 and out.splitlines()[0].split()[:3] == ["measure", "system", "baseline"]


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--baseline", "bm26"], 2, "--baseline 'bm26' is not a run"),
        (["--test", "wilcoxon"], 2, "invalid choice"),
        (["--correction", "fdr"], 2, "invalid choice"),
        (["--alpha", "2"], 2, "alpha"),
        (["--report", "out.pdf"], 2, ".html, .md or .tex"),
        (["-m", "runid"], 2, "no measure"),
    ],
)
def test_compare_command_usage_errors(capsys, run_files, extra, code, message):
    qrels_path, paths, _, _ = run_files
    assert main(["compare", str(qrels_path), *map(str, paths), *extra]) == code
    assert message in capsys.readouterr().err


def test_compare_command_data_errors(capsys, run_files, tmp_path):
    qrels_path, paths, _, _ = run_files
    assert main(["compare", str(qrels_path), str(paths[0])]) == 2  # one run
    assert "at least two runs" in capsys.readouterr().err
    other = tmp_path / "other.run"
    other.write_text("zz Q0 d001 1 1.0 other\nzz Q0 d002 2 0.5 other\n")
    assert main(["compare", str(qrels_path), str(paths[0]), str(other)]) == 1
    err = capsys.readouterr().err
    assert "no evaluated query" in err or "no query" in err
    broken = tmp_path / "broken.run"
    broken.write_text("q00 Q0 d001 1 1.0 x\nq00 Q0 d002\n")
    assert main(["compare", str(qrels_path), str(paths[0]), str(broken)]) == 1
    assert f"{broken}, line 2" in capsys.readouterr().err


def test_a_comparison_gets_the_same_result_alone_or_in_a_batch():
    rng = np.random.default_rng(21)
    batch = rng.normal(0.01, 0.1, size=(4, 80))
    for test in ("randomization", "bootstrap"):
        together = sig.run_tests(batch, test=test, alpha=0.05, n_resamples=3000, seed=9)
        for row, result in zip(batch, together):
            alone = sig.run_tests(row[None, :], test=test, alpha=0.05, n_resamples=3000, seed=9)
            assert alone[0].p_value == result.p_value
            assert alone[0].ci_low == pytest.approx(result.ci_low, rel=1e-12)
