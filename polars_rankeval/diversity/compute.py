"""The diversity measures over subtopic qrels, for the polars engine.

``per_query(spec, plain)`` splits an evaluation in two: the plain measures go through
the engine as usual (``plain``) over *topic* qrels (an item's relevance is its highest
over the subtopics: relevant to the topic when relevant to any subtopic, as ndeval's
MAP), and the diversity measures are computed here from the ranked run that evaluation
built (the same trec_eval ranking, ``top``, ``by`` and ``duplicates``) joined with the
subtopic qrels, one vectorised group_by per measure.  Their columns join the plain
measures' per-query frame, so ``complete``, the missing-query rules and the summary
are the engine's.

With ``intent_weight=`` each relevant (query, subtopic) pair of the intent-aware
families (:data:`WEIGHTED`) carries its subtopic's weight w: gains are w (1 - alpha)^c,
P_IA counts w, AP_IA sums w x the subtopic's AP, and the division by N becomes one by
the sum of w over the N subtopics; equal weights give ndeval's values.

The ideal ranking (alpha_nDCG, nERR_IA, nNRBP) is ndeval's greedy one: at each rank
the item with the largest gain given the items already placed, ties to the item
greatest in byte order.  It is computed at collect time on the (small) qrels, one
vectorised step per rank for every query at once, up to the depth the measures need.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl

from polars_rankeval._errors import InputError, MeasureError
from polars_rankeval._registry import Measure
from polars_rankeval.diversity.families import is_diversity
from polars_rankeval.engines import is_spark_frame
from polars_rankeval.engines.finish import value_column
from polars_rankeval.engines.spec import Spec
from polars_rankeval.options import Columns
from polars_rankeval.prepare.checks import example
from polars_rankeval.prepare.ranking import POS
from polars_rankeval.prepare.schema import read_schema

__all__ = [
    "check_subtopic_columns", "diversity_names", "greedy_ideal", "has_subtopics", "per_query",
    "reads_subtopics", "subtopic_qrels", "topic_qrels", "topic_spec", "weight_problems",
]

SUB = "_sub"  # subtopic id, as a string
C = "_c"  # relevant items of the same subtopic ranked above
GAIN = "_gain"
VALUE = "_value"
N = "_n"  # the query's subtopics with at least one relevant item
W = "_intent_w"  # the (query, subtopic)'s intent weight (1.0 without intent_weight=)
WSUM = "_wsum"  # the sum of W over those subtopics (N with equal weights)
# the intent-aware families: weighted means over the subtopics with intent_weight=
WEIGHTED = ("ERR_IA", "nERR_IA", "P_IA", "AP_IA")
# positions past this depth add less than 2^-60 of NRBP's ideal: below double precision
_NRBP_EPS = 2.0**-60

PlainEngine = Callable[[Spec], tuple[pl.LazyFrame, list[str], object]]


def _check_rows(frame: pl.DataFrame, c: Columns) -> pl.DataFrame:
    """Collect-time checks of the subtopic qrels: no nulls, no NaN, no repeated
    (query, subtopic, item)."""
    for column in (c.query, c.subtopic, c.item, c.relevance):
        bad = frame.filter(pl.col(column).is_null())
        if bad.height:
            raise InputError(
                f"qrels column {column!r} is null in {bad.height} row(s); example row: "
                f"{bad.drop(W).row(0, named=True)}"
            )
    if frame.schema[c.relevance].is_float():
        bad = frame.filter(~pl.col(c.relevance).is_finite())
        if bad.height:
            raise InputError(
                f"qrels column {c.relevance!r} is not finite in {bad.height} row(s); "
                f"example row: {bad.drop(W).row(0, named=True)}"
            )
    if c.intent_weight is not None:
        _check_weights(frame, c)
    keys = [c.query, c.subtopic, c.item]
    repeated = frame.filter(pl.len().over(keys) > 1)
    if repeated.height:
        raise InputError(
            f"duplicate (query, subtopic, item) judgments in the qrels: {repeated.height} "
            f"row(s); example row: {repeated.drop(W).row(0, named=True)}"
        )
    return frame


def _check_weights(frame: pl.DataFrame, c: Columns) -> None:
    """intent_weight=: finite, >= 0 and the same on every row of a (query, subtopic)."""
    unusable, varying = weight_problems(frame, pl.col(W), c)
    if unusable.height:
        raise InputError(
            f"qrels column {c.intent_weight!r} (intent_weight) must be a finite weight >= 0;"
            f" {unusable.height} row(s) are not; example row: "
            f"{unusable.drop(W).row(0, named=True)}"
        )
    if varying.height:
        raise InputError(
            f"qrels column {c.intent_weight!r} (intent_weight) differs within a (query, "
            f"subtopic): {varying.height} row(s); example row: "
            f"{varying.drop(W).row(0, named=True)}"
        )


def weight_problems(
    frame: pl.DataFrame, weight: pl.Expr, c: Columns
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """What ``intent_weight=`` refuses in subtopic qrels: the rows whose ``weight`` (a
    Float64 expression) is not a finite number >= 0, and the rows of each (query,
    subtopic) whose weights differ (``evaluate`` raises on the first, ``validate``
    reports both).

    >>> qrels = pl.DataFrame({"query": ["q", "q", "q"], "subtopic": ["1", "1", "2"],
    ...                       "item": ["a", "b", "a"], "w": [1.0, 2.0, -1.0]})
    >>> unusable, varying = weight_problems(qrels, pl.col("w"), Columns(intent_weight="w"))
    >>> unusable["item"].to_list(), varying["item"].to_list()
    (['a'], ['a', 'b'])
    """
    unusable = frame.filter(weight.is_null() | ~weight.is_finite() | (weight < 0))
    varying = frame.filter(weight.n_unique().over(c.query, c.subtopic) > 1)
    return unusable, varying


def subtopic_qrels(
    qrels: pl.LazyFrame, c: Columns, carried: Sequence[str] = (), diverse: Sequence[str] = ()
) -> pl.LazyFrame:
    """The user's subtopic qrels, schema-checked now (:func:`check_subtopic_columns`,
    ``diverse`` the diversity measures asked) and row-checked at collect time:
    ``query, subtopic, item, relevance`` with the user's column names (and the
    ``carried`` ``by`` columns: query attributes, see ``query_groups``)."""
    schema = read_schema(qrels, "qrels")
    check_subtopic_columns(schema.names(), c, diverse, lambda: f"; example row: {example(qrels)}")
    if not schema[c.relevance].is_numeric():
        raise InputError(
            f"qrels column {c.relevance!r} must be numeric, got {schema[c.relevance]}; "
            f"example row: {example(qrels)}"
        )
    if c.intent_weight is not None and not schema[c.intent_weight].is_numeric():
        raise InputError(
            f"qrels column {c.intent_weight!r} (intent_weight) must be numeric, got "
            f"{schema[c.intent_weight]}; example row: {example(qrels)}"
        )
    weight = pl.lit(1.0) if c.intent_weight is None else pl.col(c.intent_weight)
    selected = qrels.select(c.query, c.subtopic, c.item, c.relevance, weight.cast(pl.Float64).alias(W), *carried)
    return selected.map_batches(lambda frame: _check_rows(frame, c), schema=selected.collect_schema())


def check_subtopic_columns(
    names: Sequence[str], c: Columns, diverse: Sequence[str], example_row: Callable[[], str] = str
) -> None:
    """Raise :class:`InputError` when subtopic qrels (their column ``names``) miss a
    column: each missing column with the argument naming it, why the qrels were read as
    subtopic qrels (``diverse``, the diversity measures asked, or their subtopic column:
    no diversity measure is blamed when none was asked) and an example fix; then
    ``example_row()``.  Every engine's message.

    >>> check_subtopic_columns(["query", "subtopic", "item", "relevance"], Columns(intent_weight="w"), [])
    Traceback (most recent call last):
    ...
    polars_rankeval._errors.InputError: qrels holding the subtopic column 'subtopic' are subtopic qrels (query, subtopic, item, relevance), for every measure: qrels column 'w' (intent_weight=) not found among ['query', 'subtopic', 'item', 'relevance']; pass intent_weight= the qrels column of each (query, subtopic)'s weight, e.g. intent_weight='weight', or leave it None (equal weights)
    """
    roles = {"query": c.query, "subtopic": c.subtopic, "item": c.item, "relevance": c.relevance}
    if c.intent_weight is not None:
        roles["intent_weight"] = c.intent_weight
    missing = {role: name for role, name in roles.items() if name not in names}
    if not missing:
        return
    if diverse:
        why = _needed_by(diverse)
    elif "subtopic" in missing:  # subtopic= given by hand (spark.evaluate, sql.render)
        why = f"subtopic={c.subtopic!r} reads the qrels as subtopic qrels (query, subtopic, item, relevance)"
    else:
        why = (f"qrels holding the subtopic column {c.subtopic!r} are subtopic qrels (query, subtopic, "
               "item, relevance), for every measure")  # fmt: skip
    named = ", ".join(f"{name!r} ({role}=)" for role, name in missing.items())
    role = next(iter(missing))
    fix = {
        "subtopic": "pass subtopic= the column naming the subtopic, e.g. subtopic='aspect', or read "
        "them with read_trec_qrels(path, subtopics=True)",
        "intent_weight": "pass intent_weight= the qrels column of each (query, subtopic)'s weight, "
        "e.g. intent_weight='weight', or leave it None (equal weights)",
    }.get(role, f"pass {role}= the column holding it, e.g. {role}='my_{role}_column'")
    raise InputError(
        f"{why}: qrels column{'s' if len(missing) > 1 else ''} {named} not found among "
        f"{list(names)}; {fix}{example_row()}"
    )


def topic_qrels(qrels: pl.LazyFrame, c: Columns, carried: Sequence[str] = ()) -> pl.LazyFrame:
    """Subtopic qrels as plain ``query, item, relevance`` qrels (with the ``carried``
    columns): the highest relevance of each item over its subtopics."""
    return qrels.group_by(c.query, c.item, *carried).agg(pl.col(c.relevance).max())


def has_subtopics(qrels: Any, c: Columns) -> bool:
    """The qrels are subtopic qrels: they hold the column named by ``subtopic=``
    (polars or pyspark frames; no qrels: False).

    >>> has_subtopics(pl.LazyFrame({"query": [1], "subtopic": ["a"], "item": [1], "relevance": [1]}), Columns())
    True
    """
    if qrels is None:
        return False
    names = qrels.columns if is_spark_frame(qrels) else read_schema(qrels.lazy(), "qrels").names()
    return c.subtopic in names


def _needed_by(diverse: Sequence[str]) -> str:
    """Why subtopic qrels are needed: the ``diverse`` measures asked."""
    return f"{', '.join(diverse)}: diversity measures need subtopic qrels (query, subtopic, item, relevance)"


def diversity_names(spec: Spec) -> list[str]:
    """The names of the diversity measures ``spec`` asks for, in its order."""
    return [n for n, m in zip(spec.names, spec.measures, strict=True) if is_diversity(m)]


def reads_subtopics(spec: Spec) -> bool:
    """Every engine's rule: the spec's qrels are read as subtopic qrels when given and
    they hold the ``subtopic=`` column (:func:`has_subtopics`) or a diversity measure is
    asked; a diversity measure without qrels raises, naming it.

    >>> from polars_rankeval import parse_measure
    >>> from polars_rankeval.options import EvalOptions
    >>> qrels = pl.DataFrame({"query": [1], "item": [7], "relevance": [1]})
    >>> reads_subtopics(Spec(None, qrels, [parse_measure("AP")], ["AP"], Columns(), EvalOptions()))
    False
    """
    diverse = diversity_names(spec)
    if spec.qrels is None and diverse:
        raise InputError(_needed_by(diverse))
    return spec.qrels is not None and bool(diverse or has_subtopics(spec.qrels, spec.columns))


def topic_spec(spec: Spec) -> tuple[Spec, pl.LazyFrame | None]:
    """Every engine's reading of subtopic qrels (:func:`reads_subtopics`), whatever the
    measures: the spec over topic qrels (:func:`topic_qrels`) and the subtopic qrels
    (:func:`subtopic_qrels`: schema-checked now, rows at collect time, so their checks
    run for a plain measure too); without them ``spec``, None.

    >>> from polars_rankeval import parse_measure
    >>> from polars_rankeval.options import EvalOptions
    >>> qrels = pl.DataFrame({"query": [1, 1], "subtopic": ["x", "y"], "item": [7, 7], "relevance": [1, 2]})
    >>> ap = Spec(None, qrels, [parse_measure("AP")], ["AP"], Columns(), EvalOptions())
    >>> topic, subtopics = topic_spec(ap)
    >>> topic.qrels.collect().rows()
    [(1, 7, 2)]
    """
    if not reads_subtopics(spec):
        return spec, None
    assert spec.qrels is not None
    qrels = spec.qrels.lazy()
    # by columns the qrels carry too are query attributes: complete=True reads them
    carried = [b for b in spec.options.by if b in read_schema(qrels, "qrels")]
    subtopics = subtopic_qrels(qrels, spec.columns, carried, diversity_names(spec))
    return spec._replace(qrels=topic_qrels(subtopics, spec.columns, carried)), subtopics


def _pairs(qrels: pl.LazyFrame, c: Columns, m: Measure) -> pl.LazyFrame:
    """The relevant (query, item, subtopic) pairs at ``m.rel`` (ndeval's binary
    judgments: relevance >= level) with their intent weight (1 unless the family is
    intent-aware)."""
    weight = pl.col(W) if m.family.name in WEIGHTED else pl.lit(1.0)
    return qrels.filter(pl.col(c.relevance) >= m.rel).select(
        c.query, c.item, pl.col(c.subtopic).cast(pl.String).alias(SUB), weight.alias(W)
    )


def greedy_ideal(
    pairs: pl.DataFrame, *, query: str, item: str, alpha: float, depth: int | None
) -> pl.DataFrame:
    """ndeval's greedy ideal ranking of relevant (query, item, subtopic) pairs:
    ``query, _pos, _gain`` for ranks 1..depth (all with ``depth=None``), every query at
    once, one vectorised step per rank.

    >>> pairs = pl.DataFrame({"q": [1, 1, 1], "i": ["a", "b", "b"], "_sub": ["x", "x", "y"]})
    >>> # b covers x and y (gain 2), then a covers x again: (1 - 0.5)^1
    >>> greedy_ideal(pairs, query="q", item="i", alpha=0.5, depth=None).rows()
    [(1, 1, 2.0), (1, 2, 0.5)]
    """
    remaining = pairs.with_columns(pl.col(item).cast(pl.String).alias("_key"))
    weight = pl.col(W) if W in pairs.columns else pl.lit(1.0)  # intent weights
    placed = remaining.clear().select(query, SUB)
    steps: list[pl.DataFrame] = []
    rank = 0
    while remaining.height and (depth is None or rank < depth):
        rank += 1
        counts = placed.group_by(query, SUB).agg(pl.len().alias(C))
        scored = remaining.join(counts, on=[query, SUB], how="left").with_columns(
            (pl.lit(1.0 - alpha).pow(pl.col(C).fill_null(0)) * weight).alias(GAIN)
        )
        per_item = scored.group_by(query, "_key").agg(pl.col(GAIN).sum())
        # the largest gain, ties to the item greatest in byte order (ndeval's strcmp)
        best = per_item.sort([query, GAIN, "_key"], descending=[False, True, True]).unique(
            query, keep="first", maintain_order=True
        )
        steps.append(best.select(query, pl.lit(rank, pl.Int64).alias(POS), GAIN))
        chosen = remaining.join(best.select(query, "_key"), on=[query, "_key"], how="semi")
        placed = pl.concat([placed, chosen.select(query, SUB)])
        remaining = remaining.join(best.select(query, "_key"), on=[query, "_key"], how="anti")
    if not steps:
        return pl.DataFrame(
            schema={query: pairs.schema[query], POS: pl.Int64, GAIN: pl.Float64}
        )
    return pl.concat(steps)


def _discount(m: Measure) -> pl.Expr:
    """Per-position weight of a family's sum, position ``_pos`` from 1."""
    pos = pl.col(POS).cast(pl.Float64)
    name = m.family.name
    if name in ("alpha_DCG", "alpha_nDCG"):
        return math.log(2.0) / (pos + 1.0).log()
    if name in ("ERR_IA", "nERR_IA"):
        return 1.0 / pos
    return pl.lit(float(m["beta"])).pow(pos - 1.0)  # NRBP, nNRBP


