"""Conformance with trec_eval's own test suite (usnistgov/trec_eval ``test/``, v10.0).

Every line of trec_eval's expected outputs whose measure we support is compared, per
query and ``all``, to the 4 printed decimals: ``|ours - expected| <= 5e-5``; counts
(``num_ret``, ``num_rel``, ``num_rel_ret``) exactly.  See
``shared/conformance/trec_eval/README.md`` for the commands behind each output file.

The data lives beside the repository (``<repo>/../shared/conformance``; CI clones the
repository with ``shared/`` next to it).  Without it these tests skip, saying so.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankeval as rk
from tests.helpers import CONFORMANCE

TREC = CONFORMANCE / "trec_eval"

pytestmark = pytest.mark.skipif(
    not TREC.is_dir(),
    reason=f"trec_eval conformance data not found at {TREC} (clone shared/ beside the repo)",
)

# trec_eval measure names we implement: every name the parser accepts (so a measure
# added to the registry with its trec_eval alias is checked here without an edit); the
# output's `measure` column is the name as given
def supported(name: str) -> bool:
    try:
        rk.parse_measure(name)
    except rk.MeasureError:
        return False
    return True


# counts print as integers
COUNTS = {"num_ret", "num_rel", "num_rel_ret", "num_q", "num_nonrel_judged_ret"}
TOLERANCE = 5e-5  # values are printed with %6.4f

# Values matched per expected-output file (supported measures only, per query + all).
# all_trec has 49 supported measures (map, Rprec, bpref, recip_rank, ndcg, set_P,
# set_recall, 3 counts, 9 each of P/recall/map_cut/ndcg_cut, success_1/5/10), printed
# for 3 queries + all.  Since issue #5 also: Rprec_mult_0.20 ... 2.00, set_F,
# iprec_at_recall_0.00 ... 1.00, 11pt_avg and infAP (24 measures printed per query +
# all), num_q and gm_map (printed in `all` only), and trec_eval 10's unj_5/10/20, rbp
# and rbp_resid (5 measures per query + all, not in 9.x).
NEW = 24 * 4 + 2
V10_ONLY = 5 * 4
# Issue #13: utility, binG, relative_P_5 ... 1000, set_relative_P, set_map (13 measures
# per query + all) and gm_bpref (`all` only).
ISSUE13 = 13 * 4 + 1 + 4  # + num_nonrel_judged_ret, per query + all
GAINS = 3 * 4  # issue #13: G, ndcg_rel, Rndcg, per query + all
EXPECTED_MATCHES = {
    "aq": 49 * 4 + NEW + V10_ONLY + ISSUE13 + GAINS,  # -q, topics 301-303 + all
    # -q -c: topic 302 (missing from the run) printed and averaged as 0
    "aqc": 49 * 4 + NEW + V10_ONLY + ISSUE13 + GAINS,
    "aql": 49 * 4 + NEW + V10_ONLY + ISSUE13 + GAINS,  # -q -l2 on graded qrels
    # P_3/5/7, recall_20/2000, ndcg_cut_10/20/23, success_2/5/20; Rprec_mult_0.20/0.35/5.00,
    # iprec_at_recall_0.10/0.20/0.25/0.50/0.75 (not 11pt_avg_.25,.5,.75: a level list)
    "meas_params": 19 * 4,
    # default set, all only: counts, map, Rprec, bpref, recip_rank, 9 x P_k; num_q, gm_map,
    # 11 x iprec_at_recall
    "test": 29,
    "test_with_comments": 29,  # same expected file, qrels with comments and a '#' docno
    "comment": 29,  # RAG 2024 qrels/run, default set, all only
}
# The number of trec_eval 10.0 values this file reproduces (quoted in the docs); each
# is checked three times: polars in memory, polars streaming, DuckDB (MODES below).
TREC_EVAL_VALUES_MATCHED = sum(EXPECTED_MATCHES.values())  # 1312
assert TREC_EVAL_VALUES_MATCHED == 1312

# trec_eval 9.0.8 outputs (v9.0.8/): identical to v10 for every measure we support
# except iprec_at_recall and 11pt_avg, whose rounding of level x R changed in 10.0
# (checked with rounding=v9, see v9_name); -c there omits the per-query lines of the
# missing topic 302 (so 3 per-query lines).
EXPECTED_MATCHES_V9 = {
    "aq": 49 * 4 + NEW + ISSUE13 + GAINS,
    "aqc": 49 * 3 + 24 * 3 + 2 + 14 * 3 + 1 + 3 * 3,
    "aql": 49 * 4 + NEW + ISSUE13 + GAINS,
    "meas_params": 19 * 4,
    "test": 29,
}
TREC_EVAL_V9_VALUES_MATCHED = sum(EXPECTED_MATCHES_V9.values())  # 1104


def v9_name(name: str) -> str:
    """Our name for a trec_eval 9.x measure: interpolated precision rounds level x R as
    9.x did (rounding=v9); every other name is the same."""
    match = re.fullmatch(r"iprec_at_recall_(\d+\.\d+)", name)
    if match:
        return f"IPrec(rounding=v9)@{match.group(1)}"
    return "IPrec11pt(rounding=v9)" if name == "11pt_avg" else name


def _expected(path: Path) -> dict[tuple[str, str], str]:
    """(measure, query) -> printed value, for the supported measures of an out.* file."""
    out: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        measure, query, value = line.split("\t")
        measure = measure.strip()
        if supported(measure):
            assert (measure, query) not in out, f"{path.name}: repeated line {line!r}"
            out[(measure, query)] = value
    return out


def _num_q(path: Path) -> int | None:
    """trec_eval's count of evaluated queries (None when the file has no num_q line)."""
    for line in path.read_text().splitlines():
        measure, _, value = line.split("\t")
        if measure.strip() == "num_q":
            return int(value)
    return None


