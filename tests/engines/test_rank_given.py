"""The rank-given fast path (issue 15): a run ranked by its rank column takes the ranks as
positions, with no ranking window, where a query's ranks are 1..n; every other query
(gaps, repeated ranks, not starting at 1) is evaluated again in trec_eval's order.

The reference is the same run ranked by a score: score = -rank (exact in float32 here),
ties broken by item descending, which is trec_eval's order of the rank column
(DESIGN.md: rank ascending, ties by item descending) on the ranking path the fast path
skips.  The expected positions of the mixed case are also worked out by hand.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.engines import polars as engine
from polars_rankeval.options import Columns
from polars_rankeval.prepare.ranking import position

MEASURES = ["AP", "nDCG@3", "P@2", "R@3", "RR", "NumRet", "NumRelRet", "Rprec"]
QRELS = pl.DataFrame(
    {"query": ["v", "v", "g", "g", "t", "t", "s", "s"],
     "item": ["b", "c", "b", "d", "a", "c", "c", "d"],
     "relevance": [1, 2, 1, 2, 2, 1, 1, 1]}
)  # fmt: skip


def _run(ranks: dict[str, list[float]]) -> pl.DataFrame:
    """Items a, b, c, ... in row order per query, with the given ranks."""
    rows = [(q, "abcdef"[i], r) for q, rs in ranks.items() for i, r in enumerate(rs)]
    return pl.DataFrame(rows, schema=["query", "item", "rank"], orient="row")


# v: a valid permutation in shuffled row order; g: a gap; t: a repeated rank (b and c tie:
# c first, item descending); s: not starting at 1
MIXED = _run({"v": [3, 1, 4, 2], "g": [1, 2, 5], "t": [1, 2, 2, 3], "s": [2, 3, 4]})
# trec_eval's positions by hand: v b d a c; g a b c; t a c b d; s a b c
POSITIONS = {"v": "bdac", "g": "abc", "t": "acbd", "s": "abc"}


def _by_score(run: pl.DataFrame) -> pl.DataFrame:
    return run.with_columns(score=-pl.col("rank").cast(pl.Float64)).drop("rank")


def _per_query(run: pl.DataFrame | pl.LazyFrame, **options) -> pl.DataFrame:
    result = rk.evaluate(run, QRELS, MEASURES, per_query=True, **options)
    frame = result.collect() if isinstance(result, pl.LazyFrame) else result
    return frame.sort(frame.columns[:-1])


def test_hand_positions_are_the_score_order() -> None:
    """The reference itself: ranking by -rank gives the hand-made positions."""
    pos = _by_score(MIXED).with_columns(position(Columns(), "score", ["query"]).alias("pos"))
    order = pos.sort("query", "pos").group_by("query", maintain_order=True).agg(pl.col("item"))
    assert {q: "".join(items) for q, items in order.iter_rows()} == POSITIONS


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("top", [None, 2])
def test_mixed_ranks_give_trec_eval_order(lazy: bool, top: int | None) -> None:
    run = MIXED.lazy() if lazy else MIXED
    got = _per_query(run, score=None, top=top)
    assert got.equals(_per_query(_by_score(MIXED), top=top))


def test_valid_ranks_skip_the_fix_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the misranked queries are evaluated again; a valid run never is."""
    seen: list[list[str]] = []
    original = engine.judgement_for

    def spy(spec, *, given_ranks=False, only=None):
        if only is not None:
            seen.append(sorted(only["query"].to_list()))
        return original(spec, given_ranks=given_ranks, only=only)

    monkeypatch.setattr(engine, "judgement_for", spy)
    _per_query(MIXED, score=None)
    assert seen == [["g", "s", "t"]]
    seen.clear()
    valid = MIXED.filter(pl.col("query") == "v")
    _per_query(valid, score=None)
    assert seen == []


@pytest.mark.parametrize(
    "dtype", [pl.Int8, pl.UInt32, pl.Int64, pl.Float32, pl.Float64], ids=str
)
def test_rank_dtypes_and_by_columns(dtype: pl.DataType) -> None:
    run = pl.concat([MIXED.with_columns(arm=pl.lit(arm)) for arm in ("x", "y")])
    # arm y: every query reversed to a valid permutation
    run = run.with_columns(
        pl.when(pl.col("arm") == "y")
        .then(pl.int_range(pl.len()).over("arm", "query") + 1)
        .otherwise(pl.col("rank"))
        .cast(dtype)
        .alias("rank")
    )
    got = _per_query(run, score=None, by="arm")
    assert got.equals(_per_query(_by_score(run), by="arm"))


