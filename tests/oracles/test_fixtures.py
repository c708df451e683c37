"""Other tools' published test values, reproduced under the matching preset/parameters.

The fixtures are the JSON files in ``<repo>/../shared/conformance/`` (copied verbatim or
extracted mechanically from each project's tests and docstrings; see the README there).
Every case either runs, or is skipped with a reason saying what we do not implement;
each family of cases counts what it ran, so nothing can silently match nothing.
"""

from __future__ import annotations

import json
import math
import warnings
from functools import cache
from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.helpers import CONFORMANCE
from tests.helpers import per_query as _per_query
from tests.helpers import qrels_frame as _qrels
from tests.helpers import ranked_run as _ranked
from tests.helpers import values as _values

pytestmark = pytest.mark.skipif(
    not CONFORMANCE.is_dir(),
    reason=f"conformance fixtures not found at {CONFORMANCE} (clone shared/ beside the repo)",
)


@cache
def _load(name: str) -> dict[str, Any]:
    path = CONFORMANCE / name
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def _implemented(name: str) -> bool:
    """Whether a measure name parses (some families are still being written)."""
    try:
        rk.parse_measure(name)
    except rk.MeasureError:
        return False
    return True


# ======================================================================================
# ml_metrics (Kaggle): apk / mapk -> AP@k with conventions="kaggle" (norm = min(R, k)).
# ml_metrics never counts a repeated prediction twice, but the repeat still occupies its
# rank: that is duplicates="first" (the best-ranked row is kept, positions keep gaps).
# ======================================================================================

ML = _load("ml_metrics_apk.json")


