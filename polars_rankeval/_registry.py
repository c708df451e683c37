"""Measure declarations: families, their parameters, resolved measures and per-query stats.

A *family* (``AP``, ``nDCG``, ...) is declared once, in its module under
``polars_rankeval/measures/``, with its parameters and the polars expression that
computes it.  A *measure* is a family with every parameter resolved
(``AP(norm=min)@10``); its ``str()`` is the canonical name.  Everything else (the
parser, the engines, the README table, the parity tests) walks :data:`REGISTRY`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import polars as pl

from polars_rankeval._errors import MeasureError

__all__ = [
    "REGISTRY", "Family", "Ideal", "Judged", "Measure", "Param", "Stat", "Ties", "register",
]

ParamValue = str | float | int


class Param(NamedTuple):
    """One named parameter of a family (``norm``, ``gain``, ``p``...)."""

    name: str
    default: ParamValue
    doc: str
    choices: tuple[str, ...] | None = None  # string-valued parameter: allowed values
    minimum: float | None = None  # numeric parameter: open lower bound
    maximum: float | None = None  # numeric parameter: open upper bound
    closed: bool = False  # numeric parameter: the bounds themselves are allowed

    def validate(self, value: ParamValue) -> ParamValue:
        """Return ``value`` normalised, or raise ``ValueError`` saying what is allowed."""
        if self.choices is not None:
            if not isinstance(value, str) or value not in self.choices:
                raise ValueError(
                    f"{self.name}={value!r} is not allowed; choose one of {', '.join(self.choices)}"
                )
            return value
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise ValueError(f"{self.name} must be a finite number, got {value!r}")
        if self.closed:
            if self.minimum is not None and value < self.minimum:
                raise ValueError(f"{self.name} must be >= {self.minimum}, got {value!r}")
            if self.maximum is not None and value > self.maximum:
                raise ValueError(f"{self.name} must be <= {self.maximum}, got {value!r}")
            return float(value)
        if self.minimum is not None and value <= self.minimum:
            raise ValueError(f"{self.name} must be > {self.minimum}, got {value!r}")
        if self.maximum is not None and value >= self.maximum:
            raise ValueError(f"{self.name} must be < {self.maximum}, got {value!r}")
        return float(value)


# `rel` is a parameter of every family: an item is relevant when relevance >= rel
# (trec_eval's -l, default 1).
REL_PARAM = Param("rel", 1.0, "relevance level: an item is relevant when its relevance >= rel")


class Stat(NamedTuple):
    """A per-query constant computed from the judged set of a query (the qrels, or the
    run's own labels when there are no qrels): R, the judged non-relevant count N, or
    an ideal DCG.  Engines compute each distinct stat once, however many measures use it.
    """

    # num_pos: judged items with a positive gain (relevance > 0); ideal_gain: the sum of
    # their gains; ideal_cost: the sum of max(gain, 1) over them (trec_eval m_G.c's
    # min_cost); gain_levels: their distinct gains (the levels of the ideal ranking)
    kind: Literal[
        "num_rel", "num_nonrel", "idcg", "max_rel",
        "num_pos", "ideal_gain", "ideal_cost", "gain_levels",
    ]
    level: float | None = None
    gain: str | None = None
    k: int | None = None

    @property
    def column(self) -> str:
        """A column name that identifies this stat (used by both engines)."""
        if self.kind == "idcg":
            return f"_stat_idcg_{self.gain}_{self.k or 'all'}"
        if self.kind in ("max_rel", "num_pos", "ideal_gain", "ideal_cost", "gain_levels"):
            return f"_stat_{self.kind}"  # max_rel: highest judged level (>= 0) of the query
        level = f"{self.level:g}".replace(".", "p").replace("-", "m")
        return f"_stat_{self.kind}_{level}"


class Ideal(NamedTuple):
    """A value of the query's *ideal ranking* (its judged items with a positive gain,
    gain = relevance, by gain descending: g*_1 >= g*_2 >= ... >= g*_Npos > 0) at each
    row's own position p, for measures that compare the run with the ideal position by
    position (trec_eval's G, ndcg_rel, Rndcg).  Null where p > Npos: past the ideal
    ranking every such value is a per-query constant (a :class:`Stat`) or 0.

    * ``cost``: sum over q <= p of max(g*_q, 1) (trec_eval m_G.c's cost, min_cost 1);
    * ``dcg``: sum over q <= p of g*_q / log2(q + 1) (the ideal DCG at depth p);
    * ``level_ends``: sum over the ends b >= p of the ideal ranking's gain levels (b with
      g*_b != g*_{b+1}, g*_{Npos+1} = 0) of 1 / (ideal DCG at depth b) (trec_eval
      m_Rndcg.c: a mean over level ends of DCG(b) / IDCG(b), summed per row).

    One value is joined by the row's *item* instead (``by_item``):

    * ``above``: the number of judged items of the query with a gain strictly above the
      row's own (its grade level starts at ideal position above + 1); null for an
      unjudged row or one with a gain <= 0 (Compat's ideal ranking).
    """

    kind: Literal["cost", "dcg", "level_ends", "above"]

    @property
    def by_item(self) -> bool:
        """Joined onto a row by its item (a value of the row's judgment), not its position."""
        return self.kind == "above"

    @property
    def column(self) -> str:
        return f"_ideal_{self.kind}"


@dataclass(frozen=True)
class Ties:
    """Per-row columns of the row's *tie group* (the rows of its query with an equal
    score, or rank), for expected values over every ordering of the tied rows
    (``evaluate(..., ties="average")``).  A group of ``n`` rows with ``s`` rows strictly
    above it occupies positions s+1 .. s+n, in any ordering; the row at ``pos`` is its
    ``j = pos - s``-th.  Columns that depend on the relevance level take it (``level``);
    every value is Float64.
    """

    size: pl.Expr  # n: rows in the group
    above: pl.Expr  # s: rows of the query strictly above the group
    relevant: Callable[[float], pl.Expr]  # r: relevant rows in the group
    relevant_above: Callable[[float], pl.Expr]  # h: relevant rows strictly above the group
    # Q(j) = C(n-r, j-1) / C(n, j-1): probability that none of the group's first j-1
    # positions is relevant
    none_before: Callable[[float], pl.Expr]
    mean_gain: Callable[[str], pl.Expr]  # mean gain of the group's rows (gain kind)

    def index(self, pos: pl.Expr) -> pl.Expr:
        """j: 1-based place of the row's position inside its group."""
        return pos.cast(pl.Float64) - self.above

    def share(self, level: float) -> pl.Expr:
        """E[relevant at this position] = r / n, the same at every position of the group."""
        return self.relevant(level) / self.size

    def first(self, level: float, pos: pl.Expr) -> pl.Expr:
        """P(this position holds the query's first relevant item) =
        [h = 0] Q(j) r / (n - j + 1)."""
        rest = self.size - self.index(pos) + 1.0  # positions j .. n of the group
        value = self.none_before(level) * self.relevant(level) / rest
        return pl.when(self.relevant_above(level) == 0).then(value).otherwise(0.0)

    def none_through(self, level: float, pos: pl.Expr) -> pl.Expr:
        """P(no relevant item at positions <= this one) =
        [h = 0] Q(j) (n - r - j + 1) / (n - j + 1) (= Q(j + 1))."""
        rest = self.size - self.index(pos) + 1.0
        value = self.none_before(level) * (rest - self.relevant(level)) / rest
        return pl.when(self.relevant_above(level) == 0).then(value).otherwise(0.0)


class Judged(NamedTuple):
    """What a measure's expression sees, in an aggregation over the rows of one query.

    ``pos``: 1-based position of the row (unique within the query);
    ``rel``: relevance value (Float64; null when the item is not in the qrels);
    ``stat``: the per-query constant for a :class:`Stat`;
    ``ties``: the tie-group columns, only with ``ties="average"`` (else None);
    ``num_ret``: the number of rows the query retrieved;
    :meth:`ideal`: the per-row column of an :class:`Ideal` (the ideal ranking at the
    row's position), there when a measure of the evaluation declares it (``Family.ideal``);
    ``judged_only``: the rows are only the query's *judged* retrieved rows (those in the
    qrels, at their positions in the whole ranking); the unjudged ones, which gain
    nothing, are not there.  The engine then aggregates ~1/20 of the rows.  So an
    expression never reduces over unjudged rows: it counts retrieved rows with
    :meth:`count_top` and derives unjudged counts from it.  A query none of whose
    retrieved rows is judged has no group and takes the family's ``missing`` value.
    ``running`` and ``row_stat``, where the engine's rows are in position order within
    each query and carry their query's stats (``evaluate`` with qrels): per row, the
    rows (relevance >= level: a ``num_rel`` stat's level, or 0, the judged rows) at or
    above it, and a stat, each a column of the rows (elementwise, not an aggregation);
    None elsewhere (a user's ``group_by``, ``expr.measure``).
    """

    pos: pl.Expr
    rel: pl.Expr
    stat: Callable[[Stat], pl.Expr]
    ties: Ties | None = None
    num_ret: pl.Expr = pl.len()
    judged_only: bool = False
    running: Callable[[float], pl.Expr] | None = None
    row_stat: Callable[[Stat], pl.Expr] | None = None

    def ideal(self, which: Ideal) -> pl.Expr:
        """Per row: the ideal ranking's ``which`` at the row's position (null past it)."""
        return pl.col(which.column)

    def count_top(self, k: int | None) -> pl.Expr:
        """The number of retrieved rows within the cutoff (all without one).  Judged-only
        rows hold positions 1..num_ret with gaps, so it is min(k, num_ret) there."""
        if not self.judged_only:
            return self.in_top(k).sum()
        if k is None:
            return self.num_ret
        return pl.min_horizontal(self.num_ret, pl.lit(k, dtype=pl.Int64))

    def is_relevant(self, level: float) -> pl.Expr:
        """Boolean per row: relevance >= level (unjudged rows are not relevant)."""
        return (self.rel >= level).fill_null(False)

    def in_top(self, k: int | None) -> pl.Expr:
        """Boolean per row: the row is within the cutoff (always true without one)."""
        return self.pos > 0 if k is None else self.pos <= k  # per row, never a scalar

    def rank_among(self, rows: pl.Expr) -> pl.Expr:
        """For the rows where ``rows`` is true, in row order: how many of those rows are at
        or above this one (1 for the topmost).  A cumulative count without sorting."""
        return self.pos.filter(rows).rank("ordinal")


def safe_div(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator as Float64, 0 where the denominator is 0 or null
    (trec_eval's convention for queries without relevant items)."""
    return (
        pl.when(denominator > 0)
        .then(numerator.cast(pl.Float64) / denominator.cast(pl.Float64))
        .otherwise(pl.lit(0.0))
    )


def divide_by(numerator: pl.Expr, constant: float) -> pl.Expr:
    """numerator / constant as Float64, correctly rounded like C's division.

    polars divides a column by a scalar as a product with its reciprocal, so 3 / 5 came
    out as 0.6000000000000001 whenever several queries were evaluated together (and 0.6
    for one): the constant is made a column of the numerator's length, which polars
    divides element by element.

    >>> import polars as pl
    >>> pl.DataFrame({"h": [3.0, 1.0]}).select(divide_by(pl.col("h"), 5))["h"].to_list()
    [0.6, 0.2]
    """
    numerator = numerator.cast(pl.Float64)
    return numerator / (numerator * 0.0 + float(constant))


@dataclass(frozen=True)
class Family:
    """The declaration of one measure family; see the modules in ``measures/``."""

    name: str
    summary: str
    formula: str
    trec_eval: str
    expression: Callable[[Measure, Judged], pl.Expr]
    params: tuple[Param, ...] = ()
    cutoff: bool = True
    # over queries: mean, sum (counts) or gmean (trec_eval gm_map: exp(mean(log(max(x, 1e-5)))))
    aggregate: Literal["mean", "sum", "gmean"] = "mean"
    # a parameter that `@` sets instead of a rank cutoff (IPrec@0.1: the recall level,
    # as ir_measures' AT_PARAM); such a family has cutoff=False and prints it after @
    at_param: str | None = None
    aliases: tuple[str, ...] = ()
    stats: Callable[[Measure], tuple[Stat, ...]] = field(default=lambda m: ())
    # Per-row values of the ideal ranking the expression reads (Judged.ideal): the
    # engines join them onto the rows only when a measure declares them.
    ideal: Callable[[Measure], tuple[Ideal, ...]] = field(default=lambda m: ())
    # Value for a query without rows to aggregate: in the qrels but not in the run
    # (complete=True; num_ret 0) or, with judged-only rows, none of whose retrieved rows
    # is judged.  It reads a Judged whose stat() and count_top() are per-query columns
    # (no rows).  None means 0.
    missing: Callable[[Measure, Judged], pl.Expr] | None = None
    # The expected value over every ordering of tied rows (ties="average"), reading
    # ``Judged.ties``; None: the family does not support it.  It may raise MeasureError
    # for parameter values without a closed form.
    expected: Callable[[Measure, Judged], pl.Expr] | None = None
    # Place in the tables of the README and the docs (then by name).
    order: int = 1000
    # Per-query values lie in [0, 1] (the property tests check it; counts do not).
    bounded: bool = True
    # Parameterised names the generic tests run besides the bare name and name@3
    # (e.g. "AP(norm=min)@3"): one per parameter value worth covering.
    examples: tuple[str, ...] = ()

    @property
    def all_params(self) -> tuple[Param, ...]:
        return (*self.params, REL_PARAM)

    def param(self, name: str) -> Param:
        for p in self.all_params:
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class Measure:
    """A family with every parameter resolved.  ``str(m)`` is its canonical name."""

    family: Family
    k: int | None
    params: tuple[tuple[str, ParamValue], ...]  # every parameter, sorted by name

    def __getitem__(self, name: str) -> ParamValue:
        return dict(self.params)[name]

    @property
    def rel(self) -> float:
        return float(self["rel"])

    def __str__(self) -> str:
        return self._name(_format_value)

    @property
    def exact_name(self) -> str:
        """The canonical name with every float written exactly (``repr``: it reads back
        as the same float), where ``str()`` rounds to 6 digits for display.  It omits
        the defaults as ``str()`` does, so it parses back to this measure under the
        default conventions ('trec_eval', no presets) and ``rel``.

        >>> from polars_rankeval._parse import parse_measure
        >>> m = parse_measure("RBP(p=0.123456789)@10")
        >>> str(m), m.exact_name
        ('RBP(p=0.123457)@10', 'RBP(p=0.123456789)@10')
        >>> parse_measure(m.exact_name) == m
        True
        """
        return self._name(_exact_value)

    def _name(self, value_text: Callable[[ParamValue], str]) -> str:
        at = self.family.at_param
        changed = [
            f"{name}={value_text(value)}"
            for name, value in self.params
            if value != self.family.param(name).default and name != at
        ]
        text = self.family.name + (f"({','.join(changed)})" if changed else "")
        if at is not None:
            return f"{text}@{value_text(self[at])}"
        return text + (f"@{self.k}" if self.k is not None else "")

    def expression(self, judged: Judged) -> pl.Expr:
        """Aggregation expression giving this measure's value for one query (Float64)."""
        return self.family.expression(self, judged).cast(pl.Float64)

    def require_expected(self) -> None:
        """MeasureError when the family has no expected value over tied orderings."""
        if self.family.expected is None:
            supported = ", ".join(n for n, f in REGISTRY.items() if f.expected is not None)
            raise MeasureError(
                f"{self} does not support ties='average' (measures that do: {supported}); "
                "use ties='trec_eval'"
            )

    def expected(self, judged: Judged) -> pl.Expr:
        """Aggregation giving the expected value over every ordering of the query's tied
        rows (``ties="average"``); MeasureError when the measure has none."""
        self.require_expected()
        if judged.ties is None or self.family.expected is None:
            raise RuntimeError("ties='average' needs the tie-group columns of judge()")
        return self.family.expected(self, judged).cast(pl.Float64)

    def stats(self) -> tuple[Stat, ...]:
        return self.family.stats(self)

    def ideal(self) -> tuple[Ideal, ...]:
        return self.family.ideal(self)

    def missing(self, judged: Judged) -> pl.Expr:
        """The value of a query without rows (see ``Family.missing``)."""
        if self.family.missing is None:
            return pl.lit(0.0)
        return self.family.missing(self, judged).cast(pl.Float64)


def _format_value(value: ParamValue) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _exact_value(value: ParamValue) -> str:
    # repr() of a float is the shortest text that reads back as the same float
    return repr(value) if isinstance(value, float) else str(value)


REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    """Add a family to :data:`REGISTRY` (called once per module in ``measures/``), in
    table order (``Family.order``, then name)."""
    if family.name in REGISTRY:
        raise RuntimeError(f"measure family {family.name} registered twice")
    families = sorted([*REGISTRY.values(), family], key=lambda f: (f.order, f.name))
    REGISTRY.clear()
    REGISTRY.update((f.name, f) for f in families)
    return family
