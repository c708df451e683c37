"""Issue 18's agreement count: each measure family it added, its oracle, how many values
agree through each engine, the largest difference, and what was skipped and why.

Run on demand from the repository root (about a minute of CPU on the default sizes)::

    .venv/bin/python -m tests.oracles.agreement                 # prints the Markdown
    .venv/bin/python -m tests.oracles.agreement --examples 40 --seed 18 \\
        --out tests/oracles/AGREEMENT.md                        # what the README links

The data are the oracle tests' own hypothesis strategies, drawn here (``--examples``
draws each, from ``--seed``) and stacked into one table per family (each draw's query
ids prefixed by its number: queries are evaluated independently), then evaluated
per query and as a mean through ``engine="polars"`` and ``engine="duckdb"`` (the SQL
entry point ``rankeval_per_query``):

* the diversity family: ``tests/diversity_cases.py`` (ties, graded and negative
  judgments, unjudged items, 1 to 4 subtopics a query, queries without a relevant
  subtopic), against pyndeval (ndeval.c) given the run in trec_eval's order;
* Compat, Accuracy, the C/W/L family and the set measures: ``ir_measures_data.cases``
  (graded -1..4, tied scores, unjudged rows, queries on one side only), against
  ir_measures' own providers (compat, accuracy, cwl_eval, pytrec_eval for the set
  measures), cwl-eval 1.0.12's library and the set measures' formulas by hand;
* InterpAP: ``test_measure_interp_ap.scenes`` (boxes matched trivially), against
  pycocotools (coco101) and the PASCAL VOC devkit's ``voc_ap`` (voc11, all).

The oracle helpers are the tests' (``tests/oracles/test_*.py``); the tests stay the
checks (they assert), this script only counts: it never fails on a difference, it
reports it.  Values the oracle does not define, or defines otherwise by a documented
choice, are listed as skipped with the reason; each is also asserted by a test.
The SQL products beyond DuckDB (PostgreSQL, Spark, dbt) are counted by their own tests:
the table at the end names them.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

import polars as pl
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import polars_rankeval as rk

ENGINES = ("polars", "duckdb")
TOLERANCE = 1e-9
Key = tuple[str, str]  # (query, measure name)


@dataclass
class Tally:
    """One measure family's count for one engine."""

    oracle: str
    compared: int = 0
    means: int = 0
    max_diff: float = 0.0
    over: int = 0  # values beyond TOLERANCE
    skipped: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, ours: float, expected: float, *, mean: bool = False) -> None:
        diff = abs(ours - expected)
        self.max_diff = max(self.max_diff, diff)
        self.over += diff > TOLERANCE
        if mean:
            self.means += 1
        else:
            self.compared += 1


RESULTS: dict[tuple[str, str], Tally] = {}


def v(package: str) -> str:
    """An oracle's installed version."""
    return version(package)


def tally(family: str, engine: str, oracle: str) -> Tally:
    return RESULTS.setdefault((family, engine), Tally(oracle))


def family_of(name: str) -> str:
    return rk.parse_measure(name).family.name


def draws(strategy: st.SearchStrategy[Any], n: int, start: int) -> list[Any]:
    """``n`` examples of a test strategy (generation only, no shrinking), from ``start``."""
    out: list[Any] = []

    @seed(start)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(strategy)
    def collect(example: Any) -> None:
        out.append(example)

    collect()
    return out


def stack(cases: Iterable[tuple[list[tuple], ...]]) -> tuple[list[tuple], ...]:
    """Cases of row lists whose first column is the query, as one: each case's query
    ids prefixed ``c<number>:``."""
    columns: list[list[tuple]] | None = None
    for number, case in enumerate(cases):
        columns = columns or [[] for _ in case]
        for rows, out in zip(case, columns, strict=True):
            out += [(f"c{number}:{row[0]}", *row[1:]) for row in rows]
    return tuple(columns or ())


def case_of(query: str) -> str:
    """The draw a stacked query id comes from (``c3:q1`` -> ``c3``)."""
    return query.split(":", 1)[0]


