"""``rankeval`` against the real trec_eval 10.0, byte for byte (issue 13 item 4).

The binary is built from ``shared/conformance/trec_eval-10.0-src.tar.gz`` by the
``trec_eval`` fixture (``conftest.py``).  Each flag set of ``_grid.GRID`` runs both
programs on hypothesis-generated qrels/runs (graded and negative judgments, heavy
ties, queries only in the run, queries without relevant documents, qrels queries
missing from the run under ``-c``, long ids, ids whose byte order is not their numeric
order, shuffled lines) and compares standard output byte for byte.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from polars_rankeval._errors import MeasureError
from tests.cli._grid import (
    GRID,
    NEEDS_PENDING,
    PENDING,
    arguments,
    comparable,
    run_rankeval,
    run_trec_eval,
    strategy,
)

EXAMPLES = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _pending() -> list[str]:
    from polars_rankeval._parse import parse_measure

    missing = []
    for name in PENDING:
        try:
            parse_measure(name)
        except MeasureError:
            missing.append(name)
    return missing


def _check(trec_eval: Path, flags: str, dataset) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = dataset.write(Path(folder))
        args = arguments(flags, paths)
        code, theirs = run_trec_eval(trec_eval, args)
        ours_code, ours, err = run_rankeval(args)
    if code != 0:  # trec_eval stopped (e.g. no query in common): nothing to compare
        return
    assert ours_code == 0, err
    assert comparable(flags, ours) == comparable(flags, theirs), args


@pytest.mark.parametrize("flags", list(GRID))
def test_byte_identical_to_trec_eval(trec_eval, flags):
    if flags == "J":
        pytest.xfail(
            "trec_eval -J prints -nan for iprec_at_recall when a query keeps no judged "
            "document (0/0 in m_iprec_at_recall.c); rankeval does not reproduce the NaN yet"
        )
    if flags in NEEDS_PENDING and _pending():
        pytest.skip(f"measure not registered yet: {', '.join(_pending())}")

    @EXAMPLES
    @given(strategy(flags))
    def check(dataset):
        _check(trec_eval, flags, dataset)

    check()


@pytest.mark.parametrize(
    "flags",
    [
        "all_trec",
        pytest.param(
            "q_c_l2_all",
            marks=pytest.mark.xfail(
                reason="open: on some -q -c -l 2 data the rbp_resid `all` line differs from "
                "trec_eval 10.0's in the 4th decimal (0.8731 vs 0.8730); per-query lines match",
                strict=False,
            ),
        ),
        "set",
    ],
)
def test_nickname_lines_we_print_are_trec_evals(trec_eval, flags):
    """Until every all_trec measure is registered: each line printed is trec_eval's line,
    in trec_eval's order (the byte-identity test above takes over once they are)."""

    @EXAMPLES
    @given(strategy(flags))
    def check(dataset):
        with tempfile.TemporaryDirectory() as folder:
            args = arguments(flags, dataset.write(Path(folder)))
            code, theirs = run_trec_eval(trec_eval, args)
            ours_code, ours, err = run_rankeval(args)
        if code != 0:
            return
        assert ours_code == 0, err
        printed = {tuple(line.split("\t")[:2]) for line in ours.decode().splitlines()}
        expected = [
            line for line in theirs.decode().splitlines()
            if tuple(line.split("\t")[:2]) in printed
        ]  # fmt: skip
        assert ours.decode().splitlines() == expected

    check()