def _ideal_ideal(m: Measure, k: int) -> float:
    """The normaliser of alpha_DCG and ERR_IA per subtopic: every item relevant to
    every subtopic, sum over ranks 1..k of (1 - alpha)^(i-1) times the discount."""
    alpha = float(m["alpha"]) if "alpha" in dict(m.params) else 0.5
    if m.family.name == "alpha_DCG":
        return math.fsum((1 - alpha) ** i * math.log(2) / math.log(i + 2) for i in range(k))
    return math.fsum((1 - alpha) ** i / (i + 1) for i in range(k))


def _alpha(m: Measure) -> float:
    # ERR_IA and nERR_IA use ndeval's fixed alpha (0.5), as ir_measures does
    return float(m["alpha"]) if "alpha" in dict(m.params) else 0.5


def _run_rows(ranked: pl.LazyFrame, pairs: pl.LazyFrame, keys: list[str], item: str, alpha: float) -> pl.LazyFrame:
    """The run's relevant (row, subtopic) pairs: keys, _pos, _sub, _c and _gain =
    (1 - alpha)^_c, _c counting the subtopic's relevant items ranked above."""
    rows = ranked.select(*keys, item, POS).join(pairs, on=[keys[-1], item], how="inner")
    above = (pl.col(POS).rank("ordinal").over([*keys, SUB]) - 1).cast(pl.Int64)
    # in rank order, so that the sums add alike whatever order the joins left (by= or not)
    return rows.sort([*keys, POS, SUB]).with_columns(above.alias(C)).with_columns(
        (pl.lit(1.0 - alpha).pow(pl.col(C)) * pl.col(W)).alias(GAIN)
    )


