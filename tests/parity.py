"""The engine-parity harness shared by the SQL-twin tests (``engines/test_sql_parity.py``,
``sql/test_sql_render.py``, ``sql/test_postgres.py``, ``sql/test_spark.py``): every
registered measure over a parameter grid, through the polars engine (eager, lazy
streaming; lazy in-memory, the eager path's plan, under the full profile) and the DuckDB
engine (eager and lazy), equal to 1e-9 and equal to pytrec_eval (trec_eval 9.x) wherever
it has the measure (``PER_QUERY_RUNNERS``, ``SUMMARY_RUNNERS``).

The data (hypothesis) is built where implementations disagree: scores from a set of
four so ties are common (trec_eval breaks them by item id descending in *byte* order),
ids whose byte order differs from any natural order (mixed case, digits, punctuation;
integer ids, ordered by their decimal text), graded judgments -1..3 (-1: judged but
"unjudged" for bpref), queries without relevant judgments, queries only in the run
(ignored, with a warning) and only in the qrels (scored 0 with ``complete=True``).
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import re
import warnings
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

import polars_rankeval as rk
from polars_rankeval._parse import parse_measure
from polars_rankeval._registry import REGISTRY, Measure
from tests.helpers import (
    FULL_PROFILE,
    POLARS_ONLY,
    examples,
    pytrec_judged_safely,
    pytrec_qrels,
    pytrec_run,
)

TOL = 1e-9
CUTOFFS = (None, 1, 3, 10)
SCORES = (0.0, 0.5, 1.0, 2.0)
GRADES = (-1, 0, 0, 1, 1, 2, 3)
ID_ALPHABET = "aAbB09_-.#"
SYSTEMS = ("A", "B")


# --------------------------------------------------------------------------- measures


def _numeric_values(param: Any) -> list[float]:
    """Default plus one other value inside the parameter's open bounds."""
    default = float(param.default)
    low = param.minimum if param.minimum is not None else default - 1.0
    high = param.maximum if param.maximum is not None else default + 1.0
    other = (low + high) / 2 if (low + high) / 2 != default else (low + default) / 2
    return [default, other]


def measure_grid(
    rels: Sequence[int] = (1, 2), cutoffs: Sequence[int | None] = CUTOFFS
) -> list[str]:
    """Every registered family with SQL (the polars-only ones have their own oracle tests)
    x each value of its parameters x cutoffs x rel levels."""
    names: list[str] = []
    for family in REGISTRY.values():
        if family.name in POLARS_ONLY:
            continue
        axes = []
        for param in family.params:
            values = list(param.choices) if param.choices is not None else _numeric_values(param)
            axes.append([(param.name, v) for v in values])
        for combo in itertools.product(*axes):
            for k in cutoffs if family.cutoff else (None,):
                for level in rels:
                    params = [
                        f"{n}={v:g}" if isinstance(v, float) else f"{n}={v}" for n, v in combo
                    ]
                    if level != 1:
                        params.append(f"rel={level}")
                    name = family.name + (f"({','.join(params)})" if params else "")
                    names.append(name + (f"@{k}" if k is not None else ""))
    return names


GRID = measure_grid()


def trec_name(m: Measure) -> str | None:
    """pytrec_eval's key for a measure (at its rel level), or None when trec_eval has no
    such measure (a non-default convention)."""
    params = {n: v for n, v in m.params if n != "rel"}
    defaults = {p.name: p.default for p in m.family.params}
    if params != defaults:
        return None
    k, name = m.k, m.family.name
    table: dict[str, tuple[str | None, str | None]] = {
        "AP": ("map", "map_cut_{}"),
        "P": ("set_P", "P_{}"),
        "R": ("set_recall", "recall_{}"),
        "nDCG": ("ndcg", "ndcg_cut_{}"),
        "RR": ("recip_rank", None),
        "Rprec": ("Rprec", None),
        "Bpref": ("bpref", None),
        "Success": (None, "success_{}"),
        "NumRet": ("num_ret", None),
        "NumRel": ("num_rel", None),
        "NumRelRet": ("num_rel_ret", None),
    }
    if name not in table:
        return None
    plain, cut = table[name]
    if k is None:
        return plain
    return cut.format(k) if cut else None


