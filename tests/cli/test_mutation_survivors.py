"""Tests written for mutants of the CLI's trec output (``cli/output.py``, ``cli/trec.py``)
that survived ``tests/mutation/run.py`` (see its RESULTS.md).

Expected values are trec_eval 10.0's: its stored test output ``out.test.aqZ``, or the
output of the trec_eval 10.0 binary (built from the conformance tarball by
``tests/cli/_trec_eval.py``) on the small inputs below, pasted here with the rule of its
source that gives each value.
"""

from __future__ import annotations

import pytest

from polars_rankeval.cli import main
from tests.helpers import SHARED

TREC = SHARED / "conformance" / "trec_eval"


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.skipif(not (TREC / "out.test.aqZ").exists(), reason="no trec_eval test data")
def test_zscores_equal_trec_evals_out_test_aqz(capsys):
    # the README of the conformance data: out.test.aqZ is
    # trec_eval -q -m all_trec -Z test/zscores_file test/qrels.test test/results.test
    code, out, err = cli(capsys, "-q", "-m", "all_trec", "-Z", TREC / "zscores_file",
                         TREC / "qrels.test", TREC / "results.test")  # fmt: skip
    assert code == 0, err
    assert out == (TREC / "out.test.aqZ").read_text()


QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\nq3 0 a 1\n"
RUN = "q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq1 Q0 x 3 1 s\nq2 Q0 z 1 1 s\nq3 Q0 a 1 1 s\n"


def test_zscores_of_a_non_number_mean_and_a_zero_stddev(capsys, tmp_path):
    # P_2: q1 a(1) b(0) -> 0.5, q2 z(unjudged) -> 0, q3 a(1) -> 0.5; num_ret 3, 1, 1.
    # convert_zscores.c: stddev != 0 -> (value - mean) / stddev; stddev 0 -> 0 when the
    # value equals the mean, else MISSING_ZSCORE_VALUE (trec_eval.h: -1000000).
    # q1 P_2: mean 'abc' is read by atof as 0 -> (0.5 - 0) / 0.5 = 1
    # q1 num_ret: 3 == 3, stddev 0 -> 0;  q2 P_2: 0 != 0.25, stddev 0 -> -1000000
    # q3: (1 - 0) / 1 = 1 and (0.5 - 0) / 1 = 0.5
    # all: each measure's own summary of the z-scores: num_ret is summed, 0 + 0 + 1 = 1;
    # P_2 is averaged, (1 - 1000000 + 0.5) / 3 = -999998.5 / 3 = -333332.8333.
    # trec_eval 10.0 prints exactly these lines for these files.
    zfile = tmp_path / "z.txt"
    zfile.write_text(
        "q1 P_2 abc 0.5\nq1 num_ret 3 0\nq2 P_2 0.25 0\nq2 num_ret 1 0\n"
        "q3 P_2 0 1\nq3 num_ret 0 1\n"
    )
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    code, out, err = cli(capsys, "-q", "-Z", zfile, "-m", "P.2", "-m", "num_ret",
                         tmp_path / "qrels", tmp_path / "run")  # fmt: skip
    assert code == 0, err
    assert out == (
        "Znum_ret               \tq1\t0.0000\n"
        "ZP_2                   \tq1\t1.0000\n"
        "Znum_ret               \tq2\t0.0000\n"
        "ZP_2                   \tq2\t-1000000.0000\n"
        "Znum_ret               \tq3\t1.0000\n"
        "ZP_2                   \tq3\t0.5000\n"
        "Znum_ret               \tall\t1.0000\n"
        "ZP_2                   \tall\t-333332.8333\n"
    )


def test_a_bad_zscores_line_is_named_by_its_number(capsys, tmp_path):
    zfile = tmp_path / "z.txt"
    zfile.write_text("q1 P_2 0.25 0.5\n\nq1 num_ret 3\n")  # line 3 has 3 fields
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    code, out, err = cli(capsys, "-q", "-Z", zfile, "-m", "P.2",
                         tmp_path / "qrels", tmp_path / "run")  # fmt: skip
    assert code != 0 and out == ""
    assert f"-Z {zfile}, line 3: expected 'qid measure mean stddev'" in err