def _in_top(m: Measure) -> pl.Expr:
    return pl.lit(True) if m.k is None else pl.col(POS) <= m.k


def _ideal(m: Measure, ideal: pl.LazyFrame, query: str) -> pl.LazyFrame:
    """Per query: the greedy ideal ranking's discounted sum (``_ideal``)."""
    return ideal.group_by(query).agg(
        (pl.col(GAIN) * _discount(m)).filter(_in_top(m)).sum().alias("_ideal")
    )


def _raw(m: Measure, rows: pl.LazyFrame, keys: list[str], num_ret: pl.LazyFrame) -> pl.LazyFrame:
    """Per evaluated key: the measure's sum over the run's pairs (``VALUE``) before
    the division by N or by the ideal."""
    name, top = m.family.name, _in_top(m)
    if name == "P_IA":
        pairs = rows.group_by(keys).agg(pl.col(W).filter(top).sum().alias(VALUE))
        if m.k is not None:
            return pairs.with_columns(pl.col(VALUE) / m.k)
        # no cutoff: over the retrieved items, as set precision
        return pairs.join(num_ret, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col(VALUE) / pl.col("_num")
        )
    if name == "StRecall":
        return rows.group_by(keys).agg(pl.col(SUB).filter(top).n_unique().cast(pl.Float64).alias(VALUE))
    if name == "AP_IA":
        # at each relevant pair, times the subtopic's weight
        precision = (pl.col(C) + 1).cast(pl.Float64) / pl.col(POS) * pl.col(W)
        per_sub = rows.group_by(*keys, SUB).agg(precision.sum().alias(VALUE))
        return per_sub.join(
            rows.select(keys[-1], SUB, "_nrel").unique(), on=[keys[-1], SUB], how="left"
        ).group_by(keys).agg((pl.col(VALUE) / pl.col("_nrel")).sum())
    return rows.group_by(keys).agg((pl.col(GAIN) * _discount(m)).filter(top).sum().alias(VALUE))


