"""The C/W/L measures (INST, INSQ, NERR8-NERR11, SDCG, BPM) against two oracles, per
query and mean, on hypothesis-generated runs and qrels (graded -1..4, tied scores,
unjudged rows, queries on one side only), and by hand:

* ir_measures 0.4.3's ``cwl_eval`` provider (its gain scaling by min_rel / max_rel, its
  max_n = 1000); it orders the run by score, ties in input order, so it gets scores
  n, n-1, .., 1 in our (trec_eval's) order: score descending, then item descending;
* cwl-eval 1.0.12 itself, from files, as its command line reads them (the run in file
  order: cwl-eval ignores the score and rank columns), with our gains written into its
  gain file, through its library (its command line prints 4 decimals; one test runs it).
"""

from __future__ import annotations

import itertools
import math
import os
import statistics
import subprocess
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import ir_measures
import polars as pl
import pytest
from hypothesis import given, settings

import polars_rankeval as rk
from polars_rankeval._errors import MeasureError
from tests.helpers import examples
from tests.oracles.ir_measures_data import (
    BATCH_SETTINGS,
    SETTINGS,
    Rows,
    case_batches,
    cases,
    frames,
    our_values,
)
from tests.oracles.pytrec_data import trec_ranks

NAMES = [
    "INST", "INST(T=2,max_rel=4)", "INST(T=0.3,min_rel=1,max_rel=3)", "INSQ(max_rel=4)",
    "INSQ(T=0.4,max_rel=2)", "NERR8(max_rel=4)@5", "NERR8(max_rel=2)@1", "NERR9(max_rel=4)@5",
    "NERR9(max_rel=3)@3", "NERR10(max_rel=4)", "NERR10(p=0.5,max_rel=2)", "NERR11(max_rel=4)",
    "NERR11(T=2.5,max_rel=3)", "SDCG(max_rel=4)@5", "SDCG(max_rel=2)@20", "BPM(max_rel=4)@5",
    "BPM(T=2,max_rel=3)@10", "BPM(T=0.5)@3",
]  # fmt: skip
# cwl-eval's classes and arguments for our measures (its metrics file's lines)
CWL_CLASSES = {
    "INST": "INSTCWLMetric", "INSQ": "INSQCWLMetric", "NERR8": "NERReq8CWLMetric",
    "NERR9": "NERReq9CWLMetric", "NERR10": "NERReq10CWLMetric", "NERR11": "NERReq11CWLMetric",
    "SDCG": "NDCGCWLMetric", "BPM": "BPMCWLMetric",
}  # fmt: skip


def _irm(name: str) -> ir_measures.Measure:
    """ir_measures requires max_rel: our default is 1."""
    measure = ir_measures.parse_measure(name)
    return measure if "max_rel" in name else measure(max_rel=1)


def _ranked(run: Rows, qrels: Rows) -> dict[str, list[str]]:
    """Each query's items in our order (trec_eval's)."""
    ranked = trec_ranks(frames(run, qrels)[0]).sort("query", "rank")
    out: dict[str, list[str]] = defaultdict(list)
    for q, it in ranked.select("query", "item").iter_rows():
        out[q].append(it)
    return dict(out)


def _irm_values(run: Rows, qrels: Rows) -> tuple[dict, dict]:
    """ir_measures' per-query values {(query, name): value} and means {name: value}."""
    judged: dict[str, dict[str, int]] = defaultdict(dict)
    for q, it, g in qrels:
        judged[q][it] = int(g)
    scored = {q: {it: float(len(items) - i) for i, it in enumerate(items)}
              for q, items in _ranked(run, qrels).items()}  # fmt: skip
    measures = {name: _irm(name) for name in NAMES}
    by_measure = {m: n for n, m in measures.items()}
    per_query, means = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in ir_measures.cwl_eval.iter_calc(list(measures.values()), judged, scored):
            per_query[r.query_id, by_measure[r.measure]] = r.value
        aggregate = ir_measures.cwl_eval.calc_aggregate(list(measures.values()), judged, scored)
    means = {by_measure[m]: v for m, v in aggregate.items()}
    return per_query, means


