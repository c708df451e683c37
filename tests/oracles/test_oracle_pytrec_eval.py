"""Oracle test: hypothesis-generated runs and qrels checked against pytrec_eval.

pytrec_eval (pytrec_eval-terrier) bundles trec_eval 9.x, so its per-query values are
the reference for every trec_eval name we accept, and the mean of its per-query values
(the sum for the count measures) is what trec_eval prints as ``all``.

The data is built to hit the places where implementations disagree:

* scores drawn from {-0.0, 0.0, 0.5, 1.0, 2.0}, so ties are frequent and the tie rule
  (score descending, then item id descending in byte order) decides the ranking;
  -0.0 and 0.0 tie, as C's double comparison says;
* item and query ids whose byte order differs from any "natural" order: mixed case
  (``"B" < "a"``), digits (``"10" < "9"``), punctuation ``- _ . #``; and integer ids
  (also negative), which trec_eval (and we) order by their decimal text, not their
  value; the run's ids come as String/Categorical or Int64/Int32/Int16 against
  String/Int64 qrels;
* graded judgments 0..3 plus -1 ("in the pool but unjudged": never relevant, not
  counted as judged non-relevant by bpref);
* queries whose judgments hold no relevant item, queries only in the run (ignored, with
  a RankevalWarning), queries only in the qrels (ignored unless ``complete=True``).

pytrec_eval quirks, checked by hand with pytrec_eval-terrier 0.5.11 and handled here:

* ids must be ``str`` (qrels ``{qid: {docid: int}}``, run ``{qid: {docid: float}}``), so
  integer ids are passed as their decimal text.
* A query whose run dict is *empty* (``run[q] == {}``) is NOT dropped: pytrec_eval
  evaluates it like trec_eval ``-c`` does (every measure 0, ``num_rel`` = R).  A query
  that is absent from the run dict is skipped.  So the default comparison passes only
  the queries that have run rows, and the ``complete=True`` comparison adds an empty
  dict for every qrels-only query.
* Queries in the run but not in the qrels are silently skipped (we warn).
* ALL_NEGATIVE_QUIRK: a qrels query whose judgments are all negative (e.g. only -1)
  makes pytrec_eval 0.5.11 report ``num_ret = 0`` for it and, with this file's full
  measure set, crash with a segmentation fault (reproduced outside the tests:
  ``RelevanceEvaluator({"0": {"0": -1}}, PYTREC_MEASURES).evaluate({"0": {"0": 0.0}})``).
  trec_eval itself has no defined answer there (form_res_rels.c takes the query's
  max level, -1, and allocates max + 1 = 0 rel_levels: it reads a NULL or freed buffer,
  ``tests.helpers.pytrec_judged_safely`` says how).  So every generated qrels query has
  at least one judgment >= 0; -1 judgments still occur beside them.
* ``relevance_level=2`` is trec_eval's ``-l2``; like trec_eval, ndcg gains stay the raw
  judgment values at any level.
"""

from __future__ import annotations

import math
import warnings

import polars as pl
import pytest
from hypothesis import given

import polars_rankeval as rk
from tests.helpers import pytrec_qrels, pytrec_run
from tests.oracles.pytrec_data import SETTINGS, Row, cases, frames, pinned
from tests.oracles.pytrec_data import trec_ranks as _trec_ranks

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 2, 3, 5, 10)

# our name (trec_eval name) -> pytrec_eval's key in its output
OUR_NAMES: list[str] = [
    "map",
    *[f"map_cut_{k}" for k in CUTOFFS],
    *[f"P_{k}" for k in CUTOFFS],
    *[f"recall_{k}" for k in CUTOFFS],
    "ndcg",
    *[f"ndcg_cut_{k}" for k in CUTOFFS],
    "recip_rank",
    "Rprec",
    "bpref",
    *[f"success_{k}" for k in CUTOFFS],
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
]
_KS = ",".join(str(k) for k in CUTOFFS)
PYTREC_MEASURES = {
    "map",
    f"map_cut.{_KS}",
    f"P.{_KS}",
    f"recall.{_KS}",
    "ndcg",
    f"ndcg_cut.{_KS}",
    "recip_rank",
    "Rprec",
    "bpref",
    f"success.{_KS}",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "set_P",
    "set_recall",
}
SUMS = {"num_ret", "num_rel", "num_rel_ret"}
TOL = 1e-9


def _oracle(
    run_rows: list[Row], qrels_rows: list[Row], *, rel: int = 1, complete: bool = False
) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """pytrec_eval per-query values and the trec_eval ``all`` line (means; sums for counts)."""
    qrels = pytrec_qrels(qrels_rows)
    run = pytrec_run(run_rows)
    if complete:  # an empty dict makes pytrec_eval score the query 0 (trec_eval -c)
        for q in qrels:
            run.setdefault(q, {})
    evaluator = pytrec_eval.RelevanceEvaluator(dict(qrels), PYTREC_MEASURES, relevance_level=rel)
    per_query = evaluator.evaluate(dict(run))
    summary = {}
    for name in OUR_NAMES:
        values = [v[name] for v in per_query.values()]
        summary[name] = sum(values) if name in SUMS else sum(values) / len(values)
    return per_query, summary


