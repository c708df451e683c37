"""Valid inputs of every dtype users produce give the values computed by hand
(``_places.HAND``) in every place.

The cases vary three independent things: the run's rank or score column, the qrels'
relevance column, and the id columns (query, item) of both. Each test call takes one
case of each kind (:data:`ROUNDS`), so every dtype goes through every place in 18 calls
instead of 45. Every DuckDB call costs ~0.25 s of planning, whatever its size. A wrong
value in any column still gives a wrong hand value."""

from __future__ import annotations

from collections.abc import Callable
from itertools import zip_longest

import polars as pl
import pyarrow as pa
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
ENUM = pl.Enum(["a", "b", "c", "d", "e", "f", "q1", "q2"])
Frame = Callable[[pl.DataFrame], pl.DataFrame]


def _ids(dtype: pl.DataType) -> Frame:
    return lambda f: f.with_columns(pl.col("query", "item").cast(dtype))


def _int_ids(dtype: pl.DataType, offset: int = 0) -> Frame:
    mapping = {"q1": 1, "q2": 2, "a": 11, "b": 12, "c": 13, "d": 14, "e": 15, "f": 16}
    return lambda f: f.with_columns(
        (pl.col("query", "item").replace_strict(mapping, return_dtype=pl.UInt64) + offset).cast(dtype)
    )


def _large_string(f: pl.DataFrame) -> pl.DataFrame:
    table = f.to_arrow()
    fields = [pa.field(n, pa.large_string()) if n in ("query", "item") else table.schema.field(n)
              for n in table.column_names]
    return pl.DataFrame(pl.from_arrow(table.cast(pa.schema(fields))))


def _rank(cast: Callable[[pl.Expr], pl.Expr]) -> Frame:
    return lambda f: f.drop("score").with_columns(rank=cast(pl.col("rank")))


def _score(cast: Callable[[pl.Expr], pl.Expr]) -> Frame:
    return lambda f: f.drop("rank").with_columns(score=cast(pl.col("score")))


# the run's rank or score column: name -> run (with ids already cast) -> run
RUN_SIDE: dict[str, Frame] = {
    **{f"rank_{t}": _rank(lambda c, t=t: c.cast(t))
       for t in (pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64, pl.Int8, pl.Int16, pl.Int32,
                 pl.Float32, pl.Decimal(10, 0), pl.Decimal(10, 2))},
    "rank_from_polars_rank": _rank(
        lambda c: (-c).rank("ordinal").over("query").reverse().over("query").cast(pl.UInt32)),
    "rank_from_with_row_index": lambda f: f.drop("score", "rank").with_row_index("rank", offset=1)
    .with_columns(pl.col("rank") - pl.col("rank").min().over("query") + 1),
    **{f"score_{t}": _score(lambda c, t=t: c.cast(t))
       for t in (pl.Float32, pl.Int8, pl.UInt64, pl.Decimal(10, 2), pl.Decimal(38, 10))},
    # beyond float32's range: +-inf in single precision (trec_eval's C float), the order
    # kept (q1: inf, 1e38, -inf; q2: inf, 0); DuckDB's cast to REAL raised before
    "scores_beyond_float32": _score(
        lambda c: pl.lit(pl.Series([1e308, 1e38, -1e308, 1e39, 0.0]))),
}
# the qrels' relevance column
RELEVANCE: dict[str, Frame] = {
    f"relevance_{t}": (lambda f, t=t: f.with_columns(pl.col("relevance").cast(t)))
    for t in (pl.Boolean, pl.Int8, pl.UInt8, pl.UInt64, pl.Int128, pl.Float32,
              pl.Decimal(10, 2), pl.Decimal(38, 0))
}


def _same(f: pl.DataFrame) -> pl.DataFrame:
    return f


# the id columns: name -> (run's, qrels')
IDS: dict[str, tuple[Frame, Frame]] = {
    **{f"ids_{t}": (_ids(t), _ids(t)) for t in (pl.Categorical, ENUM)},
    "ids_categorical_vs_string": (_ids(pl.Categorical), _same),
    "ids_enum_vs_categorical": (_ids(ENUM), _ids(pl.Categorical)),
    "ids_large_string": (_large_string, _same),
    **{f"ids_{t}": (_int_ids(t), _int_ids(t))
       for t in (pl.UInt8, pl.Int16, pl.UInt32, pl.UInt64, pl.Int128)},
    "ids_uint64_vs_int8": (_int_ids(pl.UInt64), _int_ids(pl.Int8)),
    "ids_uint64_above_2_63": (_int_ids(pl.UInt64, 2**63), _int_ids(pl.UInt64, 2**63)),
    "ids_uint32_vs_int64": (_int_ids(pl.UInt32), _int_ids(pl.Int64)),
    "unused_columns_with_internal_names": (
        lambda f: f.with_columns(_rel=pl.lit(0), _pos=pl.lit(9), measure=pl.lit("x"),
                                 value=pl.lit(1.0), _m0=pl.lit(None), _q=pl.lit("z")),
        lambda f: f.with_columns(_rel=pl.lit(5), _num_ret=pl.lit(0))),
}
# round name -> (run side, relevance, ids): each case of each kind in one round
ROUNDS: dict[str, tuple[str | None, str | None, str | None]] = {
    "+".join(n for n in names if n): names
    for names in zip_longest(RUN_SIDE, RELEVANCE, IDS)
}


def _case(names: tuple[str | None, str | None, str | None]) -> tuple[pl.DataFrame, pl.DataFrame]:
    run_side, relevance, ids = names
    run_ids, qrels_ids = IDS[ids] if ids else (_same, _same)
    run = run_ids(RUN)
    run = RUN_SIDE[run_side](run) if run_side else run.drop("rank")
    qrels = qrels_ids(QRELS)
    return run, RELEVANCE[relevance](qrels) if relevance else qrels


def test_every_case_is_in_a_round() -> None:
    kinds = list(zip(*ROUNDS.values(), strict=True))
    for kind, cases in zip(kinds, (RUN_SIDE, RELEVANCE, IDS), strict=True):
        assert sorted(n for n in kind if n) == sorted(cases)


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("round_", sorted(ROUNDS))
def test_valid_dtypes_give_the_hand_values(round_: str, place: str) -> None:
    run, qrels = _case(ROUNDS[round_])
    if qrels.schema["relevance"] == pl.Boolean:
        # True/False judgments: relevance 1/0; the ideal nDCG of q1 then has gains 1, 1
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
