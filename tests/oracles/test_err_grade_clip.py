"""ERR with grades above 4: they count as 4, on both engines.

gdeval (``gdeval.pl``, bundled with ir_measures, the implementation of ir_measures'
ERR) sets ``$MAX_JUDGMENT = 4`` and stops with "format error" on a qrels line whose
grade exceeds it; R = (2^grade - 1) / 2^4.  We clip instead of refusing, so a grade
of 5..10 must give exactly what gdeval gives for the same qrels with the grade set to 4
(and what the hand computation below gives).  Without the clip, R would exceed 1 and
ERR could be negative.
"""

from __future__ import annotations

import importlib.resources
import shutil
import subprocess

import polars as pl
import pytest

import polars_rankeval as rk

needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")

# one query, scores descending a, b, c, d, e
RUN = pl.DataFrame(
    {"query": ["1"] * 5, "item": ["a", "b", "c", "d", "e"], "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
)


def _err(qrels: pl.DataFrame, names: list[str], engine: str) -> dict[str, float]:
    out = rk.evaluate(RUN, qrels, names, per_query=True, engine=engine)
    return dict(zip(out["measure"], out["value"]))


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("grade", [5, 6, 7, 10])
def test_grades_above_4_count_as_4_hand_computed(engine, grade):
    # a: not judged, b: grade, c: 1, d: grade, e: 0
    qrels = pl.DataFrame(
        {"query": ["1"] * 4, "item": ["b", "c", "d", "e"], "relevance": [grade, 1, grade, 0]}
    )
    # clipped to 4: R_b = R_d = (2^4 - 1) / 16 = 15/16, R_c = (2^1 - 1) / 16 = 1/16.
    # ERR@2 = 0/1 + 1 * (15/16) / 2 = 0.46875
    # ERR@3 = 0.46875 + (1 - 15/16) * (1/16) / 3 = 0.46875 + (1/256) / 3
    # ERR@5 = ERR@3 + (1/16) (15/16) (15/16) / 4 + 0 (e has grade 0)
    err2 = 15 / 16 / 2
    err3 = err2 + (1 / 16) * (1 / 16) / 3
    err5 = err3 + (1 / 16) * (15 / 16) * (15 / 16) / 4
    got = _err(qrels, ["ERR@2", "ERR@3", "ERR@5"], engine)
    assert got["ERR@2"] == pytest.approx(err2, abs=1e-15)
    assert got["ERR@3"] == pytest.approx(err3, abs=1e-15)
    assert got["ERR@5"] == pytest.approx(err5, abs=1e-15)
    # and exactly what grade 4 gives
    four = qrels.with_columns(pl.col("relevance").clip(upper_bound=4))
    assert got == _err(four, ["ERR@2", "ERR@3", "ERR@5"], engine)


def _gdeval(qrels_text: str, k: int, tmp_path) -> subprocess.CompletedProcess[str]:
    script = (importlib.resources.files("ir_measures") / "bin" / "gdeval.pl").read_text()
    script = script.replace("%.5f,%.5f", "%.15f,%.15f")
    (tmp_path / "gdeval.pl").write_text(script)
    (tmp_path / "qrels").write_text(qrels_text)
    (tmp_path / "run").write_text(
        "".join(f"1 Q0 {d} {i + 1} {s} tag\n" for i, (_, d, s) in enumerate(RUN.iter_rows()))
    )
    return subprocess.run(
        ["perl", "gdeval.pl", "qrels", "run", str(k)],
        check=False, cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip


@needs_perl
@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_grades_above_4_equal_gdeval_on_grade_4(engine, tmp_path):
    pytest.importorskip("ir_measures")
    qrels = pl.DataFrame(
        {"query": ["1"] * 4, "item": ["a", "c", "d", "e"], "relevance": [9, 2, 5, 1]}
    )
    # gdeval's documented behaviour: a grade above $MAX_JUDGMENT = 4 is a format error
    refused = _gdeval("1 0 a 9\n1 0 c 2\n1 0 d 5\n1 0 e 1\n", 5, tmp_path)
    assert refused.returncode != 0 and "format error" in refused.stderr
    for k in (1, 3, 5):
        done = _gdeval("1 0 a 4\n1 0 c 2\n1 0 d 4\n1 0 e 1\n", k, tmp_path)
        assert done.returncode == 0, done.stderr
        theirs = float(done.stdout.splitlines()[1].split(",")[3])
        got = _err(qrels, [f"ERR@{k}"], engine)[f"ERR@{k}"]
        assert got == pytest.approx(theirs, abs=1e-12), (k, got, theirs)
