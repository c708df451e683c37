"""The command on hostile input and its frictions (issues 14 and 16): one-line errors with
the right exit status, never a traceback; ``--duplicates``, JSON summaries, ``--by``."""

from __future__ import annotations

import inspect
import json
import os

import pytest

from polars_rankeval.cli import main

QRELS = "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 a 1\n"
RUN = "q1 Q0 a 1 3 sys\nq1 Q0 b 2 2 sys\nq1 Q0 x 3 1 sys\nq2 Q0 z 1 1 sys\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path


def cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> bool:
    return err.count("\n") == 1 and err.startswith("rankeval: error: ") and "Traceback" not in err


def test_duplicate_rows_message_names_the_cli_option_and_the_option_works(capsys, files):
    (files / "dup.txt").write_text(RUN + "q1 Q0 a 9 0.5 sys\n")
    code, out, err = cli(capsys, "-m", "map", files / "qrels.txt", files / "dup.txt")
    assert code == 1 and out == "" and one_line_error(err)
    assert "--duplicates first" in err and "duplicates='first'" not in err
    code, out, err = cli(capsys, "--duplicates", "first", "-m", "num_ret", "-m", "map",
                         files / "qrels.txt", files / "dup.txt")  # fmt: skip
    assert code == 0
    # the best-ranked copy of a (score 3) is kept: q1 retrieves a, b, x -> 3 (+ q2's z)
    assert out.splitlines()[0] == "num_ret               \tall\t4"
    assert "--duplicates first: dropped 1" in err


def test_json_summary_rows_say_all_not_null(capsys, files):
    code, out, _ = cli(capsys, "--format", "json", "-q", "-m", "map",
                       files / "qrels.txt", files / "run.txt")  # fmt: skip
    assert code == 0 and "null" not in out
    records = json.loads(out)
    assert [r["query"] for r in records] == ["q1", "q2", "all"]


@pytest.mark.parametrize("where", ["missing_folder", "folder", "read_only"])
def test_output_that_cannot_be_written_is_one_line_exit_2(capsys, files, where):
    target = {
        "missing_folder": files / "nope" / "out.txt",
        "folder": files,
        "read_only": files / "ro" / "out.txt",
    }[where]
    if where == "read_only":
        (files / "ro").mkdir()
        os.chmod(files / "ro", 0o500)
        if os.access(files / "ro", os.W_OK):  # root ignores permissions
            pytest.skip("running as root: a read-only folder is writable")
    code, out, err = cli(capsys, "-m", "map", "-o", target, files / "qrels.txt", files / "run.txt")
    assert code == 2 and out == "" and one_line_error(err), err
    assert str(target) in err


def test_directory_as_input_is_reported_as_a_directory(capsys, files):
    code, _, err = cli(capsys, files / "qrels.txt", files)
    assert code == 2 and one_line_error(err)
    assert "is a directory" in err


def test_latin1_file_names_file_line_and_byte_offset(capsys, files):
    # line 2 of the run holds 0xe9 ('é' in latin-1) at byte offset 16 + 6 = 22
    (files / "latin1.txt").write_bytes(b"q1 Q0 a 1 3 sys\nq1 Q0 \xe9t\xe9 2 2 sys\n")
    code, out, err = cli(capsys, files / "qrels.txt", files / "latin1.txt")
    assert code == 1 and out == "" and one_line_error(err)
    assert f"{files / 'latin1.txt'}, line 2" in err and "byte offset 22" in err


def test_qrels_with_a_wrong_field_count_is_an_error_as_in_trec_eval(capsys, files):
    (files / "q5.txt").write_text("q1 0 a 1 extra\n")
    code, _, err = cli(capsys, files / "q5.txt", files / "run.txt")
    assert code == 1 and one_line_error(err) and "line 1" in err and "4 fields" in err