@settings(SETTINGS, max_examples=examples(25))
@given(case=cases())
def test_cwl_matches_ir_measures(case: tuple[Rows, Rows]) -> None:
    run, qrels = case
    ours = our_values(run, qrels, NAMES, "polars")
    expected, means = _irm_values(run, qrels)
    # ir_measures reports the queries of the run that have qrels, as we do, and 0 for
    # the qrels' queries missing from the run
    in_run = {q for q, _, _ in run}
    assert all(v == 0 for (q, _), v in expected.items() if q not in in_run)
    expected = {key: v for key, v in expected.items() if key[0] in in_run}
    assert set(expected) == set(ours)
    for key, value in expected.items():
        assert ours[key] == pytest.approx(value, abs=1e-9), (key, ours[key], value)
    run_frame, qrels_frame = frames(run, qrels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)
        # ir_measures' mean: over every qrels query, 0 for one missing from the run
        summary = rk.evaluate(run_frame, qrels_frame, NAMES, complete=True)
    for name, value in summary.select("measure", "value").iter_rows():
        assert value == pytest.approx(means[name], abs=1e-9), name


def _cwl_metric(name: str) -> tuple[str, tuple[float, ...], float, float]:
    """(cwl-eval class, its arguments, min_rel, max_rel) for one of our names."""
    m = rk._parse.parse_measure(name)  # type: ignore[attr-defined]
    family = m.family.name
    if family == "BPM":
        args: tuple[float, ...] = (float(m["T"]), m.k)
    elif family in ("INST", "INSQ", "NERR11"):
        args = (float(m["T"]),)
    elif family == "NERR10":
        args = (float(m["p"]),)
    else:  # the cutoff
        args = (m.k,)
    return CWL_CLASSES[family], args, float(m["min_rel"]), float(m["max_rel"])


def _cwl_eval_values(run: Rows, qrels: Rows, tmp: Path) -> dict:
    """cwl-eval's expected utility per (query, name), read from its files as its command
    line does, with its default max_depth 1000."""
    from cwl import cwl_eval
    from cwl.ruler import cwl_ruler

    ranked = _ranked(run, qrels)
    (tmp / "run").write_text("".join(f"{q} _ {it} {i + 1} 0 r\n" for q, items in ranked.items()
                                     for i, it in enumerate(items)))  # fmt: skip
    out: dict[tuple[str, str], float] = {}
    for name in NAMES:
        cls, args, lo, hi = _cwl_metric(name)
        # the gain file: relevance clipped at 0, then to [min_rel, max_rel], scaled
        gains = "".join(f"{q} 0 {it} {(min(max(max(g, 0), lo), hi) - lo) / (hi - lo)!r}\n"
                        for q, it, g in qrels)  # fmt: skip
        (tmp / "gains").write_text(gains)
        handler = cwl_eval.TrecQrelHandler(str(tmp / "gains"))
        # the class its metrics file names (CWLRuler's loader of metrics files imports
        # 'ruler.measures', which only resolves from cwl-eval's own directory)
        metric = getattr(cwl_ruler, cls)(*args)
        judged_queries = {q for q, _, _ in qrels}
        for q, items in ranked.items():
            if q not in judged_queries:
                continue
            maker = cwl_eval.RankingMaker(q, handler, None, max_n=1000)
            for it in items:
                maker.add(it, "_")
            out[q, name] = metric.measure(maker.get_ranking())
    return out


@settings(SETTINGS, max_examples=examples(25))
@given(case=cases())
def test_cwl_matches_cwl_eval(case: tuple[Rows, Rows], tmp_path_factory) -> None:
    run, qrels = case
    ours = our_values(run, qrels, NAMES, "polars")
    expected = _cwl_eval_values(run, qrels, tmp_path_factory.mktemp("cwl"))
    assert set(expected) == set(ours)
    for key, value in expected.items():
        assert ours[key] == pytest.approx(value, abs=1e-9), (key, ours[key], value)


