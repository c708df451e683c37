"""The expression API's contract: an invalid group gives null, a valid one the value
computed by hand, in group_by, over() and the Expr namespace."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rankeval  # noqa: F401 - registers the namespace
import polars_rankeval.expr as rx

NAN, INF = float("nan"), float("inf")
# id -> (ranks, labels, R or None, measure)
INVALID = {
    "duplicate_ranks_ap": ([1, 1], [1, 1], None, "AP"),
    "duplicate_ranks_p": ([1, 1, 2], [1, 0, 1], None, "P@2"),
    "null_rank": ([1, None], [1, 0], None, "RR"),
    "zero_rank": ([0, 1], [1, 0], None, "nDCG@5"),
    "negative_rank": ([-1, 2], [1, 1], None, "AP"),
    "fractional_rank": ([1.5, 2.0], [1, 0], None, "P@1"),
    "nan_rank": ([NAN, 2.0], [1, 0], None, "RR"),
    "nan_label": ([1, 2], [NAN, 1.0], None, "nDCG"),
    "null_label": ([1, 2], [None, 1], None, "AP"),
    "inf_label": ([1, 2], [INF, 1.0], None, "nDCG"),
    "num_relevant_below_found_recall": ([1, 2], [1, 1], [1, 1], "R@10"),
    "num_relevant_below_found_ap": ([1, 2], [1, 1], [1, 1], "AP"),
    "num_relevant_null": ([1, 2], [1, 0], [None, None], "R@2"),
    "num_relevant_varies": ([1, 2], [1, 0], [3, 4], "AP"),
    "exp_gain_overflow": ([1, 2], [2000, 1], None, "nDCG(gain=exp)"),
}


def _frame(ranks, labels, r) -> pl.DataFrame:
    data = {"q": [1] * len(ranks), "rank": ranks, "relevant": labels}
    if r is not None:
        data["R"] = r
    return pl.DataFrame(data, strict=False)


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_group_is_null_everywhere(case: str) -> None:
    ranks, labels, r, name = INVALID[case]
    df = _frame(ranks, labels, r)
    kw = {} if r is None else {"num_relevant": "R"}
    grouped = df.group_by("q").agg(rx.measure(name, **kw))[name].to_list()
    window = df.with_columns(rx.measure(name, **kw).over("q"))[name].to_list()
    namespace = df.group_by("q").agg(pl.col("relevant").rankeval.measure(name, **kw))
    assert grouped == [None] and window == [None] * len(ranks)
    assert namespace[name].to_list() == [None]


def test_a_bad_group_does_not_spoil_the_good_one() -> None:
    df = pl.DataFrame({"q": [1, 1, 2, 2], "rank": [1, 1, 1, 2], "relevant": [1, 1, 0, 1]})
    out = df.group_by("q", maintain_order=True).agg(rx.measure("AP"), rx.measure("RR"))
    # q2: relevant at 2 of 1 relevant -> AP = 1/2, RR = 1/2
    assert out.rows() == [(1, None, None), (2, 0.5, 0.5)]


def test_valid_groups_keep_their_hand_values() -> None:
    df = pl.DataFrame({"rank": pl.Series([1, 2, 3], dtype=pl.UInt32), "relevant": [0, 2, 1],
                       "R": [3, 3, 3]})
    # relevant at 2 and 3, R = 3: AP = (1/2 + 2/3) / 3; R@3 = 2/3
    got = df.select(rx.measure("AP", num_relevant="R"), rx.recall(k=3, num_relevant="R")).row(0)
    assert got == pytest.approx(((1 / 2 + 2 / 3) / 3, 2 / 3), rel=1e-12)
    # nDCG of the group's own labels: DCG = 2/log2(3) + 1/2, ideal 2 + 1/log2(3)
    want = (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3))
    assert df.select(rx.ndcg()).item() == pytest.approx(want, rel=1e-12)
    # gain=exp at label 1023: finite (2^1023 - 1), a value
    big = pl.DataFrame({"rank": [1, 2], "relevant": [0, 1023]})
    assert big.select(rx.ndcg(gain="exp")).item() == pytest.approx(1 / math.log2(3), rel=1e-12)
