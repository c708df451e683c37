"""Measure names: ir_measures' grammar ``Name(param=value,...)@k`` and trec_eval aliases.

Names are parsed with :mod:`ast` (``P(rel=2)@5`` is a valid Python expression: a call
matrix-multiplied by a number), never evaluated.  Presets (``conventions=``) fill the
parameters a name leaves unset.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

import polars_rankeval.measures  # noqa: F401  (registers the families)
from polars_rankeval._docparams import fill_params
from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import REGISTRY, Family, Measure, ParamValue
from polars_rankeval.diversity.families import DIVERSITY

__all__ = [
    "PRESETS",
    "TREC_ALIASES",
    "TREC_NAMES",
    "TrecName",
    "known_measures",
    "parse_measure",
    "resolve_measures",
]

MAX_CUTOFF = 2**31 - 1

class TrecName(NamedTuple):
    """One trec_eval measure: its name, what it is in our grammar (``{}`` takes the
    parameter; None: not computed here) and, for a parameterised one (``P_10``,
    ``iprec_at_recall_0.50``), the values ``-m NAME`` expands to and their type."""

    name: str
    target: str | None
    params: tuple[float, ...] | None = None
    kind: type = int
    all_trec: bool = True  # in trec_eval's `all_trec` nickname (measures.c trec_names)

    @property
    def pattern(self) -> str:
        """The regular expression of its names (``P_(\\d+)``)."""
        if self.params is None:
            return re.escape(self.name)
        return re.escape(self.name) + (r"_(\d+)" if self.kind is int else r"_(\d+\.\d+)")


TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_LEVELS = tuple(i / 10 for i in range(11))  # 0.00 .. 1.00
_MULTS = tuple(i / 5 for i in range(1, 11))  # 0.20 .. 2.00

# The one table of trec_eval's measures, in its print order (trec_eval 10.0's all_trec,
# measures.c): the parser's aliases and the command line's expansion both read it.
TREC_NAMES: tuple[TrecName, ...] = (
    TrecName("runid", None),
    TrecName("num_q", "NumQ"),
    TrecName("num_ret", "NumRet"),
    TrecName("num_rel", "NumRel"),
    TrecName("num_rel_ret", "NumRelRet"),
    TrecName("map", "AP"),
    TrecName("gm_map", "GMAP"),
    TrecName("Rprec", "Rprec"),
    TrecName("bpref", "Bpref"),
    TrecName("recip_rank", "RR"),
    TrecName("iprec_at_recall", "IPrec@{}", _LEVELS, float),
    TrecName("P", "P@{}", TREC_CUTOFFS),
    TrecName("relstring", None),  # text, printed by the command (cli/trec.py)
    TrecName("recall", "R@{}", TREC_CUTOFFS),
    TrecName("infAP", "infAP"),
    TrecName("gm_bpref", "GMBpref"),
    TrecName("Rprec_mult", "Rprec_mult(mult={})", _MULTS, float),
    TrecName("utility", "Utility"),
    TrecName("11pt_avg", "IPrec11pt"),
    TrecName("binG", "binG"),
    TrecName("G", "G"),
    TrecName("ndcg", "nDCG"),
    TrecName("ndcg_rel", "nDCG_rel"),
    TrecName("Rndcg", "RnDCG"),
    TrecName("ndcg_cut", "nDCG@{}", TREC_CUTOFFS),
    TrecName("map_cut", "AP@{}", TREC_CUTOFFS),
    TrecName("relative_P", "RelP@{}", TREC_CUTOFFS),
    TrecName("success", "Success@{}", (1, 5, 10)),
    TrecName("set_P", "P"),
    TrecName("set_relative_P", "RelP"),
    TrecName("set_recall", "R"),
    TrecName("set_map", "SetAP"),
    TrecName("set_F", "F1"),
    TrecName("num_nonrel_judged_ret", "NumNonRelJudgedRet"),
    TrecName("rbp", "RBP"),
    TrecName("rbp_resid", "RBP_resid"),
    TrecName("unj", "Unjudged@{}", (5, 10, 20)),
    TrecName("yaap", "YAAP", all_trec=False),  # after the prefs measures in measures.c
)

# trec_eval names -> our grammar ({} is the parameter), derived from TREC_NAMES.
TREC_ALIASES: dict[str, str] = {t.pattern: t.target for t in TREC_NAMES if t.target is not None}

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
    families = [*REGISTRY.values(), *DIVERSITY.values()]  # diversity: subtopic qrels
    for family in families:
        if name == family.name or name in family.aliases:
            return family
    folded = {n.lower(): f for f in families for n in (f.name, *f.aliases)}
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
        operand = node.operand.value
        negative = isinstance(node.op, ast.USub) and isinstance(operand, int)
        value = -operand if negative and isinstance(operand, int) else None
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


def _cannot_parse(text: str, expected: str = "") -> MeasureError:
    """The error for a name that is not a measure, with a hint for the two usual slips:
    several names in one string, and trec_eval's ``-m P.10`` notation."""
    hint = ""
    stripped = text.strip()
    dotted = re.fullmatch(r"([A-Za-z_]+)\.(\d+(?:,\d+)*)", stripped)
    if dotted:
        written = []
        for cutoff in dotted[2].split(","):
            for form in (f"{dotted[1]}_{cutoff}", f"{dotted[1]}@{cutoff}"):
                try:
                    parse_measure(form)
                except MeasureError:
                    continue
                written.append(form)
                break
        if written:
            shown = written[0] if len(written) == 1 else written
            hint = f" (trec_eval's -m notation: write {shown!r})"
    elif "," in stripped and "(" not in stripped:
        names = [name.strip() for name in stripped.split(",")]
        hint = f" (several measures in one string: pass a list, {names!r})"
    return MeasureError(f"cannot parse measure {text!r}{hint}{expected}; {known_measures()}")