_KS = ",".join(str(k) for k in CUTOFFS if k is not None)
PYTREC_MEASURES = {
    "map", f"map_cut.{_KS}", f"P.{_KS}", f"recall.{_KS}", "ndcg", f"ndcg_cut.{_KS}",
    "recip_rank", "Rprec", "bpref", f"success.{_KS}", "num_ret", "num_rel", "num_rel_ret",
    "set_P", "set_recall",
}  # fmt: skip


# ------------------------------------------------------------------------------- data

Row = tuple[Any, ...]


class _Drawn:
    """The choices of :func:`build_dataset`, drawn by hypothesis (shrinkable)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def boolean(self) -> bool:
        return self.draw(st.booleans())

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def choice(self, values: Sequence[Any]) -> Any:
        return self.draw(st.sampled_from(values))

    def ids(self, int_ids: bool, max_size: int) -> list[Any]:
        one = (
            st.integers(min_value=0, max_value=120)  # "10" < "9" < "100" as text
            if int_ids
            else st.text(alphabet=ID_ALPHABET, min_size=1, max_size=3)
        )
        return self.draw(st.lists(one, min_size=1, max_size=max_size, unique=True))

    def some(self, values: Sequence[Any], *, min_size: int, max_size: int | None = None,
             unique: bool = True) -> list[Any]:  # fmt: skip
        return self.draw(
            st.lists(st.sampled_from(values), min_size=min_size, max_size=max_size, unique=unique)
        )


class _Seeded:
    """The same choices from a seeded ``random.Random``: fixed data for the explicit
    examples (:func:`seeded_batch`)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def boolean(self) -> bool:
        return self.rng.random() < 0.5

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)

    def choice(self, values: Sequence[Any]) -> Any:
        return self.rng.choice(list(values))

    def ids(self, int_ids: bool, max_size: int) -> list[Any]:
        size = self.rng.randint(1, max_size)
        if int_ids:
            return self.rng.sample(range(121), size)
        found: dict[str, None] = {}
        while len(found) < size:
            found["".join(self.rng.choices(ID_ALPHABET, k=self.rng.randint(1, 3)))] = None
        return list(found)

    def some(self, values: Sequence[Any], *, min_size: int, max_size: int | None = None,
             unique: bool = True) -> list[Any]:  # fmt: skip
        values = list(values)
        if unique:
            high = len(values) if max_size is None else min(max_size, len(values))
            return self.rng.sample(values, self.rng.randint(min_size, high))
        return self.rng.choices(values, k=self.rng.randint(min_size, max_size or 5))


def build_dataset(
    pick: _Drawn | _Seeded,
    *,
    by: bool = False,
    duplicates: bool = False,
    ranks: bool = False,
    max_queries: int = 5,
    int_ids: bool | None = None,
) -> dict[str, Any]:
    """A run (query, item, score [, sys] [, rank]) and qrels (query, item, relevance);
    also ``labels``: the run with a ``relevant`` column (graded, from the qrels or
    drawn), for evaluations without qrels.  ``pick`` makes the choices (hypothesis'
    draws or a seeded generator); ``int_ids``: the id type (picked when None)."""
    if int_ids is None:
        int_ids = pick.boolean()
    queries = pick.ids(int_ids, max_queries)
    items = pick.ids(int_ids, 9)
    systems = SYSTEMS if by else (None,)
    run_rows: list[Row] = []
    qrels_rows: list[Row] = []
    for i, q in enumerate(queries):
        kind = "both" if i == 0 else pick.choice(["both", "both", "run", "qrels"])
        if kind in ("both", "qrels"):
            judged = pick.some(items, min_size=1)
            qrels_rows += [(q, it, pick.choice(GRADES)) for it in judged]
        if kind in ("both", "run"):
            for system in systems:
                if system == "B" and pick.integer(0, 3) == 0:
                    continue  # this system did not run the query
                retrieved = pick.some(items, min_size=1)
                if duplicates and pick.boolean():
                    retrieved += pick.some(retrieved, min_size=0, max_size=3, unique=False)
                for it in retrieved:
                    run_rows.append((q, it, pick.choice(SCORES), system))
    id_type = pl.Int64 if int_ids else pl.String
    run = pl.DataFrame(
        run_rows,
        schema={"query": id_type, "item": id_type, "score": pl.Float64, "sys": pl.String},
        orient="row",
    )
    if not by:
        run = run.drop("sys")
    if ranks:  # a rank column with ties (broken by item id descending, as for scores)
        run = run.with_columns(
            (pl.col("score").rank("dense", descending=True).over("query", *(["sys"] if by else [])))
            .cast(pl.Int64)
            .alias("rank")
        ).drop("score")
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": id_type, "item": id_type, "relevance": pl.Int64},
        orient="row",
    )
    grades = {(q, it): r for q, it, r in qrels_rows}
    labels = run.with_columns(
        pl.Series(
            "relevant",
            [
                grades.get((q, it), pick.choice(GRADES))
                for q, it in run.select("query", "item").rows()
            ],
            dtype=pl.Int64,
        )
    )
    return {"run": run, "qrels": qrels, "labels": labels, "int_ids": int_ids}


