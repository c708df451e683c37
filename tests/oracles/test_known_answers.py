"""Known answers, worked by hand, for the measures of issue #5 (both engines), and their
names: IPrec and its rounding, IPrec11pt, infAP, RBP and RBP_resid, Judged and
Unjudged, F1, Rprec_mult, NumQ and GMAP.  The arithmetic is in the comments."""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest

import polars_rankeval as rk

ENGINES = ("polars", "duckdb")


def _run(items: list[str], query: str = "q") -> pl.DataFrame:
    """A ranking of ``items`` in the given order (rank 1 first)."""
    n = len(items)
    return pl.DataFrame(
        {"query": [query] * n, "item": items, "score": [float(n - i) for i in range(n)]}
    )


def _qrels(judgments: dict[str, int], query: str = "q") -> pl.DataFrame:
    return pl.DataFrame(
        {"query": [query] * len(judgments), "item": list(judgments),
         "relevance": list(judgments.values())}
    )  # fmt: skip


def _values(run: pl.DataFrame, qrels: pl.DataFrame, names: list[str], **kw) -> list[float]:
    out = []
    for engine in ENGINES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rk.RankevalWarning)
            got = rk.evaluate(run, qrels, names, engine=engine, **kw)["value"].to_list()
        out.append(got)
    assert out[0] == pytest.approx(out[1], abs=1e-12)
    return out[0]


# -------------------------------------------------------------------- IPrec, 11pt


# relevant a, b (retrieved at ranks 2 and 5) and c, d (not retrieved): R = 4; precision
# at the relevant ranks: 1/2 and 2/5
IPREC_RUN = _run(["x1", "a", "x2", "x3", "b"])
IPREC_QRELS = _qrels({"a": 1, "b": 1, "c": 1, "d": 1, "x1": 0})


def test_iprec_rounding_v10_and_v9() -> None:
    """c = relevant items needed: level x R = 0.3 x 4 = 1.2 -> v10 round: 1, v9
    floor(1.2 + 0.9): 2; 0.6 x 4 = 2.4 -> v10: 2, v9 floor(3.3) = 3 (only 2 found: 0)."""
    names = ["IPrec@0", "IPrec@0.3", "IPrec(rounding=v9)@0.3", "IPrec@0.6",
             "IPrec(rounding=v9)@0.6", "iprec_at_recall_1.00"]  # fmt: skip
    assert _values(IPREC_RUN, IPREC_QRELS, names) == pytest.approx(
        [0.5, 0.5, 0.4, 0.4, 0.0, 0.0], abs=1e-15
    )


def test_11pt_average_both_roundings() -> None:
    """level x 4 for the 11 levels: 0, .4, .8, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6, 4.
    v10 (round): c = 0,0,1,1,2,2,2,3,3,4,4 -> 0.5 x 4 + 0.4 x 3 = 3.2;
    v9 (+0.9, floor): c = 0,1,1,2,2,2,3,3,4,4,4 -> 0.5 x 3 + 0.4 x 3 = 2.7; then / 11."""
    got = _values(IPREC_RUN, IPREC_QRELS, ["11pt_avg", "IPrec11pt(rounding=v9)"])
    assert got == pytest.approx([3.2 / 11, 2.7 / 11], abs=1e-15)


def test_iprec_names() -> None:
    assert str(rk.parse_measure("iprec_at_recall_0.10")) == "IPrec@0.1"
    assert str(rk.parse_measure("IPrec")) == "IPrec@0"  # the level is always printed
    assert str(rk.parse_measure("IPrec(recall=0.25,rel=2)")) == "IPrec(rel=2)@0.25"
    assert str(rk.parse_measure("iprec(rounding=v9)@1")) == "IPrec(rounding=v9)@1"
    assert str(rk.parse_measure("11pt_avg")) == "IPrec11pt"
    for bad, message in [
        ("IPrec@1.5", "recall must be <= 1"),
        ("IPrec@-0.1", "recall must be >= 0"),
        ("IPrec@x", "must be a number"),
        ("IPrec(recall=0.1)@0.2", "given twice"),
        ("IPrec(rounding=v8)", "choose one of v10, v9"),
        ("IPrec11pt@3", "takes no @k"),
        ("AP@0.5", "positive integer"),
    ]:
        with pytest.raises(rk.MeasureError, match=message):
            rk.parse_measure(bad)