def _normalised(m: Measure) -> pl.Expr:
    """The per-query value from ``VALUE``, N (``_n``) and the ideal (``_ideal``)."""
    value, n = pl.col(VALUE), pl.col(WSUM)  # N, or the weights' sum (intent_weight=)
    name = m.family.name
    if name in ("alpha_nDCG", "nERR_IA", "nNRBP"):
        # ndeval: 0 when the run gains nothing; a query without relevant subtopics
        # (ideal 0) is 0 here, where ndeval's nNRBP is 0/0 = NaN
        return pl.when((value > 0) & (pl.col("_ideal") > 0)).then(value / pl.col("_ideal")).otherwise(0.0)
    if name in ("alpha_DCG", "ERR_IA"):
        if m.k is None:
            raise MeasureError(f"{m} needs a cutoff, e.g. {m.family.name}@20 (ndeval's 5, 10, 20)")
        scale = n * _ideal_ideal(m, m.k)
    elif name == "NRBP":
        factor = 1.0 - (1.0 - float(m["alpha"])) * float(m["beta"])
        return pl.when(n > 0).then(value * factor / n).otherwise(0.0)
    else:  # P_IA, StRecall, AP_IA: means over the N subtopics
        scale = n
    return pl.when(scale > 0).then(value / scale).otherwise(0.0)