@st.composite
def datasets(draw: st.DrawFn, **options: Any) -> dict[str, Any]:
    """One :func:`build_dataset` drawn by hypothesis (``by``, ``duplicates``, ``ranks``,
    ``max_queries``, ``int_ids`` as there)."""
    return build_dataset(_Drawn(draw), **options)


def stack(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Datasets of one id type as one: the queries of the i-th (i >= 1) renamed apart
    (``i/query``, or query + 1000 i for integer ids), so that each query is evaluated on
    its own dataset's rows as in a call of its own (by groups too: a group is the same
    system in every dataset), and one call per engine checks them all: the grid's
    ~800 measures cost ~1.5 s of CPU a call in each engine whatever the rows."""
    int_ids = parts[0]["int_ids"]
    assert all(part["int_ids"] == int_ids for part in parts)

    def tagged(frame: pl.DataFrame, i: int) -> pl.DataFrame:
        if i == 0:  # the first keeps its ids
            return frame
        query = pl.col("query") + 1000 * i if int_ids else pl.lit(f"{i}/") + pl.col("query")
        return frame.with_columns(query.alias("query"))

    stacked = {
        key: pl.concat([tagged(part[key], i) for i, part in enumerate(parts)])
        for key in ("run", "qrels", "labels")
    }
    return {**stacked, "int_ids": int_ids, "cases": len(parts)}


@st.composite
def batches(draw: st.DrawFn, *, size: int = 4, **options: Any) -> dict[str, Any]:
    """1 to ``size`` :func:`datasets` of one id type, :func:`stack`-ed: one example
    checks them all in one call per engine.  The simplest (hypothesis' first example)
    is one simplest dataset."""
    first = draw(datasets(**options))
    rest = draw(st.lists(datasets(int_ids=first["int_ids"], **options), max_size=size - 1))
    return stack([first, *rest])


def seeded_batch(seed: int, cases: int, *, int_ids: bool, **options: Any) -> dict[str, Any]:
    """``cases`` datasets like :func:`datasets` draws, from a seeded generator, stacked:
    the fixed explicit example that the default profile runs alone (``BATCH_SETTINGS``)."""
    pick = _Seeded(random.Random(seed))
    return stack([build_dataset(pick, int_ids=int_ids, **options) for _ in range(cases)])


def one_system(data: dict[str, Any]) -> dict[str, Any]:
    """A dataset drawn with ``by=True`` as one run: system A's rows (A runs every query
    of the run), the ``sys`` column dropped."""
    keep = pl.col("sys") == "A"
    return {
        **data,
        "run": data["run"].filter(keep).drop("sys"),
        "labels": data["labels"].filter(keep).drop("sys"),
    }


# ----------------------------------------------------------------------------- oracle


def _trec_order(run: pl.DataFrame, *, by_rank: bool) -> dict[str, dict[str, float]]:
    """pytrec_eval run dict; with ranks, score = -rank gives trec_eval's order
    (rank ascending, ties by item id descending)."""
    if by_rank:
        return pytrec_run((q, it, -v) for q, it, v in run.select("query", "item", "rank").rows())
    return pytrec_run(run.select("query", "item", "score").rows())


class Expected(dict[tuple[Any, ...], float]):
    """Oracle values of every evaluated query, keyed by (by value, query text, name)."""


def oracle(
    run: pl.DataFrame,
    qrels: pl.DataFrame | None,
    names: Sequence[str],
    *,
    complete: bool = False,
    by: str | None = None,
    by_rank: bool = False,
    rel: int | None = None,
) -> Expected:
    """pytrec_eval's per-query values keyed by (by value, query text, measure name), for
    the names trec_eval has; ``qrels=None`` uses the run's ``relevant`` labels as qrels."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    expected = Expected()

    def judgments(frame: pl.DataFrame, column: str) -> dict[str, dict[str, int]]:
        return pytrec_qrels(frame.select("query", "item", column).rows())

    measures = {name: parse_measure(name, rel=rel) for name in names}
    levels = {int(m.rel) for m in measures.values() if trec_name(m)}
    groups = run.partition_by(by, as_dict=True) if by else {(None,): run}
    for level in levels:
        for key, group in groups.items():
            # without qrels each group's own labels are its judgments
            judged = (
                judgments(group, "relevant") if qrels is None else judgments(qrels, "relevance")
            )
            ranked = {
                q: docs for q, docs in _trec_order(group, by_rank=by_rank).items() if q in judged
            }
            if complete:
                for q in judged:
                    ranked.setdefault(q, {})
            # a query judged all negative gets a judged non-relevant pad: as given,
            # pytrec_eval reads freed memory there (a segfault or a hang; see the helper)
            evaluator = pytrec_eval.RelevanceEvaluator(
                pytrec_judged_safely(judged), PYTREC_MEASURES, relevance_level=level
            )
            values = evaluator.evaluate(dict(ranked))
            for name, m in measures.items():
                trec = trec_name(m)
                if trec is None or int(m.rel) != level:
                    continue
                for q, per_query in values.items():
                    expected[(key[0], q, name)] = per_query[trec]
    return expected


