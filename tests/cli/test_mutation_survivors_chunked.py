"""Tests written for mutants of the chunked evaluation (``cli/chunked.py``) that survived
``tests/mutation/run.py``'s cli_trec target (see its RESULTS.md).

Expected output: the trec_eval 10.0 binary's (built from the conformance tarball by
``tests/cli/_trec_eval.py``) on the same files; trec_eval reads a run whole, so it is
also what the run evaluated whole prints.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from polars_rankeval.cli import inputs, plain
from tests.cli._grid import run_rankeval, run_trec_eval

# One line a block and chunks of 4 rows: q1 | a b a | c | d.  The second chunk holds
# query a's lines apart (b between them): within one chunk that is not NotGrouped (the
# reader checks queries against the chunks before), but a's lines are not one run of
# equal neighbours, so the chunk cannot be numbered by runs (a would be two queries).
# q1's one group and the second chunk's two make the first evaluated chunk, submitted
# (not last) once c and d have two groups: the second chunk is evaluated by number.
RUN = (
    "q1 Q0 d1 1 4 r\nq1 Q0 d2 2 3 r\nq1 Q0 d3 3 2 r\nq1 Q0 d4 4 1 r\n"
    "a Q0 d1 1 4 r\nb Q0 d1 1 4 r\na Q0 d2 2 3 r\n"
    "c Q0 d1 1 4 r\nc Q0 d2 2 3 r\nc Q0 d3 3 2 r\nc Q0 d4 4 1 r\n"
    "d Q0 d1 1 4 r\nd Q0 d2 2 3 r\nd Q0 d3 3 2 r\nd Q0 d4 4 1 r\n"
)
QRELS = "q1 0 d1 1\na 0 d2 1\na 0 d1 0\nb 0 d1 1\nc 0 d3 1\nd 0 d4 2\n"


def test_a_chunk_with_a_query_apart_is_evaluated_by_text(
    trec_eval: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # kills `if not ids.len() or number[-1] + 1 != ...` -> `and` in _Chunk.numbered: the
    # chunk a b a numbered by runs as 0 1 2 evaluates a twice, on d1 alone (AP 0, its
    # judged-relevant d2 not retrieved) and on d2 alone (AP 1), and prints both
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    monkeypatch.setattr(plain, "CHUNK_ROWS", 4)
    monkeypatch.setattr(plain, "BLOCK", 16)  # each line is 15 bytes: one line a block
    chunks = [frame["query"].to_list() for frame in plain.RunChunks(run)]
    assert chunks == [["q1"] * 4, ["a", "b", "a"], ["c"] * 4, ["d"] * 4]
    monkeypatch.setattr(inputs.RunSource, "whole", lambda *a: pytest.fail("read whole"))
    args = ["-q", "-m", "map", "-m", "num_rel", str(qrels), str(run)]
    code, theirs = run_trec_eval(trec_eval, args)
    ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err
    assert ours == theirs
    # trec_eval 10.0's lines for a (AP: d2 relevant at rank 2 of a's ranking d1 d2)
    assert b"map                   \ta\t0.5000\n" in theirs
