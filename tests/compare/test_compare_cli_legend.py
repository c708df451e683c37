"""`rankeval compare` labels its columns: which test, correction and interval they show,
and the interval printed is the one of the test (issue #16)."""

from __future__ import annotations

from pathlib import Path

import pytest

from polars_rankeval.cli import main

DATA = Path(__file__).resolve().parents[2] / "examples" / "data" / "compare"


@pytest.mark.parametrize(
    ("test", "interval"),
    [("t", "95% t interval"), ("randomization", "95% randomization"),
     ("bootstrap", "95% bootstrap")],
)
def test_the_table_says_which_interval_it_shows(capsys, test: str, interval: str) -> None:
    code = main(["compare", str(DATA / "qrels.txt"), str(DATA / "bm25.run"),
                 str(DATA / "dense.run"), "--test", test, "-m", "map", "--n-resamples", "2000"])
    out = capsys.readouterr().out
    assert code == 0
    assert interval in out
    assert "p_corr: holm correction" in out


def test_randomization_interval_agrees_with_its_p_value(capsys) -> None:
    """p = 0.0546 > 0.05: the test's own interval must contain 0 (the bootstrap one did not)."""
    main(["compare", str(DATA / "qrels.txt"), str(DATA / "bm25.run"), str(DATA / "dense.run"),
          "--test", "randomization", "-m", "map", "--format", "csv"])
    header, row = capsys.readouterr().out.splitlines()[:2]
    values = dict(zip(header.split(","), row.split(","), strict=True))
    assert float(values["p_value"]) > 0.05
    assert float(values["ci_low"]) < 0 < float(values["ci_high"])