# cwl-eval's own test files (github.com/ireval/cwl, cwl/tests/test_qrel_file and
# test_result_file): gains in 0..1, the same ten items ranked D1..D10 for T1, T2, T3
CWL_GAINS = {
    "T1": {"D1": 1.0, "D2": 0.0, "D3": 1.0, "D4": 1.0, "D7": 1.0, "D8": 0.0, "D9": 1.0,
           "D10": 0.0},
    "T2": {"D1": 0.2, "D2": 0.4, "D5": 1.0, "D6": 0.0, "D7": 0.2, "D8": 1.0, "D9": 0.4,
           "D10": 0.0},
    "T3": {"D4": 0.0, "D5": 0.0, "D6": 0.8, "D7": 0.2, "D8": 0.4, "D9": 0.0, "D10": 1.0},
}  # fmt: skip
# its metrics-file lines, the names it prints, and ours
CWL_LINES = {
    "INSTCWLMetric(1.0)": ("INST-T=1.0", "INST"),
    "INSTCWLMetric(2.0)": ("INST-T=2.0", "INST(T=2)"),
    "INSQCWLMetric(1.0)": ("INSQ-T=1.0", "INSQ"),
    "INSQCWLMetric(2.0)": ("INSQ-T=2.0", "INSQ(T=2)"),
    "NDCGCWLMetric(5)": ("NDCG-k@5", "SDCG@5"),
    "NDCGCWLMetric(10)": ("NDCG-k@10", "SDCG@10"),
    "BPMCWLMetric(1,1000)": ("BPM-Static-T=1-K=1000", "BPM(T=1)@1000"),
    "BPMCWLMetric(1000,10)": ("BPM-Static-T=1000-K=10", "BPM(T=1000)@10"),
    "BPMCWLMetric(1.2,10)": ("BPM-Static-T=1.2-K=10", "BPM(T=1.2)@10"),
    "NERReq8CWLMetric(5)": ("NERR-EQ8@k=5", "NERR8@5"),
    "NERReq9CWLMetric(5)": ("NERR-EQ9@k=5", "NERR9@5"),
    "NERReq10CWLMetric(0.9)": ("NERR-EQ10@phi=0.9", "NERR10"),
    "NERReq11CWLMetric(2.0)": ("NERR-EQ11@T=2.0", "NERR11(T=2)"),
}


def test_cwl_eval_command_line_on_its_test_files(tmp_path: Path) -> None:
    """cwl-eval's own program on its own test files (run as its cwl-eval script does:
    its package's directory on the path, for its metrics-file loader); it prints 4
    decimals.  (Its README's sample output matches none of its shipped files: there
    P@5 = 0.36 for T1, where T1's gains give 0.6.)"""
    import cwl

    env = {**os.environ, "PYTHONPATH": str(Path(cwl.__file__).parent)}
    items = [f"D{i}" for i in range(1, 11)]
    (tmp_path / "run").write_text("".join(f"{t} E1 {it} {i + 1} {10 - i} R1\n"
                                          for t in CWL_GAINS for i, it in enumerate(items)))  # fmt: skip
    (tmp_path / "gains").write_text("".join(f"{t} 00 {it} {g}\n"
                                            for t, gains in CWL_GAINS.items()
                                            for it, g in gains.items()))  # fmt: skip
    (tmp_path / "metrics").write_text("\n".join(CWL_LINES) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "cwl.cwl_eval", "gains", "run", "-m", "metrics"], cwd=tmp_path,
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    printed = {}
    for row in done.stdout.splitlines():
        topic, metric, value, *_ = row.split("\t")
        printed[topic, metric.strip()] = float(value)
    assert len(printed) == 3 * len(CWL_LINES)
    run = pl.DataFrame({"query": [t for t in CWL_GAINS for _ in items], "item": items * 3,
                        "score": [float(10 - i) for i in range(10)] * 3})  # fmt: skip
    qrels = pl.DataFrame([(t, it, g) for t, gains in CWL_GAINS.items() for it, g in gains.items()],
                         schema=["query", "item", "relevance"], orient="row")  # fmt: skip
    ours = {name for _, name in CWL_LINES.values()}
    got = rk.evaluate(run, qrels, sorted(ours), per_query=True)
    values = {(q, m): v for q, m, v in got.iter_rows()}
    for cwl_name, name in CWL_LINES.values():
        for topic in CWL_GAINS:
            assert values[topic, name] == pytest.approx(printed[topic, cwl_name], abs=5e-5), (
                topic, name, values[topic, name], printed[topic, cwl_name])  # fmt: skip