# ---------------------------------------------------------------------------- engines


def _lazy(frame: pl.DataFrame | None) -> pl.LazyFrame | None:
    return None if frame is None else frame.lazy()


RUNNERS: dict[str, Callable[..., pl.DataFrame]] = {
    "polars eager": lambda run, qrels, names, kw: rk.evaluate(run, qrels, names, **kw),
    "polars lazy": lambda run, qrels, names, kw: rk.evaluate(
        run.lazy(), _lazy(qrels), names, **kw
    ).collect(),
    "polars streaming": lambda run, qrels, names, kw: rk.evaluate(
        run.lazy(), _lazy(qrels), names, **kw
    ).collect(engine="streaming"),
    "duckdb eager": lambda run, qrels, names, kw: rk.evaluate(
        run, qrels, names, engine="duckdb", **kw
    ),
    "duckdb lazy streaming": lambda run, qrels, names, kw: rk.evaluate(
        run.lazy(), _lazy(qrels), names, engine="duckdb", **kw
    ).collect(engine="streaming"),
}


# Which runners each shape goes through.  The per-query frame is each engine's work, the
# summary that frame finished by the one shared ``engines.finish.summarize``; and "polars
# lazy" collects the same lazy plan as "polars eager" (which collects it for the caller).
# So by default: per query every runner but "polars lazy", the summary (against
# pytrec_eval's mean) in eager polars and streaming DuckDB (the summary's plan streamed);
# under the full profile every runner both ways.  A grid call costs ~1.5-2 s of CPU.
PER_QUERY_RUNNERS: tuple[str, ...] = tuple(RUNNERS)
SUMMARY_RUNNERS: tuple[str, ...] = tuple(RUNNERS)
if not FULL_PROFILE:
    PER_QUERY_RUNNERS = tuple(r for r in RUNNERS if r != "polars lazy")
    SUMMARY_RUNNERS = ("polars eager", "duckdb lazy streaming")

# Which names each runner evaluates.  A call costs by its width (~1.5-2 s of CPU for the
# grid's ~800 measures in either engine, ~0.2 s in polars for a cover of 90), and the
# measures' SQL and polars expressions are each engine's whatever the path: so each
# engine's eager path takes the whole list per query (equal to each other and to
# pytrec_eval), and by default the other paths (streaming polars, lazy DuckDB) and the
# summaries (the shared finish of the same per-query frame) take a cover of it (every
# family with each value of its parameters, with and without a cutoff, at each rel level:
# ``tests/sql/warehouse_cases.cover``); under the full profile every path takes it whole.
WHOLE_LIST_RUNNERS = ("polars eager", "duckdb eager")


def runner_names(runner: str, names: Sequence[str], *, per_query: bool) -> list[str]:
    """The names ``runner`` evaluates of ``names`` (:data:`WHOLE_LIST_RUNNERS`)."""
    if per_query and runner in WHOLE_LIST_RUNNERS:
        return list(names)
    return list(covered(tuple(names)))