# How the lazy result is computed: polars in memory, polars' streaming engine, DuckDB.
MODES = ["polars", "polars-streaming", "duckdb"]


def _ours(
    qrels: str, run: str, names: list[str], mode: str = "polars", **kwargs
) -> tuple[pl.DataFrame, pl.DataFrame]:
    run_frame = rk.read_trec_run(TREC / run)
    qrels_frame = rk.read_trec_qrels(TREC / qrels)
    engine = "duckdb" if mode == "duckdb" else "polars"
    collect = {"engine": "streaming"} if mode == "polars-streaming" else {}
    per_query = rk.evaluate(
        run_frame, qrels_frame, names, per_query=True, engine=engine, **kwargs
    ).collect(**collect)
    overall = rk.evaluate(run_frame, qrels_frame, names, engine=engine, **kwargs).collect(**collect)
    return per_query, overall


def _compare(out_file: Path, qrels: str, run: str, *, per_query: bool, mode: str, **kwargs) -> int:
    """Compare every supported line of ``out_file``; return the number of values matched."""
    expected = _expected(out_file)
    names = sorted({measure for measure, _ in expected})
    per_query_frame, overall = _ours(qrels, run, names, mode, **kwargs)
    got = {(m, q): v for q, m, v in per_query_frame.select("query", "measure", "value").iter_rows()}
    got.update({(m, "all"): v for m, v in overall.select("measure", "value").iter_rows()})

    # the queries evaluated are exactly those trec_eval evaluated
    num_q = _num_q(out_file)
    assert num_q is not None or per_query
    if num_q is not None:
        assert per_query_frame["query"].n_unique() == num_q
    if per_query:
        queries = {q for _, q in expected} - {"all"}
        assert set(per_query_frame["query"].unique()) == queries

    mismatches = []
    for (measure, query), text in expected.items():
        value = got.get((measure, query))
        if value is None:
            mismatches.append((measure, query, text, None))
        elif measure in COUNTS:
            if value != int(text):
                mismatches.append((measure, query, text, value))
        elif abs(value - float(text)) > TOLERANCE:
            mismatches.append((measure, query, text, value))
    assert not mismatches, f"{out_file.name}: (measure, query, trec_eval, ours): {mismatches}"
    return len(expected)


