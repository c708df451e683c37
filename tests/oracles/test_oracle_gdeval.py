"""Oracle test: ERR@k against gdeval, the implementation ir_measures' ERR runs.

gdeval (the TREC Web track's ``gdeval.pl``, bundled with ir_measures, run by perl):
R = (2^grade - 1) / 2^4, grades above 0 from the qrels, ties broken by docno
descending, as trec_eval.  It prints 5 decimals, so it is run twice: through
ir_measures (to 5e-6) and as the same script with its ``printf`` widened to 15
decimals (to 1e-9).  gdeval reports only the queries with a relevant judgment; it
refuses grades above 4, so the data stays within -1..4.
"""

from __future__ import annotations

import math
import shutil
import subprocess
import tempfile
from pathlib import Path

import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from tests.helpers import examples
from tests.oracles.ir_measures_data import CUTOFFS, SETTINGS, Rows, cases, our_values

ir_measures = pytest.importorskip("ir_measures")
needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")


def _gdeval(run: Rows, qrels: Rows, k: int) -> dict[str, float]:
    """gdeval.pl as bundled with ir_measures, printing 15 decimals instead of 5."""
    import importlib.resources

    script = (importlib.resources.files("ir_measures") / "bin" / "gdeval.pl").read_text()
    assert script.count('"$runid,$topicCurrent,%.5f,%.5f\\n"') == 1
    script = script.replace("%.5f,%.5f", "%.15f,%.15f")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "gdeval.pl").write_text(script)
        (directory / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
        (directory / "run").write_text(
            "".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for i, (q, d, s) in enumerate(run))
        )
        out = subprocess.run(
            ["perl", "gdeval.pl", "qrels", "run", str(k)],
            cwd=directory, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
    values = {}
    for line in out.splitlines()[1:]:
        _, topic, _, err = line.split(",")
        values[topic] = float(err)
    return values


# Several generated cases go through one evaluate call and one gdeval run per cutoff
# (query ids renumbered case * 100 + id: gdeval needs numeric ids; a query's values do
# not depend on the other queries): examples(60 // BATCH) batches of BATCH cases check
# as many cases as the 60 single cases before under each profile (default 12, full 60;
# the fast tier 6, was 3) with a third of the perl processes and evaluate calls.
BATCH = 3


def _batched(cases: list[tuple[Rows, Rows]]) -> tuple[Rows, Rows]:
    """The cases as one run and one qrels; query q of case i is ``(i + 1) * 100 + q``."""
    def renumber(i: int, rows: Rows) -> Rows:
        return [(str((i + 1) * 100 + int(q)), *rest) for q, *rest in rows]

    run = [row for i, (rows, _) in enumerate(cases) for row in renumber(i, rows)]
    qrels = [row for i, (_, rows) in enumerate(cases) for row in renumber(i, rows)]
    return run, qrels


@needs_perl
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@example(
    # ties (broken by item descending: "b" > "B"), grade 4, a -1 and an unjudged item
    batch=[(
        [("1", "a", 1.0), ("1", "B", 1.0), ("1", "b", 1.0), ("1", "z", 0.5), ("1", "c1", 2.0)],
        [("1", "B", 4), ("1", "b", 1), ("1", "a", -1), ("1", "z", 3), ("2", "a", 2)],
    )],
)
@settings(SETTINGS, max_examples=examples(60 // BATCH))
@given(batch=st.lists(cases(), min_size=BATCH, max_size=BATCH))
def test_err_matches_gdeval(batch: list[tuple[Rows, Rows]], engine: str) -> None:
    run, qrels = _batched(batch)
    names = [f"ERR@{k}" for k in CUTOFFS]
    ours = our_values(run, qrels, names, engine)
    for k in CUTOFFS:
        for topic, value in _gdeval(run, qrels, k).items():
            got = ours[(topic, f"ERR@{k}")]
            assert math.isclose(got, value, rel_tol=0, abs_tol=1e-9), (topic, k, got, value)
        # gdeval leaves out the queries without a relevant judgment: ERR 0 here
        seen = {q for q, _, r in qrels if r > 0}
        for (topic, name), got in ours.items():
            if name == f"ERR@{k}" and topic not in seen:
                assert got == 0.0


@needs_perl
@settings(SETTINGS, max_examples=examples(15))
@given(case=cases())
def test_err_matches_ir_measures(case: tuple[Rows, Rows]) -> None:
    """Through ir_measures itself (gdeval's 5 printed decimals)."""
    run, qrels = case
    measures = [ir_measures.parse_measure(f"ERR@{k}") for k in CUTOFFS]
    expected = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.gdeval.iter_calc(
            measures,
            [ir_measures.Qrel(q, d, r) for q, d, r in qrels],
            [ir_measures.ScoredDoc(q, d, s) for q, d, s in run],
        )
    }
    ours = our_values(run, qrels, [str(m) for m in measures], "polars")
    assert expected
    for key, value in expected.items():
        if key not in ours:  # ir_measures reports qrels-only queries: 0 (complete=True)
            assert value == 0.0, key
            continue
        assert abs(ours[key] - value) <= 5e-6 + 1e-12, (key, ours[key], value)


def test_err_known_answer() -> None:
    """Grades 3, 0, 1 at positions 1..3: R = 7/16, 0, 1/16;
    ERR = 7/16 + 0 + (1/16)/3 * (9/16) * 1 = 0.4375 + 0.01171875 = 0.44921875."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "relevance": [3, 0, 1]})
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run, qrels, ["ERR", "ERR@2", "ERR@1"], engine=engine)
        assert got["value"].to_list() == pytest.approx([0.44921875, 0.4375, 0.4375], abs=1e-15)
