"""The diversity (novelty and intent-aware) families, as ndeval defines them.

They read subtopic qrels (``query, subtopic, item, relevance``) and are computed by
:mod:`polars_rankeval.diversity.compute`, not by a per-row expression, so they live in
their own registry (:data:`DIVERSITY`): the parser finds them there, the generic
machinery that walks :data:`~polars_rankeval._registry.REGISTRY` (SQL twins, README
tables, property tests over plain qrels) does not see them.

Definitions (ndeval 4.5, Clarke et al.; N = the query's subtopics with at least one
relevant item, ``c`` = relevant items of a subtopic ranked above, position ``i`` from 1):

* gain of a position: sum over its relevant subtopics of (1 - alpha)^c;
* alpha_DCG@k: sum of gain / log2(i + 1), over the "ideal ideal" N * sum (1 -
  alpha)^(i-1) / log2(i + 1) (every item relevant to every subtopic);
  alpha_nDCG@k: over the same sum for the greedy ideal ranking of the qrels;
* ERR_IA@k, nERR_IA@k: the same with 1/i for the discount;
* NRBP: (1 - (1 - alpha) beta) / N * sum of gain * beta^(i-1) over the whole ranking;
  nNRBP: over the ideal ranking's sum;
* AP_IA: mean over the N subtopics of the subtopic's AP; P_IA@k: relevant (item,
  subtopic) pairs in the top k / (k N); StRecall@k: subtopics covered in the top k / N.
"""

from __future__ import annotations

import polars as pl

from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import Family, Judged, Measure, Param

__all__ = ["ALPHA", "BETA", "DIVERSITY", "is_diversity"]

ALPHA = Param(
    "alpha",
    0.5,
    "redundancy intolerance: a subtopic's n-th relevant item gains (1 - alpha)^(n-1) "
    "(ndeval's default 0.5)",
    minimum=0.0,
    maximum=1.0,
    closed=True,
)
BETA = Param(
    "beta",
    0.5,
    "patience of NRBP: the user goes on to the next item with probability beta "
    "(ndeval's default 0.5)",
    minimum=0.0,
    maximum=1.0,
    closed=True,
)

DIVERSITY: dict[str, Family] = {}


def _no_expression(m: Measure, j: Judged) -> pl.Expr:
    raise MeasureError(
        f"{m} is a diversity measure: it needs subtopic qrels (query, subtopic, item, "
        "relevance) and is computed by evaluate(..., engine='polars')"
    )


def _declare(
    name: str, summary: str, formula: str, ndeval: str, params: tuple[Param, ...] = (),
    *, cutoff: bool = True, aliases: tuple[str, ...] = (),
) -> Family:
    family = Family(
        name=name, summary=summary, formula=formula, trec_eval=f"ndeval {ndeval}",
        expression=_no_expression, params=params, cutoff=cutoff, aliases=aliases,
        order=900 + len(DIVERSITY),
    )
    DIVERSITY[name] = family
    return family


_declare("alpha_DCG", "Novelty-biased DCG over the ideal-ideal ranking.",
         "sum gain / log2(i+1) over N sum (1-alpha)^(i-1) / log2(i+1)", "alpha-DCG@k", (ALPHA,))
_declare("alpha_nDCG", "Novelty-biased nDCG (Clarke et al. 2008).",
         "alpha-DCG over that of the greedy ideal ranking", "alpha-nDCG@k", (ALPHA,))
_declare("ERR_IA", "Intent-aware ERR with ideal-ideal normalisation.",
         "sum gain / i over N sum (1-alpha)^(i-1) / i", "ERR-IA@k")
_declare("nERR_IA", "Intent-aware ERR over the greedy ideal ranking's.",
         "sum gain / i over the ideal ranking's", "nERR-IA@k")
_declare("NRBP", "Novelty- and rank-biased precision (Clarke et al. 2009).",
         "(1-(1-alpha) beta) / N sum gain beta^(i-1)", "NRBP", (ALPHA, BETA), cutoff=False)
_declare("nNRBP", "NRBP over the greedy ideal ranking's.",
         "NRBP over that of the ideal ranking", "nNRBP", (ALPHA, BETA), cutoff=False)
_declare("AP_IA", "Intent-aware average precision: mean of the subtopics' AP.",
         "mean over N subtopics of AP against the subtopic", "MAP-IA", cutoff=False,
         aliases=("MAP_IA",))
_declare("P_IA", "Intent-aware precision.",
         "relevant (item, subtopic) pairs in the top k / (k N)", "P-IA@k")
_declare("StRecall", "Subtopic recall: share of the subtopics covered.",
         "subtopics with a relevant item in the top k / N", "strec@k")


def is_diversity(m: Measure) -> bool:
    """True for the measures computed from subtopic qrels."""
    return DIVERSITY.get(m.family.name) is m.family