@pytest.mark.parametrize("mode", MODES)
def test_all_trec_per_query(mode: str) -> None:
    """(a) trec_eval -m all_trec -q qrels.test results.test (out.test.aq)."""
    n = _compare(TREC / "out.test.aq", "qrels.test", "results.test", per_query=True, mode=mode)
    assert n == EXPECTED_MATCHES["aq"]


@pytest.mark.parametrize("mode", MODES)
def test_complete_c_flag(mode: str) -> None:
    """(b) trec_eval -m all_trec -q -c qrels.test results.trunc (out.test.aqc): topic 302
    is missing from the run and scores 0 (count measures: num_rel = R, others 0);
    topic 303 is cut to 84 docs; lines carry trailing junk columns and are unsorted."""
    n = _compare(
        TREC / "out.test.aqc",
        "qrels.test",
        "results.trunc",
        per_query=True,
        mode=mode,
        complete=True,
    )
    assert n == EXPECTED_MATCHES["aqc"]


@pytest.mark.parametrize("mode", MODES)
def test_relevance_level_l2(mode: str) -> None:
    """(c) trec_eval -m all_trec -q -l2 qrels.rel_level results.test (out.test.aql):
    graded levels -1..4, relevant when >= 2; ndcg gains stay the raw levels."""
    n = _compare(
        TREC / "out.test.aql", "qrels.rel_level", "results.test", per_query=True, mode=mode, rel=2
    )
    assert n == EXPECTED_MATCHES["aql"]


@pytest.mark.parametrize("mode", MODES)
def test_measure_parameters(mode: str) -> None:
    """(d) out.test.meas_params: P_3/5/7, recall_20/2000, ndcg_cut_10/20/23 (23.4 is
    truncated to 23 by trec_eval), success_2/5/20."""
    n = _compare(
        TREC / "out.test.meas_params", "qrels.test", "results.test", per_query=True, mode=mode
    )
    assert n == EXPECTED_MATCHES["meas_params"]
    names = {m for m, _ in _expected(TREC / "out.test.meas_params")}
    assert names == {
        "P_3", "P_5", "P_7", "recall_20", "recall_2000", "ndcg_cut_10", "ndcg_cut_20",
        "ndcg_cut_23", "success_2", "success_5", "success_20",
        "Rprec_mult_0.20", "Rprec_mult_0.35", "Rprec_mult_5.00", "iprec_at_recall_0.10",
        "iprec_at_recall_0.20", "iprec_at_recall_0.25", "iprec_at_recall_0.50",
        "iprec_at_recall_0.75",
    }  # fmt: skip


@pytest.mark.parametrize("mode", MODES)
def test_default_set(mode: str) -> None:
    """out.test: the default measure set, `all` only."""
    n = _compare(TREC / "out.test", "qrels.test", "results.test", per_query=False, mode=mode)
    assert n == EXPECTED_MATCHES["test"]


@pytest.mark.parametrize("mode", MODES)
def test_qrels_with_comments(mode: str) -> None:
    """(e) qrels.test.with-comments (3 '#' lines, one docno 'CR#93E-1860') gives
    trec_eval's out.test, and exactly our qrels.test numbers for all_trec per query."""
    n = _compare(
        TREC / "out.test", "qrels.test.with-comments", "results.test", per_query=False, mode=mode
    )
    assert n == EXPECTED_MATCHES["test_with_comments"]
    names = sorted({m for m, _ in _expected(TREC / "out.test.aq")})
    plain, _ = _ours("qrels.test", "results.test", names, mode)
    commented, _ = _ours("qrels.test.with-comments", "results.test", names, mode)
    assert plain.height == 3 * len(names)
    # equal up to float summation order (the last bit can differ between runs)
    assert_frame_equal(commented, plain, check_exact=False, rel_tol=0, abs_tol=1e-12)
    # the '#' inside a docno is part of the id, not a comment
    items = rk.read_trec_qrels(TREC / "qrels.test.with-comments").collect()["item"]
    assert "CR#93E-1860" in items.to_list()