def test_relstring_digits_above_9_negative_and_unpooled(capsys, tmp_path):
    # m_relstring.c: rel > 9 -> '>', rel >= 0 -> its digit, not in the pool -> '-',
    # judged negative (trec_eval reads every negative judgment as unjudged) -> '.'.
    # q1 in score order: a(9) b(10) c(-1) d(0) e(-2) x(not in qrels) f(3) -> 9>.0.-3
    # q2: a(1) y(not in qrels) -> 1-   (trec_eval 10.0 prints the same two lines)
    (tmp_path / "qrels").write_text(
        "q1 0 a 9\nq1 0 b 10\nq1 0 c -1\nq1 0 d 0\nq1 0 e -2\nq1 0 f 3\nq2 0 a 1\n"
    )
    (tmp_path / "run").write_text(
        "q1 Q0 a 1 9 s\nq1 Q0 b 2 8 s\nq1 Q0 c 3 7 s\nq1 Q0 d 4 6 s\nq1 Q0 e 5 5 s\n"
        "q1 Q0 x 6 4 s\nq1 Q0 f 7 3 s\nq2 Q0 a 1 1 s\nq2 Q0 y 2 0.5 s\n"
    )
    code, out, err = cli(capsys, "-q", "-m", "relstring", tmp_path / "qrels", tmp_path / "run")
    assert code == 0, err
    assert out == "relstring             \tq1\t'9>.0.-3'\nrelstring             \tq2\t'1-'\n"


def test_relstring_of_grades_beyond_int64_and_fractions(capsys, tmp_path):
    # parquet qrels may hold any number: 1e30 is above 9 ('>', not a dropped character),
    # -1e30 negative ('.'), 2.7 reads as 2 and -0.5 as 0 (trec_eval's atol); a, b, c, d, e
    # in score order, x not in the qrels
    import polars as pl

    pl.DataFrame({"query": ["q1"] * 5, "item": list("abcde"),
                  "relevance": [1e30, -1e30, 2.7, -0.5, 1.0]}).write_parquet(
        tmp_path / "qrels.parquet")  # fmt: skip
    (tmp_path / "run").write_text(
        "q1 Q0 a 1 9 s\nq1 Q0 b 2 8 s\nq1 Q0 x 3 7.5 s\nq1 Q0 c 3 7 s\nq1 Q0 d 4 6 s\n"
        "q1 Q0 e 5 5 s\n"
    )
    code, out, err = cli(capsys, "-q", "-m", "relstring", tmp_path / "qrels.parquet",
                         tmp_path / "run")  # fmt: skip
    assert code == 0, err
    assert out == "relstring             \tq1\t'>.-201'\n"


