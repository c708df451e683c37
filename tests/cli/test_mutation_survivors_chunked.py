"""Tests written for mutants of the chunked evaluation (``cli/chunked.py``) that survived
``tests/mutation/run.py``'s cli_trec target (see its RESULTS.md).

Expected output: the trec_eval 10.0 binary's (built from the conformance tarball by
``tests/cli/_trec_eval.py``) on the same files; trec_eval reads a run whole, so it is
also what the run evaluated whole prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from polars_rankeval.cli import chunked, inputs, plain
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


def _evaluated_parts(
    monkeypatch: pytest.MonkeyPatch, args: list[str], trec_eval: Path
) -> list[list[str]]:
    """The run queries of each chunk evaluated, in the order of the parts given to
    finish_run (chunks of one query each: one line a block, one row a chunk); the output
    checked against trec_eval's."""
    submitted: list[list[str]] = []
    submit = chunked._Evaluator.submit

    def recorded(self: Any, chunk: Any, *, last: bool) -> None:
        submitted.append(chunk.queries.to_list())
        submit(self, chunk, last=last)

    retract = chunked._Evaluator.retract

    def taken_back(self: Any) -> None:
        retract(self)
        submitted.pop()  # its part dropped: evaluated again with the chunks after it

    order: list[int] = []  # each part given to finish_run by its number of queries
    finish = chunked.finish_run

    def counted(parts: list[Any], *rest: Any, **kwargs: Any) -> Any:
        order.extend(part.num_q for part in parts)
        return finish(parts, *rest, **kwargs)

    monkeypatch.setattr(chunked._Evaluator, "submit", recorded)
    monkeypatch.setattr(chunked._Evaluator, "retract", taken_back)
    monkeypatch.setattr(chunked, "finish_run", counted)
    monkeypatch.setattr(plain, "CHUNK_ROWS", 1)
    monkeypatch.setattr(plain, "BLOCK", 16)
    monkeypatch.setattr(inputs.RunSource, "whole", lambda *a: pytest.fail("read whole"))
    code, theirs = run_trec_eval(trec_eval, args)
    ours_code, ours, err = run_rankeval(args)
    assert code == 0 and ours_code == 0, err
    assert ours == theirs
    assert order == [len(queries) for queries in submitted]  # parts in the chunks' order
    return submitted


def test_chunks_are_merged_until_they_have_two_judged_queries(
    trec_eval: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # chunked.py's rule, by hand: chunks are gathered until they have 2 queries with a
    # judged retrieved row, and such a gathering is evaluated; the run's last chunk and
    # the chunks gathered before it are the last part, or, when they have fewer than 2,
    # are evaluated again with the gathering before them.  q3's judged row is not
    # retrieved (0 judged), every other query has 1:
    # q1 q2 | q3 q4 q5 | q6 q7 (the last: q6 q7, then nothing).
    # Kills the merging's boundaries (groups >= 2 -> > 2, >= 1, >= 3; the count reset to
    # 1 or -1) and parts given to finish_run out of the chunks' order; the output is
    # trec_eval's either way
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    queries = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    qrels.write_text("".join(f"{q} 0 {'zz' if q == 'q3' else 'd1'} 1\n" for q in queries))
    run.write_text("".join(f"{q} Q0 d1 1 4 r\n" for q in queries))
    parts = _evaluated_parts(monkeypatch, ["-q", str(qrels), str(run)], trec_eval)
    assert parts == [["q1", "q2"], ["q3", "q4", "q5"], ["q6", "q7"]]


def test_a_last_chunk_without_two_judged_queries_joins_the_part_before(
    trec_eval: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # by the rule above, with queries by number (no -J): q1 q2 are evaluated as soon as
    # q2 is read; q3 (1 judged) and the last chunk q4 (0 judged: its judged row is not
    # retrieved) have 1, so q1 q2's part is dropped and q1-q4 are the last part
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    queries = ["q1", "q2", "q3", "q4"]
    qrels.write_text("".join(f"{q} 0 {'zz' if q == 'q4' else 'd1'} 1\n" for q in queries))
    run.write_text("".join(f"{q} Q0 d1 1 4 r\n" for q in queries))
    parts = _evaluated_parts(monkeypatch, ["-q", str(qrels), str(run)], trec_eval)
    assert parts == [["q1", "q2", "q3", "q4"]]


def test_judged_only_counts_the_judgments_it_keeps(
    trec_eval: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # under -J a query's judged rows are those judged >= 0: q2's (judged 0) counts, q3's
    # (judged -1, in the pool, unjudged) does not, by the rule above:
    # q1 q2 | q3 q4 q5 | (last) the rest: q1 q2 | q3 q4 q5 q6.
    # Kills `relevance >= 0` -> > 0 or >= 1 (q2 not counted: q1 q2 q3 q4 | q5 q6) and
    # -> >= -1 or the filter taken without -J (q3 counted: q1 q2 | q3 q4 | q5 q6)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    grades = {"q1": 1, "q2": 0, "q3": -1, "q4": 1, "q5": 1, "q6": 1}
    qrels.write_text("".join(f"{q} 0 d1 {g}\n{q} 0 d9 1\n" for q, g in grades.items()))
    run.write_text("".join(f"{q} Q0 d1 1 4 r\n" for q in grades))
    parts = _evaluated_parts(monkeypatch, ["-J", "-q", str(qrels), str(run)], trec_eval)
    assert parts == [["q1", "q2"], ["q3", "q4", "q5", "q6"]]


@pytest.mark.parametrize(
    ("second", "expected"), [("judged", 2), ("unjudged", 1)], ids=["two", "one"]
)
def test_judged_queries_beyond_the_first_8192_rows(second: str, expected: int) -> None:
    # _judged_queries counts a chunk's queries with a judged retrieved row from its first
    # 8192 rows when they hold 2, else from all of them.  q1's 8200 rows (d1 judged) come
    # first, q2's one row (d1, judged or not) last: by hand, 2 queries, or 1.
    # Kills the early answer taken from the first rows (count >= 2 -> >= 1, `rows is None`
    # -> `is not None`, the test negated) and a failure on the count of all the rows
    import polars as pl

    chunk = pl.DataFrame(
        {"query": ["q1"] * 8200 + ["q2"], "item": [f"d{i}" for i in range(1, 8201)] + ["d1"]}
    )
    pairs = pl.DataFrame(
        {"query": ["q1", "q2"], "item": ["d1", "d1" if second == "judged" else "x"]}
    )
    assert chunked._judged_queries(chunk, pairs) == expected
