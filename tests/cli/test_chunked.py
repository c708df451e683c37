"""The command's chunked evaluation (``polars_rankeval.cli.chunked``) against its
whole-run evaluation: the same standard output, exit status and messages, byte for
byte, on generated data cut into chunks of a few rows (many chunks, queries carried
from block to block), on files grouped by query and not (then the whole run is read
again), with queries only in the run or only in the qrels, duplicates and every flag
set of the trec_eval grid."""

from __future__ import annotations

import io
import re
import sys
import tempfile
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from polars_rankeval.cli import chunked, inputs, plain
from polars_rankeval.cli.eval import Part
from polars_rankeval.cli.output import RunResult
from tests.cli._grid import GRID, Dataset, arguments, datasets
from tests.helpers import FULL_PROFILE, examples

FLAGS = {**GRID, "relstring": ["-q", "-m", "relstring", "-m", "P.2"], "M2J": ["-M", "2", "-J"],
         "first": ["--duplicates", "first", "-q"], "csv": ["-q", "--format", "csv"]}  # fmt: skip
# each example carries two drawn datasets (the second one's queries prefixed with
# ``z``), so half the examples of the full profile's 40 draw as many datasets by default
EXAMPLES = settings(
    max_examples=examples(40) if FULL_PROFILE else examples(20),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


# A dataset that always goes through several chunks (rows=1, grouped): with the fast
# tier's two drawn examples, the chunked path might otherwise never cut a run.
_QUERIES = ["1", "10", "9", "Q3"]
CHUNKED = Dataset(
    qrels="1 0 d1 1\n1 0 d9 0\n10 0 d1 2\n9 0 A -1\n9 0 a 1\n",
    run="".join(f"{q} Q0 {d} 1 {s} run1\n" for q in _QUERIES for d, s in (("d1", "2"), ("d9", "1"))),
    zscores="".join(f"{q} {m} 0.5 0.1\n" for q in [*_QUERIES, "~"] for m in ("map", "P_5", "~")),
)


def _rankeval(args: list[str]) -> tuple[int, bytes, str]:
    """``rankeval`` in this process, with its warnings: status, stdout, stderr."""
    from polars_rankeval.cli import main

    out, err = io.BytesIO(), io.StringIO()
    stdout, wrapper = sys.stdout, io.TextIOWrapper(out, encoding="utf-8")
    sys.stdout = wrapper
    try:
        with redirect_stderr(err):
            code = main(args)
        wrapper.flush()
    finally:
        sys.stdout = stdout
        wrapper.detach()
    # the skipped-queries warning names up to 3 of them in no set order
    return code, out.getvalue(), re.sub(r"e\.g\. \[.*?\]", "e.g. [...]", err.getvalue())


def _grouped(dataset: Dataset, more: Dataset, grouped: bool, duplicate: bool) -> Dataset:
    """The dataset and ``more`` (its query ids prefixed with ``z``, its run lines given
    the dataset's tag: more queries, more chunks) with the run lines grouped by query
    (kept in their order within a query) or as drawn; maybe with a repeated line."""
    tag = dataset.run.split()[5]

    def both(text: str, other: str, retag: bool = False) -> list[str]:
        lines = other.splitlines()
        if retag:
            lines = [f"{line.rsplit(maxsplit=1)[0]} {tag}" for line in lines]
        return text.splitlines() + [f"z{line.lstrip()}" for line in lines]

    qrels = "\n".join(both(dataset.qrels, more.qrels)) + "\n"
    run = "\n".join(both(dataset.run, more.run, retag=True)) + "\n"
    dataset = Dataset(qrels, run, dataset.zscores)
    lines = dataset.run.splitlines()
    if grouped:
        lines.sort(key=lambda line: line.split()[0])
    if duplicate:
        lines.insert(len(lines) // 2, lines[0])
    return Dataset(dataset.qrels, "\n".join(lines) + "\n", dataset.zscores)


@pytest.mark.parametrize("flags", list(FLAGS))
def test_chunks_print_what_the_whole_run_prints(
    monkeypatch: pytest.MonkeyPatch, flags: str
) -> None:
    parts: list[int] = []  # the chunks of each run evaluated in chunks
    finish = chunked.finish_run

    def counted(given: list[Part], *args: Any, **kwargs: Any) -> RunResult:
        parts.append(len(given))
        return finish(given, *args, **kwargs)

    monkeypatch.setattr(chunked, "finish_run", counted)

    @EXAMPLES
    @given(
        datasets(run_covers_qrels="-c" not in FLAGS[flags]),
        datasets(run_covers_qrels="-c" not in FLAGS[flags]),
        st.booleans(),
        st.sampled_from([False] * 5 + [True]),
        st.integers(1, 4),
        st.sampled_from([24, 64, 1 << 20]),
    )
    @example(CHUNKED, CHUNKED, True, False, 1, 24)  # grouped, no duplicate, 1 row a chunk
    def check(
        dataset: Dataset, more: Dataset, grouped: bool, duplicate: bool, rows: int, block: int
    ) -> None:
        with tempfile.TemporaryDirectory() as folder:
            paths = _grouped(dataset, more, grouped, duplicate).write(Path(folder))
            args = [a for a in arguments("default", paths) if a != "{Z}"]
            args = [*[str(paths["zscores"]) if a == "{Z}" else a for a in FLAGS[flags]], *args]
            monkeypatch.setattr(plain, "CHUNK_ROWS", rows)
            monkeypatch.setattr(plain, "BLOCK", block)
            chunked = _rankeval(args)
            with monkeypatch.context() as whole:
                whole.setattr(inputs.RunSource, "chunks", lambda self: None)
                assert chunked == _rankeval(args), args

    check()
    if "-M" not in FLAGS[flags] and "--duplicates" not in FLAGS[flags]:  # read whole
        assert max(parts) > 1  # the chunked path ran, not only its fallback


def test_chunks_are_whole_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plain, "BLOCK", 40)  # about one line a block
    run = tmp_path / "run.txt"
    lines = [f"q{q} Q0 d{d} {d} {10 - d} tag{q}" for q in (1, 2, 3) for d in range(4)]
    run.write_text("\n".join(lines) + "\n")
    chunks = plain.RunChunks(run, rows=3)
    frames = list(chunks)
    assert [f["query"].unique().to_list() for f in frames] == [["q1"], ["q2"], ["q3"]]
    assert sum(f.height for f in frames) == 12
    assert chunks.last_tag == "tag3"
    run.write_text("\n".join(lines + lines[:1]) + "\n")  # q1 again at the end
    with pytest.raises(plain.NotGrouped):
        list(plain.RunChunks(run, rows=3))
    run.write_text("q1 Q0 d1 1 2.5\n")  # five fields: not plain
    with pytest.raises(plain.NotPlain):
        list(plain.RunChunks(run, rows=3))


def test_the_last_chunk_is_known_when_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run file's last chunk comes flagged as its last, so that the chunks before it are
    evaluated without waiting for another read; a run of one chunk is evaluated once, as
    the last (no part of it dropped and evaluated again)."""
    monkeypatch.setattr(plain, "BLOCK", 40)  # about one line a block
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{q} Q0 d{d} {d} {10 - d} t\n" for q in (1, 2, 3) for d in range(4)))
    ahead = chunked.ReadAhead(plain.RunChunks(run, rows=3))
    assert [final for _, _, final in ahead] == [False, False, True]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq3 0 d2 1\n")
    monkeypatch.setattr(chunked._Evaluator, "retract", lambda self: pytest.fail("retracted"))
    monkeypatch.setattr(plain, "BLOCK", 1 << 20)
    assert _rankeval(["-q", str(qrels), str(run)])[0] == 0


def test_a_grouped_run_is_not_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d0 2\n")
    run.write_text("".join(f"q{q} Q0 d{d} {d} {d % 3} t\n" for q in (1, 2, 3) for d in range(5)))
    whole = _rankeval(["-q", str(qrels), str(run)])
    monkeypatch.setattr(plain, "CHUNK_ROWS", 2)
    monkeypatch.setattr(inputs.RunSource, "whole", lambda *a: pytest.fail("read whole"))
    assert _rankeval(["-q", str(qrels), str(run)]) == whole


def test_a_last_chunk_of_one_query_is_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A last chunk of one query is merged with its neighbour and gives the whole run's
    bytes.  (Before P@k divided exactly, P_5 of 3 hits was 3/5 = 0.6 alone and
    0.6000000000000001 among other queries, so a lone query changed the bits; now both
    are 0.6, trec_eval's value: tests/oracles/test_exact_division.py.)"""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("1 0 d1 0\n2 0 d1 1\n2 0 d10 1\n2 0 d9 1\n")
    run.write_text("1 Q0 d1 1 1 r\n2 Q0 d1 1 1 r\n2 Q0 d10 1 1 r\n2 Q0 d9 1 1 r\n")
    args = ["-q", "--format", "csv", "-m", "P.5", str(qrels), str(run)]
    whole = _rankeval(args)
    assert b"2,P_5,0.6\n" in whole[1]
    monkeypatch.setattr(plain, "CHUNK_ROWS", 1)
    monkeypatch.setattr(plain, "BLOCK", 24)  # one line a block: q1, then q2
    assert [f.height for f in plain.RunChunks(run)] == [1, 3]
    assert _rankeval(args) == whole


def test_read_ahead_gives_the_chunks_in_order_and_the_reader_error_in_its_place() -> None:
    """The chunks come in the reader's order, each read while the one before is with
    the caller, with ``prepare`` of it once that is set (the first may be read before);
    an error of the reader is raised after the chunks before it."""
    import polars as pl

    def reader() -> Any:
        for i in range(3):
            yield pl.DataFrame({"i": [i]})
        raise plain.NotGrouped("q")

    got: list[int] = []
    counts: list[object] = []
    ahead = chunked.ReadAhead(reader())
    ahead.prepare = lambda frame, final: 10 * frame.item()
    with pytest.raises(plain.NotGrouped):
        for frame, count, final in ahead:
            got.append(frame.item())
            counts.append(count)
            assert final is False  # not known of a generator
    assert got == [0, 1, 2]
    assert counts[0] in (None, 0) and counts[1:] == [10, 20]


def test_numbered_chunks_merge_as_their_texts_numbered_again() -> None:
    """Merging chunks whose queries are numbered shifts each one's numbers after those of
    the chunks before it: the same frames as merging them as text and numbering the
    whole again, and their texts are the rows read."""
    import polars as pl

    run = pl.DataFrame(
        {"query": ["b", "b", "a", "c", "c", "c"], "item": list("xyzxyz"), "score": [1.0] * 6}
    )
    qrels = pl.DataFrame({"query": ["c", "a", "b", "z"], "item": list("xzyq"),
                          "relevance": [1, 1, 0, 2]})  # fmt: skip
    chunks = [
        chunked._Chunk.of(run.slice(*cut), qrels, judged_only=False, numbered=True)
        for cut in ((0, 2), (2, 1), (3, 3))
    ]
    assert all(c.names is not None for c in chunks)
    merged = chunked._Chunk.merged(chunks)
    again = chunked._Chunk.merged([c.texts() for c in chunks]).numbered()
    assert merged.run.equals(again.run) and merged.qrels.equals(again.qrels)
    assert merged.names is not None and merged.names.to_list() == ["b", "a", "c"]
    assert merged.run.get_column("query").to_list() == [0, 0, 1, 2, 2, 2]
    assert merged.run.get_column("query").flags["SORTED_ASC"]
    mixed = chunked._Chunk.merged([chunks[0].texts(), *chunks[1:]])
    assert mixed.run.equals(merged.run) and mixed.qrels.equals(merged.qrels)
    assert merged.texts().run.equals(run)
    texts = merged.texts().qrels.sort("query")
    assert texts.equals(qrels.filter(pl.col("query") != "z").sort("query"))
