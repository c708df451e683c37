"""The command's fast TREC reader (``polars_rankeval.cli.plain``) against the reference
reader (``polars_rankeval.io``): on any file it gives the reference frame, or None (and
the command then reads the file with the reference reader, errors included)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polars_rankeval._errors import InputError
from polars_rankeval.cli import plain
from polars_rankeval.io import read_trec_qrels, read_trec_run
from tests.helpers import examples

# lines close to TREC lines (ids, numbers, '#', extra fields), joined mostly by single
# spaces and sometimes by every separator the reference reader splits on (or not:
# \x1f, non-ASCII, NBSP), so that both the fast path and its refusals are exercised
TOKEN = st.one_of(
    st.sampled_from(["q1", "q2", "Q0", "0", "d1", "d2", "d#3", "1", "2", "-1", "2.5",
                     "1e3", "nan", "inf", "x", "#", "01", "+1", "run"]),
    st.text(alphabet="ab#1.-e+x0Q", min_size=1, max_size=4),
)  # fmt: skip
GAP = st.sampled_from([" "] * 60 + ["  ", "\t", "\x0b", "\xa0", "\x1f", "\r", "é"])
ID = st.sampled_from(["q1", "q2", "d1", "d2", "d#3", "01", "Q0", "x"])
NUMBER = st.sampled_from(["1", "2", "0", "-1", "01", "+1", "2.5", "1e3", "-3.25", "nan", "x"])


def _line(fields: list[st.SearchStrategy[str]]) -> st.SearchStrategy[str]:
    """Fields joined by gaps, with a prefix (none, a space, '#') and maybe a tail."""
    return st.tuples(
        st.sampled_from([""] * 12 + [" ", "#"]),
        st.tuples(*fields),
        st.lists(GAP, min_size=len(fields), max_size=len(fields)),
        st.sampled_from([""] * 10 + [" extra", " ", "\t"]),
    ).map(lambda t: t[0] + "".join(g + f for g, f in zip(t[2], t[1]))[1:] + t[3])


RUN_LINE = _line([ID, st.just("Q0"), ID, NUMBER, NUMBER, st.sampled_from(["run", "bm25"])])
QRELS_LINE = _line([ID, st.just("0"), ID, NUMBER])
OTHER_LINE = st.lists(st.tuples(GAP, TOKEN), max_size=7).map(
    lambda parts: "".join(gap + token for gap, token in parts)
)
LINE = st.one_of(RUN_LINE, RUN_LINE, QRELS_LINE, QRELS_LINE, OTHER_LINE, st.just(""))
FILE = st.tuples(
    st.one_of(st.lists(RUN_LINE, max_size=8), st.lists(QRELS_LINE, max_size=8),
              st.lists(LINE, max_size=12)),
    st.sampled_from(["", "\n"]),
).map(lambda file: "\n".join(file[0]) + file[1])  # fmt: skip


def _reference(path: Path, layout: plain.Layout) -> pl.DataFrame | None:
    """The reference reader's frame (None when it raises), cut to the fast one's columns."""
    reader = read_trec_run if layout is plain.RUN else read_trec_qrels
    try:
        return reader(path).collect().select(list(layout.fields))
    except (InputError, pl.exceptions.PolarsError):  # refused: the fast one must say None
        return None


@pytest.mark.parametrize("layout", [plain.RUN, plain.QRELS], ids=["run", "qrels"])
@settings(
    max_examples=examples(500),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=FILE)
def test_fast_reader_is_the_reference_or_none(
    tmp_path: Path, layout: plain.Layout, text: str
) -> None:
    path = tmp_path / "file.txt"
    path.write_bytes(text.encode())
    fast = plain.read_plain(path, layout)
    if fast is not None:
        reference = _reference(path, layout)
        assert reference is not None, text
        assert fast.equals(reference), (text, fast, reference)


def test_plain_files_take_the_fast_path(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("# c\nq1 Q0 d1 1 2.5 a\n\nq1 Q0 d2 2 1.5 a extra\nq2 Q0 d1 1 -3e2 a\n")
    fast = plain.read_plain(run, plain.RUN)
    assert fast is not None
    assert fast.rows() == [
        ("q1", "d1", 2.5, "a"),
        ("q1", "d2", 1.5, "a"),
        ("q2", "d1", -300.0, "a"),
    ]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 -1\n")
    assert plain.read_plain(qrels, plain.QRELS) is not None


def test_tags_that_differ_are_kept_per_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plain, "BLOCK", 16)  # several blocks: one tag each, then two
    run = tmp_path / "run.txt"
    lines = [f"q Q0 d{i} {i} {10 - i} {'a' if i < 5 else 'b'}" for i in range(1, 9)]
    run.write_text("\n".join(lines) + "\n")
    fast = plain.read_plain(run, plain.RUN)
    assert fast is not None
    assert fast["tag"].to_list() == ["a"] * 4 + ["b"] * 4
    assert fast.equals(read_trec_run(run).collect().select(list(plain.RUN.fields)))
    run.write_text("\n".join(line.replace(" b", " a") for line in lines) + "\n")
    assert plain.read_plain(run, plain.RUN)["tag"].to_list() == ["a"] * 8  # type: ignore[index]


@pytest.mark.parametrize(
    "text",
    ["q1\tQ0\td1\t1\t  2.5\ta\n", "q1 Q0 d1 1 2.5 a\r\n", "q1 Q0  d1 1 2.5 a \n",
     " q1 Q0 d1 1 2.5 a\n  # comment\n \t \n"],
    ids=["tabs", "crlf", "two-spaces", "leading-spaces"],
)  # fmt: skip
def test_other_blanks_are_read_fast_too(tmp_path: Path, text: str) -> None:
    """trec_eval's own results.test is tab separated with padded scores."""
    run = tmp_path / "run.txt"
    run.write_text(text)
    fast = plain.read_plain(run, plain.RUN)
    assert fast is not None
    assert fast.rows() == [("q1", "d1", 2.5, "a")]


@pytest.mark.parametrize(
    "text",
    ["q1 Q0 d1 1 2.5 a\rq2 Q0 d1 1 2.5 a\n", "q1 Q0 d1 x 2.5 a\n", "q1 Q0 d1 1 2.5\n",
     "q1\x0bQ0 d1 1 2.5 a\n", "q1 Q0 d\xa01 1 2.5 a\n", "q1 Q0 dé 1 2.5 a\n", ""],
    ids=["lone-cr", "rank", "five-fields", "vertical-tab", "nbsp", "non-ascii", "empty"],
)  # fmt: skip
def test_anything_else_goes_to_the_reference_reader(tmp_path: Path, text: str) -> None:
    run = tmp_path / "run.txt"
    run.write_text(text)
    assert plain.read_plain(run, plain.RUN) is None
