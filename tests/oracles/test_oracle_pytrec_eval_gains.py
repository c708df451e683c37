"""Oracle test for trec_eval's gain measures ``G``, ``ndcg_rel`` and ``Rndcg`` (our
``G``, ``nDCG_rel``, ``RnDCG``; issue #13) against pytrec_eval (trec_eval's C code).

Same data as ``test_oracle_pytrec_eval.py`` (``pytrec_data``) (its hypothesis strategy, drawn in batches of cases
stacked into one call per engine, ``case_batches``, and pinned cases:
graded levels -1..3, ties broken by item id in byte order, queries without relevant
items, run-only and qrels-only queries, integer ids).  Each name is compared with
pytrec_eval's value per query and for trec_eval's ``all`` line (the mean), through both
engines (polars, DuckDB), to 1e-9; at relevance levels 1 and 2, with ``complete=True``
(trec_eval -c), and cut at 3 (``G@3``...: trec_eval's ``-M 3``, i.e. pytrec_eval on the
run cut to its top 3, ranked here in Python in trec_eval's order).

Also: the other paths of the polars engine (every run row aggregated, with
``duplicates="first"``; no qrels, the run's own labels as the judged set) against
pytrec_eval on the equivalent input, and the one place we differ on purpose (against the
real trec_eval 10.0, as pytrec_eval refuses the level): at a relevance level <= 0 a
query with R > 0 but no positive gain makes trec_eval's Rndcg 0/0 (it prints -nan);
ours is 0.
"""

from __future__ import annotations

import math
import random
import subprocess
import warnings
from typing import Any

import polars as pl
import pytest
from hypothesis import given

import polars_rankeval as rk
from tests.oracles.pytrec_data import BATCH_SETTINGS, SUMMARY_ENGINES, Row, case_batches
from tests.oracles.pytrec_data import frames as _frames
from tests.oracles.pytrec_data import pinned as _pinned
from tests.oracles.pytrec_data import pytrec_dicts as _dicts

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9
TOP = 3
# our name -> (pytrec_eval's measure, run cut at TOP?)
ORACLE: dict[str, tuple[str, bool]] = {
    "G": ("G", False),
    "ndcg_rel": ("ndcg_rel", False),
    "Rndcg": ("Rndcg", False),
    "nDCG_rel": ("ndcg_rel", False),
    "RnDCG": ("Rndcg", False),
    f"G@{TOP}": ("G", True),
    f"nDCG_rel@{TOP}": ("ndcg_rel", True),
    f"RnDCG@{TOP}": ("Rndcg", True),
}
NAMES = list(ORACLE)


def _oracle(
    run_rows: list[Row], qrels_rows: list[Row], *, rel: int = 1, complete: bool = False
) -> tuple[dict[tuple[str, str], float], dict[str, float]]:
    """pytrec_eval's values per (query, our name), and the `all` line (the mean)."""
    per_query: dict[tuple[str, str], float] = {}
    summary: dict[str, float] = {}
    for cut in (False, True):
        qrels, run = _dicts(run_rows, qrels_rows, TOP if cut else None)
        if complete:  # an empty dict makes pytrec_eval score the query (trec_eval -c)
            for q in qrels:
                run.setdefault(q, {})
        measures = {m for m, c in ORACLE.values() if c == cut}
        evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels), measures, relevance_level=rel)
        values = evaluator.evaluate(dict(run))
        for name, (key, c) in ORACLE.items():
            if c != cut:
                continue
            for q, v in values.items():
                per_query[(q, name)] = v[key]
            column = [v[key] for v in values.values()]
            summary[name] = sum(column) / len(column)
    return per_query, summary


def _ours(run: pl.DataFrame, qrels: pl.DataFrame | None, names: list[str], engine: str,
          summary: bool | None = None, **kw):  # fmt: skip
    """Per query and (``summary``; by default through SUMMARY_ENGINES, else None)
    summarised."""
    if summary is None:
        summary = engine in SUMMARY_ENGINES
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rk.RankevalWarning)  # run-only queries
        per_query = rk.evaluate(run, qrels, names, per_query=True, engine=engine, **kw)
        overall = rk.evaluate(run, qrels, names, engine=engine, **kw) if summary else None
    return per_query, overall