def evaluate(run: pl.DataFrame, qrels: pl.DataFrame, names: list[str], engine: str,
             *, complete: bool = False, **options: Any,
             ) -> tuple[dict[Key, float], dict[Key, float]]:  # fmt: skip
    """Our per-query values, and each draw's means ``{(draw, measure): value}``, through
    ``engine``: the means by ``by="draw"``, or one call per draw under ``complete=True``
    (whose qrels-only queries would score 0 in every other draw's group)."""
    run = run.with_columns(pl.col("query").str.split(":").list.first().alias("draw"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # run-only queries, classes without objects
        per_query = rk.evaluate(run.drop("draw"), qrels, names, per_query=True, engine=engine,
                                complete=complete, **options)  # fmt: skip
        if complete:
            parts = []
            for (draw,), part in run.group_by("draw", maintain_order=True):
                judged = qrels.filter(pl.col("query").str.starts_with(f"{draw}:"))
                summary = rk.evaluate(
                    part.drop("draw"), judged, names, engine=engine, complete=True
                )
                parts.append(summary.with_columns(draw=pl.lit(draw)))
            summary = pl.concat(parts)
        else:
            summary = rk.evaluate(run, qrels, names, engine=engine, by="draw", **options)
    values = {(q, m): v for q, m, v in per_query.select("query", "measure", "value").iter_rows()}
    return values, {(d, m): v for d, m, v in summary.select("draw", "measure", "value").iter_rows()}


def compare(family_name: Callable[[str], str], engine: str, oracle: str,
            ours: tuple[dict[Key, float], dict[Key, float]],
            expected: dict[Key, float]) -> None:  # fmt: skip
    """Every expected per-query value against ours, then each draw's mean of a measure
    against the mean of the expected values of its queries, where they cover them all."""
    per_query, _ = ours
    for (query, name), value in expected.items():
        tally(family_name(name), engine, oracle).add(per_query[query, name], value)
    compare_means(family_name, engine, oracle, ours, expected)


def compare_means(family_name: Callable[[str], str], engine: str, oracle: str,
                  ours: tuple[dict[Key, float], dict[Key, float]],
                  expected: dict[Key, float]) -> None:  # fmt: skip
    """Each draw's mean of a measure against the mean of the expected values of its
    queries, where they cover them all."""
    per_query, means = ours
    for (draw, name), mean in means.items():
        keys = [key for key in per_query if key[1] == name and case_of(key[0]) == draw]
        if keys and all(key in expected for key in keys):
            want = statistics.fmean(expected[key] for key in keys)
            tally(family_name(name), engine, oracle).add(mean, want, mean=True)


def skip(family: str, engine: str, oracle: str, reason: str, count: int = 1) -> None:
    tally(family, engine, oracle).skipped[reason] += count


# ---------------------------------------------------------------- diversity (pyndeval)


PYNDEVAL = f"pyndeval {v('pyndeval')} (ndeval.c); ERR_IA@1, alpha_DCG@1: ndeval's value / N"
# ndeval's settings besides its defaults: (alpha, beta, relevance level, the families
# taking them); ERR_IA, P_IA, AP_IA, StRecall have no alpha (ir_measures' parameters)
PASSES = [(0.5, 0.5, 1, None), (0.5, 0.5, 2, None),
          (0.3, 0.8, 1, ("alpha_DCG", "alpha_nDCG", "NRBP", "nNRBP"))]  # fmt: skip


def _named(ours: str, alpha: float, beta: float, rel: int) -> str:
    """Our name of a diversity measure under one of PASSES (``alpha_nDCG@5`` ->
    ``alpha_nDCG(alpha=0.3,rel=2)@5``)."""
    family, _, k = ours.partition("@")
    params = [f"alpha={alpha:g}"] if alpha != 0.5 else []
    params += [f"beta={beta:g}"] if beta != 0.5 and "NRBP" in family else []
    params += [f"rel={rel}"] if rel != 1 else []
    return family + (f"({','.join(params)})" if params else "") + (f"@{k}" if k else "")


def diversity(n: int, start: int) -> None:
    from tests.diversity_cases import cases

    qrels_rows, run_rows = stack(draws(cases(), n, start))
    q = pl.DataFrame(qrels_rows, schema=["query", "subtopic", "item", "relevance"], orient="row")
    r = pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row")
    for alpha, beta, rel, families in PASSES:
        _diversity_pass(q, r, qrels_rows, run_rows, (alpha, beta, rel), families)
    _weighted_pass(q, qrels_rows, run_rows, start)


def _weighted_pass(q: pl.DataFrame, qrels_rows: list[tuple], run_rows: list[tuple],
                   start: int) -> None:  # fmt: skip
    """intent_weight=: the intent-aware measures against the weighted mean of pyndeval's
    values on each subtopic alone (test_diversity_weights' oracle)."""
    import random

    from tests.oracles.test_diversity_weights import PAIRS, _weighted_oracle

    rng = random.Random(start)
    keys = sorted({(query, sub) for query, sub, _, _ in qrels_rows})
    weights = {key: rng.choice([0.0, 0.25, 1.0, 2.5]) for key in keys}
    table = pl.DataFrame([(*key, w) for key, w in weights.items()],
                         schema=["query", "subtopic", "w"], orient="row")  # fmt: skip
    weighted = q.join(table, on=["query", "subtopic"])
    expected = _weighted_oracle(qrels_rows, run_rows, weights)
    r = pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row")
    label = "pyndeval on each subtopic alone, weighted mean by hand"

    def family(name: str) -> str:
        return family_of(name) + " (intent_weight=)"

    for engine in ENGINES:
        ours = evaluate(r, weighted, list(PAIRS), engine, intent_weight="w")
        compare(family, engine, label, ours, expected)
        for key, value in ours[0].items():
            if key not in expected:
                assert value == 0.0, key
                skip(
                    family(key[1]),
                    engine,
                    "",
                    "no subtopic with a relevant item: ours 0, nothing to weigh",
                )


def _diversity_pass(q: pl.DataFrame, r: pl.DataFrame, qrels_rows: list[tuple],
                    run_rows: list[tuple], setting: tuple[float, float, int],
                    families: tuple[str, ...] | None) -> None:  # fmt: skip
    import pyndeval

    from tests.diversity_cases import oracle_run
    from tests.oracles.test_diversity import _pairs_of_names

    alpha, beta, rel = setting
    names = [(_named(ours, *setting), nd, k) for ours, nd, k in _pairs_of_names()
             if families is None or ours.partition("@")[0] in families]  # fmt: skip
    evaluator = pyndeval.RelevanceEvaluator(qrels_rows, [nd for _, nd, _ in names],
                                            relevance_level=rel, alpha=alpha, beta=beta)  # fmt: skip
    oracle = evaluator.evaluate(oracle_run(run_rows))
    subtopics: dict[str, set[str]] = defaultdict(set)
    for query, sub, _, relevance in qrels_rows:
        if relevance >= rel:
            subtopics[query].add(sub)
    expected: dict[Key, float] = {}
    undefined: list[Key] = []
    for query, values in oracle.items():
        for name, nd, k in names:
            if k == 1 and nd in ("ERR-IA@1", "alpha-DCG@1"):
                # ndeval leaves rank 1 undivided by N (its loops start at rank 2): ours / N
                n_sub = len(subtopics.get(query, ()))
                expected[query, name] = values[nd] / n_sub if n_sub else 0.0
            elif math.isnan(values[nd]):  # nNRBP without a relevant subtopic: 0/0
                undefined.append((query, name))
            else:
                expected[query, name] = values[nd]
    for engine in ENGINES:
        ours = evaluate(r, q, [name for name, _, _ in names], engine)
        compare(family_of, engine, PYNDEVAL, ours, expected)
        for query, name in undefined:
            assert ours[0][query, name] == 0.0
            skip(family_of(name), engine, "", "nNRBP of a query without a relevant subtopic: "
                 "ndeval 0/0 = NaN, ours 0")  # fmt: skip


# ------------------------------------------------- ir_measures' cases: Compat, Accuracy


def _ir_cases(n: int, start: int) -> tuple[list[tuple], list[tuple]]:
    from tests.oracles.ir_measures_data import cases

    run_rows, qrels_rows = stack(draws(cases(), n, start))
    return run_rows, qrels_rows


def compat_and_accuracy(run_rows: list[tuple], qrels_rows: list[tuple]) -> None:
    import ir_measures

    from tests.oracles.ir_measures_data import frames
    from tests.oracles.test_measure_compat import (
        ACCURACY,
        COMPAT,
        _accuracy_fill,
        _oracle,
        _oracle_inputs,
    )  # fmt: skip

    inputs = _oracle_inputs(run_rows, qrels_rows, rescore=True)
    compat = _oracle(ir_measures.compat, COMPAT, *inputs)
    accuracy = _oracle(ir_measures.accuracy, ACCURACY, *inputs)
    fill = _accuracy_fill(run_rows, qrels_rows, ACCURACY)
    run, qrels = frames(run_rows, qrels_rows)
    for engine in ENGINES:
        ours = evaluate(run, qrels, COMPAT + ACCURACY, engine)
        compare(family_of, engine, f"ir_measures {v('ir-measures')} compat provider", ours, compat)
        defined = {key: v for key, v in accuracy.items() if not math.isnan(v)}
        irm = f"ir_measures {v('ir-measures')} accuracy provider"
        compare(family_of, engine, irm, (ours[0], {}), defined)
        for key in ours[0]:
            if key[1] in ACCURACY and key not in defined:
                zero = fill[key] == 0.0
                reason = ("no relevant row in the top k: ir_measures skips the query, ours 0"
                          if zero else "no non-relevant row in the top k: ir_measures "
                          "divides by zero, ours 1")  # fmt: skip
                assert ours[0][key] == fill[key]
                skip("Accuracy", engine, "", reason)
        # the means: over the oracle's values, our documented 0 / 1 where it has none
        merged = {key: defined.get(key, fill[key]) for key in ours[0] if key[1] in ACCURACY}
        compare_means(family_of, engine, irm, ours, merged)


# ------------------------------------------------------ C/W/L: ir_measures and cwl-eval


def cwl(run_rows: list[tuple], qrels_rows: list[tuple]) -> None:
    from tests.oracles.ir_measures_data import frames
    from tests.oracles.test_measure_cwl import NAMES, _cwl_eval_values, _irm_values

    per_query, _ = _irm_values(run_rows, qrels_rows)
    in_run = {q for q, _, _ in run_rows}
    irm = {key: v for key, v in per_query.items() if key[0] in in_run}
    with tempfile.TemporaryDirectory() as tmp:
        library = _cwl_eval_values(run_rows, qrels_rows, Path(tmp))
    run, qrels = frames(run_rows, qrels_rows)
    for engine in ENGINES:
        ours = evaluate(run, qrels, NAMES, engine)
        compare(lambda n: family_of(n) + " [ir_measures]", engine,
                f"ir_measures {v('ir-measures')} cwl_eval provider", ours, irm)  # fmt: skip
        compare(lambda n: family_of(n) + " [cwl-eval]", engine, f"cwl-eval {v('cwl-eval')} (library)",
                ours, library)  # fmt: skip


# ------------------------------------------------------------------- the set measures

SET_NAMES = ["SetP", "SetR", "SetF", "SetAP", "SetRelP", "SetP(rel=2)", "SetR(rel=2)",
             "SetF(rel=2,beta=0.5)", "SetAP(rel=3)", "SetRelP(rel=2)"]  # fmt: skip


def _set_by_hand(run_rows: list[tuple], qrels_rows: list[tuple]) -> dict[Key, float]:
    """trec_eval's set_* formulas, over the queries in both the run and the qrels."""
    grade = {(q, it): g for q, it, g in qrels_rows}
    judged_queries = {q for q, _, _ in qrels_rows}
    retrieved: dict[str, list[str]] = defaultdict(list)
    for q, it, _ in run_rows:
        retrieved[q].append(it)
    out: dict[Key, float] = {}
    for name in SET_NAMES:
        m = rk.parse_measure(name)
        rel = m["rel"]
        for q, items in retrieved.items():
            if q not in judged_queries:
                continue
            big_r = sum(1 for (qq, _), g in grade.items() if qq == q and g >= rel)
            found = sum(1 for it in items if grade.get((q, it), -math.inf) >= rel)
            p, r = found / len(items), found / big_r if big_r else 0.0
            family = m.family.name
            if family == "P":
                value = p
            elif family == "R":
                value = r
            elif family == "F1":
                b = m["beta"]
                value = (b + 1) * p * r / (b * p + r) if found else 0.0
            elif family == "SetAP":
                value = found * found / (len(items) * big_r) if big_r else 0.0
            else:  # RelP
                value = found / min(len(items), big_r) if big_r else 0.0
            out[q, name] = value
    return out


def set_measures(run_rows: list[tuple], qrels_rows: list[tuple]) -> None:
    import ir_measures

    from tests.oracles.ir_measures_data import frames

    judged: dict[str, dict[str, int]] = defaultdict(dict)
    for q, it, g in qrels_rows:
        judged[q][it] = int(g)
    scored: dict[str, dict[str, float]] = defaultdict(dict)
    for q, it, s in run_rows:
        scored[q][it] = float(s)
    irm: dict[Key, float] = {}
    names = {ir_measures.parse_measure(n.replace("(rel=2,beta=0.5)", "(rel=2, beta=0.5)")): n
             for n in SET_NAMES}  # fmt: skip
    for q, items in scored.items():
        if q not in judged or max(judged[q].values()) < 0:  # pytrec_eval's quirk: below
            continue
        for found in ir_measures.pytrec_eval.iter_calc(list(names), dict(judged), {q: items}):
            if found.query_id == q:
                irm[q, names[found.measure]] = found.value
    hand = _set_by_hand(run_rows, qrels_rows)
    run, qrels = frames(run_rows, qrels_rows)
    by_family = {"P": "SetP", "R": "SetR", "F1": "SetF", "SetAP": "SetAP", "RelP": "SetRelP"}
    for engine in ENGINES:
        ours = evaluate(run, qrels, SET_NAMES, engine)
        compare(lambda n: by_family[family_of(n)] + " [ir_measures]", engine,
                f"ir_measures {v('ir-measures')} (pytrec_eval {v('pytrec-eval-terrier')})", (ours[0], {}), irm)  # fmt: skip
        compare(lambda n: by_family[family_of(n)] + " [by hand]", engine,
                "trec_eval's set_* formulas by hand", ours, hand)  # fmt: skip
        negative = {key for key in hand if key not in irm}
        for key in negative:
            skip(
                by_family[family_of(key[1])] + " [ir_measures]",
                engine,
                "",
                "query judged only negatively: pytrec_eval reports num_ret = 0 and can crash "
                "(ALL_NEGATIVE_QUIRK, test_oracle_pytrec_eval.py); by hand only",
            )


# ------------------------------------------------------------------ InterpAP (detection)


# issue 18's spelling (the parser reads AP(interp=...) as InterpAP(interp=...))
LABELS = {"InterpAP": "AP(interp=all)", "InterpAP(interp=voc11)": "AP(interp=voc11)",
          "InterpAP(interp=coco101)": "AP(interp=coco101)"}  # fmt: skip


def interp_ap(n: int, start: int) -> None:
    from tests.oracles.test_measure_interp_ap import NAMES, _frames, _pycocotools, _voc, scenes

    runs, qrels, expected = [], [], {}
    for number, scene in enumerate(draws(scenes(), n, start)):
        run, qrel = _frames(scene)
        prefix = pl.lit(f"c{number}:") + pl.col("query")
        runs.append(run.with_columns(prefix.alias("query")))
        qrels.append(qrel.with_columns(prefix.alias("query")))
        expected |= {(f"c{number}:{c}", m): v for (c, m), v in _voc(scene).items()}
        expected |= {(f"c{number}:{c}", "InterpAP(interp=coco101)"): v
                     for c, v in _pycocotools(scene).items()}  # fmt: skip
    oracles = {"InterpAP": "PASCAL VOC devkit voc_ap (area under the envelope)",
               "InterpAP(interp=voc11)": "PASCAL VOC devkit voc_ap (use_07_metric)",
               "InterpAP(interp=coco101)": f"pycocotools {v('pycocotools')} COCOeval (iou 0.5)"}  # fmt: skip
    for engine in ENGINES:
        ours = evaluate(pl.concat(runs), pl.concat(qrels), NAMES, engine, complete=True)
        for name in NAMES:
            part = {key: v for key, v in expected.items() if key[1] == name}
            compare(LABELS.__getitem__, engine, oracles[name], ours, part)


# ------------------------------------------------------------- ties='average', per family

TIES_PROBES = {
    "alpha_nDCG": "alpha_nDCG@5", "alpha_DCG": "alpha_DCG@5", "ERR_IA": "ERR_IA@5",
    "nERR_IA": "nERR_IA@5", "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "AP_IA",
    "P_IA": "P_IA@5", "StRecall": "StRecall@5", "Compat": "Compat", "Accuracy": "Accuracy",
    "INST": "INST", "INSQ": "INSQ", "NERR8": "NERR8@5", "NERR9": "NERR9@5",
    "NERR10": "NERR10", "NERR11": "NERR11", "SDCG": "SDCG@5", "BPM": "BPM@5",
    "SetP": "SetP", "SetR": "SetR", "SetF": "SetF", "SetAP": "SetAP", "SetRelP": "SetRelP",
    "InterpAP": "InterpAP",
}  # fmt: skip


def ties_average() -> dict[str, str]:
    """What ties='average' does for each family: computed, or the refusal's words."""
    run = pl.DataFrame({"query": ["q"] * 3, "item": ["a", "b", "c"], "score": [1.0, 1.0, 0.5]})
    plain = pl.DataFrame({"query": ["q", "q"], "item": ["a", "c"], "relevance": [1, 2]})
    sub = pl.DataFrame({"query": ["q"] * 3, "subtopic": ["1", "2", "1"], "item": ["a", "a", "c"],
                        "relevance": [1, 1, 1]})  # fmt: skip
    out = {}
    for family, name in TIES_PROBES.items():
        qrels = sub if family in ("alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP",
                                  "nNRBP", "AP_IA", "P_IA", "StRecall") else plain  # fmt: skip
        try:
            rk.evaluate(run, qrels, [name], ties="average")
            out[family] = "computed (closed form)"
        except rk.MeasureError as error:
            out[family] = "refused by name: " + str(error).split(" (measures that do")[0]
    return out


# ------------------------------------------------------------------------ the report

SQL_PRODUCTS = """\
| families | SQL products beyond `engine="duckdb"`, held by their own tests |
|---|---|
| the diversity family | `sql.render` PostgreSQL and DuckDB (`tests/sql/test_sql_render_diversity.py`), dbt-duckdb and dbt-postgres (`tests/sql/test_sql_dbt.py::test_dbt_duckdb_diversity`, `::test_dbt_postgres_diversity`: against pyndeval), Spark render and `engine="spark"` (`tests/sql/test_spark_oracle.py::test_diversity_equals_pyndeval_and_polars`); session 16's closing note counted them per measure (5544 values per dbt adapter, 2154 per Spark path, at most 3.9e-16 from pyndeval). BigQuery and Snowflake refuse them by name (`tests/sql/test_sql_render_diversity.py::test_other_dialects_refuse_by_name`): their SQL could not be run here. |
| Compat, Accuracy, C/W/L, set measures, InterpAP | `sql.render` DuckDB (`tests/oracles/test_measure_compat.py`, `test_measure_cwl.py::test_sql_matches_ir_measures`, `test_measure_interp_ap.py`), PostgreSQL and Spark (`tests/sql/test_postgres.py::test_grid_matches_polars`, `tests/sql/test_spark.py::test_grid_matches_polars`: each family with every choice and two values of each numeric parameter, x cutoffs x rel, against the polars engine), dbt-duckdb and dbt-postgres (`tests/sql/test_sql_dbt.py` on `tests/sql/entry_cases.py`'s names, which include each of these families); BigQuery and Snowflake are rendered but never executed |
"""


def _fmt(x: float) -> str:
    return "0" if x == 0 else f"{x:.1e}"


def report(args: argparse.Namespace, ties: dict[str, str]) -> str:
    lines = [
        "# Issue 18: agreement with the oracles, per measure",
        "",
        (
            f"Written by `python -m tests.oracles.agreement --examples {args.examples} --seed "
            f"{args.seed}` (see its docstring for the data and the oracles). Per query values "
            f"and means; 'over 1e-9' counts the values further than {TOLERANCE:g} from the "
            "oracle. The tests in `tests/oracles/` assert the same comparisons."
        ),
        "",
        (
            "| measure | oracle | engine | per-query values | means | max abs diff | over 1e-9 "
            "| skipped (reason) |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    totals: dict[str, int] = defaultdict(int)
    families = list(dict.fromkeys(family for family, _ in RESULTS))
    for family, engine in ((f, e) for f in families for e in ENGINES):
        t = RESULTS[family, engine]
        oracle = t.oracle or next(
            o.oracle for (f, _), o in RESULTS.items() if f == family and o.oracle
        )
        skipped = "; ".join(f"{n}: {reason}" for reason, n in t.skipped.items()) or "-"
        lines.append(f"| {family} | {oracle} | {engine} | {t.compared} | {t.means} | "
                     f"{_fmt(t.max_diff)} | {t.over} | {skipped} |")  # fmt: skip
        totals[engine] += t.compared + t.means
    lines += ["", "Values compared in all: " + ", ".join(f"{e} {n}" for e, n in totals.items()),
              "", "## ties='average'", "", "| family | ties='average' |", "|---|---|"]  # fmt: skip
    lines += [f"| {family} | {what} |" for family, what in ties.items()]
    lines += ["", "## Other SQL products", "", SQL_PRODUCTS]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=40, help="draws of each strategy")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--out", type=Path, help="also write the Markdown here")
    args = parser.parse_args(argv)
    diversity(args.examples, args.seed)
    run_rows, qrels_rows = _ir_cases(args.examples, args.seed)
    compat_and_accuracy(run_rows, qrels_rows)
    cwl(run_rows, qrels_rows)
    set_measures(run_rows, qrels_rows)
    interp_ap(args.examples, args.seed)
    text = report(args, ties_average())
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
