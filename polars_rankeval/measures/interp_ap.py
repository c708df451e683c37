"""Interpolated average precision as object detection computes it (PASCAL VOC, COCO):
the mean over classes of the area under each class's interpolated precision-recall
curve.  One query per class (or image x class), its rows the scored detections already
matched to ground truth (relevant = matched), R = the ground-truth objects (the qrels'
relevant items: a missed object is a relevant item no row retrieves).

The interpolated precision at recall t is the best precision at any recall >= t (the
precision envelope): at a relevant row x, env(x) = max over relevant rows y at or below
x of hits(y) / pos(y).  Then

* ``interp=all`` (VOC 2010 and later, ``voc_eval.py``'s area): sum over the relevant
  rows of env(x), divided by R;
* ``interp=voc11`` (VOC 2007, 11 points): the mean over t = 0, 0.1, .., 1 of env at the
  first relevant row whose recall hits / R >= t (0 when none reaches t);
* ``interp=coco101`` (pycocotools, 101 points): the same over t = 0, 0.01, .., 1.

The thresholds are the devkits' floating-point values (numpy's ``arange(0, 1.1, 0.1)``
and ``linspace(0, 1, 101)``: i x 0.1, i x 0.01), compared with hits / R in double
precision as they do, so 3 of 10 objects found (0.3) does not reach t = 3 x 0.1 =
0.30000000000000004, in VOC 2007 as here.  A class without ground truth scores 0
(trec_eval's convention; COCO leaves it out of its mean, VOC divides by zero).  Unlike
trec_eval's ``11pt_avg`` (IPrec11pt), no rounding of recall levels.

>>> import polars as pl, polars_rankeval as rk
>>> run = pl.DataFrame({"query": ["cat"] * 3, "item": ["d1", "d2", "d3"],
...                     "score": [0.9, 0.8, 0.7]})
>>> qrels = pl.DataFrame({"query": ["cat"] * 3, "item": ["d1", "d3", "missed"],
...                       "relevance": [1, 1, 1]})
>>> # R = 3; matched at 1 and 3: precision 1 and 2/3, envelope 1 and 2/3
>>> # all: (1 + 2/3) / 3; voc11: t <= 1/3 (0, .1, .2, .3): 1, t in (1/3, 2/3]: 2/3 (3 points)
>>> # -> (4 + 2) / 11; coco101: 34 points at 1 and 33 at 2/3 -> (34 + 22) / 101
>>> names = ["InterpAP", "InterpAP(interp=voc11)", "InterpAP(interp=coco101)"]
>>> rk.evaluate(run, qrels, names)["value"].round(12).to_list()
[0.555555555556, 0.545454545455, 0.554455445545]
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._registry import Family, Judged, Measure, Param, Stat, register, safe_div

# the devkits' recall thresholds, bit for bit: numpy arange(0., 1.1, 0.1) and
# linspace(0, 1, 101) (i * step; linspace sets its last point to exactly 1.0)
THRESHOLDS = {
    "voc11": tuple(i * 0.1 for i in range(11)),
    "coco101": (*(i * 0.01 for i in range(100)), 1.0),
}


def _expression(m: Measure, j: Judged) -> pl.Expr:
    counted = j.is_relevant(m.rel) & j.in_top(m.k)
    pos = j.pos.filter(counted).sort()  # the relevant rows in rank order
    hits = pl.int_range(1, pos.len() + 1).cast(pl.Float64)
    envelope = (hits / pos.cast(pl.Float64)).cum_max(reverse=True)
    num_rel = j.stat(Stat("num_rel", m.rel))
    interp = str(m["interp"])
    if interp == "all":
        return safe_div(envelope.sum(), num_rel)
    thresholds = pl.lit(pl.Series(THRESHOLDS[interp], dtype=pl.Float64))
    # recall hits / R as the devkits divide: polars computes column / scalar as column x
    # (1 / scalar) (3 x (1 / 10) = 0.30000000000000004, not 0.3), so R is made a column
    recall = hits / (hits * 0.0 + num_rel)
    # the first relevant row whose recall reaches t (len(pos) when none: then 0)
    first = recall.search_sorted(thresholds, side="left")
    value = envelope.append(pl.lit(0.0)).gather(first).mean()
    return pl.when(num_rel > 0).then(value).otherwise(0.0)


INTERP_AP = register(
    Family(
        name="InterpAP",
        order=15,
        summary="Interpolated AP as object detection computes it (mAP over classes): the "
        "area under the precision envelope, at every recall (VOC 2010+), 11 points (VOC "
        "2007) or 101 points (COCO).",
        formula="env(x) = max precision at relevant rows at or below x; interp=all: sum of "
        "env over relevant rows / R; voc11 / coco101: mean over t = 0, 0.1 .. 1 / 0, "
        "0.01 .. 1 of env at the first relevant row with hits / R >= t (0 if none); "
        "rows = detections (relevant = matched), R = ground-truth objects; "
        "AP(interp=...) is read as InterpAP(interp=...) (the dbt package: InterpAP only)",
        trec_eval="-",
        params=(
            Param(
                "interp", "all",
                "all: every recall point (PASCAL VOC 2010+); voc11: 11 recall points "
                "(VOC 2007); coco101: 101 recall points (COCO, pycocotools)",
                choices=("all", "voc11", "coco101"),
            ),
        ),
        examples=("InterpAP(interp=voc11)", "InterpAP(interp=coco101)@3", "InterpAP(rel=2)"),
        expression=_expression,
        stats=lambda m: (Stat("num_rel", m.rel),),
    )
)