# ---------------------------------------------------------------------------- infAP


def test_infap_with_pooled_but_unjudged_items() -> None:
    """Ranking r1, x (not in the qrels), u (judged -1: pooled, not judged), n (judged 0),
    r2; R = 2.  r1 at rank 1: 1.  r2 at rank 5 (j = 4): 1/5 + 4/5 x (3 pooled above / 4)
    x (1 + 1e-5) / (1 + 1 + 2e-5) = 0.2 + 0.6 x 0.5 = 0.5.  infAP = 1.5 / 2 = 0.75
    (AP = (1 + 2/5) / 2 = 0.7: it counts x and u as non-relevant)."""
    run = _run(["r1", "x", "u", "n", "r2"])
    qrels = _qrels({"r1": 1, "r2": 1, "u": -1, "n": 0})
    assert _values(run, qrels, ["infAP", "AP"]) == pytest.approx([0.75, 0.7], abs=1e-12)


# ------------------------------------------------------------------------------ RBP


def test_rbp_graded_binary_and_cutoff() -> None:
    """Levels 3 at rank 1, 1 at rank 2, the query's highest level 3 (item z): graded
    gains 1 and 1/3.  p = 0.5: 0.5 x (1 + 1/3 x 0.5) = 7/12; binary at rel 1: 0.5 x
    (1 + 0.5) = 0.75, at rel 2: 0.5; @1: 0.5 x 1."""
    run = _run(["a", "b", "c"])
    qrels = _qrels({"a": 3, "b": 1, "c": 0, "z": 3})
    names = ["RBP(p=0.5)", "RBP(p=0.5,gain=binary)", "RBP(p=0.5,gain=binary,rel=2)",
             "RBP(p=0.5)@1", "rbp"]  # fmt: skip
    # rbp (p = 0.9): 0.1 x (1 + 1/3 x 0.9) = 0.13
    assert _values(run, qrels, names) == pytest.approx([7 / 12, 0.75, 0.5, 0.5, 0.13], abs=1e-12)


def test_rbp_residual() -> None:
    """p = 0.5, ranking a (judged), x (not in the qrels), u (judged -1): residual =
    p^3 + (1 - p) x (p^1 + p^2) = 0.125 + 0.5 x 0.75 = 0.5.  Everything judged: 0, as
    trec_eval (although p^n of the weight lies below the ranking)."""
    qrels = _qrels({"a": 1, "u": -1, "b": 0})
    assert _values(_run(["a", "x", "u"]), qrels, ["RBP_resid(p=0.5)"]) == [0.5]
    assert _values(_run(["a", "b"]), qrels, ["rbp_resid"]) == [0.0]


# -------------------------------------------------------------------- Judged, unj_k


def test_judged_and_unjudged() -> None:
    """a judged 0, b judged -1 (pooled but unjudged), c not in the qrels.  Judged@2 =
    1/2, Judged@10 = 1/3 (of the 3 retrieved), Unjudged@2 = 1/2, unj_10 = 2/10 (over k:
    the rows missing below count as judged), Unjudged = 2/3."""
    run = _run(["a", "b", "c"])
    qrels = _qrels({"a": 0, "b": -1, "z": 1})
    names = ["Judged@2", "Judged@10", "Unjudged@2", "unj_10", "Unjudged", "Judged"]
    assert _values(run, qrels, names) == pytest.approx([0.5, 1 / 3, 0.5, 0.2, 2 / 3, 1 / 3])


# ---------------------------------------------------------------- F1, Rprec_mult