@pytest.mark.parametrize("mode", MODES)
def test_comment_rag_run(mode: str) -> None:
    """(f) out.comment.test: RAG 2024 qrels (31 topics, graded 0-3, '#' in docnos) and a
    301-topic run; only the 31 shared topics are evaluated (the other 270 warned about)."""
    with pytest.warns(rk.RankevalWarning, match="270 run queries are not in the qrels"):
        n = _compare(
            TREC / "out.comment.test", "qrels.comment.test", "results.comment.test",
            per_query=False, mode=mode,
        )  # fmt: skip
    assert n == EXPECTED_MATCHES["comment"]


@pytest.mark.parametrize(
    ("out_file", "qrels", "run", "kwargs", "key"),
    [
        ("out.test.aq", "qrels.test", "results.test", {}, "aq"),
        ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}, "aqc"),
        ("out.test.aql", "qrels.rel_level", "results.test", {"rel": 2}, "aql"),
        ("out.test.meas_params", "qrels.test", "results.test", {}, "meas_params"),
        ("out.test", "qrels.test", "results.test", {}, "test"),
    ],
)
def test_trec_eval_v9(out_file: str, qrels: str, run: str, kwargs: dict, key: str) -> None:
    """The same against trec_eval 9.0.8's outputs (what pytrec_eval bundles)."""
    path = TREC / "v9.0.8" / out_file
    if not path.exists():
        pytest.skip(f"{path} not found")
    assert _compare_v9(path, qrels, run, **kwargs) == EXPECTED_MATCHES_V9[key]


def _compare_v9(path: Path, qrels: str, run: str, **kwargs) -> int:
    """Compare every supported line of a 9.0.8 output; return the number matched."""
    expected = _expected(path)
    names = sorted({m for m, _ in expected})
    ours = {v9_name(m): m for m in names}
    per_query, overall = _ours(qrels, run, list(ours), **kwargs)
    got = {
        (ours[m], q): v for q, m, v in per_query.select("query", "measure", "value").iter_rows()
    }
    got.update({(ours[m], "all"): v for m, v in overall.select("measure", "value").iter_rows()})
    bad = [
        (m, q, text, got.get((m, q)))
        for (m, q), text in expected.items()
        if got.get((m, q)) is None or abs(got[(m, q)] - float(text)) > TOLERANCE
    ]
    assert not bad, bad
    return len(expected)


def test_total_matched() -> None:
    """The headline numbers, counted from the comparisons this test runs (polars in
    memory): each value is counted only once it was compared and matched."""
    cases = [
        ("out.test.aq", "qrels.test", "results.test", {}),
        ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
        ("out.test.aql", "qrels.rel_level", "results.test", {"rel": 2}),
        ("out.test.meas_params", "qrels.test", "results.test", {}),
        ("out.test", "qrels.test", "results.test", {}),
    ]
    matched = sum(
        _compare(TREC / out, qrels, run, per_query=out != "out.test", mode="polars", **kw)
        for out, qrels, run, kw in cases
    )
    matched += _compare(
        TREC / "out.test", "qrels.test.with-comments", "results.test", per_query=False,
        mode="polars",
    )  # fmt: skip
    with pytest.warns(rk.RankevalWarning):
        matched += _compare(
            TREC / "out.comment.test", "qrels.comment.test", "results.comment.test",
            per_query=False, mode="polars",
        )  # fmt: skip
    assert matched == TREC_EVAL_VALUES_MATCHED == 1312
    if (TREC / "v9.0.8").is_dir():
        matched_v9 = sum(
            _compare_v9(TREC / "v9.0.8" / out, qrels, run, **kw) for out, qrels, run, kw in cases
        )
        assert matched_v9 == TREC_EVAL_V9_VALUES_MATCHED == 1104


def test_no_stray_warnings_on_shared_queries() -> None:
    """The test-suite runs without run-only queries raise no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _ours("qrels.test", "results.test", ["map", "ndcg_cut_10"])