def test_bad_ranks_keep_their_error() -> None:
    run = MIXED.with_columns(pl.col("rank").cast(pl.Float64))
    bad = run.with_columns(
        pl.when(pl.col("query") == "g").then(float("nan")).otherwise(pl.col("rank")).alias("rank")
    )
    with pytest.raises(rk.InputError, match="run column 'rank': rank must be a positive integer"):
        _per_query(bad, score=None)


# r: ranks within 1..n (min 1, max n) with one repeated (3) and 2 missing: only an exact
# check finds it; o: a valid permutation in row order, proved without one
WITHIN = _run({"r": [3, 1, 3], "o": [1, 2, 3, 4], "v": [3, 1, 4, 2]})
# trec_eval's positions by hand: r b c a (c and a tie at 3: item descending)
WITHIN_POSITIONS = {"r": "bca", "o": "abcd", "v": "bdac"}
WITHIN_QRELS = pl.DataFrame(
    {"query": ["r", "r", "o", "o", "v", "v"], "item": ["a", "c", "b", "d", "b", "c"],
     "relevance": [1, 2, 1, 2, 2, 1]}
)  # fmt: skip


def _within(run: pl.DataFrame, **options) -> pl.DataFrame:
    got = rk.evaluate(run, WITHIN_QRELS, MEASURES, per_query=True, **options)
    return got.sort(got.columns[:-1])


def test_a_repeated_rank_within_1_to_n_is_evaluated_again() -> None:
    pos = _by_score(WITHIN).with_columns(position(Columns(), "score", ["query"]).alias("pos"))
    order = pos.sort("query", "pos").group_by("query", maintain_order=True).agg(pl.col("item"))
    assert {q: "".join(items) for q, items in order.iter_rows()} == WITHIN_POSITIONS
    for top in (None, 2):
        got = _within(WITHIN, score=None, top=top)
        assert got.equals(_within(_by_score(WITHIN), top=top))


def test_only_unproven_queries_are_checked_for_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranks in row order are proved distinct without the exact check; a query out of
    row order (r, v) is checked exactly, and only a repeat (r) is evaluated again."""
    checked: list[list[str]] = []
    redone: list[list[str]] = []
    original_check, original_judgement = engine.repeated_ranks, engine.judgement_for

    def check_spy(run, keys, rank, only, **options):
        checked.append(sorted(only["query"].to_list()))
        return original_check(run, keys, rank, only, **options)

    def judgement_spy(spec, *, given_ranks=False, only=None):
        if only is not None:
            redone.append(sorted(only["query"].to_list()))
        return original_judgement(spec, given_ranks=given_ranks, only=only)

    monkeypatch.setattr(engine, "repeated_ranks", check_spy)
    monkeypatch.setattr(engine, "judgement_for", judgement_spy)
    _within(WITHIN, score=None)
    assert (checked, redone) == ([["r", "v"]], [["r"]])
    checked.clear()
    redone.clear()
    _within(WITHIN.filter(pl.col("query") == "o"), score=None)
    assert (checked, redone) == ([], [])


@pytest.mark.parametrize("repeat", [False, True], ids=["valid", "repeated"])
def test_one_long_query_out_of_row_order(repeat: bool) -> None:
    """One query longer than a bucket of the exact check (2^16 ranks), its ranks out of
    row order; with a repeated rank (rank 70,000 given twice, 69,999 missing) it is
    evaluated again in trec_eval's order."""
    n = 70_001
    ranks = pl.int_range(1, n + 1, eager=True).shuffle(seed=15)
    if repeat:
        ranks = ranks.set(ranks == 69_999, 70_000)
    run = pl.DataFrame({"query": ["q"] * n, "item": [f"d{i}" for i in range(n)], "rank": ranks})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["d5", "d70", "d900"],
                          "relevance": [1, 2, 1]})  # fmt: skip
    measures = ["AP", "nDCG@10", "RR", "NumRet", "Rprec"]
    got = rk.evaluate(run, qrels, measures, per_query=True, score=None)
    assert got.equals(rk.evaluate(_by_score(run), qrels, measures, per_query=True))