def _check(ours: tuple[pl.DataFrame, pl.DataFrame | None], oracle: Any, names: list[str]) -> int:
    """Compare; return the number of values compared."""
    per_query, overall = ours
    expected_per_query, expected_all = oracle
    got = {(str(q), m): v for q, m, v in per_query.select("query", "measure", "value").iter_rows()}
    assert set(got) == {key for key in expected_per_query if key[1] in names}
    for (q, name), value in expected_per_query.items():
        if name in names:
            mine = got[(q, name)]
            assert math.isclose(mine, value, rel_tol=0, abs_tol=TOL), (q, name, mine, value)
    if overall is None:
        return len(got)
    summary = dict(overall.select("measure", "value").iter_rows())
    assert list(summary) == names
    for name in names:
        value = expected_all[name]
        assert math.isclose(summary[name], value, rel_tol=0, abs_tol=TOL), (name, value)
    return len(got) + len(summary)


def _both_engines(case, **options: Any) -> int:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = _frames(id_dtype, run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows, **options)
    return sum(
        _check(_ours(run, qrels, NAMES, engine, **options), expected, NAMES)
        for engine in ("polars", "duckdb")
    )


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval(case) -> None:
    _both_engines(case)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_rel2(case) -> None:
    _both_engines(case, rel=2)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_matches_pytrec_eval_complete(case) -> None:
    _both_engines(case, complete=True)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_every_row_path(case) -> None:
    """duplicates="first" makes the polars engine aggregate every run row (unjudged ones
    too) instead of the judged ones only; with no repeated rows the numbers are the same."""
    id_dtype, run_rows, qrels_rows = case
    run, qrels = _frames(id_dtype, run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows)
    for engine in ("polars", "duckdb"):
        _check(_ours(run, qrels, NAMES, engine, duplicates="first"), expected, NAMES)


@_pinned
@BATCH_SETTINGS
@given(case_batches())
def test_without_qrels(case) -> None:
    """No qrels: the run's own labels are the judged set (every retrieved item judged),
    i.e. pytrec_eval with qrels made of the run's rows and their labels."""
    id_dtype, run_rows, qrels_rows = case
    judged = {(q, it): r for q, it, r in qrels_rows}
    labelled = [(q, it, max(judged.get((q, it), 0), 0)) for q, it, _ in run_rows]
    run, _ = _frames(id_dtype, run_rows, qrels_rows)
    run = run.with_columns(relevant=pl.Series([r for _, _, r in labelled], dtype=pl.Int64))
    queries = {q for q, _, r in labelled}
    expected = _oracle(run_rows, labelled)
    names = [n for n in NAMES if "@" not in n]  # the run cut: the judged set changes too
    for engine in ("polars", "duckdb"):
        per_query, overall = _ours(run, None, names, engine)
        assert {str(q) for q in per_query["query"]} == {str(q) for q in queries}
        _check((per_query, overall), expected, names)


def test_rel_zero_nan_is_zero(tmp_path) -> None:
    """At rel=0 (trec_eval -l 0; pytrec_eval refuses it), a query judged only 0 has R = 1
    but no positive gain: trec_eval's Rndcg averages over no points and prints -nan (the
    `all` line too); ours is 0.  Every other value equals the real trec_eval 10.0's."""
    from tests.cli._trec_eval import BuildUnavailable, trec_eval_binary

    try:
        binary = trec_eval_binary()
    except BuildUnavailable as reason:
        pytest.skip(str(reason))
    (tmp_path / "qrels").write_text("q1 0 a 0\nq2 0 c 2\nq2 0 d 1\n")
    (tmp_path / "run").write_text(
        "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\nq2 Q0 a 1 2.0 t\nq2 Q0 c 2 1.0 t\n"
    )
    names = ["G", "ndcg_rel", "Rndcg"]
    printed = subprocess.run(
        [str(binary), "-q", "-l", "0", *(f"-m{n}" for n in names),
         str(tmp_path / "qrels"), str(tmp_path / "run")],
        check=True, capture_output=True, text=True,
    ).stdout
    expected = {}
    for line in printed.splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        expected[(query, name)] = float(value)
    assert math.isnan(expected[("q1", "Rndcg")]) and math.isnan(expected[("all", "Rndcg")])
    run = rk.read_trec_run(tmp_path / "run").collect()
    qrels = rk.read_trec_qrels(tmp_path / "qrels").collect()
    for engine in ("polars", "duckdb"):
        per_query, overall = _ours(run, qrels, names, engine, summary=True, rel=0)
        assert overall is not None
        got = {(q, m): v for q, m, v in per_query.select("query", "measure", "value").iter_rows()}
        got |= {("all", m): v for m, v in overall.select("measure", "value").iter_rows()}
        assert got[("q1", "Rndcg")] == 0.0
        assert got[("all", "Rndcg")] == pytest.approx(got[("q2", "Rndcg")] / 2, abs=1e-15)
        for key, value in expected.items():
            if not math.isnan(value):  # printed with 4 decimals
                assert abs(got[key] - value) <= 5e-5, (engine, key, got[key], value)


