"""The diversity tests' shared cases: random subtopic qrels and tie-heavy runs
(hypothesis), and the run in trec_eval's order with distinct scores, the order the
pyndeval oracle is given (sorted in plain Python, independently of the code under test).

Shared by the test modules (test modules never import from each other):
``oracles/test_diversity.py``, ``oracles/test_diversity_weights.py``,
``cli/test_cli_ndeval.py`` and the SQL ones (``stacked_cases``: many cases in one table;
:func:`batches`: an engine call costs the same for one case or eight).
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import strategies as st

ITEMS = st.sampled_from([f"d{i}" for i in range(9)])


@st.composite
def cases(draw):
    queries = draw(st.lists(st.sampled_from(["q1", "q2", "q3", "q10"]), min_size=1, max_size=3, unique=True))
    qrels, run = [], []
    for q in queries:
        subtopics = draw(st.integers(1, 4))  # one-subtopic queries included
        judged = draw(st.lists(st.tuples(st.integers(1, subtopics), ITEMS), min_size=1, max_size=14, unique=True))
        # graded, non-relevant and negative judgments; some queries without relevant ones
        qrels += [(q, str(s), item, draw(st.integers(-1, 2))) for s, item in judged]
        items = draw(st.lists(ITEMS, min_size=1, max_size=9, unique=True))  # unjudged ones too
        run += [(q, item, float(draw(st.integers(0, 3)))) for item in items]  # ties
    if draw(st.booleans()):  # a run-only query: ignored by both
        run.append(("q9", "d0", 1.0))
    return qrels, run


@st.composite
def batches(draw, most: int):
    """1 to ``most`` :func:`cases` stacked into one case, each case's query ids prefixed
    with its number (``"c2:q1"``): queries are evaluated independently, so one engine
    call checks them all (a DuckDB call costs ~0.5 s of CPU whatever the case count)."""
    qrels: list[tuple] = []
    run: list[tuple] = []
    for number, (case_qrels, case_run) in enumerate(draw(st.lists(cases(), min_size=1, max_size=most))):
        qrels += [(f"c{number}:{query}", *rest) for query, *rest in case_qrels]
        run += [(f"c{number}:{query}", *rest) for query, *rest in case_run]
    return qrels, run


def oracle_run(run: list[tuple]) -> list[tuple]:
    """trec_eval's order (score descending, item descending), as distinct scores."""
    ordered = sorted(run, key=lambda row: (row[0], -row[2], tuple(-b for b in row[1].encode())))
    return [(query, item, float(len(ordered) - i)) for i, (query, item, _) in enumerate(ordered)]


def stacked_cases(seed: int, n: int) -> tuple[list[tuple], list[tuple]]:
    """n random cases as ``cases`` draws them (without the run-only query), each query
    id prefixed by its case number: (query, subtopic, item, relevance) and (query, item,
    score) rows, so that an engine evaluates them all in one statement."""
    rng = random.Random(seed)
    items = [f"d{i}" for i in range(9)]
    qrels, run = [], []
    for case in range(n):
        for q in rng.sample(["q1", "q2", "q3"], rng.randint(1, 3)):
            query, subtopics = f"c{case}{q}", rng.randint(1, 4)
            judged = {(rng.randint(1, subtopics), rng.choice(items)) for _ in range(rng.randint(1, 14))}
            qrels += [(query, str(s), item, rng.randint(-1, 2)) for s, item in sorted(judged)]
            run += [(query, item, float(rng.randint(0, 3))) for item in rng.sample(items, rng.randint(1, 9))]
    return qrels, run


# Our names and ndeval's (pyndeval's) for the diversity family.
NDEVAL_NAMES = {
    "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "alpha_DCG": "alpha-DCG",
    "alpha_nDCG": "alpha-nDCG", "P_IA": "P-IA", "StRecall": "strec",
}  # fmt: skip


def ndeval_pairs(cutoffs: tuple[int, ...] = (2, 5, 10, 20)) -> list[tuple[str, str]]:
    """(our name, ndeval's name) of every diversity measure ndeval prints: the cut-off
    families at ``cutoffs``, then NRBP, nNRBP and AP_IA (ndeval's MAP-IA).

    >>> ndeval_pairs((5,))[:2]
    [('ERR_IA@5', 'ERR-IA@5'), ('nERR_IA@5', 'nERR-IA@5')]
    """
    pairs = [(f"{ours}@{k}", f"{nd}@{k}") for ours, nd in NDEVAL_NAMES.items() for k in cutoffs]
    return pairs + [("NRBP", "NRBP"), ("nNRBP", "nNRBP"), ("AP_IA", "MAP-IA")]


def compare_with_pyndeval(got: dict, qrels: list[tuple], run: list[tuple],
                          pairs: list[tuple[str, str]]) -> int:
    """Our per-query values ``got[(query, our name)]`` against pyndeval's on ``run`` (in
    trec_eval's order, :func:`oracle_run`) to 1e-9; where ndeval gives NaN (nNRBP of a query
    without a relevant subtopic) ours must be 0. The count of values compared."""
    pyndeval = pytest.importorskip("pyndeval")
    oracle = pyndeval.ndeval(qrels, oracle_run(run), [nd for _, nd in pairs])
    compared = 0
    for query, values in oracle.items():
        for name, nd in pairs:
            if math.isnan(values[nd]):
                assert nd == "nNRBP" and got[(query, name)] == 0.0, (query, name)
                continue
            assert got[(query, name)] == pytest.approx(values[nd], abs=1e-9), (query, name)
            compared += 1
    return compared


# subtopic qrels missing a column: (dropped column, measures, evaluate keywords, the
# error's start and the missing column as the message names it); every engine's message
# blames the missing column, and a diversity measure only when one was asked
MISSING_COLUMN_CASES = [
    (None, ["AP", "nDCG@10"], {"intent_weight": "w"},
     "qrels holding the subtopic column 'subtopic' are subtopic qrels", "'w' (intent_weight=)"),
    ("relevance", ["AP"], {}, "qrels holding the subtopic column 'subtopic' are subtopic qrels",
     "'relevance' (relevance=)"),
    (None, ["ERR_IA@20", "AP"], {"intent_weight": "w"},
     "ERR_IA@20: diversity measures need subtopic qrels", "'w' (intent_weight=)"),
    ("subtopic", ["AP", "alpha_nDCG@20"], {},
     "alpha_nDCG@20: diversity measures need subtopic qrels", "'subtopic' (subtopic=)"),
]  # fmt: skip
SUBTOPIC_QRELS = {"query": ["q1", "q1"], "subtopic": ["x", "y"], "item": ["a", "b"], "relevance": [1, 1]}


def check_missing_column_error(message: str, start: str, named: str) -> None:
    """The message of a :data:`MISSING_COLUMN_CASES` case: its start, the missing column
    with its argument, an example fix, and no diversity measure blamed unless asked."""
    assert message.startswith(start), message
    assert f"qrels column {named} not found among" in message, message
    assert "e.g. " in message, message
    if "diversity" not in start:
        assert "diversity" not in message, message
