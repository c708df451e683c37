"""Oracle test: RBP against ranx's ``rbp.<p>`` on binary judgments.

ranx gives a relevant item (relevance >= 1) its raw relevance as gain, trec_eval (our
``gain=graded``) the relevance divided by the query's highest level, and
``gain=binary`` 1: on binary judgments (-1, 0, 1) all three agree, so both our gains
are checked.  ranx's order of tied scores is its own, so the scores here are distinct
(trec_eval's tie rule is checked by the conformance and pytrec_eval tests).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.conventions import Qrels, Run, conventions_cases, conventions_frames
from tests.helpers import FULL_PROFILE, examples, qrels_frame

PERSISTENCE = {"rbp.5": 0.5, "rbp.8": 0.8, "rbp.95": 0.95}
ITEMS = ("a", "B", "b", "c1", "c10", "c9", "d", "e", "f", "g", "h", "z")


@contextlib.contextmanager
def ranx_interpreted() -> Iterator[Any]:
    """ranx, whose measures are numba functions, run as the plain Python they are written
    in (numba's ``DISABLE_JIT``) unless HYPOTHESIS_PROFILE=full: numba compiling them on a
    worker's first ``ranx.evaluate`` cost 30-36 s of CPU (load 18, benchmarks/TEST_TIMES.md
    "suite23"), interpreted 0.1 s, the values equal to 6e-17.  ranx is imported here first
    (no other test module imports it), so its functions are the interpreted ones; under
    ``full`` they are compiled, as users run them.  Numba's switch is put back after."""
    numba = pytest.importorskip("numba")
    before = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = before or not FULL_PROFILE  # read as ranx's functions load
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's type-safety warnings
            yield pytest.importorskip("ranx")  # here, not at import: 2.4 s of numba per worker
    finally:
        numba.config.DISABLE_JIT = before


@st.composite
def cases(draw: st.DrawFn) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """A run and binary qrels over the same queries (ranx needs the same query ids)."""
    queries = draw(st.lists(st.sampled_from("pqrst"), min_size=1, max_size=4, unique=True))
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in queries:
        retrieved = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
        scores = draw(
            st.lists(st.integers(0, 10_000), min_size=len(retrieved), max_size=len(retrieved),
                     unique=True)
        )  # fmt: skip
        run[q] = {item: float(s) for item, s in zip(retrieved, scores, strict=True)}
        judged = draw(st.lists(st.sampled_from(ITEMS), min_size=1, unique=True))
        qrels[q] = {item: draw(st.sampled_from((-1, 0, 1, 1))) for item in judged}
    return run, qrels


@pytest.mark.slow
@settings(max_examples=examples(15), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(case=cases())
def test_rbp_matches_ranx(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    run, qrels = case
    with ranx_interpreted() as ranx:
        ranx_run = ranx.Run.from_dict(run)
        ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx_run, list(PERSISTENCE))
    run_frame = pl.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        schema=["query", "item", "score"], orient="row",
    )  # fmt: skip
    judgments = qrels_frame(qrels)
    ours_for = {
        metric: [f"RBP(p={p})", f"RBP(p={p},gain=binary)"] for metric, p in PERSISTENCE.items()
    }
    names = [name for pair in ours_for.values() for name in pair]
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run_frame, judgments, names, per_query=True, engine=engine)
        values = {(q, m): v for q, m, v in got.select("query", "measure", "value").iter_rows()}
        for metric, ours in ours_for.items():
            for q, expected in ranx_run.scores[metric].items():
                for name in ours:
                    assert math.isclose(values[(q, name)], expected, rel_tol=0, abs_tol=1e-12), (
                        engine, q, name, values[(q, name)], expected,
                    )  # fmt: skip


# ranx's rbp on graded qrels made binary (ranx takes the raw grade as gain) against our
# gain=binary on the graded qrels: here beside the test above, so that a run compiles
# ranx's measures with numba once (several seconds of CPU), not once in each module.
Graded = tuple[Run, Qrels]  # items best first


@pytest.mark.slow
@settings(max_examples=examples(75), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(case=conventions_cases())
def test_rbp_binary_gain_equals_ranx_on_binarized_graded_qrels(case: Graded) -> None:
    run, qrels = case
    scores = {
        q: {d: float(len(items) - i) for i, d in enumerate(items)} for q, items in run.items()
    }
    binary = {q: {d: int(g >= 1) for d, g in docs.items()} for q, docs in qrels.items()}
    with ranx_interpreted() as ranx:
        ranx_run = ranx.Run.from_dict(scores)
        ranx.evaluate(ranx.Qrels.from_dict(binary), ranx_run, ["rbp.5"])
    run_frame, judgments = conventions_frames(run, qrels)  # the same scores as ranx's
    name = "RBP(p=0.5,gain=binary)"  # graded qrels in
    got = rk.evaluate(run_frame, judgments, [name], per_query=True)
    ours = dict(got.select("query", "value").iter_rows())
    theirs: Any = ranx_run.scores["rbp.5"]
    for q, value in theirs.items():
        assert math.isclose(ours[q], value, abs_tol=1e-12), q
