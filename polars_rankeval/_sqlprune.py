"""Which families read each optional piece of the canonical SQL: the one table
:data:`READERS`, and how each rendering leaves out what a call's measures do not read
(issues 11, 12).

A piece is a CTE of :func:`~polars_rankeval._sqlentry.compute_sql` with the joins and
columns that read it.  The canonical SQL writes a piece's text through :func:`keep` (with
what stands in its place without it) and a piece's CTE body through
:meth:`~polars_rankeval.engines.sqltwin.targets.Dialect.guarded`; the renderings differ
only in when they know the measure names:

* ``sql.render`` knows them (``Dialect.families``): a piece none of them reads is left
  out of the text;
* the dbt package parses them at compile time: the piece is written inside ``{% if
  rankeval._reads(specs, '<piece>') %}`` (``Dialect.choose``), over the generated
  registry's copy of this table (:func:`jinja_readers`);
* DuckDB's macros learn them only at call time: every piece stays, and its CTE reads
  ``WHERE rankeval_may_ask_<piece>(given_measures)`` (:func:`may_ask`), a condition on the
  call's literal names (and the row's ``given`` arguments), which DuckDB folds while
  planning: a CTE no call can read becomes an empty result and its operators are dropped
  (:func:`macros_sql`).

The macros' condition is conservative: false only when every name is *plain* and
resolves, as the SQL parser resolves it, to a family outside the piece's.  A plain name
is a family's name or alias with optional parameters and ``@k`` (``AP``,
``AP(norm=min)@10``, ``RBP(p=0.8)``, ``IPrec@0.5``) or a trec_eval name (``map_cut_10``):
its family is its word's, whatever the parameters (but ``AP(interp=...)``, InterpAP).  Any
other name (other spellings, spaces) plans everything, as before.  A pruned piece is one
that would be empty anyway (it reads only specs of its families), so values and errors do
not change.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

from polars_rankeval._errors import MeasureError
from polars_rankeval._parse import PRESETS, TREC_ALIASES, parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval._sqlcwl import FAMILIES as CWL_FAMILIES
from polars_rankeval._sqldiversity import FAMILIES as DIVERSITY_FAMILIES
from polars_rankeval.diversity.families import DIVERSITY

if TYPE_CHECKING:
    from polars_rankeval.engines.sqltwin.targets import Dialect

__all__ = [
    "COMMON_FAMILIES", "EVERY_ROW", "GAIN_IDEAL", "READERS", "WINDOWED", "Readers",
    "jinja_readers", "keep", "macros_sql", "may_ask", "reads",
]  # fmt: skip


@dataclass(frozen=True)
class Readers:
    """The families whose values read a piece; with ``param``, only their specs that
    set that parameter to that value (nDCG(ideal=run)); with ``given``, also any call
    that gives one of these arguments, whatever its measures (the subtopic qrels: the
    diversity CTEs check them)."""

    families: tuple[str, ...]
    param: tuple[str, str] | None = None
    given: tuple[str, ...] = ()


# The families most calls ask for: their specs' judged rows are aggregated apart, with
# only the aggregates these families read (the others NULL), so a usual call does not
# evaluate the 20-odd aggregates of the rarer families on every row.  Any other family
# (a new one too) is aggregated with every aggregate (the piece "rare").
COMMON_FAMILIES = (
    "AP", "GMAP", "YAAP", "nDCG", "P", "R", "RR", "Success", "NumRet", "NumRel",
    "NumRelRet", "NumQ", "Rprec", "F1",
)  # fmt: skip
# the families that read the ideal rankings' running sums (_gideal, _gq)
GAIN_IDEAL = ("G", "nDCG_rel", "RnDCG")
# the families whose value per query comes whole from their own windows (_sqlinterp,
# _sqlcompat, _sqldiversity): the CTE _windowed
WINDOWED = ("InterpAP", "Compat", *DIVERSITY_FAMILIES)
# the families that read every ranked row, not only the judged ones
EVERY_ROW = ("Compat", *DIVERSITY_FAMILIES)

_EVERY = [*REGISTRY.values(), *DIVERSITY.values()]

# The table: each optional piece of the canonical SQL and the families that read it.
READERS: dict[str, Readers] = {
    "gain": Readers(GAIN_IDEAL),  # _gideal, _gq and their columns in _jl and _qstat
    "idcg": Readers(("nDCG",)),  # _idcg: the ideal DCG per spec
    "irun": Readers(("nDCG",), ("ideal", "run")),  # _irun: nDCG(ideal=run)'s ideal DCG
    "cwl": Readers(CWL_FAMILIES),  # _cwlnorm, _cwlagg (_sqlcwl)
    # _windowed and the CTEs it unites; the macros' statement checks the subtopic qrels
    # there (_subq) whenever they are given (sql.render and the dbt package take _subq
    # only with a diversity measure, which reads the piece anyway)
    "windowed": Readers(WINDOWED, given=("subtopic",)),
    "interp": Readers(("InterpAP",)),  # _sqlinterp's CTEs
    "compat": Readers(("Compat",)),  # _sqlcompat's CTEs
    "diversity": Readers(DIVERSITY_FAMILIES),  # _sqldiversity's CTEs
    "every_row": Readers(EVERY_ROW),  # off: the judged rows' positions from key lists
    # the branch of _agg with every aggregate, for the families outside COMMON_FAMILIES
    "rare": Readers(tuple(f.name for f in _EVERY if f.name not in COMMON_FAMILIES)),
}


assert not set(READERS) & {f.name for f in _EVERY}  # a piece is named apart from a family


def reads(d: Dialect, piece: str) -> bool:
    """Whether the statement of ``d`` may read ``piece`` (a row of :data:`READERS`, or a
    family's name: its own formula) as far as is known when it is rendered (always where
    the names come later: the macros, dbt)."""
    readers = READERS.get(piece)
    if readers is None:
        return d.needs(piece)
    if not d.needs(*readers.families):
        return False
    # a piece read with one parameter value only: known when the settings are
    return readers.param is None or d.settings is None or any(
        (family, *readers.param) in d.settings for family in readers.families)


def keep(d: Dialect, piece: str, present: str, absent: str = "") -> str:
    """``present`` where the call may read ``piece``, else ``absent``: decided now
    (``sql.render``, the macros: always ``present``) or by the dbt template.

    >>> from polars_rankeval._sqlentry import DUCKDB
    >>> from dataclasses import replace
    >>> keep(replace(DUCKDB, families=frozenset({"AP"})), "gain", "_gideal AS (...),")
    ''
    """
    if d.choose is not None:
        return d.choose(piece, present, absent)
    return present if reads(d, piece) else absent


# ---------------------------------------------------------------------------------------
# DuckDB's macros: the conditions on a call's names

# The scalar macro the guards call: true only when every name matches ``plain`` (a
# measures list of another type, a NULL or an empty list: false, nothing pruned).
_PLAIN_ONLY = """-- true only when every measure name of a call matches the pattern `plain`: the
-- rankeval_may_ask_* macros below are constant for a call (its names are literals), so
-- DuckDB folds them while planning and rankeval_rows' CTEs of the families no name can
-- be of become empty results (polars_rankeval/_sqlprune.py)
CREATE OR REPLACE MACRO rankeval_plain_only(measures, plain) AS COALESCE(
    list_bool_and(list_transform(TRY_CAST(measures AS VARCHAR[]),
                                 lambda __rk_m: regexp_full_match(__rk_m, plain))),
    false);