def _depth(measures: Sequence[Measure]) -> int | None:
    """How deep the greedy ideal must go for these measures (None: all the way)."""
    depth = 0
    for m in measures:
        if m.family.name == "nNRBP":
            beta = float(m["beta"])
            if beta >= 1.0:
                return None
            if beta > 0.0:
                depth = max(depth, math.ceil(math.log(_NRBP_EPS) / math.log(beta)) + 1)
            depth = max(depth, 1)
        elif m.family.name in ("alpha_nDCG", "nERR_IA"):
            if m.k is None:
                return None
            depth = max(depth, m.k)
    return depth


def _measure_values(
    m: Measure, qrels: pl.LazyFrame, ranked: pl.LazyFrame, keys: list[str], c: Columns,
    num_ret: pl.LazyFrame,
) -> pl.LazyFrame:
    """keys + ``VALUE`` for every evaluated key with a relevant retrieved pair (the
    others are 0, filled by the caller)."""
    query = keys[-1]
    pairs = _pairs(qrels, c, m)
    per_sub = pairs.group_by(query, SUB).agg(pl.len().alias("_nrel"), pl.col(W).first())
    counts = per_sub.group_by(query).agg(pl.len().alias(N), pl.col(W).sum().alias(WSUM))
    alpha = _alpha(m)
    rows = _run_rows(ranked, pairs.join(per_sub.drop(W), on=[query, SUB]), keys, c.item, alpha)
    raw = _raw(m, rows, keys, num_ret).join(counts, on=query, how="left")
    if m.family.name in ("alpha_nDCG", "nERR_IA", "nNRBP"):
        depth = _depth([m])
        ideal = pairs.map_batches(
            lambda frame: greedy_ideal(frame, query=query, item=c.item, alpha=alpha, depth=depth),
            schema={query: pairs.collect_schema()[query], POS: pl.Int64, GAIN: pl.Float64},
        )
        raw = raw.join(_ideal(m, ideal, query), on=query, how="left").with_columns(
            pl.col("_ideal").fill_null(0.0)
        )
    return raw.select(*keys, _normalised(m).alias(VALUE))