def test_an_unreadable_zscores_file_says_why(capsys, tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    missing = tmp_path / "nope.txt"
    code, out, err = cli(capsys, "-Z", missing, "-m", "P.2", tmp_path / "qrels", tmp_path / "run")
    assert code != 0 and out == ""
    # the OS's reason alone (strerror), not the OSError's repr with its errno and path
    assert err == f"rankeval: error: -Z {missing}: cannot read: No such file or directory\n"


@pytest.mark.skipif(not (TREC / "results.test").exists(), reason="no trec_eval test data")
def test_the_set_nickname_prints_trec_evals_lines(capsys):
    # trec_eval 10.0: trec_eval -m set qrels.test results.test (measures.c's set_names,
    # every one of them computed; this is its output, byte for byte)
    code, out, err = cli(capsys, "-m", "set", TREC / "qrels.test", TREC / "results.test")
    assert code == 0, err
    assert out == (
        "runid                 \tall\tSTANDARD\n"
        "num_q                 \tall\t3\n"
        "num_ret               \tall\t1500\n"
        "num_rel               \tall\t561\n"
        "num_rel_ret           \tall\t131\n"
        "utility               \tall\t-412.6667\n"
        "set_P                 \tall\t0.0873\n"
        "set_relative_P        \tall\t0.5997\n"
        "set_recall            \tall\t0.5997\n"
        "set_map               \tall\t0.0354\n"
        "set_F                 \tall\t0.1194\n"
    )


def test_judged_only_drops_negative_judgments(capsys, tmp_path):
    # -J (form_res_rels.c): a negative judgment is "in the pool but unjudged", so it is
    # dropped like an item not in the qrels.  Run a(1) b(-1) c(0) d(-2) x(none): -J keeps
    # a, c -> num_ret 2, P_2 = 1/2, relstring '10' (trec_eval 10.0 prints these lines)
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 b -1\nq1 0 c 0\nq1 0 d -2\n")
    (tmp_path / "run").write_text(
        "q1 Q0 a 1 4 s\nq1 Q0 b 2 3 s\nq1 Q0 c 3 2 s\nq1 Q0 d 4 1 s\nq1 Q0 x 5 0 s\n"
    )
    code, out, err = cli(capsys, "-J", "-q", "-m", "num_ret", "-m", "P.2", "-m", "relstring",
                         tmp_path / "qrels", tmp_path / "run")  # fmt: skip
    assert code == 0, err
    assert out == (
        "num_ret               \tq1\t2\n"
        "P_2                   \tq1\t0.5000\n"
        "relstring             \tq1\t'10'\n"
        "num_ret               \tall\t2\n"
        "P_2                   \tall\t0.5000\n"
    )


@pytest.mark.parametrize(
    "flags", [["-J", "-q"], ["-J", "-q", "-c"], ["-q", "-l", "0", "-m", "Rndcg"]]
)
def test_a_query_judged_only_negative_is_evaluated_as_trec_eval_does(trec_eval, tmp_path, flags):
    # q2's only judgment is -1 ("in the pool, unjudged"): still a qrels query, so -J
    # leaves it no row and trec_eval prints iprec_at_recall's 0/0 as -nan (the code
    # counted only queries with a judgment >= 0 and printed 0.0000); no Rndcg 0/0 at
    # -l 0 (num_rel 0).  Against the trec_eval 10.0 binary
    from tests.cli._grid import run_rankeval, run_trec_eval

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 -1\n")
    run.write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 1 1 r\nq2 Q0 d5 1 1 r\nq2 Q0 d6 1 0 r\n")
    args = [*flags, str(qrels), str(run)]
    code, theirs = run_trec_eval(trec_eval, args)
    ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err
    assert ours == theirs


def test_judged_only_nan_lines_at_a_negative_relevance_level(trec_eval, tmp_path):
    # -J -l -1: q2's only judgment is -1 and q3's are -1 and 0; trec_eval never counts a
    # -1 judgment in num_rel (at -l -1 too), so q2 has num_rel 0 and every recall level
    # of its empty -J ranking is -nan.  Kills trec_eval_nans' grades taken from the
    # judgments >= -1 (q2's num_rel 1: the levels >= 0.5 printed as 0.0000).  Against the
    # trec_eval 10.0 binary; only iprec_at_recall, whose lines rankeval matches at -l -1
    from tests.cli._grid import run_rankeval, run_trec_eval

    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq2 0 d5 -1\nq3 0 d7 -1\nq3 0 d8 0\n")
    run.write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 1 1 r\nq2 Q0 d6 1 0 r\nq3 Q0 d9 1 0 r\n")
    args = ["-J", "-q", "-l", "-1", "-m", "iprec_at_recall", str(qrels), str(run)]
    code, theirs = run_trec_eval(trec_eval, args)
    ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err
    assert b"iprec_at_recall_1.00  \tq2\t  -nan\n" in theirs
    assert ours == theirs