@functools.cache
def covered(names: tuple[str, ...]) -> tuple[str, ...]:
    """``tests/sql/warehouse_cases.cover`` of ``names``, computed once (~1 s for the grid)."""
    from tests.sql.warehouse_cases import cover  # it imports this module: here, not above

    return tuple(cover(list(names)))


def _warning_texts(caught: list[warnings.WarningMessage]) -> list[str]:
    # the examples ("e.g. [...]") come from an unordered unique(): compare the rest;
    # distinct texts only (a lazy plan may run its check node more than once)
    return sorted(
        {
            re.sub(r", e\.g\. .*", "", str(w.message))
            for w in caught
            if issubclass(w.category, rk.RankevalWarning)
        }
    )


def assert_same(got: pl.DataFrame, want: pl.DataFrame, *, what: str, tol: float = TOL) -> None:
    """Same schema, same key rows, values equal to ``tol``."""
    assert got.schema == want.schema, (what, got.schema, want.schema)
    keys = [c for c in want.columns if c != "value"]
    joined = want.join(got, on=keys, how="full", nulls_equal=True, suffix="_got")
    assert joined.height == want.height == got.height, (what, want, got)
    bad = joined.filter(
        pl.col("value_got").is_null()
        | pl.col("value").is_null()
        | ((pl.col("value") - pl.col("value_got")).abs() > tol)
    )
    assert bad.height == 0, (what, bad)


def _same_in_every_runner(
    runners: Sequence[str], run: pl.DataFrame, qrels: pl.DataFrame | None,
    names: Sequence[str], kw: dict[str, Any],
) -> pl.DataFrame:  # fmt: skip
    """Run each of ``runners`` on its names (:func:`runner_names`); all equal the first's
    result on the names they share (frames, warnings).  The first takes the most names."""
    results: dict[str, pl.DataFrame] = {}
    texts: dict[str, list[str]] = {}
    for engine in runners:
        own = runner_names(engine, names, per_query=kw["per_query"])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            results[engine] = RUNNERS[engine](run, qrels, own, kw)
        texts[engine] = _warning_texts(caught)
    reference = results[runners[0]]
    for engine, frame in results.items():
        what = f"{engine}, per_query={kw['per_query']}"
        shared = reference.filter(pl.col("measure").is_in(frame["measure"].unique().implode()))
        assert frame["measure"].n_unique() == shared["measure"].n_unique(), what
        assert_same(frame, shared, what=what)
        assert texts[engine] == texts[runners[0]], (what, texts)
    return reference


def assert_engines_match(
    run: pl.DataFrame,
    qrels: pl.DataFrame | None,
    names: Sequence[str],
    *,
    expected: Expected | None = None,
    by: str | None = None,
    summary: bool = True,
    **kwargs: Any,
) -> None:
    """Per query through :data:`PER_QUERY_RUNNERS` and (``summary``) the summary through
    :data:`SUMMARY_RUNNERS`, each on its names (:func:`runner_names`): each shape equal in
    every runner (frames, warnings) and to ``expected`` (pytrec_eval's per-query values,
    their means) where it has a value."""
    kw = dict(kwargs, by=by)
    for per_query in (True, False) if summary else (True,):
        runners = PER_QUERY_RUNNERS if per_query else SUMMARY_RUNNERS
        reference = _same_in_every_runner(runners, run, qrels, names, {**kw, "per_query": per_query})
        if expected:
            evaluated = set(reference["measure"])
            held = Expected({key: v for key, v in expected.items() if key[2] in evaluated})
            assert_oracle(reference, held, by=by, per_query=per_query)


def assert_oracle(
    ours: pl.DataFrame,
    expected: Expected,
    *,
    by: str | None,
    per_query: bool,
) -> None:
    if per_query:
        got = {
            (row[by] if by else None, str(row["query"]), row["measure"]): row["value"]
            for row in ours.iter_rows(named=True)
        }
        checked = 0
        for key, value in expected.items():
            assert key in got, (key, sorted(got)[:5])
            assert math.isclose(got[key], value, rel_tol=0, abs_tol=TOL), (key, got[key], value)
            checked += 1
        assert checked
        return
    # overall: trec_eval's "all" = mean over queries (sum for the counts)
    per_measure: dict[tuple[Any, str], list[float]] = defaultdict(list)
    for (group, _q, name), value in expected.items():
        per_measure[(group, name)].append(value)
    got = {
        (row[by] if by else None, row["measure"]): row["value"]
        for row in ours.iter_rows(named=True)
    }
    for (group, name), values in per_measure.items():
        family = parse_measure(name).family
        want = sum(values) if family.aggregate == "sum" else sum(values) / len(values)
        assert math.isclose(got[(group, name)], want, rel_tol=0, abs_tol=TOL), (
            group, name, got[(group, name)], want,
        )  # fmt: skip