def _one(gains: list[float | None], name: str) -> float:
    """Our value for one query whose run holds items with these relevance grades (None:
    unjudged), in this order."""
    items = [f"d{i}" for i in range(len(gains))]
    run = pl.DataFrame({"query": ["q"] * len(items), "item": items,
                        "score": [float(len(items) - i) for i in range(len(items))]})  # fmt: skip
    judged = [(it, g) for it, g in zip(items, gains, strict=True) if g is not None]
    qrels = pl.DataFrame({"query": ["q"] * len(judged), "item": [it for it, _ in judged],
                          "relevance": [g for _, g in judged]},
                         schema_overrides={"relevance": pl.Float64})  # fmt: skip
    return rk.evaluate(run, qrels, [name])["value"][0]


def test_cwl_by_hand() -> None:
    squares = math.fsum(1.0 / i**2 for i in range(1, 1001))  # sum_{i<=1000} 1 / i^2
    # INST(T=1), one item of gain 1: a_1 = 1 + 2 - 1 = 2, C_1 = (1/2)^2; then G = 1,
    # a_i = i + 1, C_i = (i / (i + 1))^2: prod_{j<i} C_j = 1 / i^2 for every i <= 1000
    assert _one([1], "INST") == pytest.approx(1.0 / squares, abs=1e-12)
    # INSQ(T=1): weights 1 / (i + 1)^2; one gain 1 at position 2
    insq = (1 / 9) / math.fsum(1.0 / (i + 1) ** 2 for i in range(1, 1001))
    assert _one([0, 1], "INSQ") == pytest.approx(insq, abs=1e-12)
    # NERR8@3, gains 0.5 0.5 1 (max_rel=2): S = 1, 0.5, 0.25:
    # (0.5 + 0.25 + 0.25) / (1 + 0.5 + 0.25) = 4/7; an unjudged middle item: S = 1, 0.5,
    # 0.5: (0.5 + 0.5) / 2
    assert _one([1, 1, 2], "NERR8(max_rel=2)@3") == pytest.approx(4 / 7, abs=1e-15)
    assert _one([1, None, 2], "NERR8(max_rel=2)@3") == pytest.approx(0.5, abs=1e-15)
    # NERR9@3, same gains: S_i / i = 1, 0.25, 0.25/3
    nerr9 = (0.5 + 0.5 * 0.25 + 0.25 / 3) / (1 + 0.25 + 0.25 / 3)
    assert _one([1, 1, 2], "NERR9(max_rel=2)@3") == pytest.approx(nerr9, abs=1e-15)
    # NERR10(p=0.5), gain 1 at position 1: the user always stops there
    assert _one([1, 0, 1], "NERR10(p=0.5)") == 1.0
    # SDCG@2, gain 1 at position 2: (1 / log2 3) / (1 + 1 / log2 3)
    assert _one([0, 1], "SDCG@2") == pytest.approx(1 / (math.log2(3) + 1), abs=1e-15)
    # BPM(T=2)@5, gains 1 0 1 1: the goal is reached at 3: 2 / 3; @2 stops first: 1 / 2;
    # negative judgments gain 0
    assert _one([1, -1, 1, 1], "BPM(T=2)@5") == pytest.approx(2 / 3, abs=1e-15)
    assert _one([1, 0, 1, 1], "BPM(T=2)@2") == 0.5


def test_bare_names_run_to_depth_1000() -> None:
    # ir_measures requires a cutoff for NERR8/9, SDCG, BPM; without one we run to
    # cwl-eval's depth (k = 1000): equal to @1000
    for family in ("NERR8", "NERR9", "SDCG", "BPM"):
        assert _one([1, 0, 1], family) == _one([1, 0, 1], f"{family}@1000")


@pytest.mark.parametrize(
    "name, problem",
    [("INST(min_rel=2,max_rel=2)", "min_rel .* must be below max_rel"),
     ("INST(T=0)", "T must be > 0"), ("NERR10(p=1.5)", "p must be <= 1"),
     ("INSQ@5", "cutoff")],
)  # fmt: skip
def test_bad_parameters_are_named(name: str, problem: str) -> None:
    run, qrels = frames([("q", "a", 1.0)], [("q", "a", 1)])
    with pytest.raises(MeasureError, match=problem):
        rk.evaluate(run, qrels, [name])


@pytest.mark.parametrize("name", ["INST", "NERR8@5", "NERR9@5", "NERR10", "NERR11", "BPM@5"])
def test_ties_average_is_refused_by_name(name: str) -> None:
    # products of the gains: no closed form over the orderings of tied rows
    run, qrels = frames([("q", "a", 1.0), ("q", "b", 1.0)], [("q", "a", 1)])
    with pytest.raises(MeasureError, match=rf"{name.replace('(', '[(]')} does not support"):
        rk.evaluate(run, qrels, [name], ties="average")


