"""The README's alias list: each trec_eval name (and MAP, MRR, NDCG) is accepted and printed
back canonically, e.g. ``rk.parse_measure("map_cut_10")`` is ``AP@10``."""

from __future__ import annotations

import pytest

import polars_rankeval as rk

ALIASES = {
    "map": "AP",
    "map_cut_10": "AP@10",
    "P_5": "P@5",
    "set_P": "P",
    "recall_100": "R@100",
    "set_recall": "R",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "bpref": "Bpref",
    "success_10": "Success@10",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet",
    "MAP": "AP",
    "MRR": "RR",
    "NDCG": "nDCG",
    # ir_measures' set measures
    "SetP": "P",
    "SetR": "R",
    "SetRelP": "RelP",
    "SetF": "F1",
    "SetAP": "SetAP",
}


@pytest.mark.parametrize(("alias", "canonical"), sorted(ALIASES.items()))
def test_trec_eval_names_are_aliases(alias, canonical):
    assert str(rk.parse_measure(alias)) == canonical
