"""InterpAP (object detection's interpolated AP) against pycocotools (COCO's 101 points)
on boxes built so that matching is trivial, against the PASCAL VOC devkit's formulas
(``voc_ap`` of voc_eval.py, 11 points and the area under the envelope) re-typed in
numpy, per class and mean; and by hand.

The scenes: per image and class, ground-truth boxes 10 x 10 at x = 20 j (disjoint); a
detection either copies one of them (IoU 1) or lies at y = 500 (IoU 0 with every box).
At any IoU threshold a detection is then matched exactly when it is the best-scored
detection on its box: COCO's greedy matching, done here by hand to write the run's
relevance.  Scores are distinct (COCO breaks ties by image order, we by item id).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._errors import MeasureError
from tests.oracles.ir_measures_data import BATCH, BATCH_SETTINGS

coco = pytest.importorskip("pycocotools.coco")
cocoeval = pytest.importorskip("pycocotools.cocoeval")

NAMES = ["InterpAP", "InterpAP(interp=voc11)", "InterpAP(interp=coco101)"]


@st.composite
def scenes(draw: st.DrawFn) -> dict[str, Any]:
    """gts: [(annotation id, image, class, box j)]; dets: [(det id, image, class, box j
    or None for background, score)]; at least one of each."""
    gts, dets, scores = [], [], draw(st.permutations(range(1, 301)))
    for image in range(draw(st.integers(1, 3))):
        for cls in range(1, draw(st.integers(1, 3)) + 1):
            n_gt = draw(st.integers(0, 4))
            gts += [(len(gts) + 1 + j, image, cls, j) for j in range(n_gt)]
            targets = st.one_of(st.none(), st.integers(0, n_gt - 1)) if n_gt else st.none()
            for target in draw(st.lists(targets, max_size=6)):
                dets.append((len(dets) + 1, image, cls, target, scores[len(dets)] / 1000))
    if not dets:
        dets.append((1, 0, 1, None, 0.5))
    if not gts:  # a missed object: the class is evaluated
        gts.append((1, 0, 1, 0))
    return {"gts": gts, "dets": dets}


def _box(j: int | None) -> list[float]:
    return [20.0 * j, 0.0, 10.0, 10.0] if j is not None else [0.0, 500.0, 10.0, 10.0]


def _matched(scene: dict[str, Any]) -> dict[int, int]:
    """det id -> annotation id: the best-scored detection on each box."""
    gt_id = {(i, c, j): a for a, i, c, j in scene["gts"]}
    out: dict[int, int] = {}
    for d, i, c, j, _ in sorted(scene["dets"], key=lambda d: -d[4]):
        if j is not None and gt_id[i, c, j] not in out.values():
            out[d] = gt_id[i, c, j]
    return out


def _frames(scene: dict[str, Any]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run: query = class, item = detection; qrels: the matched detections and the
    missed objects, relevant (R = the class's objects)."""
    matched = _matched(scene)
    run = pl.DataFrame(
        [(str(c), f"d{d}", s) for d, _, c, _, s in scene["dets"]],
        schema=["query", "item", "score"], orient="row",
    )  # fmt: skip
    found = set(matched.values())
    qrels = [(str(c), f"d{d}", 1) for d, _, c, _, _ in scene["dets"] if d in matched]
    qrels += [(str(c), f"gt{a}", 1) for a, _, c, _ in scene["gts"] if a not in found]
    return run, pl.DataFrame(qrels, schema=["query", "item", "relevance"], orient="row")


def _pycocotools(scene: dict[str, Any]) -> dict[str, float]:
    """COCO's AP per class (iou 0.5, area all, 100 detections), classes with objects."""
    classes = sorted({c for _, _, c, _, _ in scene["dets"]} | {c for _, _, c, _ in scene["gts"]})
    images = sorted({i for _, i, *_ in scene["dets"]} | {i for _, i, *_ in scene["gts"]})
    ground = coco.COCO()
    ground.dataset = {
        "images": [{"id": i} for i in images],
        "categories": [{"id": c} for c in classes],
        "annotations": [
            {"id": a, "image_id": i, "category_id": c, "bbox": _box(j), "area": 100.0,
             "iscrowd": 0}
            for a, i, c, j in scene["gts"]
        ],
    }  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()):
        ground.createIndex()
        found = ground.loadRes([
            {"image_id": i, "category_id": c, "bbox": _box(j), "score": s}
            for _, i, c, j, s in scene["dets"]
        ])  # fmt: skip
        e = cocoeval.COCOeval(ground, found, "bbox")
        e.evaluate()
        e.accumulate()
    precision = e.eval["precision"][0, :, :, 0, -1]  # [recall threshold, class]
    with_objects = {c for _, _, c, _ in scene["gts"]}
    return {
        str(c): float(np.mean(precision[:, k]))
        for k, c in enumerate(e.params.catIds)
        if c in with_objects
    }