def _aligned(qrels: pl.LazyFrame, ranked: pl.LazyFrame, c: Columns) -> pl.LazyFrame:
    """The subtopic qrels with the ranked run's dtypes for query and item (the plain
    evaluation has checked that they agree: both ids or both numbers)."""
    schema = ranked.collect_schema()
    return qrels.with_columns(
        pl.col(c.query).cast(schema[c.query]), pl.col(c.item).cast(schema[c.item])
    )


def per_query(spec: Spec, plain: PlainEngine) -> tuple[pl.LazyFrame, list[str]]:
    """The engine's per-query frame (keys + ``_m{i}``) with the diversity measures
    computed here and the others by ``plain`` over the topic qrels."""
    diverse = [i for i, m in enumerate(spec.measures) if is_diversity(m)]
    others = [i for i in range(len(spec.measures)) if i not in diverse]
    topic, subtopics = topic_spec(spec)
    assert subtopics is not None  # topic_spec raises for diversity measures without them
    c = spec.columns
    plain_spec = topic._replace(
        measures=[spec.measures[i] for i in others], names=[spec.names[i] for i in others]
    )
    wide, keys, judgement = plain(plain_spec)
    ranked = judgement.ranked.select(*keys, c.item, POS)  # type: ignore[attr-defined]
    qrels = _aligned(subtopics, ranked, c)
    num_ret = ranked.group_by(keys).agg(pl.len().cast(pl.Float64).alias("_num"))
    # the plain measures' columns take their places in the caller's order
    wide = wide.rename({value_column(j): f"_plain{i}" for j, i in enumerate(others)})
    for i in diverse:
        values = _measure_values(spec.measures[i], qrels, ranked, keys, c, num_ret)
        wide = wide.join(
            values.rename({VALUE: value_column(i)}), on=keys, how="left", nulls_equal=True
        ).with_columns(pl.col(value_column(i)).fill_null(0.0))
    wide = wide.rename({f"_plain{i}": value_column(i) for i in others})
    return wide.select(*keys, *[value_column(i) for i in range(len(spec.measures))]), keys
