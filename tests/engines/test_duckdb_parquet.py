"""engine="duckdb" reads a plain ``pl.scan_parquet(file)`` in place (no Parquet copy):
the same bits as the copy it replaces, and the copy for anything else (a filter, a
projection, a list of files, a glob, hive options, a cast the engine needs, diversity
qrels).  Which route ran is seen through ``_copy_to_parquet``, the copy itself."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rankeval as rk
from polars_rankeval.engines import duckdb as duckdb_engine
from polars_rankeval.engines.duckdb_parquet import ParquetView, parquet_view, plain_parquet_file

# ties, two systems, a query of either side only
RUN = pl.DataFrame({
    "sys": ["a"] * 9 + ["b"] * 5,
    "qid": ["q1"] * 5 + ["q2"] * 3 + ["q4"] + ["q1"] * 3 + ["q2"] * 2,
    "doc": ["a", "b", "g", "c", "e", "d", "e", "h", "z", "a", "b", "c", "d", "f"],
    "sim": [5.0, 4, 3, 4, 1, 3, 2, 1, 1, 3, 2, 2, 1, 1],
    "rank": [1, 2, 3, 4, 5, 1, 2, 3, 1, 1, 2, 3, 1, 2],
    "label": [1, 0, 1, 2, 0, 1, 0, 1, 0, 1, 0, 2, 1, 0],
})
QRELS = pl.DataFrame({
    "qid": ["q1", "q1", "q1", "q2", "q2", "q2", "q3"],
    "doc": ["a", "c", "e", "d", "x", "f", "a"],
    "grade": [1, 2, 0, 1, 3, -1, 1],
})
MEASURES = ["MAP", "nDCG@3", "P@2", "R@2", "RR", "NumRet", "NumRel", "Bpref", "ERR@3", "Compat"]
NAMES = {"query": "qid", "item": "doc", "score": "sim", "relevance": "grade"}
OPTIONS: list[dict[str, Any]] = [
    {"by": ["sys"]},
    {"duplicates": "first", "by": ["sys"], "complete": True, "top": 2},
    {"ties": "average", "by": ["sys"], "measures": ["AP", "P@2"]},
    {"by": ["sys"], "rank": "rank", "score": None},
    {"by": ["sys"], "qrels": None, "relevant": "label", "measures": ["AP", "P@2"]},
]  # fmt: skip


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tables the engine copied to Parquet (file names: _rk_run_src, ...)."""
    copied: list[str] = []
    copy = duckdb_engine._copy_to_parquet

    def spy(source: pl.LazyFrame, path: str) -> None:
        copied.append(Path(path).stem)
        copy(source, path)

    monkeypatch.setattr(duckdb_engine, "_copy_to_parquet", spy)
    return copied


def _files(tmp_path: Path) -> tuple[str, str]:
    run, qrels = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    RUN.write_parquet(run)
    QRELS.write_parquet(qrels)
    return run, qrels


def _evaluate(run: Any, qrels: Any, options: dict[str, Any], **extra: Any) -> pl.DataFrame:
    kw = {**NAMES, "measures": MEASURES, "per_query": True, **options, **extra}
    measures, names = kw.pop("measures"), {k: kw.pop(k) for k in ("query", "item", "score", "relevance")}
    qrels = kw.pop("qrels", qrels)
    columns = {k: kw.pop(k) for k in ("rank", "relevant") if k in kw}
    if names["score"] is None:
        names.pop("score")
    return rk.evaluate(run, qrels, measures, **names, **columns, **kw).collect()


@pytest.mark.parametrize("options", OPTIONS, ids=str)
def test_plain_scans_are_read_in_place_with_the_same_bits(
    options: dict[str, Any], tmp_path: Path, copies: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run, qrels = _files(tmp_path)
    in_place = _evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), options, engine="duckdb")
    assert copies == [] and in_place.height > 0
    monkeypatch.setattr(duckdb_engine, "parquet_view", lambda *_: None)
    copied = _evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), options, engine="duckdb")
    assert copies == ["_rk_run_src"] + (["_rk_qrels_src"] if "qrels" not in options else [])
    assert_frame_equal(in_place, copied, check_exact=True)
    polars = _evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), options)
    assert_frame_equal(in_place, polars, abs_tol=1e-12)


def test_a_filtered_scan_is_copied(tmp_path: Path, copies: list[str]) -> None:
    run, qrels = _files(tmp_path)
    filtered = pl.scan_parquet(run).filter(pl.col("sys") == "a")
    options = {"by": ["sys"]}
    duck = _evaluate(filtered, pl.scan_parquet(qrels), options, engine="duckdb")
    assert copies == ["_rk_run_src"]  # the qrels, a plain scan, read in place
    assert set(duck["sys"]) == {"a"}
    assert_frame_equal(duck, _evaluate(filtered, pl.scan_parquet(qrels), options), abs_tol=1e-12)


def test_a_key_dtype_the_engine_casts_is_copied(tmp_path: Path, copies: list[str]) -> None:
    """Int32 query ids in the run, Int64 in the qrels: the run's ids are cast (copied),
    the qrels' are not (read in place)."""
    run, qrels = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    RUN.with_columns(pl.col("qid").str.slice(1).cast(pl.Int32)).write_parquet(run)
    QRELS.with_columns(pl.col("qid").str.slice(1).cast(pl.Int64)).write_parquet(qrels)
    options = {"by": ["sys"]}
    duck = _evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), options, engine="duckdb")
    assert copies == ["_rk_run_src"]
    assert duck["qid"].dtype == pl.Int64
    assert_frame_equal(duck, _evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), options),
                       abs_tol=1e-12)