def voc_ap(rec: np.ndarray, prec: np.ndarray, *, use_07_metric: bool) -> float:
    """The PASCAL VOC devkit's AP (voc_eval.py's voc_ap): 11 points, or the area under
    the precision envelope at the recall change points."""
    if use_07_metric:
        ap = 0.0
        for t in np.arange(0.0, 1.1, 0.1):
            p = 0.0 if np.sum(rec >= t) == 0 else np.max(prec[rec >= t])
            ap = ap + p / 11.0
        return float(ap)
    mrec = np.concatenate(([0.0], rec, [1.0]))
    mpre = np.concatenate(([0.0], prec, [0.0]))
    for i in range(mpre.size - 1, 0, -1):
        mpre[i - 1] = np.maximum(mpre[i - 1], mpre[i])
    i = np.where(mrec[1:] != mrec[:-1])[0]
    return float(np.sum((mrec[i + 1] - mrec[i]) * mpre[i + 1]))


def _voc(scene: dict[str, Any]) -> dict[tuple[str, str], float]:
    """The devkit's per-class values: detections by score, tp = matched, npos = objects."""
    matched = _matched(scene)
    out = {}
    for c in sorted({c for _, _, c, _ in scene["gts"]}):
        dets = sorted((d for d in scene["dets"] if d[2] == c), key=lambda d: -d[4])
        tp = np.cumsum([1.0 if d[0] in matched else 0.0 for d in dets])
        fp = np.cumsum([0.0 if d[0] in matched else 1.0 for d in dets])
        npos = sum(1 for g in scene["gts"] if g[2] == c)
        rec = tp / float(npos)
        prec = tp / np.maximum(tp + fp, np.finfo(np.float64).eps)
        out[str(c), "InterpAP"] = voc_ap(rec, prec, use_07_metric=False)
        out[str(c), "InterpAP(interp=voc11)"] = voc_ap(rec, prec, use_07_metric=True)
    return out


def _ours(
    run: pl.DataFrame, qrels: pl.DataFrame, *, per_query: bool, engine: str
) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # classes without objects
        return rk.evaluate(run, qrels, NAMES, per_query=per_query, complete=True,
                           engine=engine)  # fmt: skip


@st.composite
def scene_batches(draw: st.DrawFn) -> list[dict[str, Any]]:
    """1 to ``BATCH`` scenes, checked in one call per engine and output shape (DuckDB plans
    its SQL ~0.3 s a call, whatever the rows); the simplest is one simplest scene."""
    return [draw(scenes()), *draw(st.lists(scenes(), max_size=BATCH - 1))]


