"""Issue 15's decomposition command runs (``benchmarks/profile_polars.py --decompose``),
on tiny data, so that it cannot rot: it reads the engine's internals, which move."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # whole processes: python, polars and pytrec_eval start five times
def test_the_decomposition_command_runs_on_tiny_data(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable, str(ROOT / "benchmarks" / "profile_polars.py"), "--decompose",
            "--data", str(tmp_path), "--queries", "50", "--repeats", "1",
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    # both chains, from their floor to the engine, with a row per component
    assert "### rank-given run (query, rank, item) against the floor" in out
    assert "### score-only run (query, item, score) against the sorted floor" in out
    assert out.count("In-process total") == 2
    assert "the run's duplicate check" in out and "query-hash partitions" in out
    # the whole processes and the pytrec_eval argument (or its absence, said)
    assert "### Whole processes" in out
    assert "pytrec_eval / 8" in out or "| pytrec_eval | not run |" in out
    if "pytrec_eval / 8" in out:
        assert "max difference" in out
        worst = float(out.split("max difference ")[1].split(".\n")[0].rstrip("."))
        assert worst < 1e-9