@pytest.mark.parametrize(
    "scores, grades",
    [([3, 2, 2, 2, 1, 1], {"a": 1, "b": 3, "d": 0, "e": 2}),  # unjudged c, f
     ([1, 1, 1, 1, 1, 1], {"b": 2, "c": 3, "f": 1}),  # one group of every row
     ([5, 4, 4, 4, 4, 0], {"a": -1, "c": 3, "d": 3, "f": 2})],  # a group across k = 3
)  # fmt: skip
def test_ties_average_of_insq_and_sdcg_is_the_mean_over_orderings(
    scores: list[int], grades: dict[str, int]
) -> None:
    """INSQ and SDCG are linear in the gains: ties='average' equals the mean of their
    values over every ordering of the tied rows (enumerated, each as distinct scores)."""
    names = ["INSQ(max_rel=3)", "INSQ(T=0.4,max_rel=2)", "SDCG(max_rel=3)@3", "SDCG@2"]
    items = list("abcdef")
    run = pl.DataFrame({"query": ["q"] * 6, "item": items, "score": [float(s) for s in scores]})
    qrels = pl.DataFrame({"query": ["q"] * len(grades), "item": list(grades),
                          "relevance": list(grades.values())})  # fmt: skip
    got = dict(rk.evaluate(run, qrels, names, ties="average").iter_rows())
    groups = [[it for it, s in zip(items, scores, strict=True) if s == v]
              for v in sorted(set(scores), reverse=True)]  # fmt: skip
    # every ordering as its own `by` group of one query, in one call (one call each
    # took 20 s for the 720 orderings of the all-tied case)
    orderings = list(itertools.product(*(itertools.permutations(g) for g in groups)))
    distinct = pl.DataFrame({
        "ordering": [n for n in range(len(orderings)) for _ in range(6)],
        "query": ["q"] * (6 * len(orderings)),
        "item": [it for orders in orderings for order in orders for it in order],
        "score": [6.0 - i for _ in orderings for i in range(6)],
    })  # fmt: skip
    values: dict[str, list[float]] = defaultdict(list)
    each = rk.evaluate(distinct, qrels, names, by="ordering")
    assert each["ordering"].n_unique() == len(orderings)
    for name, value in each.select("measure", "value").iter_rows():
        values[name].append(value)
    for name in names:
        assert got[name] == pytest.approx(statistics.fmean(values[name]), abs=1e-12), name


SQL_NAMES = [*NAMES,
    "INSQ(T=0.5,min_rel=-0.5)", "SDCG(min_rel=-1,max_rel=0.5)@3", "SDCG(max_rel=3)@1000",
    "NERR8(min_rel=-1,max_rel=2)@3", "NERR10(p=1)", "NERR10(p=0)", "BPM(T=1.5,min_rel=-1)",
    "INST(T=0.5,min_rel=-0.5)",
]  # fmt: skip


# batches of cases stacked into one call per engine (case_batches, ~5.5 cases each): the
# simplest case and one batch by default, where 5 single cases were
@settings(BATCH_SETTINGS, max_examples=examples(7))
@given(case=case_batches())
def test_sql_matches_ir_measures(case: tuple[Rows, Rows]) -> None:
    """Every C/W/L measure has SQL: engine='duckdb' (the SQL entry point
    rankeval_per_query) and the SQL rendered for DuckDB equal ir_measures' provider per
    query (the names it does not have, against the polars engine, which the test above
    holds to ir_measures)."""
    import duckdb

    from polars_rankeval.sql import render

    run, qrels = case
    expected, _ = _irm_values(run, qrels)
    polars = our_values(run, qrels, SQL_NAMES, "polars")
    ours = our_values(run, qrels, SQL_NAMES, "duckdb")
    assert set(ours) == set(polars)
    for key, value in ours.items():
        want = expected.get(key, polars[key])
        assert value == pytest.approx(want, abs=1e-9), (key, value, want)
    run_frame, qrels_frame = frames(run, qrels)
    con = duckdb.connect()
    con.register("run", run_frame.to_arrow())
    con.register("qrels", qrels_frame.to_arrow())
    sql = render(SQL_NAMES, dialect="duckdb", run_table="run", qrels_table="qrels",
                        per_query=True)  # fmt: skip
    rendered = {(q, m): v for q, m, v in con.sql(sql).fetchall()}
    assert set(rendered) == set(ours)
    for key, value in rendered.items():
        assert value == pytest.approx(ours[key], abs=1e-12), key