SETTINGS = settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

# The grid tests draw :func:`batches` (each example one call per engine on 1-4 datasets)
# and carry an explicit example (a :func:`seeded_batch` of several datasets).  Every
# call of the grid's ~800 measures costs ~1.5 s of CPU per engine, so the default and
# fast profiles run the explicit example only; the full profile (HYPOTHESIS_PROFILE=full)
# adds SETTINGS' 10 drawn batches per test, as many calls as its 10 datasets before.
BATCH_SETTINGS = settings(
    SETTINGS, phases=tuple(Phase) if FULL_PROFILE else (Phase.explicit,)
)


# ------------------------------------------------- deterministic data for slow engines


def random_cases(seed: int, cases: int, *, int_ids: bool) -> dict[str, pl.DataFrame]:
    """``cases`` small runs like :func:`datasets` draws (ties, byte-order ids, grades
    -1..3, queries only in the run or only in the qrels), stacked into one run and one
    qrels with query ids ``"<case>:<query>"`` (queries are evaluated independently, so
    one query on a slow engine checks them all).  ``labels``: the run with a
    ``relevant`` column; ``ranked``: the run with a tied ``rank`` column instead of
    the score."""
    import random

    rng = random.Random(seed)
    run_rows: list[Row] = []
    qrels_rows: list[Row] = []
    labels: list[int] = []
    for case in range(cases):
        pool: list[Any] = (
            rng.sample(range(121), 9)
            if int_ids
            else list({"".join(rng.choices(ID_ALPHABET, k=rng.randint(1, 3))) for _ in range(9)})
        )
        for qn in range(rng.randint(1, 4)):
            query = f"{case}:{qn}"
            kind = "both" if qn == 0 else rng.choice(["both", "both", "run", "qrels"])
            grades: dict[Any, int] = {}
            if kind in ("both", "qrels"):
                for item in rng.sample(pool, rng.randint(1, len(pool))):
                    grades[item] = rng.choice(GRADES)
                    qrels_rows.append((query, item, grades[item]))
            if kind in ("both", "run"):
                for item in rng.sample(pool, rng.randint(1, len(pool))):
                    run_rows.append((query, item, rng.choice(SCORES)))
                    labels.append(grades.get(item, rng.choice(GRADES)))
    id_type = pl.Int64 if int_ids else pl.String
    run = pl.DataFrame(
        run_rows, schema={"query": pl.String, "item": id_type, "score": pl.Float64}, orient="row"
    )
    qrels = pl.DataFrame(
        qrels_rows,
        schema={"query": pl.String, "item": id_type, "relevance": pl.Int64},
        orient="row",
    )
    ranked = run.with_columns(
        pl.col("score").rank("dense", descending=True).over("query").cast(pl.Int64).alias("rank")
    ).drop("score")
    return {
        "run": run,
        "qrels": qrels,
        "labels": run.with_columns(pl.Series("relevant", labels, dtype=pl.Int64)),
        "ranked": ranked,
    }


def stacked_cases(seeds: Sequence[int], cases: int, *, int_ids: bool) -> dict[str, pl.DataFrame]:
    """The run and qrels of :func:`random_cases` for each seed, stacked with query ids
    ``"s<seed>/<case>:<query>"``: queries are evaluated independently, so one query on a
    slow engine checks every seed's cases (a wrong value names its seed and case)."""
    parts = [random_cases(seed, cases, int_ids=int_ids) for seed in seeds]
    return {
        key: pl.concat(
            part[key].with_columns((pl.lit(f"s{seed}/") + pl.col("query")).alias("query"))
            for seed, part in zip(seeds, parts, strict=True)
        )
        for key in ("run", "qrels")
    }


def polars_reference(
    run: pl.DataFrame, qrels: pl.DataFrame | None, names: Sequence[str], **kw: Any
) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        return rk.evaluate(run, qrels, list(names), **kw)


NO_NUMREL = [n for n in GRID if not (n == "NumRel" or n.startswith("NumRel("))]