-- false only when no measure name of a call holds the text `word` (a NULL list: true)
CREATE OR REPLACE MACRO rankeval_may_mention(measures, word) AS COALESCE(
    list_bool_or(list_transform(TRY_CAST(measures AS VARCHAR[]),
                                lambda __rk_m: contains(__rk_m, word))),
    true);
"""
# the parameter by which a plain name of one family is read as another's (AP(interp=...)
# is InterpAP), and a value of it
_SWITCH = "interp=voc11"


def may_ask(piece: str) -> str:
    """The macros' condition, constant for a call, that it may read ``piece``: false
    when no measure name can (:func:`macros_sql`); true when the caller's names are not
    known (``given_measures`` NULL: the default measures, or a direct call)."""
    ask = [f"rankeval_may_ask_{piece}(given_measures)"]
    ask += [f"{argument} IS NOT NULL" for argument in READERS[piece].given]
    return f"({' OR '.join(ask)})" if len(ask) > 1 else ask[0]


def _family(name: str) -> str | None:
    """The family the Python parser reads ``name`` as (None: not a measure)."""
    try:
        return parse_measure(name).family.name
    except MeasureError:
        return None


def _sample(pattern: str) -> str:
    """A name the trec_eval pattern matches (its number groups filled in)."""
    return pattern.replace(r"(\d+\.\d+)", "0.25").replace(r"(\d+)", "10")


def _word_pattern(word: str, family: str, at_param: bool, allowed: Collection[str]) -> str:
    """The suffix of the plain names of ``word`` (a name or alias of ``family``) as an
    RE2 pattern: optional parameters and an optional ``@k`` (a number for an ``@``
    parameter); None where one of them could be read otherwise (a trec_eval name,
    another family's word).  A parameter that makes it another family (``AP(interp=
    voc11)``) is left to :func:`macros_sql`."""
    at = r"(?:@[0-9]+(?:\.[0-9]+)?)?" if at_param else r"(?:@[0-9]+)?"
    variants = [word, f"{word}@10", f"{word}@1", f"{word}(rel=2)", f"{word}(rel=2)@5"]
    variants += [f"{word}@0.5"] if at_param else []
    every = {f.name for f in _EVERY if word == f.name or word in f.aliases}
    trec = [re.compile(p) for p in TREC_ALIASES]
    if (every <= set(allowed) and not any(t.fullmatch(v) for t in trec for v in variants)
            and all(_family(v) in (family, None) for v in variants)):
        return r"(?:\([^()]*\))?" + at
    return ""


def _plain_pattern(allowed: Collection[str]) -> str:
    """The RE2 pattern of the plain names of the ``allowed`` families: their words
    (:func:`_word_pattern`, grouped by suffix) and the trec_eval names that translate to
    one of them.  Each is checked against the Python parser (the SQL parser's twin)."""
    assert not any(p in params for c in PRESETS.values() for params in c.values()
                   for p in (_SWITCH.split("=")[0], *(r.param[0] for r in READERS.values() if r.param)))
    assert not any(r.param[0] in t for r in READERS.values() if r.param
                   for t in TREC_ALIASES.values())
    trec = [re.compile(p) for p in TREC_ALIASES]
    words: dict[str, list[str]] = {}
    for f in _EVERY:
        for word in (f.name, *f.aliases) if f.name in allowed else ():
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", word), word
            suffix = _word_pattern(word, f.name, f.at_param is not None, allowed)
            if suffix:
                words.setdefault(suffix, []).append(word)
    names = [
        pattern for pattern in TREC_ALIASES
        if _family(_sample(pattern)) in allowed
        and not any(t.fullmatch(_sample(pattern)) for t in trec if t.pattern != pattern)
    ]
    return "|".join([f"(?:{'|'.join(w)}){suffix}" for suffix, w in words.items()] + names)


def macros_sql() -> str:
    """The macros of :func:`may_ask`, one per piece of :data:`READERS`: whether a call's
    measure names may name one of its families (not every name a plain name of another
    family, or one may name a parameter that makes it one of them); for a piece read
    only with a parameter, whether a name may set it."""
    lines = [_PLAIN_ONLY]
    switch = _SWITCH.split("=")[0]
    for piece, readers in READERS.items():
        allowed = [f.name for f in _EVERY if f.name not in readers.families]
        ask = f"NOT rankeval_plain_only(measures, '{_plain_pattern(allowed)}')"
        # a plain name of an allowed family read as one of the piece's by a parameter
        if any(_family(f"{w}({_SWITCH})") not in (f.name, None, *allowed)
               for f in _EVERY if f.name in allowed for w in (f.name, *f.aliases)):
            ask = f"({ask}\n        OR rankeval_may_mention(measures, '{switch}'))"
        if readers.param is not None:
            ask += f"\n    AND rankeval_may_mention(measures, '{readers.param[0]}')"
        lines.append(f"CREATE OR REPLACE MACRO rankeval_may_ask_{piece}(measures) AS\n"
                     f"    {ask};")
    return "\n".join(lines) + "\n"


def jinja_readers() -> dict[str, dict[str, object]]:
    """:data:`READERS` for the dbt package's registry macro (``rankeval._reads``)."""
    return {
        piece: {"families": list(r.families), "param": None if r.param is None else list(r.param)}
        for piece, r in READERS.items()
    }
