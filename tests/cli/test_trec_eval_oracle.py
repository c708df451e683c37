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

from tests.cli._grid import (
    GRID,
    arguments,
    comparable,
    run_rankeval,
    run_trec_eval,
    strategy,
)
from tests.helpers import examples

EXAMPLES = settings(
    max_examples=examples(60),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


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
    @EXAMPLES
    @given(strategy(flags))
    def check(dataset):
        _check(trec_eval, flags, dataset)

    check()


# A query whose documents are all unjudged (q2: one not in the qrels, one judged -1) or
# whose qrels have no relevant document (q3): -J empties their rankings, and trec_eval
# divides 0 by 0 (m_iprec_at_recall.c, m_11pt_avg.c) and prints -nan
J_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d5 -1\nq3 0 x 0\n"
J_RUN = "q1 Q0 d1 1 3 r\nq1 Q0 d9 1 2 r\nq2 Q0 d7 1 2 r\nq2 Q0 d5 1 1 r\nq3 Q0 y 1 1 r\n"

# ("~" sorts after every id: trec_eval's binary search of the table stays inside it)
Z_FILE = "q1 map 0.5 0.1\nq2 iprec_at_recall_0.00 0.5 0.1\n~ ~ 0 1\n"


@pytest.mark.parametrize(
    "flags",
    [
        ["-J"],
        ["-J", "-q", "-m", "all_trec"],
        ["-J", "-q", "-c", "-m", "iprec_at_recall.0.5,0.2,0.123", "-m", "11pt_avg"],
        ["-J", "-q", "-l", "2", "-M", "1"],
        ["-J", "-q", "-Z", "{Z}"],
        # not -J: q3's judgments are all grade 0, relevant at -l 0, and m_Rndcg.c
        # divides by its 0 changes of ideal gain
        ["-q", "-l", "0", "-m", "Rndcg", "-m", "ndcg"],
        ["-l", "0", "-c", "-m", "all_trec"],
    ],
)
def test_trec_evals_nan_lines(trec_eval, flags):
    _check_nan_lines(trec_eval, flags, J_QRELS, J_RUN)


@pytest.mark.parametrize("flags", [["-J"], ["-J", "-q", "-c", "-m", "all_trec"]])
def test_judged_only_without_any_judged_row(trec_eval, flags):
    # -J keeps no row of the run at all: trec_eval still prints the query (hypothesis
    # found it with 60 examples; the library refuses a run without rows)
    _check_nan_lines(trec_eval, flags, "1 0 d1 0\n", "1 Q0 d10 1 1 run1\n")


@pytest.mark.parametrize("flags", [["-J", "-c", "-q"], ["-c", "-q", "-l", "0", "-m", "all_trec"]])
def test_complete_evaluates_missing_queries_as_one_unjudged_document(trec_eval, flags):
    # -c: trec_eval ranks "ceci_nest_pas_un_docno" for a qrels query not in the run
    # (trec_eval.c's bogus_ranking): -J empties it (0/0 in iprec_at_recall), and q4's
    # grade-0 judgments make Rndcg 0/0 at -l 0
    qrels = J_QRELS + "q4 0 z 1\nq5 0 w 0\n"
    _check_nan_lines(trec_eval, flags, qrels, J_RUN)


def _check_nan_lines(trec_eval: Path, flags: list[str], qrels: str, run: str) -> None:
    theirs = _same_bytes(trec_eval, flags, qrels, run)
    assert b"-nan" in theirs  # the case is there


@pytest.mark.parametrize(
    "flags",
    [
        ["-m", "P.5", "-m", "P.10"],
        ["-m", "P", "-m", "P.10", "-m", "official"],
        ["-q", "-m", "rbp_resid.p=0.5", "-m", "rbp_resid.p=0.95", "-m", "rbp", "-m", "rbp.p=0.3"],
        ["-q", "-m", "relstring.3", "-m", "relstring.5", "-m", "iprec_at_recall.0.5",
         "-m", "iprec_at_recall"],
    ],
)  # fmt: skip
def test_a_measure_takes_its_first_parameters(trec_eval, flags):
    # meas_init.c: each measure reads the first -m NAME.PARAMS naming it, whatever else
    _same_bytes(trec_eval, flags, J_QRELS, J_RUN)


def _same_bytes(trec_eval: Path, flags: list[str], qrels: str, run: str) -> bytes:
    """Both programs on these files: the same standard output; trec_eval's."""
    with tempfile.TemporaryDirectory() as folder:
        paths = {"qrels": Path(folder) / "qrels", "run": Path(folder) / "run"}
        paths["qrels"].write_text(qrels)
        paths["run"].write_text(run)
        (Path(folder) / "z").write_text(Z_FILE)
        args = [str(Path(folder) / "z") if a == "{Z}" else a for a in flags]
        args += [str(paths["qrels"]), str(paths["run"])]
        code, theirs = run_trec_eval(trec_eval, args)
        ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err
    assert ours == theirs
    return theirs


def test_a_negative_level_is_a_known_difference(trec_eval, tmp_path):
    """The README's known difference: at a negative -l, trec_eval counts an unjudged
    retrieved document as relevant in the ranking but not in num_rel, and a negative
    judgment never; rankeval counts relevance >= the level, a negative judgment included,
    and an unjudged document never."""
    # q1: d4 unjudged at rank 1, d1 judged -1, d2 judged 0, d3 judged 1; d5 (2) not retrieved
    (tmp_path / "qrels").write_text("q1 0 d1 -1\nq1 0 d2 0\nq1 0 d3 1\nq1 0 d5 2\n")
    (tmp_path / "run").write_text(
        "q1 Q0 d4 1 4 r\nq1 Q0 d1 2 3 r\nq1 Q0 d2 3 2 r\nq1 Q0 d3 4 1 r\n"
    )
    args = ["-l", "-1", "-m", "num_rel", "-m", "num_rel_ret", "-m", "recip_rank",
            str(tmp_path / "qrels"), str(tmp_path / "run")]  # fmt: skip
    code, theirs = run_trec_eval(trec_eval, args)
    ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err

    def values(out: bytes) -> dict[str, str]:
        return {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.decode().splitlines()}

    # trec_eval: num_rel = the judgments >= 0 (d2, d3, d5), num_rel_ret = judged retrieved
    # at >= -1 without the -1 judgment (d2, d3), and the unjudged d4 at rank 1 relevant
    assert values(theirs) == {"num_rel": "3", "num_rel_ret": "2", "recip_rank": "1.0000"}
    # rankeval: every judgment >= -1 is relevant (d1, d2, d3, d5); d4 (unjudged) is not,
    # so the first relevant is d1 at rank 2
    assert values(ours) == {"num_rel": "4", "num_rel_ret": "3", "recip_rank": "0.5000"}