def test_diversity_qrels_are_copied(tmp_path: Path, copies: list[str]) -> None:
    """Subtopic qrels are judged by topic (an item's highest relevance): never the
    user's file as it is."""
    run, qrels = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    pl.DataFrame({"query": ["q1"] * 3, "item": ["a", "b", "c"], "score": [3.0, 2, 1]}).write_parquet(run)
    pl.DataFrame({"query": ["q1"] * 3, "subtopic": [1, 2, 2], "item": ["a", "a", "c"],
                  "relevance": [1, 1, 1]}).write_parquet(qrels)  # fmt: skip
    names = ["alpha_nDCG@2", "P@2"]
    duck = rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), names, engine="duckdb").collect()
    assert "_rk_qrels_src" in copies and "_rk_run_src" not in copies
    assert_frame_equal(duck, rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), names).collect(),
                       abs_tol=1e-12)


def test_only_a_plain_scan_of_one_file_is_recognised(tmp_path: Path) -> None:
    path, _ = _files(tmp_path)
    other = str(tmp_path / "other.parquet")
    RUN.write_parquet(other)
    assert plain_parquet_file(pl.scan_parquet(path)) == path
    assert plain_parquet_file(pl.scan_parquet(Path(path))) == path
    assert plain_parquet_file(pl.scan_parquet([path])) == path
    not_plain = {
        "filter": pl.scan_parquet(path).filter(pl.col("sim") > 1),
        "select": pl.scan_parquet(path).select("qid", "doc", "sim"),
        "rename": pl.scan_parquet(path).rename({"sim": "score"}),
        "with_columns": pl.scan_parquet(path).with_columns(pl.col("sim") * 2),
        "head": pl.scan_parquet(path).head(3),
        "n_rows": pl.scan_parquet(path, n_rows=3),
        "row index": pl.scan_parquet(path, row_index_name="i"),
        "file paths": pl.scan_parquet(path, include_file_paths="f"),
        "hive": pl.scan_parquet(path, hive_partitioning=True),
        "schema": pl.scan_parquet(path, schema=RUN.schema),
        "two files": pl.scan_parquet([path, other]),
        "glob": pl.scan_parquet(str(tmp_path / "*.parquet")),
        "directory": pl.scan_parquet(str(tmp_path)),
        "in memory": RUN.lazy(),
        "concat": pl.concat([pl.scan_parquet(path), pl.scan_parquet(other)]),
        "csv": pl.scan_csv(_csv(tmp_path)),
    }
    assert {name: plain_parquet_file(frame) for name, frame in not_plain.items()} == dict.fromkeys(not_plain)


def _csv(tmp_path: Path) -> str:
    path = str(tmp_path / "run.csv")
    RUN.write_csv(path)
    return path


def test_a_relative_path_is_read_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copies: list[str]
) -> None:
    _files(tmp_path)
    monkeypatch.chdir(tmp_path)
    run, qrels = pl.scan_parquet("run.parquet"), pl.scan_parquet("qrels.parquet")
    assert plain_parquet_file(run) == "run.parquet"
    options = {"by": ["sys"]}
    duck = _evaluate(run, qrels, options, engine="duckdb")
    assert copies == []
    assert_frame_equal(duck, _evaluate(run, qrels, options), abs_tol=1e-12)


def test_columns_polars_and_duckdb_read_differently_are_not_viewed(tmp_path: Path) -> None:
    path = str(tmp_path / "run.parquet")
    RUN.with_columns(pl.col("qid").cast(pl.Categorical), pl.col("sim").cast(pl.Decimal(10, 2))).write_parquet(path)
    scan = pl.scan_parquet(path)
    assert parquet_view(scan, [("doc", "item", pl.String())]) is not None
    for column, wanted in (("qid", pl.String()), ("sim", None), ("doc", pl.Int64()), ("sys", pl.Float64())):
        assert parquet_view(scan, [(column, "x", wanted)]) is None, column
    assert parquet_view(scan, [("gone", "x", None)]) is None


def test_a_view_whose_types_differ_is_dropped(tmp_path: Path) -> None:
    path, _ = _files(tmp_path)
    con = duckdb.connect()
    wrong = ParquetView(path, (("sim", "score", '"sim"', "FLOAT"),))
    assert not wrong.create(con, "v")
    assert con.execute("SELECT COUNT(*) FROM duckdb_views() WHERE view_name = 'v'").fetchone() == (0,)
    right = ParquetView(os.path.relpath(path), (("sim", "score", '"sim"', "DOUBLE"),))
    assert right.create(con, "v")
    assert con.execute("SELECT SUM(score) FROM v").fetchone() == (RUN["sim"].sum(),)


def test_hostile_column_names_are_read_in_place_as_names(tmp_path: Path, copies: list[str]) -> None:
    run, qrels = str(tmp_path / "run.parquet"), str(tmp_path / "qrels.parquet")
    names = {"qid": 'q"id; DROP TABLE x; --', "doc": "it'em", "sim": "s c o r e"}
    RUN.rename(names).write_parquet(run)
    QRELS.rename({"qid": names["qid"], "doc": names["doc"]}).write_parquet(qrels)
    kw: dict[str, Any] = {"query": names["qid"], "item": names["doc"], "score": names["sim"],
                          "relevance": "grade", "by": ["sys"], "per_query": True}  # fmt: skip
    duck = rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), ["AP", "P@2"], engine="duckdb", **kw)
    got = duck.collect()
    assert copies == []
    polars = rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), ["AP", "P@2"], **kw).collect()
    assert_frame_equal(got, polars, abs_tol=1e-12)