@pytest.mark.parametrize("argv", [["-R", "prefs"], ["-T", "trec_results_jg"]])
def test_unsupported_trec_eval_formats_are_a_clear_error(capsys, files, argv):
    code, out, err = cli(capsys, *argv, files / "qrels.txt", files / "run.txt")
    assert code == 2 and out == "" and one_line_error(err) and argv[1] in err


def test_no_summary_and_judged_only(capsys, files):
    code, out, _ = cli(capsys, "-n", "-q", "-m", "num_ret", files / "qrels.txt", files / "run.txt")
    assert out.splitlines() == ["num_ret               \tq1\t3", "num_ret               \tq2\t1"]
    # -J: q1 keeps a, b (x is unjudged); q2 keeps nothing but is still evaluated (num_q 2)
    code, out, _ = cli(capsys, "-J", "-m", "num_q", "-m", "num_ret", "-m", "P.2",
                       files / "qrels.txt", files / "run.txt")  # fmt: skip
    # P_2: q1 a(1) b(0) -> 1/2; q2 empty -> 0; mean 0.25
    assert code == 0
    assert out.splitlines() == [
        "num_q                 \tall\t2",
        "num_ret               \tall\t2",
        "P_2                   \tall\t0.2500",
    ]


def test_complete_num_rel_total_counts_rel_above_zero_whatever_the_level(capsys, files):
    # m_num_rel.c under -c recounts qrels lines with rel > 0: a(1), c(2), q2 a(1) = 3,
    # while the per-query values at -l 2 are q1: 1 (c), q2: 0
    code, out, _ = cli(capsys, "-q", "-c", "-l", "2", "-m", "num_rel",
                       files / "qrels.txt", files / "run.txt")  # fmt: skip
    assert code == 0
    assert out.splitlines() == [
        "num_rel               \tq1\t1",
        "num_rel               \tq2\t0",
        "num_rel               \tall\t3",
    ]


def test_zscores(capsys, files):
    (files / "z.txt").write_text("q1 P_2 0.25 0.5\nq2 P_2 0 0\n")
    code, out, _ = cli(capsys, "-q", "-Z", files / "z.txt", "-m", "P.2",
                       files / "qrels.txt", files / "run.txt")  # fmt: skip
    # q1: P_2 = 1/2 -> (0.5 - 0.25) / 0.5 = 0.5; q2: 0 == mean, stddev 0 -> 0; mean 0.25
    assert code == 0
    assert out.splitlines() == [
        "ZP_2                   \tq1\t0.5000",
        "ZP_2                   \tq2\t0.0000",
        "ZP_2                   \tall\t0.2500",
    ]


def test_compare_by_is_passed_through(capsys, files, tmp_path):
    from polars_rankeval.compare import compare

    if "by" not in inspect.signature(compare).parameters:
        pytest.skip("compare() has no by= yet (the compare helper's branch adds it)")
    import polars as pl

    # two queries per segment: a paired test needs at least two
    queries = ["q1", "q1", "q2", "q2", "q3", "q3", "q4", "q4"]
    run = pl.DataFrame({"query": queries, "item": ["a", "b"] * 4,
                        "score": [2.0, 1.0] * 4, "segment": ["x"] * 4 + ["y"] * 4})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q1", "q2", "q3", "q4"], "item": ["a", "b", "a", "b"],
                          "relevance": [1, 1, 1, 1]})
    run.write_parquet(tmp_path / "one.parquet")
    run.with_columns(-pl.col("score")).write_parquet(tmp_path / "two.parquet")
    qrels.write_parquet(tmp_path / "qrels.parquet")
    code, out, err = cli(capsys, "compare", "--by", "segment", "-m", "AP", "--format", "csv",
                         tmp_path / "qrels.parquet", tmp_path / "one.parquet",
                         tmp_path / "two.parquet")  # fmt: skip
    assert code == 0, err
    header, *rows = out.splitlines()
    assert "segment" in header
    assert sorted(row.split(",")[header.split(",").index("segment")] for row in rows) == ["x", "y"]
