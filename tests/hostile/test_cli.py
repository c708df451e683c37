"""The command on hostile files: a one-line error and a non-zero status, never a
traceback; valid odd input gives trec_eval's value."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polars_rankeval.cli import main
from tests.helpers import examples

QRELS = "q1 0 b 1\nq1 0 c 2\nq2 0 e 1\nq2 0 f 1\n"
RUN = "q1 Q0 a 1 3 s\nq1 Q0 b 2 2 s\nq1 Q0 c 3 1 s\nq2 Q0 d 1 2 s\nq2 Q0 e 2 1 s\n"

# id -> (run text or bytes, qrels text, extra argv, status, fragments)
CASES = {
    "nan_score": ("q1 Q0 a 1 nan s\n", QRELS, [], 1, ["score"]),
    "text_score": ("q1 Q0 a 1 high s\n", QRELS, [], 1, ["line 1"]),
    "three_fields": ("q1 Q0 a\n", QRELS, [], 1, ["line 1"]),
    "duplicate_rows": (RUN + "q1 Q0 a 9 0.5 s\n", QRELS, [], 1, ["--duplicates first"]),
    "qrels_five_fields": (RUN, "q1 0 b 1 x\n", [], 1, ["4 fields"]),
    "qrels_text_relevance": (RUN, "q1 0 b yes\n", [], 1, ["line 1"]),
    "latin1_run": (b"q1 Q0 \xe9 1 3 s\n", QRELS, [], 1, ["line 1", "byte offset"]),
    "binary_garbage": (b"\x00\xff\xfe\x00\n", QRELS, [], 1, ["line 1"]),
    "empty_run": ("", QRELS, [], 1, ["no rows"]),
    "no_shared_query": ("q9 Q0 a 1 3 s\n", QRELS, [], 1, ["share no query"]),
    "unknown_measure": (RUN, QRELS, ["-m", "nonsense"], 2, ["nonsense"]),
    "bad_cutoff": (RUN, QRELS, ["-m", "P.0"], 2, ["P"]),
    "exp_gain_overflow": (RUN, "q1 0 b 2000\n", ["-m", "nDCG(gain=exp)"], 1, ["1023"]),
    # the arguments swapped (a run where the qrels go): said so, not "cannot parse"
    "run_given_as_qrels": (RUN, RUN, [], 1, ["six fields", "The qrels come first", "QRELS RUN"]),
    # the line reader's own field separator inside a line (found by test_any_bytes_...)
    # (the message shows the whole line, not the part before the byte)
    "unit_separator_run": (RUN + "q1 Q0 z 4\x1f0.5 s\n", QRELS, [], 1,
                           ["line 6", "0x1f", r"'q1 Q0 z 4\x1f0.5 s'"]),
    "unit_separator_first_line": (b"q1\x1fQ0\x1fa 1 3 s\n", QRELS, [], 1,
                                  ["line 1", "0x1f", r"'q1\x1fQ0\x1fa 1 3 s'"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_file_is_one_line_error(case, tmp_path, capsys) -> None:
    run, qrels, argv, status, fragments = CASES[case]
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    (run_path.write_bytes if isinstance(run, bytes) else run_path.write_text)(run)
    qrels_path.write_text(qrels)
    code = main([*argv, str(qrels_path), str(run_path)])
    _, err = capsys.readouterr()
    assert code == status, (code, err)
    assert err.startswith("rankeval: error: ") and err.count("\n") == 1 and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_a_parquet_run_given_as_qrels_is_named(tmp_path, capsys) -> None:
    run = pl.DataFrame({"query": ["q1"], "item": ["a"], "score": [1.0]})
    run.write_parquet(tmp_path / "run.parquet")
    code = main([str(tmp_path / "run.parquet"), str(tmp_path / "run.parquet")])
    _, err = capsys.readouterr()
    assert code == 1 and err.count("\n") == 1, err
    assert "run.parquet: has no relevance column but a score or rank" in err
    assert "The qrels come first" in err


def test_missing_file_and_directory(tmp_path, capsys) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    code = main([str(tmp_path / "qrels.txt"), str(tmp_path / "nope.txt")])
    _, err = capsys.readouterr()
    assert code != 0 and "nope.txt" in err and "Traceback" not in err
    code = main([str(tmp_path / "qrels.txt"), str(tmp_path)])
    _, err = capsys.readouterr()
    assert code != 0 and "is a directory" in err


def test_valid_run_gives_the_hand_value(tmp_path, capsys) -> None:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    assert main(["-m", "map", str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]) == 0
    out, _ = capsys.readouterr()
    # q1: (1/2 + 2/3) / 2, q2: (1/2) / 2 -> mean 0.4167 (trec_eval prints 4 decimals)
    assert out.split() == ["map", "all", "0.4167"]


# bytes a TREC file is made of, and the ones that break readers: the line reader's field
# separator 0x1f, NUL, CR, tabs, '#', invalid UTF-8
_BYTES = st.lists(st.sampled_from([b"q1", b"q2", b" ", b" ", b"\n", b"\t", b"Q0", b"0", b"1", b"2.5",
                                   b"a", b"b", b"s", b"#", b"\x1f", b"\x00", b"\r", b"\xff", b"-1",
                                   b"nan"]), max_size=40).map(b"".join)  # fmt: skip


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run=_BYTES, qrels=_BYTES)
def test_any_bytes_give_a_result_or_a_one_line_error(run: bytes, qrels: bytes, tmp_path, capsys) -> None:
    """Whatever bytes the two files hold: exit 0 with output, or a one-line project error
    (status 1), never a traceback."""
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_bytes(run)
    qrels_path.write_bytes(qrels)
    code = main([str(qrels_path), str(run_path)])
    out, err = capsys.readouterr()
    if code == 0:
        assert out and "Traceback" not in err
    else:
        assert code == 1 and err.startswith("rankeval: error: ") and err.count("\n") == 1, err