def test_hand_computed() -> None:
    """One query, run a b c d e (scores 5..1), qrels b:2 c:1 z:1 a:-1 (z not retrieved):
    run gains 0 2 1 0 0; ideal gains 2 1 1 (Npos 3); log2(3) = 1.5849625.
    G: cost C(2) = 3, C(3) = 4; gain so far 2, 3: b 2/log2(3), c 1/log2(3); / (2+1+1)
       = 3/log2(3)/4 = 0.4731973;
    DCG(2) = 2/log2(3) = 1.2618595, DCG(3) = DCG(n) = 1.7618595; IDCG(2) = 2 + 1/log2(3)
       = 2.6309298, IDCG(3) = 3.1309298;
    nDCG_rel = (1.2618595/2.6309298 + 2 * 1.7618595/3.1309298) / 3 = 0.5350265;
    RnDCG: level ends 1 (2 -> 1) and 3 (1 -> 0): DCG(1)/IDCG(1) = 0, 1.7618595/3.1309298;
       n = 5 >= Npos + 2: + DCG(5)/IDCG(3) = 0.5627284; (0 + 2 * 0.5627284) / 3 = 0.3751523;
    RnDCG@3 (n = 3): (0 + 0.5627284) / 2 = 0.2813642."""
    run = pl.DataFrame({"query": ["q"] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1]})
    qrels = pl.DataFrame({"query": ["q"] * 4, "item": list("bcza"), "relevance": [2, 1, 1, -1]})
    names = ["G", "nDCG_rel", "RnDCG", "RnDCG@3"]
    want = [0.4731973, 0.5350265, 0.3751523, 0.2813642]
    for engine in ("polars", "duckdb"):
        got = rk.evaluate(run, qrels, names, engine=engine)["value"].to_list()
        assert got == pytest.approx(want, abs=2e-6), engine


@pytest.mark.parametrize("duplicates", ["error", "first"])
def test_bit_identical_under_row_order(duplicates: str) -> None:
    """Issue #13's determinism: any input row order gives the same bits, on the judged-rows
    path (default) and the every-row path (duplicates="first")."""
    rng = random.Random(7)
    run_rows = [
        (f"q{q}", f"d{i}", float(rng.randint(0, 5)))
        for q in range(20) for i in rng.sample(range(40), rng.randint(1, 30))
    ]
    qrels_rows = [
        (f"q{q}", f"d{i}", rng.choice([-1, 0, 1, 1, 2, 3, 4]))
        for q in range(20) for i in rng.sample(range(40), rng.randint(1, 25))
    ]
    qrels = pl.DataFrame(qrels_rows, schema=["query", "item", "relevance"], orient="row")
    names = ["G", "nDCG_rel", "RnDCG", "G@10", "nDCG_rel@10", "RnDCG@10"]
    seen = set()
    for _ in range(4):
        rng.shuffle(run_rows)
        run = pl.DataFrame(run_rows, schema=["query", "item", "score"], orient="row")
        values = rk.evaluate(run, qrels, names, per_query=True, duplicates=duplicates)
        seen.add(tuple(values.sort("query", "measure")["value"].to_list()))
    assert len(seen) == 1
