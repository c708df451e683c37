"""trec_eval's measure table, as the ``rankeval`` command needs it.

trec_eval prints measures in the order of its own table (``measures.c``), not in the
order of the ``-m`` options, and expands parameterised measures (``-m P`` is P at
5, 10, ..., 1000; ``-m P.5,10`` is P_5 and P_10, cutoffs sorted).  This module keeps
that table and the expansion rules; which of the names can actually be computed is
decided by :func:`polars_rankeval.parse_measure`, so the command grows with the registry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from polars_rankeval._errors import MeasureError
from polars_rankeval._parse import TREC_NAMES, parse_measure

__all__ = [
    "PSEUDO",
    "SUMMARY_ONLY",
    "TEXT",
    "expand",
    "is_count",
    "trec_order",
]

# (name, default parameters or None, parameter type) in trec_eval's print order: the
# one table of trec_eval names, polars_rankeval._parse.TREC_NAMES
_TABLE: tuple[tuple[str, tuple[float, ...] | None, type], ...] = tuple(
    (t.name, t.params, t.kind) for t in TREC_NAMES
)
_INDEX = {name: i for i, (name, _, _) in enumerate(_TABLE)}
_PARAMS = {name: (params, kind) for name, params, kind in _TABLE if params is not None}

# trec_eval's default set (no -m) and its `trec` nickname.
_DEFAULT = (
    "runid",
    "num_q",
    "num_ret",
    "num_rel",
    "num_rel_ret",
    "map",
    "gm_map",
    "Rprec",
    "bpref",
    "recip_rank",
    "iprec_at_recall",
    "P",
)

# Printed by the command itself, not measures: the run's tag and the number of queries.
PSEUDO = ("runid", "num_q")
# Printed by the command per query only, as text (not a library measure).
TEXT = ("relstring",)
# Printed only in the `all` block by trec_eval.
SUMMARY_ONLY = frozenset({"runid", "num_q", "gm_map", "gm_bpref"})
_COUNTS = frozenset({"num_q"})


def _format_param(value: float, kind: type) -> str:
    return f"{value:3.2f}" if kind is float else str(int(value))


def _parse_param(text: str, kind: type, option: str) -> float:
    try:
        # trec_eval reads integer parameters with atol: 23.4 -> 23
        return float(text) if kind is float else int(float(text))
    except ValueError:
        raise MeasureError(f"-m {option}: cannot read parameter {text!r}") from None


def _expand_one(option: str) -> list[str]:
    """One ``-m`` value to full names; sets and parameter lists are expanded."""
    option = option.strip()
    if option == "trec":
        return _supported(_names(_DEFAULT))
    if option == "all_trec":
        return _supported(_names(t.name for t in TREC_NAMES if t.all_trec))
    if option in _PARAMS:
        return _names([option])
    base, dot, rest = option.partition(".")
    if dot and base in _PARAMS:
        _, kind = _PARAMS[base]
        values = sorted({_parse_param(p, kind, option) for p in rest.split(",") if p})
        if not values:
            raise MeasureError(f"-m {option}: no parameter after the dot")
        return [f"{base}_{_format_param(v, kind)}" for v in values]
    if dot and base in _INDEX:
        raise MeasureError(f"-m {option}: rankeval does not support parameters for {base}")
    return [option]


def _names(bases: Iterable[str]) -> list[str]:
    out: list[str] = []
    for base in bases:
        if base in _PARAMS:
            params, kind = _PARAMS[base]
            out += [f"{base}_{_format_param(v, kind)}" for v in params]
        else:
            out.append(base)
    return out


def _supported(names: list[str]) -> list[str]:
    return [name for name in names if name in PSEUDO or name in TEXT or _parses(name)]


def _parses(name: str) -> bool:
    try:
        parse_measure(name)
    except MeasureError:
        return False
    return True


def _trec_key(name: str) -> tuple[int, float] | None:
    if name in _INDEX and name not in _PARAMS:
        return (_INDEX[name], 0.0)
    for base in _PARAMS:
        match = re.fullmatch(re.escape(base) + r"_(\d+(?:\.\d+)?)", name)
        if match:
            return (_INDEX[base], float(match.group(1)))
    return None


def expand(options: Sequence[str] | None) -> list[str]:
    """The measure names of ``-m`` options (None: trec_eval's default set).

    >>> expand(["P.10,5", "map"])
    ['map', 'P_5', 'P_10']
    >>> expand(["nDCG@10", "map"])
    ['nDCG@10', 'map']
    """
    if not options:
        options = ["trec"]
    names: list[str] = []
    for option in options:
        names += _expand_one(option)
    names = list(dict.fromkeys(names))
    # meas_init.c: a measure takes the parameters of its first -m NAME.PARAMS, whatever
    # else asks for it (-m P.5 -m P.10 and -m P.5 -m P print P_5 only)
    done: set[str] = set()
    for option in options:
        base, dot, _ = option.strip().partition(".")
        if dot and base in _PARAMS and base not in done:
            done.add(base)
            kept = set(_expand_one(option))
            family = re.compile(re.escape(base) + r"_\d+(?:\.\d+)?")
            names = [n for n in names if n in kept or not family.fullmatch(n)]
    return trec_order(names)


def trec_order(names: list[str]) -> list[str]:
    """trec_eval's print order when every name is a trec_eval name; else as given."""
    keys = [_trec_key(name) for name in names]
    known = [key for key in keys if key is not None]
    if len(known) != len(names):
        return names
    return [name for _, name in sorted(zip(known, names), key=lambda pair: pair[0])]


def is_count(name: str) -> bool:
    """Whether the measure prints as an integer (trec_eval's ``%ld`` measures)."""
    if name in _COUNTS:
        return True
    if name == "runid":
        return False
    return parse_measure(name).family.aggregate == "sum"
