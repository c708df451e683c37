"""Measure names: ir_measures' grammar ``Name(param=value,...)@k`` and trec_eval aliases.

Names are parsed with :mod:`ast` (``P(rel=2)@5`` is a valid Python expression: a call
matrix-multiplied by a number), never evaluated.  Presets (``conventions=``) fill the
parameters a name leaves unset.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

import polars_rankeval.measures  # noqa: F401  (registers the families)
from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import REGISTRY, Family, Measure, ParamValue

__all__ = ["PRESETS", "TREC_ALIASES", "known_measures", "parse_measure", "resolve_measures"]

MAX_CUTOFF = 2**31 - 1

# trec_eval measure names -> our grammar ({} is the cutoff).
TREC_ALIASES: dict[str, str] = {
    r"map": "AP",
    r"map_cut_(\d+)": "AP@{}",
    r"P_(\d+)": "P@{}",
    r"set_P": "P",
    r"recall_(\d+)": "R@{}",
    r"set_recall": "R",
    r"ndcg": "nDCG",
    r"ndcg_cut_(\d+)": "nDCG@{}",
    r"recip_rank": "RR",
    r"Rprec": "Rprec",
    r"bpref": "Bpref",
    r"success_(\d+)": "Success@{}",
    r"num_ret": "NumRet",
    r"num_rel": "NumRel",
    r"num_rel_ret": "NumRelRet",
    r"num_nonrel_judged_ret": "NumNonRelJudgedRet",
    r"num_q": "NumQ",
    r"set_F": "F1",
    r"Rprec_mult_(\d+\.\d+)": "Rprec_mult(mult={})",
    r"gm_map": "GMAP",
    r"iprec_at_recall_(\d+\.\d+)": "IPrec@{}",
    r"11pt_avg": "IPrec11pt",
    r"infAP": "infAP",
    r"unj_(\d+)": "Unjudged@{}",
    r"rbp": "RBP",
    r"rbp_resid": "RBP_resid",
    # issue #13 (measures13)
    r"gm_bpref": "GMBpref",
    r"utility": "Utility",
    r"binG": "binG",
    r"relative_P_(\d+)": "RelP@{}",
    r"set_relative_P": "RelP",
    r"set_map": "SetAP",
    r"G": "G",
    r"ndcg_rel": "nDCG_rel",
    r"Rndcg": "RnDCG",
}

# Presets: parameter defaults per family, for parameters a measure name leaves unset.
PRESETS: dict[str, dict[str, dict[str, ParamValue]]] = {
    "trec_eval": {},
    "kaggle": {"AP": {"norm": "min"}},
    "spark": {"AP": {"norm": "min"}, "nDCG": {"gain": "exp"}},
    "torchmetrics": {"AP": {"norm": "hits"}},
}


def known_measures() -> str:
    """One line listing the accepted names, for error messages."""
    names = ", ".join(
        f.name + ("" if not f.aliases else f" ({'/'.join(f.aliases)})") for f in REGISTRY.values()
    )
    trec = ", ".join(
        p.replace(r"(\d+\.\d+)", "x.xx").replace(r"(\d+)", "k") for p in TREC_ALIASES
    )
    return f"known measures: {names}; trec_eval names: {trec}"


def _family(name: str, text: str) -> Family:
    if name in REGISTRY:
        return REGISTRY[name]
    for family in REGISTRY.values():
        if name in family.aliases:
            return family
    folded = {n.lower(): f for f in REGISTRY.values() for n in (f.name, *f.aliases)}
    if name.lower() in folded:
        return folded[name.lower()]
    raise MeasureError(f"unknown measure {text!r}; {known_measures()}")


def _literal(node: ast.expr, text: str) -> ParamValue:
    if isinstance(node, ast.Constant) and isinstance(node.value, str | int | float):
        if isinstance(node.value, bool):
            raise MeasureError(f"measure {text!r}: parameter values cannot be booleans")
        return node.value
    if isinstance(node, ast.Name):  # bare words: norm=min, gain=exp
        return node.id
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    raise MeasureError(f"measure {text!r}: parameter values must be words or numbers")


def _cutoff(node: ast.expr, text: str) -> int:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        value = -node.operand.value if isinstance(node.op, ast.USub) else None
    if isinstance(value, bool) or not isinstance(value, int):
        raise MeasureError(f"measure {text!r}: the cutoff after @ must be a positive integer")
    if value <= 0:
        raise MeasureError(f"measure {text!r}: the cutoff must be a positive integer, got {value}")
    if value > MAX_CUTOFF:
        raise MeasureError(f"measure {text!r}: the cutoff must be at most {MAX_CUTOFF}")
    return value


def _translate_trec(text: str) -> str:
    for pattern, target in TREC_ALIASES.items():
        match = re.fullmatch(pattern, text)
        if match:
            return target.format(*match.groups())
    return text


def parse_measure(
    text: str, *, conventions: str = "trec_eval", rel: float | None = None
) -> Measure:
    """Parse a measure name into a resolved :class:`Measure`.

    ``conventions`` names a preset that fills parameters the name leaves unset; ``rel``
    is the default relevance level for measures that do not set ``rel=`` themselves.

    >>> str(parse_measure("map_cut_10"))
    'AP@10'
    >>> str(parse_measure("AP@10", conventions="kaggle"))
    'AP(norm=min)@10'
    >>> str(parse_measure("P(rel=2)@5"))
    'P(rel=2)@5'
    """
    if not isinstance(text, str):
        raise MeasureError(f"a measure name must be a string, got {text!r}")
    if conventions not in PRESETS:
        raise MeasureError(
            f"unknown conventions {conventions!r}; choose one of {', '.join(PRESETS)}"
        )
    source = _translate_trec(text.strip())
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise MeasureError(
            f"cannot parse measure {text!r}: expected Name, Name@k or Name(param=value,...)@k; "
            f"{known_measures()}"
        ) from None

    k: int | None = None
    at: ast.expr | None = None  # what follows @: a cutoff, or the family's at_param
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        at = tree.right
        tree = tree.left
    given: dict[str, ParamValue] = {}
    if isinstance(tree, ast.Call):
        if tree.args:
            raise MeasureError(f"measure {text!r}: parameters must be named, as in P(rel=2)@5")
        for keyword in tree.keywords:
            if keyword.arg is None or keyword.arg in given:
                raise MeasureError(f"measure {text!r}: repeated or unnamed parameter")
            given[keyword.arg] = _literal(keyword.value, text)
        tree = tree.func
    if not isinstance(tree, ast.Name):
        raise MeasureError(f"cannot parse measure {text!r}; {known_measures()}")
    family = _family(tree.id, text)
    if at is not None and family.at_param is not None:
        if family.at_param in given:
            raise MeasureError(f"measure {text!r}: {family.at_param} given twice")
        value = _literal(at, text)
        if isinstance(value, str):
            raise MeasureError(f"measure {text!r}: the {family.at_param} after @ must be a number")
        given[family.at_param] = value
    elif at is not None:
        k = _cutoff(at, text)
    if k is not None and not family.cutoff:
        raise MeasureError(f"measure {text!r}: {family.name} takes no @k cutoff")

    defaults = {p.name: p.default for p in family.all_params}
    defaults.update(PRESETS[conventions].get(family.name, {}))
    if rel is not None:
        defaults["rel"] = rel
    names = {p.name for p in family.all_params}
    for name in given:
        if name not in names:
            raise MeasureError(
                f"measure {text!r}: {family.name} has no parameter {name!r}; "
                f"its parameters: {', '.join(sorted(names))}"
            )
    params: dict[str, ParamValue] = {}
    for name in sorted(names):
        value = given.get(name, defaults[name])
        try:
            params[name] = family.param(name).validate(value)
        except ValueError as error:
            raise MeasureError(f"measure {text!r}: {error}") from None
    return Measure(family=family, k=k, params=tuple(params.items()))


def resolve_measures(
    measures: str | Iterable[str], *, conventions: str = "trec_eval", rel: float | None = None
) -> list[tuple[str, Measure]]:
    """Parse measure names; returns (name as given, measure) pairs, repeats removed.

    >>> [(name, str(m)) for name, m in resolve_measures(["map", "P@5", "map"])]
    [('map', 'AP'), ('P@5', 'P@5')]
    """
    if isinstance(measures, str):
        measures = [measures]
    if not isinstance(measures, Iterable):
        raise MeasureError(
            f"measures={measures!r}: give a measure name or a list of names, e.g. ['AP', 'nDCG@10']"
        )
    names = list(dict.fromkeys(measures))
    if not names:
        raise MeasureError("no measure given")
    return [(name, parse_measure(name, conventions=conventions, rel=rel)) for name in names]