def test_duplicate_counts_in_item_buckets_equal_the_counter() -> None:
    """The duplicate check counted in hash buckets of the items (for long queries, see
    ``item_buckets``) gives every query the count of the one-bucket counter."""
    from polars_rankeval.prepare.checks import duplicate_check
    from polars_rankeval.prepare.judge import _duplicates_in_buckets

    items = [f"d{i % 37}" for i in range(500)]  # 500 rows, 37 items: many repeats
    run = pl.LazyFrame({"arm": [i % 2 for i in range(500)],
                        "query": [f"q{i % 5}" for i in range(500)], "item": items})  # fmt: skip
    check = duplicate_check("run", ["arm", "query"], "item", "duplicate rows")
    expected = run.group_by("arm", "query").agg(check.counter.alias(check.name)).collect()
    for buckets in (1, 2, 3, 16):
        got = _duplicates_in_buckets(run, ["arm", "query"], check, buckets).collect()
        assert got.sort("arm", "query").equals(expected.sort("arm", "query"))


@pytest.mark.parametrize("duplicate", [False, True], ids=["valid", "duplicate"])
def test_a_long_query_counts_its_duplicates_in_item_buckets(
    monkeypatch: pytest.MonkeyPatch, duplicate: bool
) -> None:
    """A rank-given run in partitions whose largest rank passes 2^16 counts its
    duplicate items in hash buckets: the same values, and the same error (with the
    same count) for a repeated item."""
    buckets: list[int] = []
    original = engine.judgement_for

    def spy(spec, **options):
        buckets.append(options.get("item_buckets", 1))
        return original(spec, **options)

    monkeypatch.setattr(engine, "judgement_for", spy)
    n = 70_001
    items = [f"d{i}" for i in range(n)]
    if duplicate:
        items[-1] = items[-3] = "d7"
    run = pl.DataFrame({"query": ["q"] * n, "item": items, "rank": range(1, n + 1)})
    qrels = pl.DataFrame({"query": ["q"] * 3, "item": ["d5", "d70", "d900"],
                          "relevance": [1, 2, 1]})  # fmt: skip
    measures = ["AP", "nDCG@10", "RR", "NumRet", "Rprec"]
    if duplicate:
        with pytest.raises(rk.InputError, match=r"duplicate \(query, item\) rows.*: 2 row\(s\)"):
            rk.evaluate(run, qrels, measures, per_query=True, score=None, partitions=2)
        with pytest.raises(rk.InputError, match=r"duplicate \(query, item\) rows.*: 2 row\(s\)"):
            rk.evaluate(_by_score(run), qrels, measures, per_query=True)
    else:
        got = rk.evaluate(run, qrels, measures, per_query=True, score=None, partitions=2)
        assert got.equals(rk.evaluate(_by_score(run), qrels, measures, per_query=True))
    assert max(buckets) == 2


def test_a_long_query_in_a_null_by_group_counts_its_duplicates_in_item_buckets() -> None:
    """The bucketed duplicate count is joined back to its query also where a `by` value
    is null: the repeated item is still refused, with its count (2 rows)."""
    n = 70_001
    items = [f"d{i}" for i in range(n)]
    items[-1] = items[-3] = "d7"
    run = pl.DataFrame(
        {"arm": pl.Series([None] * n, dtype=pl.String), "query": ["q"] * n, "item": items,
         "rank": range(1, n + 1)}
    )  # fmt: skip
    qrels = pl.DataFrame({"query": ["q"] * 2, "item": ["d5", "d70"], "relevance": [1, 2]})
    with pytest.raises(rk.InputError, match=r"duplicate \(query, item\) rows.*: 2 row\(s\)"):
        rk.evaluate(run, qrels, ["AP", "RR"], by=["arm"], score=None, partitions=2)


@pytest.mark.parametrize("rank", [None, float("nan")], ids=["null", "nan"])
def test_ranks_without_a_largest_value_are_the_rank_error_in_partitions(rank) -> None:
    """Choosing the duplicate count's buckets reads the largest rank; where there is none
    (every rank null or NaN) the run gets the rank check's error, not a crash there."""
    run = pl.DataFrame({"query": ["q", "q"], "item": ["d1", "d2"],
                        "rank": pl.Series([rank, rank], dtype=pl.Float64)})  # fmt: skip
    qrels = pl.DataFrame({"query": ["q"], "item": ["d1"], "relevance": [1]})
    for frame in (run, run.lazy()):
        with pytest.raises(rk.InputError, match=r"run column 'rank': rank must be a positive"):
            result = rk.evaluate(frame, qrels, ["AP"], score=None, partitions=2)
            if isinstance(result, pl.LazyFrame):
                result.collect()