def _syntax(text: str) -> tuple[ast.Name, ast.expr | None, dict[str, ParamValue]]:
    """The family name node, what follows ``@`` (or None) and the named parameters."""
    source = _translate_trec(text.strip())
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError:
        raise _cannot_parse(text, ": expected Name, Name@k or Name(param=value,...)@k") from None
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
        raise _cannot_parse(text)
    return tree, at, given


def _resolve(
    family: Family,
    given: dict[str, ParamValue],
    text: str,
    *,
    conventions: str,
    rel: float | None,
) -> dict[str, ParamValue]:
    """Every parameter of ``family``: given, else the preset's, else the default; checked."""
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
        try:
            params[name] = family.param(name).validate(given.get(name, defaults[name]))
        except ValueError as error:
            raise MeasureError(f"measure {text!r}: {error}") from None
    return params


@fill_params
def parse_measure(
    text: str, *, conventions: str = "trec_eval", rel: float | None = None
) -> Measure:
    """Parse a measure name into a resolved :class:`Measure`.

    Parameters
    ----------
    text
        A measure name (``"AP@10"``, ``"P(rel=2)@5"``) or a trec_eval name
        (``"map_cut_10"``).
    {params: conventions, rel}

    Examples
    --------
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
    if rel is None or type(rel) in (int, float):
        # the command and evaluate() parse the same names many times; Measure is frozen
        return _parse_cached(text, conventions, rel, type(rel).__name__, len(REGISTRY))
    return _parse(text, conventions, rel)


@functools.lru_cache(maxsize=4096)
def _parse_cached(
    text: str, conventions: str, rel: float | None, rel_type: str, families: int
) -> Measure:
    """:func:`_parse` once per name, preset, ``rel`` (and its type: 1 and 1.0 hash
    alike) and registry size (a family registered later can parse a name; errors are
    not cached)."""
    return _parse(text, conventions, rel)


def _parse(text: str, conventions: str, rel: float | None) -> Measure:
    tree, at, given = _syntax(text)
    family = _family(tree.id, text)
    if family.name == "AP" and "interp" in given:  # object detection's AP(interp=voc11)
        family = REGISTRY["InterpAP"]
    k: int | None = None
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
    params = _resolve(family, given, text, conventions=conventions, rel=rel)
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