def test_f1_and_set_f() -> None:
    """5 retrieved, relevant at ranks 2 and 4, R = 4.  set_F = 2 P R / (P + R) =
    2 x 2 / (4 + 5) = 4/9; F1@2 = 2 x 1 / (4 + 2) = 1/3; beta 0.5 (trec_eval set_F.0.5:
    (1 + b) P R / (b P + R)) = 1.5 x 2 / (0.5 x 4 + 5) = 3/7; nothing found: 0."""
    run = _run(["x", "a", "y", "b", "z"])
    qrels = _qrels({"a": 1, "b": 1, "c": 1, "d": 1})
    names = ["set_F", "F1@2", "F1(beta=0.5)", "F1@1"]
    assert _values(run, qrels, names) == pytest.approx([4 / 9, 1 / 3, 3 / 7, 0.0], abs=1e-15)


def test_rprec_mult() -> None:
    """Same ranking, R = 4: c = floor(mult x 4 + 0.9): 0.2 -> 1 (x: 0), 0.5 -> 2
    (1/2), 1 -> 4 (2/4 = Rprec), 2 -> 8 (beyond the 5 retrieved: 2/8)."""
    run = _run(["x", "a", "y", "b", "z"])
    qrels = _qrels({"a": 1, "b": 1, "c": 1, "d": 1})
    names = ["Rprec_mult_0.20", "Rprec_mult(mult=0.5)", "Rprec_mult", "Rprec", "Rprec_mult_2.00"]
    assert _values(run, qrels, names) == pytest.approx([0.0, 0.5, 0.5, 0.5, 0.25], abs=1e-15)


# ------------------------------------------------------------------ NumQ and GMAP


def test_num_q_and_gm_map_by_group() -> None:
    """Per system: NumQ counts its queries (sums); GMAP is exp(mean(log(max(AP, 1e-5)))).
    System A: AP 1 (q1) and 1/2 (q2): sqrt(1/2).  System B: AP 1/2 (q1) only."""
    run = pl.DataFrame({
        "sys": ["A", "A", "A", "B", "B"],
        "query": ["q1", "q2", "q2", "q1", "q1"],
        "item": ["a", "x", "b", "x", "a"],
        "score": [1.0, 2.0, 1.0, 2.0, 1.0],
    })  # fmt: skip
    qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["a", "b"], "relevance": [1, 1]})
    for engine in ENGINES:
        got = rk.evaluate(run, qrels, ["num_q", "gm_map"], by="sys", engine=engine).sort(
            "sys", "measure"
        )
        assert got["value"].to_list() == pytest.approx([math.sqrt(0.5), 2.0, 0.5, 1.0])
        complete = rk.evaluate(
            run, qrels, ["num_q", "gm_map"], by="sys", engine=engine, complete=True
        ).sort("sys", "measure")
        # B misses q2: NumQ 2, GMAP sqrt(1/2 x 1e-5)
        assert complete["value"].to_list() == pytest.approx(
            [math.sqrt(0.5), 2.0, math.sqrt(0.5e-5), 2.0], rel=1e-12
        )


def test_sql_render_summarises_gm_map_geometrically() -> None:
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("sqlglot")
    from polars_rankeval.sql import render

    run = pl.DataFrame({"query": ["q1", "q2", "q2"], "item": ["a", "x", "b"],
                        "score": [1.0, 2.0, 1.0]})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q1", "q2"], "item": ["a", "b"], "relevance": [1, 1]})
    con = duckdb.connect()
    con.register("run", run.to_arrow())
    con.register("qrels", qrels.to_arrow())
    rows = con.execute(render(["gm_map", "map", "num_q"], "duckdb", per_query=False)).fetchall()
    assert [m for m, _ in rows] == ["gm_map", "map", "num_q"]
    assert [v for _, v in rows] == pytest.approx([math.sqrt(0.5), 0.75, 2.0], abs=1e-12)