def _stacked(batch: list[dict[str, Any]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The scenes' frames as one: the i-th scene's classes are the queries ``"i:<class>"``,
    each evaluated on its own scene's rows as in a call of its own."""

    def tag(i: int, frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns((pl.lit(f"{i}:") + pl.col("query")).alias("query"))

    parts = [_frames(scene) for scene in batch]
    run = pl.concat(tag(i, part[0]) for i, part in enumerate(parts))
    return run, pl.concat(tag(i, part[1]) for i, part in enumerate(parts))


def _expected(scene: dict[str, Any]) -> dict[tuple[str, str], float]:
    """The devkit's and pycocotools' values of a scene, keyed by (class, measure)."""
    expected = _voc(scene)
    return expected | {(c, "InterpAP(interp=coco101)"): v for c, v in _pycocotools(scene).items()}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@BATCH_SETTINGS
@given(batch=scene_batches())
def test_interp_ap_matches_pycocotools_and_the_voc_devkit(
    engine: str, batch: list[dict[str, Any]]
) -> None:
    """engine='duckdb': the SQL entry point (_sqlinterp.py).  A batch of scenes in one
    call (ir_measures_data.BATCH_SETTINGS: ~12 scenes in 3 examples by default, as 12
    examples of a scene each before)."""
    run, qrels = _stacked(batch)
    expected = {
        (f"{i}:{c}", m): v for i, scene in enumerate(batch) for (c, m), v in _expected(scene).items()
    }
    got = {(q, m): v for q, m, v in _ours(run, qrels, per_query=True, engine=engine).iter_rows()}
    assert set(got) == set(expected)  # every class with objects, none other
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-9), key
    # mAP: the mean over the classes with objects (COCO's summarize leaves the others out)
    for name, value in _ours(run, qrels, per_query=False, engine=engine).iter_rows():
        values = [v for (_, m), v in expected.items() if m == name]
        assert value == pytest.approx(sum(values) / len(values), abs=1e-9), name


def test_interp_ap_by_hand() -> None:
    # one class, R = 4 objects, detections by score: TP FP TP TP FP (one object missed)
    # precision at the matches: 1/1, 2/3, 3/4; envelope: 1, 3/4, 3/4; recall .25 .5 .75
    # all: (1 + 3/4 + 3/4) / 4 = 0.625
    # voc11: t in {0, .1, .2}: 1 (3 points); t in {.30000000000000004, .4, .5}: 3/4;
    #   {.6000000000000001, .7000000000000001}: 3/4; .8 .9 1: 0 -> (3 + 5 * 0.75) / 11
    # coco101: t = i/100: i <= 25: 1 (26 points); 26..75: 3/4 (50 points); 76..100: 0
    #   -> (26 + 37.5) / 101
    run = pl.DataFrame({"query": ["c"] * 5, "item": ["a", "b", "c", "d", "e"],
                        "score": [0.9, 0.8, 0.7, 0.6, 0.5]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["c"] * 4, "item": ["a", "c", "d", "miss"],
                          "relevance": [1, 1, 1, 1]})  # fmt: skip
    for engine in ("polars", "duckdb"):
        got = dict(rk.evaluate(run, qrels, NAMES, engine=engine).iter_rows())
        assert got["InterpAP"] == pytest.approx(0.625, abs=1e-15)
        assert got["InterpAP(interp=voc11)"] == pytest.approx((3 + 5 * 0.75) / 11, abs=1e-15)
        assert got["InterpAP(interp=coco101)"] == pytest.approx((26 + 37.5) / 101, abs=1e-15)


def test_voc11_thresholds_are_the_devkits_floats() -> None:
    # 3 of 10 objects found at the top: recall 0.3 < 3 * 0.1 = 0.30000000000000004, so
    # t = "0.3" takes the envelope of the 4th match (at position 5: 4/5), as voc_eval.py
    items = [f"d{i}" for i in range(5)]
    run = pl.DataFrame({"query": ["c"] * 5, "item": items, "score": [5.0, 4, 3, 2, 1]})
    relevant = ["d0", "d1", "d2", "d4", *[f"m{i}" for i in range(6)]]
    qrels = pl.DataFrame({"query": ["c"] * 10, "item": relevant, "relevance": [1] * 10})
    (value,) = rk.evaluate(run, qrels, ["InterpAP(interp=voc11)"])["value"]
    # t = 0 .. 0.2: 1 (3 points); t = 0.30000000000000004, 0.4: 4/5; above: 0
    assert value == pytest.approx((3 + 2 * 0.8) / 11, abs=1e-15)
    # the SQL (_sqlinterp.py) compares with the same doubles
    (in_sql,) = rk.evaluate(run, qrels, ["InterpAP(interp=voc11)"], engine="duckdb")["value"]
    assert in_sql == pytest.approx(value, abs=1e-15)
    tp = np.cumsum([1.0, 1, 1, 0, 1])
    rec, prec = tp / 10.0, tp / np.arange(1, 6)
    assert value == pytest.approx(voc_ap(rec, prec, use_07_metric=True), abs=1e-15)


@pytest.mark.parametrize(
    "name, problem",
    [("InterpAP(interp=voc12)", "choose one of all, voc11, coco101"),
     ("InterpAP(interp=2)", "not allowed")],
)  # fmt: skip
def test_bad_interp_is_named(name: str, problem: str) -> None:
    run = pl.DataFrame({"query": ["c"], "item": ["a"], "score": [1.0]})
    qrels = pl.DataFrame({"query": ["c"], "item": ["a"], "relevance": [1]})
    with pytest.raises(MeasureError, match=problem):
        rk.evaluate(run, qrels, [name])
    with pytest.raises(MeasureError, match="ties='average'"):
        rk.evaluate(run, qrels, ["InterpAP"], ties="average")


def test_interp_ap_in_the_sql_entry_point_and_render() -> None:
    """test_interp_ap_by_hand's class, with a cutoff (@4: the envelope of the rows
    within it only), through the entry point sql/rankeval.sql and sql.render's DuckDB."""
    import duckdb

    from polars_rankeval.sql import render
    from tests.helpers import entry_point_connection

    run = pl.DataFrame({"query": ["c"] * 5, "item": ["a", "b", "c", "d", "e"],
                        "score": [0.9, 0.8, 0.7, 0.6, 0.5]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["c"] * 4, "item": ["a", "c", "d", "miss"],
                          "relevance": [1, 1, 1, 1]})  # fmt: skip
    names = [*NAMES, "InterpAP@2", "InterpAP(interp=voc11)@2"]
    expected = {
        "InterpAP": 0.625, "InterpAP(interp=voc11)": (3 + 5 * 0.75) / 11,
        "InterpAP(interp=coco101)": (26 + 37.5) / 101,
        # @2: one match (a), R = 4: all 1/4; voc11 t = 0, .1, .2: 3/11
        "InterpAP@2": 0.25, "InterpAP(interp=voc11)@2": 3 / 11,
    }  # fmt: skip
    con = entry_point_connection()
    con.register("runs", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    listed = ", ".join(f"'{n}'" for n in names)
    entry = con.sql(f"SELECT measure, value FROM rankeval_summary('runs', 'qrels', [{listed}])")
    plain = duckdb.connect()
    plain.register("runs", run.to_arrow())
    plain.register("qrels", qrels.to_arrow())
    rendered = plain.sql(render(names, dialect="duckdb", run_table="runs", qrels_table="qrels"))
    rows = {m: v for _, m, v in rendered.fetchall()}  # query, measure, value (query 'all')
    for got in (dict(entry.fetchall()), rows):
        assert set(got) == set(expected)
        for name, value in expected.items():
            assert got[name] == pytest.approx(value, abs=1e-15), name


def test_ap_with_interp_is_interp_ap() -> None:
    """Issue 18 spells object detection's AP as AP(interp=voc11|all|coco101): the parser
    reads it as InterpAP (AP's norm= does not apply there and is refused by name)."""
    assert str(rk.parse_measure("AP(interp=voc11)")) == "InterpAP(interp=voc11)"
    assert str(rk.parse_measure("map(interp=coco101)@10")) == "InterpAP(interp=coco101)@10"
    assert str(rk.parse_measure("AP(interp=all)", conventions="kaggle")) == "InterpAP"
    run = pl.DataFrame({"query": ["c"] * 5, "item": ["a", "b", "c", "d", "e"],
                        "score": [0.9, 0.8, 0.7, 0.6, 0.5]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["c"] * 4, "item": ["a", "c", "d", "miss"],
                          "relevance": [1, 1, 1, 1]})  # fmt: skip
    got = rk.evaluate(run, qrels, ["AP(interp=voc11)", "AP(interp=all)", "AP(interp=coco101)"])
    assert got["value"].to_list() == pytest.approx([(3 + 5 * 0.75) / 11, 0.625, (26 + 37.5) / 101])
    with pytest.raises(MeasureError, match="InterpAP has no parameter 'norm'"):
        rk.parse_measure("AP(interp=voc11,norm=min)")
    # the SQL entry point's parser (sql/entry/parse.sql) reads it alike
    from tests.helpers import entry_point_connection

    con = entry_point_connection()
    con.register("runs", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    rows = con.sql("SELECT measure, value FROM rankeval_summary('runs', 'qrels', "
                   "['AP(interp=voc11)', 'ap( interp = all)', 'AP(norm=min)'])").fetchall()  # fmt: skip
    assert dict(rows) == pytest.approx({"AP(interp=voc11)": (3 + 5 * 0.75) / 11,
                                        "ap( interp = all)": 0.625,
                                        "AP(norm=min)": (1 + 2 / 3 + 3 / 4) / 4})  # fmt: skip