def test_sql_by_hand() -> None:
    """Gains 1, 0, 0.5 (max_rel=2) at positions 1..3 (c unjudged at 2, d at 4 relevance
    -1: gain 0): SDCG@3 = (1 + 0.5 / 2) / (1 + 1 / log2 3 + 1 / 2);
    INSQ(T=1) = (1 / 2^2 + 0.5 / 4^2) / sum_{i=1..1000} 1 / (i + 1)^2; NERR, BPM and
    INST below."""
    run, qrels = frames([("q", "a", 4.0), ("q", "c", 3.0), ("q", "b", 2.0), ("q", "d", 1.0)],
                        [("q", "a", 2), ("q", "b", 1), ("q", "d", -1)])  # fmt: skip
    sdcg = (1 + 0.5 / 2) / (1 + 1 / math.log2(3) + 1 / 2)
    insq = (1 / 4 + 0.5 / 16) / math.fsum(1 / (i + 1) ** 2 for i in range(1, 1001))
    # max_rel=4: gains 0.5 at 1 and 0.25 at 3; the user stops at a row with
    # probability its gain: S = 1, 0.5, 0.5 at positions 1..3
    nerr8 = (0.5 + 0.5 * 0.25) / (1 + 0.5 + 0.5)
    nerr9 = (0.5 + 0.5 * 0.25 / 3) / (1 + 0.5 / 2 + 0.5 / 3)
    # BPM(T=1)@3, max_rel=2: gain 1 at position 1 reaches T: 1 / 1; T=2: never, 1.5 / 3
    # INST(T=1), max_rel=2: running gain G = 1, 1, 1.5, 1.5, ..; C_i = ((i + 1 - G_i) /
    # (i + 2 - G_i))^2 = 1/4, 4/9, then ((i - 0.5) / (i + 0.5))^2: the weights before
    # normalising are 1, 1/4, and (1/9) (2.5 / (i - 0.5))^2 from i = 3
    inst = (1 + 0.5 / 9) / math.fsum(
        [1, 1 / 4, *((2.5 / (i - 0.5)) ** 2 / 9 for i in range(3, 1001))]
    )
    names = ["SDCG(max_rel=2)@3", "INSQ(max_rel=2)", "NERR8(max_rel=4)@3",
             "NERR9(max_rel=4)@3", "BPM(max_rel=2)@3", "BPM(T=2,max_rel=2)@3",
             "INST(max_rel=2)"]  # fmt: skip
    want = [sdcg, insq, nerr8, nerr9, 1.0, 0.5, inst]
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run, qrels, names, engine=engine)["value"].to_list()
        assert got == pytest.approx(want, abs=1e-12), engine


def test_runs_longer_than_the_depth_are_cut_at_1000() -> None:
    """cwl-eval (max_n = 1000) reads the first 1000 rows: a 1200-row run, gains spread
    over it (some past 1000), against ir_measures' provider."""
    n = 1200
    items = [f"d{i}" for i in range(n)]
    grades = {it: (i * 7) % 5 - 1 for i, it in enumerate(items) if i % 3 == 0 or i > 995}
    run = [("q", it, float(n - i)) for i, it in enumerate(items)]
    qrels = [("q", it, g) for it, g in grades.items()]
    ours = our_values(run, qrels, NAMES, "polars")
    expected, _ = _irm_values(run, qrels)
    for key, value in expected.items():
        assert ours[key] == pytest.approx(value, abs=1e-9), (key, ours[key], value)
    # nothing past position 1000 counts: only d1000.. relevant gives 0
    late = [("q", it, 1) for it in items[1000:]]
    assert _one_frame(run, late, ["INST", "INSQ", "NERR10", "SDCG", "BPM"]) == [0.0] * 5


def _one_frame(run: Rows, qrels: Rows, names: list[str]) -> list[float]:
    run_frame, qrels_frame = frames(run, qrels)
    return rk.evaluate(run_frame, qrels_frame, names)["value"].to_list()
