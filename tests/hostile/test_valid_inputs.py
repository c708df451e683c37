"""Valid inputs of every dtype users produce give the values computed by hand
(``_places.HAND``) in every place."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl
import pytest

from tests.hostile._places import (
    HAND,
    MEASURES,
    PLACES,
    QRELS,
    RUN,
    assert_hand_values,
    evaluate_at,
)

SCORED = RUN.drop("rank")
RANKED = RUN.drop("score")
ENUM = pl.Enum(["a", "b", "c", "d", "e", "f", "q1", "q2"])


def _ids(dtype: pl.DataType) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda f: f.with_columns(pl.col("query", "item").cast(dtype))


def _int_ids(dtype: pl.DataType, offset: int = 0) -> Callable[[pl.DataFrame], pl.DataFrame]:
    mapping = {"q1": 1, "q2": 2, "a": 11, "b": 12, "c": 13, "d": 14, "e": 15, "f": 16}
    return lambda f: f.with_columns(
        (pl.col("query", "item").replace_strict(mapping, return_dtype=pl.UInt64) + offset).cast(dtype)
    )


# id -> (run, qrels)
CASES: dict[str, Callable[[], tuple[pl.DataFrame, pl.DataFrame]]] = {
    **{f"rank_{t}": (lambda t=t: (RANKED.with_columns(pl.col("rank").cast(t)), QRELS))
       for t in (pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Int8, pl.Int16, pl.Int32,
                 pl.Float32, pl.Decimal(10, 0), pl.Decimal(10, 2))},
    "rank_from_polars_rank": lambda: (
        RANKED.with_columns(rank=(-pl.col("rank")).rank("ordinal").over("query").reverse().over("query")
                            .cast(pl.UInt32)).with_columns(pl.col("rank").cast(pl.UInt32)), QRELS),
    "rank_from_with_row_index": lambda: (
        RANKED.drop("rank").with_row_index("rank", offset=1).with_columns(
            pl.col("rank") - pl.col("rank").min().over("query") + 1), QRELS),
    **{f"score_{t}": (lambda t=t: (SCORED.with_columns(pl.col("score").cast(t)), QRELS))
       for t in (pl.Float32, pl.Int8, pl.UInt64, pl.Decimal(10, 2), pl.Decimal(38, 10))},
    **{f"relevance_{t}": (lambda t=t: (SCORED, QRELS.with_columns(pl.col("relevance").cast(t))))
       for t in (pl.Boolean, pl.Int8, pl.UInt8, pl.UInt64, pl.Int128, pl.Float32,
                 pl.Decimal(10, 2), pl.Decimal(38, 0))},
    **{f"ids_{t}": (lambda t=t: (_ids(t)(SCORED), _ids(t)(QRELS)))
       for t in (pl.Categorical, ENUM)},
    "ids_categorical_vs_string": lambda: (_ids(pl.Categorical)(SCORED), QRELS),
    "ids_enum_vs_categorical": lambda: (_ids(ENUM)(SCORED), _ids(pl.Categorical)(QRELS)),
    "ids_large_string": lambda: (
        pl.from_arrow(SCORED.to_arrow().cast(__import__("pyarrow").schema([
            ("query", __import__("pyarrow").large_string()),
            ("item", __import__("pyarrow").large_string()), ("score", __import__("pyarrow").float64())]))),
        QRELS),
    **{f"ids_{t}": (lambda t=t: (_int_ids(t)(SCORED), _int_ids(t)(QRELS)))
       for t in (pl.UInt8, pl.Int16, pl.UInt32, pl.UInt64, pl.Int128)},
    "ids_uint64_vs_int8": lambda: (_int_ids(pl.UInt64)(SCORED), _int_ids(pl.Int8)(QRELS)),
    "ids_uint64_above_2_63": lambda: (_int_ids(pl.UInt64, 2**63)(SCORED),
                                      _int_ids(pl.UInt64, 2**63)(QRELS)),
    "ids_uint32_vs_int64": lambda: (_int_ids(pl.UInt32)(SCORED), _int_ids(pl.Int64)(QRELS)),
    # beyond float32's range: +-inf in single precision (trec_eval's C float), the order
    # kept (q1: inf, 1e38, -inf; q2: inf, 0); DuckDB's cast to REAL raised before
    "scores_beyond_float32": lambda: (
        SCORED.with_columns(score=pl.Series([1e308, 1e38, -1e308, 1e39, 0.0])), QRELS),
    "unused_columns_with_internal_names": lambda: (
        SCORED.with_columns(_rel=pl.lit(0), _pos=pl.lit(9), measure=pl.lit("x"), value=pl.lit(1.0),
                            _m0=pl.lit(None), _q=pl.lit("z")),
        QRELS.with_columns(_rel=pl.lit(5), _num_ret=pl.lit(0))),
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_valid_dtypes_give_the_hand_values(case: str, place: str) -> None:
    run, qrels = CASES[case]()
    if case.startswith("relevance_Boolean"):
        # True/False judgments: relevance 1/0; the ideal nDCG of q1 then has gains 1, 1
        qrels = qrels.with_columns(pl.col("relevance"))
        out = evaluate_at(place, run, qrels, ["AP", "P@2", "RR", "R@2", "NumRet"])
        got = dict(zip(out["measure"], out["value"], strict=True))
        assert got == pytest.approx({k: v for k, v in HAND.items() if k != "nDCG@3"}, rel=1e-12)
        return
    assert_hand_values(evaluate_at(place, run, qrels, MEASURES))


def test_large_but_finite_labels_give_the_right_value() -> None:
    """1e308 labels: every sum stays below the largest double, the value is exact."""
    qrels = QRELS.with_columns(relevance=pl.Series([1e308, 1e308, 1.0, 1.0]))
    import math

    # q1: DCG = 1e308/log2(3) + 1e308/2, ideal 1e308 + 1e308/log2(3)
    q1 = (1 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3))
    for place in PLACES:
        out = evaluate_at(place, SCORED, qrels, ["nDCG"], per_query=True)
        assert out["value"][0] == pytest.approx(q1, rel=1e-12)