def _kaggle_map(actual: list[list[int]], predicted: list[list[int]], k: int) -> float:
    run = _ranked({i: p for i, p in enumerate(predicted)})
    qrels = _qrels({i: {item: 1 for item in set(a)} for i, a in enumerate(actual)})
    has_duplicates = any(len(set(p)) != len(p) for p in predicted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = rk.evaluate(
            run, qrels, [f"AP@{k}"], conventions="kaggle", duplicates="first", score=None
        )
    dropped = [w for w in caught if "duplicate" in str(w.message)]
    assert bool(dropped) == has_duplicates, [str(w.message) for w in caught]
    return _values(got)[f"AP@{k}"]


@pytest.mark.parametrize("case", ML.get("apk_cases", []), ids=lambda c: f"k{c['k']}")
def test_ml_metrics_apk(case: dict[str, Any]) -> None:
    got = _kaggle_map([case["actual"]], [case["predicted"]], case["k"])
    assert got == pytest.approx(case["expected"], abs=1e-12)


@pytest.mark.parametrize("case", ML.get("mapk_cases", []), ids=lambda c: f"k{c['k']}")
def test_ml_metrics_mapk(case: dict[str, Any]) -> None:
    got = _kaggle_map(case["actual"], case["predicted"], case["k"])
    # "0.685185185185185" is printed to 15 digits in the source
    assert got == pytest.approx(case["expected"], abs=1e-12)


def test_ml_metrics_case_count() -> None:
    if not ML:
        pytest.skip("ml_metrics_apk.json not found")
    assert (len(ML["apk_cases"]), len(ML["mapk_cases"])) == (7, 5)


# ======================================================================================
# Spark RankingMetrics: every query counts in the mean, also one with no labels.
#   precisionAt(k) -> P@k;  recallAt(k) -> R@k;  meanAveragePrecision -> AP;
#   meanAveragePrecisionAt(k) -> AP@k (spark: norm=min);  ndcgAt(k) -> nDCG@k (spark:
#   gain=exp; binary labels gain 1).  In the graded test, P/R/AP use label membership
#   (a label with relevance 0.0 still counts as relevant for them) and nDCG the grades.
# ======================================================================================

SPARK = _load("spark_ranking_metrics.json")
SPARK_NAMES = {
    "precisionAt": "P@{}",
    "recallAt": "R@{}",
    "meanAveragePrecisionAt": "AP@{}",
    "ndcgAt": "nDCG@{}",
}


def _spark_expectations(case: dict[str, Any]) -> list[tuple[str, float]]:
    out = []
    for metric, entry in case["expected"].items():
        if metric == "meanAveragePrecision":
            out.append(("AP", entry["value"]))
        else:
            out += [(SPARK_NAMES[metric].format(k), e["value"]) for k, e in entry.items()]
    return out


def _spark_case(index: int) -> dict[str, Any]:
    if not SPARK:
        pytest.skip("spark_ranking_metrics.json not found")
    return SPARK["cases"][index]


@pytest.mark.parametrize("index", [0, 1])
def test_spark_no_qrels(index: int) -> None:
    """Tests 1 and 2: every label is among the predictions, so the run's own labels
    give R; the third query has no labels: all-zero labels score 0 and count."""
    case = _spark_case(index)
    queries = dict(enumerate(case["queries"]))
    predictions = {q: v["prediction"] for q, v in queries.items()}
    assert all(set(v["labels"]) <= set(v["prediction"]) for v in queries.values())
    member = {q: [int(i in v["labels"]) for i in v["prediction"]] for q, v in queries.items()}
    grade = {
        q: [dict(zip(v["labels"], v.get("relevance") or [1.0] * len(v["labels"]))).get(i, 0.0)
            for i in v["prediction"]]
        for q, v in queries.items()
    }  # fmt: skip
    binary_run = _ranked(predictions, relevant=member)
    graded_run = _ranked(predictions, relevant=grade)
    expectations = _spark_expectations(case)
    tolerance = case["abs_tolerance"]
    checked = 0
    for name, value in expectations:
        run = graded_run if name.startswith("nDCG") else binary_run
        got = _values(rk.evaluate(run, None, [name], conventions="spark", score=None))[name]
        assert got == pytest.approx(value, abs=tolerance), (name, got, value)
        checked += 1
    assert checked == 22  # P@1,2,3,4,5,10,15; R@ the same 7; AP; AP@1,2,3; nDCG@3,5,10,15


def test_spark_empty_label_query_through_qrels() -> None:
    """Test 1 again, with qrels: the label-less query counts once the qrels hold it
    with only non-relevant judgments (R = 0 scores 0, as in Spark)."""
    case = _spark_case(0)
    queries = dict(enumerate(case["queries"]))
    run = _ranked({q: v["prediction"] for q, v in queries.items()})
    judgments = {q: {i: 1 for i in v["labels"]} for q, v in queries.items()}
    judgments[2] = {1: 0}  # query 2 has no labels: one non-relevant judgment
    qrels = _qrels(judgments)
    checked = 0
    for name, value in _spark_expectations(case):
        got = _values(rk.evaluate(run, qrels, [name], conventions="spark", score=None))[name]
        assert got == pytest.approx(value, abs=case["abs_tolerance"]), (name, got, value)
        checked += 1
    assert checked == 22  # P@1,2,3,4,5,10,15; R@ the same 7; AP; AP@1,2,3; nDCG@3,5,10,15


def test_spark_few_predictions_complete() -> None:
    """SPARK-14886: the second query has no predictions at all, so it lives only in the
    qrels and scores 0 with complete=True (trec_eval -c)."""
    case = _spark_case(2)
    queries = dict(enumerate(case["queries"]))
    run = _ranked({q: v["prediction"] for q, v in queries.items() if v["prediction"]})
    qrels = _qrels({q: {i: 1 for i in v["labels"]} for q, v in queries.items()})
    checked = 0
    for name, value in _spark_expectations(case):
        got = _values(
            rk.evaluate(run, qrels, [name], conventions="spark", score=None, complete=True)
        )[name]
        assert got == pytest.approx(value, abs=case["abs_tolerance"]), (name, got, value)
        checked += 1
    assert checked == 6


# ======================================================================================
# torchmetrics retrieval docstrings, conventions="torchmetrics" (AP norm=hits).
# preds are scores (descending), target the per-row label: the no-qrels form.
# ======================================================================================

TORCH = _load("torchmetrics_retrieval_docstrings.json")
TORCH_NAMES = {
    "retrieval_average_precision": "AP",
    "RetrievalMAP": "AP",
    "retrieval_normalized_dcg": "nDCG",
    "RetrievalNormalizedDCG": "nDCG",
    "retrieval_precision": "P",
    "RetrievalPrecision": "P",
    "retrieval_recall": "R",
    "RetrievalRecall": "R",
    "retrieval_reciprocal_rank": "RR",
    "RetrievalMRR": "RR",
    "retrieval_r_precision": "Rprec",
    "RetrievalRPrecision": "Rprec",
    "retrieval_hit_rate": "Success",
    "RetrievalHitRate": "Success",
}
# torchmetrics zeroes the target where preds <= 0 for these (not for the others)
TORCH_SCORE_QUIRK = {"AP", "P", "R", "RR"}


def _torch_cases() -> list[Any]:
    out = []
    for case in TORCH.get("functional_cases", []):
        out.append(pytest.param(case, id=case["function"]))
    for case in TORCH.get("modular_cases", []):
        out.append(pytest.param(case, id=case["class"]))
    return out


@pytest.mark.parametrize("case", _torch_cases())
def test_torchmetrics(case: dict[str, Any]) -> None:
    kind = case.get("function") or case["class"]
    if kind not in TORCH_NAMES:
        pytest.skip(f"{kind}: no such measure here (fall-out is not implemented)")
    family = TORCH_NAMES[kind]
    preds, target = case["preds"], case["target"]
    indexes = case.get("indexes") or [0] * len(preds)
    if family in TORCH_SCORE_QUIRK and min(preds) <= 0:
        pytest.skip("torchmetrics zeroes targets whose pred <= 0: no such rule here")
    # torchmetrics averages nDCG over tied preds (its other measures sort them)
    ties = "average" if family == "nDCG" else "trec_eval"
    k = case["kwargs"].get("top_k")
    assert set(case["kwargs"]) <= {"top_k"}, case["kwargs"]
    name = family if k is None else f"{family}@{k}"
    run = pl.DataFrame(
        {
            "query": indexes,
            "item": list(range(len(preds))),
            "score": [float(p) for p in preds],
            "relevant": [int(t) for t in target],
        }
    )
    got = _values(rk.evaluate(run, None, [name], conventions="torchmetrics", ties=ties))[name]
    # the docstring prints 4 decimals
    assert got == pytest.approx(case["expected"], abs=5e-5), (name, got)


def test_torchmetrics_case_count() -> None:
    if not TORCH:
        pytest.skip("torchmetrics_retrieval_docstrings.json not found")
    runnable = [
        c for c in TORCH["functional_cases"] + TORCH["modular_cases"]
        if (c.get("function") or c["class"]) in TORCH_NAMES
    ]  # fmt: skip
    assert (len(runnable), len(TORCH["functional_cases"]) + len(TORCH["modular_cases"])) == (14, 15)


# ======================================================================================
# ranx unit tests
# ======================================================================================

RANX = _load("ranx_metrics_tests.json")
RANX_NAMES = {  # ranx low-level function -> our measure ({} = k)
    "ranx.metrics.hits": "NumRelRet@{}",
    "ranx.metrics.hit_rate": "Success@{}",
    "ranx.metrics.reciprocal_rank": "RR@{}",
    "ranx.metrics.r_precision": "Rprec",
    "ranx.metrics.recall": "R@{}",
    "ranx.metrics.ndcg": "nDCG@{}",
    "ranx.metrics.ndcg_burges": "nDCG(gain=exp)@{}",
}


def _ranx_cases() -> list[Any]:
    return [pytest.param(case, id=f"{case['test']}") for case in RANX.get("metrics_test_cases", [])]


@pytest.mark.parametrize("case", _ranx_cases())
def test_ranx_metrics(case: dict[str, Any]) -> None:
    function = case["function"]
    if function not in RANX_NAMES:
        pytest.skip(f"{function}: unnormalised DCG is not a measure here (only nDCG)")
    name = RANX_NAMES[function].format(case["k"])
    judgments: dict[int, dict[int, float]] = {}
    for q, truth in enumerate(case["y_true"]):
        # binary cases list relevant ids (test_hit_rate repeats one: a set); graded
        # cases list [id, relevance] pairs
        judgments[q] = (
            {t[0]: t[1] for t in truth}
            if truth and isinstance(truth[0], list)
            else {t: 1 for t in truth}
        )
    run = _ranked(dict(enumerate(case["y_pred"])))
    with warnings.catch_warnings(record=True):
        # a repeated prediction: the first occurrence decides (ranx), later ones dropped
        warnings.simplefilter("always")
        got = _per_query(
            rk.evaluate(run, _qrels(judgments), [name], per_query=True, score=None,
                        duplicates="first")
        )  # fmt: skip
    values = [got[(q, name)] for q in range(len(case["y_pred"]))]
    # "query 0" cases have one query; "mean over queries" ones: the plain mean (also of
    # the hits counts, whose overall value we report as a sum)
    value = values[0] if case["aggregate"] == "query 0" else sum(values) / len(values)
    assert value == pytest.approx(case["expected"], abs=1e-12), (name, values)


def test_ranx_bpref() -> None:
    if not RANX:
        pytest.skip("ranx_metrics_tests.json not found")
    case = RANX["bpref_case"]
    run = pl.DataFrame(
        [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()],
        schema=["query", "item", "score"],
        orient="row",
    )
    got = _per_query(rk.evaluate(run, _qrels(case["qrels"]), ["bpref"], per_query=True))
    expected = {(e["query_id"], "bpref"): e["expected"] for e in case["expected_per_query"]}
    assert got == pytest.approx(expected, abs=1e-12)
    assert len(expected) == 4


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
def test_ranx_rbp(p: float) -> None:
    if not RANX:
        pytest.skip("ranx_metrics_tests.json not found")
    name = f"RBP(p={p})"
    case = RANX["rbp_case"]
    run = pl.DataFrame(
        [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()],
        schema=["query", "item", "score"],
        orient="row",
    )
    got = _values(rk.evaluate(run, _qrels(case["qrels"]), [name]))[name]
    expected = next(e for e in case["expected"] if e["p"] == p)
    assert got == pytest.approx(expected["expected_rounded_4"], abs=5e-5)


@pytest.mark.parametrize("measure", ["P", "R", "F1"])
def test_ranx_zero_division(measure: str) -> None:
    """q_3 has an empty ranking and still counts (as 0) in the mean over the qrels
    queries: complete=True.  ranx k=0 means the whole ranking: no cutoff."""
    if not RANX:
        pytest.skip("ranx_metrics_tests.json not found")
    if not _implemented(measure):
        pytest.skip(f"{measure} is not implemented yet")
    case = RANX["zero_division_case"]
    run = pl.DataFrame(
        [(q, d, float(s)) for q, docs in case["run"].items() for d, s in docs.items()],
        schema=["query", "item", "score"],
        orient="row",
    )
    got = _values(rk.evaluate(run, _qrels(case["qrels"]), [measure], complete=True))
    assert got[measure] == pytest.approx(case["expected_mean_over_queries"], abs=1e-12)


# ======================================================================================
# ir_measures' pytrec_eval-provider tests (trec_eval conventions)
# ======================================================================================

IRM = _load("ir_measures_pytrec_eval_tests.json")
ALL = "all (calc_aggregate)"
# ir_measures name -> ours; None = not implemented here (the reason is the value below)
IRM_NAMES: dict[str, str] = {
    "NumRet": "NumRet",
    "NumRet(rel=1)": "NumRelRet(rel=1)",  # ir_measures NumRet(rel=r) = num_rel_ret at -l r
    "NumRet(rel=2)": "NumRelRet(rel=2)",
    "NumRet(rel=3)": "NumRelRet(rel=3)",
    "NumRel": "NumRel",
    "Success@2": "Success@2",
    "Success(rel=2)@2": "Success(rel=2)@2",
    "Success(rel=3)@2": "Success(rel=3)@2",
    # the set measures under ir_measures' own names (aliases: SetP = P, SetR = R,
    # SetRelP = RelP, SetF = F1 without a cutoff; SetAP is ours too)
    "SetP(rel=1)": "SetP(rel=1)",
    "SetP(rel=2)": "SetP(rel=2)",
    "SetP(rel=3)": "SetP(rel=3)",
    "SetRelP(rel=1)": "SetRelP(rel=1)",  # trec_eval set_relative_P
    "SetRelP(rel=2)": "SetRelP(rel=2)",
    "SetR(rel=1)": "SetR(rel=1)",
    "SetR(rel=2)": "SetR(rel=2)",
    "SetR(rel=3)": "SetR(rel=3)",
    "SetAP(rel=1)": "SetAP(rel=1)",  # trec_eval set_map
    "SetAP(rel=2)": "SetAP(rel=2)",
    "SetAP(rel=3)": "SetAP(rel=3)",
    "SetF(rel=1)": "SetF(rel=1)",  # set_F with beta = 1
    "SetF(rel=3)": "SetF(rel=3)",
    "SetF(rel=1, beta=0.5)": "SetF(rel=1,beta=0.5)",  # trec_eval set_F.0.5
    "SetF(rel=1, beta=2.0)": "SetF(rel=1,beta=2)",
    "NumQ": "NumQ",
    "infAP": "infAP",
    "infAP(rel=2)": "infAP(rel=2)",
    # ir_measures computes IPrec with pytrec_eval: trec_eval 9.x's rounding of level x R
    **{f"IPrec@{x}": f"IPrec(rounding=v9)@{x}" for x in ("0.25", "0.5", "0.75")},
    **{f"IPrec(rel=2)@{x}": f"IPrec(rel=2,rounding=v9)@{x}" for x in ("0.1", "0.25", "0.5", "0.75")},
    "AP": "AP",
    "AP(rel=2)": "AP(rel=2)",
    "nDCG": "nDCG",
    "nDCG@3": "nDCG@3",
    "P@4": "P@4",
}
IRM_UNSUPPORTED: dict[str, str] = {
    "nDCG(gains=": "custom per-level gains are not implemented",
    "P(judged_only=True)": "judged_only (trec_eval -J) is not implemented",
}
SUMMED = {"NumRet", "NumRel", "NumRelRet"}


def _irm_groups() -> list[Any]:
    """One parameter per (test, measure): its per-query and `all` expectations."""
    out = []
    for test in IRM.get("tests", []):
        seen: dict[str, list[dict[str, Any]]] = {}
        for e in test["expectations"]:
            seen.setdefault(e["measure"], []).append(e)
        for measure, expectations in seen.items():
            out.append(pytest.param(test, measure, expectations, id=f"{test['test']}-{measure}"))
    return out


def _irm_unsupported(measure: str) -> str | None:
    if measure in IRM_NAMES:
        ours = IRM_NAMES[measure]
        return None if _implemented(ours) else f"{ours} is not implemented yet"
    for prefix, reason in IRM_UNSUPPORTED.items():
        if measure.startswith(prefix):
            return reason
    raise AssertionError(f"ir_measures measure {measure!r} neither mapped nor listed")


def _close(got: float, e: dict[str, Any]) -> bool:
    if e["compare"] == "exact":
        return math.isclose(got, e["expected"], rel_tol=0, abs_tol=1e-12)
    # assertAlmostEqual(places=p): round(a - b, p) == 0
    return round(got - e["expected"], e["places"]) == 0


@pytest.mark.parametrize(("test", "measure", "expectations"), _irm_groups())
def test_ir_measures(test: dict[str, Any], measure: str, expectations: list[dict]) -> None:
    reason = _irm_unsupported(measure)
    if reason:
        pytest.skip(f"{measure}: {reason}")
    ours = IRM_NAMES[measure]
    run = pl.DataFrame(
        [(q, d, float(score)) for q, _, d, _, score, _ in test["run"]],
        schema=["query", "item", "score"],
        orient="row",
    )  # the run's rank column is ignored, as trec_eval does (several disagree with score)
    qrels = pl.DataFrame(
        [(q, d, int(r)) for q, _, d, r in test["qrels"]],
        schema=["query", "item", "relevance"],
        orient="row",
    )
    per_query = _per_query(rk.evaluate(run, qrels, [ours], per_query=True))
    overall = _values(rk.evaluate(run, qrels, [ours]))[ours]
    checked = 0
    for e in expectations:
        got = overall if e["query_id"] == ALL else per_query[(e["query_id"], ours)]
        assert _close(got, e), (measure, e["query_id"], got, e["expected"])
        checked += 1
    assert checked == len(expectations) > 0


def test_ir_measures_coverage() -> None:
    """How many of the 119 expectations map to a measure of ours (filtered list)."""
    if not IRM:
        pytest.skip("ir_measures_pytrec_eval_tests.json not found")
    expectations = [(e["measure"], e) for t in IRM["tests"] for e in t["expectations"]]
    mapped = [m for m, _ in expectations if m in IRM_NAMES]
    assert len(expectations) == 119
    # NumRet x4, NumRel, Success x3, SetP x3, SetR x3, AP x2 (3 values each) = 48;
    # SetRelP x2, SetAP x3 (3 values each) = 15;
    # SetF(rel=1), SetF(rel=3): 4 values each = 8; nDCG, nDCG@3, P@4: 2 each = 6;
    # SetF(rel=1, beta=0.5), SetF(rel=1, beta=2.0): 4 values each = 8; NumQ: 3;
    # IPrec at 3 levels, IPrec(rel=2) at 4 levels: 3 values each = 21; infAP x2: 6
    assert len(mapped) == 115


# ======================================================================================
# scikit-learn ranking docstrings: ndcg_score -> nDCG (ideal from the row's own labels:
# the no-qrels form, or ideal=run), average_precision_score / LRAP -> AP.
# ======================================================================================

SK = _load("sklearn_ranking_docstrings.json")


def _sklearn_cases() -> list[Any]:
    return [pytest.param(c, id=f"{c['function']}-{i}") for i, c in enumerate(SK.get("cases", []))]


def _ties_matter(y_true: list[float], y_score: list[float]) -> bool:
    """Whether two tied scores carry different labels (then the tie rule decides)."""
    groups: dict[float, set[float]] = {}
    for t, s in zip(y_true, y_score):
        groups.setdefault(s, set()).add(t)
    return any(len(labels) > 1 for labels in groups.values())


@pytest.mark.parametrize("case", _sklearn_cases())
def test_sklearn(case: dict[str, Any]) -> None:
    function = case["function"]
    kwargs = dict(case["kwargs"])
    if function == "dcg_score":
        pytest.skip("unnormalised DCG is not a measure here (only nDCG)")
    y_true = case["y_true"] if isinstance(case["y_true"][0], list) else [case["y_true"]]
    y_score = case["y_score"] if isinstance(case["y_score"][0], list) else [case["y_score"]]
    ignore_ties = kwargs.pop("ignore_ties", False)
    tied = any(_ties_matter(t, s) for t, s in zip(y_true, y_score))
    if tied and not ignore_ties and function != "ndcg_score":
        pytest.skip("tied scores with different labels: sklearn's own tie rule")
    # ndcg_score averages over tied scores (ties="average"); ignore_ties=True: sklearn
    # takes argsort(y_score)[::-1], i.e. among tied scores the later column first; with
    # item ids d0..d4 that is our item-descending tie rule.
    ties = "average" if function == "ndcg_score" and not ignore_ties else "trec_eval"
    k = kwargs.pop("k", None)
    assert not kwargs, kwargs
    if function == "ndcg_score":
        names = ["nDCG" if k is None else f"nDCG@{k}"]
    else:  # average_precision_score, label_ranking_average_precision_score
        assert all(sum(1 for t in row if t) >= 1 for row in y_true)
        names = ["AP"]
    run = pl.DataFrame(
        [
            (q, f"d{j}", float(s), float(t))
            for q, (ts, ss) in enumerate(zip(y_true, y_score))
            for j, (t, s) in enumerate(zip(ts, ss))
        ],
        schema=["query", "item", "score", "relevant"],
        orient="row",
    )
    expected = case["value_computed_with_sklearn_1.9.1"]
    got = _values(rk.evaluate(run, None, names, ties=ties))[names[0]]
    assert got == pytest.approx(expected, abs=1e-9)
    printed = case["docstring_output"].rstrip(".")
    assert abs(got - float(printed)) < 10 ** -(len(printed.split(".")[1]) if "." in printed else 0)
    if function == "ndcg_score":  # the same through qrels with ideal=run
        qrels = run.select("query", "item", pl.col("relevant").alias("relevance"))
        name = "nDCG(ideal=run)" if k is None else f"nDCG(ideal=run)@{k}"
        got_qrels = _values(rk.evaluate(run.drop("relevant"), qrels, [name], ties=ties))[name]
        assert got_qrels == pytest.approx(expected, abs=1e-9)
        if "pytrec_eval_0.5.11_same_input" in case:  # and trec_eval's ndcg (ideal=qrels)
            trec = case["pytrec_eval_0.5.11_same_input"]["value"]
            plain = names[0]
            assert _values(rk.evaluate(run.drop("relevant"), qrels, [plain]))[plain] == (
                pytest.approx(trec, abs=1e-9)
            )


def test_sklearn_case_count() -> None:
    if not SK:
        pytest.skip("sklearn_ranking_docstrings.json not found")
    runnable = [
        c for c in SK["cases"]
        if c["function"] != "dcg_score"
        and (c["function"] == "ndcg_score" or c["kwargs"].get("ignore_ties") or not any(
            _ties_matter(t, s)
            for t, s in zip(
                c["y_true"] if isinstance(c["y_true"][0], list) else [c["y_true"]],
                c["y_score"] if isinstance(c["y_score"][0], list) else [c["y_score"]],
            )
        ))
    ]  # fmt: skip
    # 12 cases: 4 dcg_score skipped; the ndcg with ties that matter runs with ties="average"
    assert (len(runnable), len(SK["cases"])) == (8, 12)