def _check(
    ours: tuple[pl.DataFrame, pl.DataFrame],
    oracle: tuple[dict[str, dict[str, float]], dict[str, float]],
) -> None:
    """Our (per-query, overall) frames against pytrec_eval's (per-query, `all`)."""
    got_per_query, got_all = ours
    expected_per_query, expected_all = oracle
    got = {
        (str(q), m): v for q, m, v in got_per_query.select("query", "measure", "value").iter_rows()
    }
    expected = {(q, m): v[m] for q, v in expected_per_query.items() for m in OUR_NAMES}
    assert set(got) == set(expected), (
        f"queries differ: ours {sorted({q for q, _ in got})}, "
        f"pytrec_eval {sorted(expected_per_query)}"
    )
    for key, value in expected.items():
        assert math.isclose(got[key], value, rel_tol=0, abs_tol=TOL), (key, got[key], value)
    summary = dict(got_all.select("measure", "value").iter_rows())
    assert list(summary) == OUR_NAMES
    for name, value in expected_all.items():
        assert math.isclose(summary[name], value, rel_tol=0, abs_tol=TOL), (
            name,
            summary[name],
            value,
        )


def _has_run_only(run_rows: list[Row], qrels_rows: list[Row]) -> bool:
    return bool({q for q, _, _ in run_rows} - {q for q, _, _ in qrels_rows})


def _evaluate_checked(run, qrels, run_only: bool, *, lazy: bool = False, **kwargs):
    """Evaluate per query and overall; expect a RankevalWarning iff some run queries
    are not in the qrels (they are ignored, with complete=True too, as in trec_eval)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if lazy:
            per_query = rk.evaluate(
                run.lazy(), qrels.lazy(), OUR_NAMES, per_query=True, **kwargs
            ).collect(engine="streaming")
            overall = rk.evaluate(run.lazy(), qrels.lazy(), OUR_NAMES, **kwargs).collect(
                engine="streaming"
            )
        else:
            per_query = rk.evaluate(run, qrels, OUR_NAMES, per_query=True, **kwargs)
            overall = rk.evaluate(run, qrels, OUR_NAMES, **kwargs)
    ours = [w for w in caught if issubclass(w.category, rk.RankevalWarning)]
    others = [w for w in caught if not issubclass(w.category, rk.RankevalWarning)]
    assert not others, [str(w.message) for w in others]
    if run_only:
        assert ours, "expected a RankevalWarning for run queries missing from the qrels"
        assert all("not in the qrels" in str(w.message) for w in ours)
    else:
        assert not ours, [str(w.message) for w in ours]
    return per_query, overall





@pinned
@SETTINGS
@given(cases())
def test_matches_pytrec_eval(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    run_only = _has_run_only(run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows)
    _check(_evaluate_checked(run, qrels, run_only), expected)


@pinned
@SETTINGS
@given(cases())
def test_matches_pytrec_eval_rel2(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    run_only = _has_run_only(run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows, rel=2)
    _check(_evaluate_checked(run, qrels, run_only, rel=2), expected)


@pinned
@SETTINGS
@given(cases())
def test_matches_pytrec_eval_complete(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    run_only = _has_run_only(run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows, complete=True)
    _check(_evaluate_checked(run, qrels, run_only, complete=True), expected)


@pinned
@SETTINGS
@given(cases())
def test_matches_pytrec_eval_lazy_streaming(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    run_only = _has_run_only(run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows)
    _check(_evaluate_checked(run, qrels, run_only, lazy=True), expected)


@pinned
@SETTINGS
@given(cases())
def test_matches_pytrec_eval_rank_column(case) -> None:
    id_dtype, run_rows, qrels_rows = case
    run, qrels = frames(id_dtype, run_rows, qrels_rows)
    ranked = _trec_ranks(run)
    run_only = _has_run_only(run_rows, qrels_rows)
    expected = _oracle(run_rows, qrels_rows)
    _check(_evaluate_checked(ranked, qrels, run_only, score=None), expected)
    # the rank column is also used when the run simply has no score column
    _check(_evaluate_checked(ranked, qrels, run_only), expected)


def test_pytrec_eval_quirks_documented_above() -> None:
    """Pin the pytrec_eval behaviours the helpers above rely on."""
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "num_rel"})
    # q2 absent from the run: skipped; q3 only in the run: skipped
    assert set(evaluator.evaluate({"q1": {"a": 1.0}, "q3": {"a": 1.0}})) == {"q1"}
    # q2 with an empty run dict: evaluated, scoring 0 with num_rel = R (trec_eval -c)
    result = evaluator.evaluate({"q1": {"a": 1.0}, "q2": {}})
    assert result["q2"] == {"map": 0.0, "num_rel": 1.0}
