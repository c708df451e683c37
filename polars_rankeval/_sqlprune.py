"""DuckDB's entry macros plan only what a call's measures can read (issue 12).

``rankeval_rows`` holds the CTEs of every family; a call pays their binding, their
optimisation and their (empty) pipelines whatever it asks.  A call's measure names are
literals, so a condition on them alone is constant for the call and DuckDB folds it
while planning: a CTE wrapped in ``WHERE <no name can be of these families>`` becomes an
empty result and its operators are dropped.  The condition is conservative: it holds
only when every name is *plain* (``Name``, ``Name@k`` or a trec_eval name such as
``map_cut_10``) and resolves, as the SQL parser resolves it, to a family outside the
CTE's; any other name (parameters, other spellings, spaces) plans everything, as
before.  A pruned CTE is one that would be empty anyway (it reads only specs of its
families), so values and errors do not change.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from polars_rankeval._errors import MeasureError
from polars_rankeval._parse import PRESETS, TREC_ALIASES, parse_measure
from polars_rankeval._registry import REGISTRY
from polars_rankeval.diversity.families import DIVERSITY

__all__ = ["guard_ctes", "macros_sql", "may_ask"]

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
"""
# a name with parameters (nDCG(ideal=run) reads _irun; no preset sets ideal)
PARAMETERS = "parameters"

# Parameters a preset may not set: the pruning reads a plain name's family as final
# (AP(interp=...) is InterpAP; nDCG(ideal=run) reads _irun)
_FAMILY_PARAMS = ("interp", "ideal")


def _families_of(word: str) -> set[str]:
    """The families whose name or alias is exactly ``word``."""
    every = [*REGISTRY.values(), *DIVERSITY.values()]
    return {f.name for f in every if word == f.name or word in f.aliases}


def _family(name: str) -> str | None:
    """The family the Python parser reads ``name`` as (None: not a measure)."""
    try:
        return parse_measure(name).family.name
    except MeasureError:
        return None


def _sample(pattern: str) -> str:
    """A name the trec_eval pattern matches (its number groups filled in)."""
    return pattern.replace(r"(\d+\.\d+)", "0.25").replace(r"(\d+)", "10")


def _plain_pattern(allowed: Collection[str]) -> str:
    """The RE2 pattern of the plain names of the ``allowed`` families: their names and
    aliases (with an optional ``@k``) that the SQL parser looks up directly, and the
    trec_eval names that translate to one of them.  Each is checked against the Python
    parser (the SQL parser's twin) and left out if it could be read otherwise."""
    assert not any(p in params for c in PRESETS.values() for params in c.values()
                   for p in _FAMILY_PARAMS)
    trec = [re.compile(p) for p in TREC_ALIASES]
    words = []
    for family in [*REGISTRY.values(), *DIVERSITY.values()]:
        if family.name not in allowed or family.at_param is not None:
            continue
        for word in (family.name, *family.aliases):
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", word), word
            variants = (word, f"{word}@10", f"{word}@1")
            if (_families_of(word) <= set(allowed)
                    and not any(t.fullmatch(v) for t in trec for v in variants)
                    and all(_family(v) in (family.name, None) for v in variants)):
                words.append(word)
    names = [
        pattern for pattern in TREC_ALIASES
        if _family(_sample(pattern)) in allowed
        and not any(t.fullmatch(_sample(pattern)) for t in trec if t.pattern != pattern)
    ]
    return f"(?:{'|'.join(words)})(?:@[0-9]+)?|{'|'.join(names)}"


def may_ask(group: str) -> str:
    """SQL inside ``rankeval_rows``, constant for a call: false when no measure name can
    be of the families of ``group`` (:func:`macros_sql`); true when the caller's names
    are not known (``given_measures`` NULL: the default measures, or a direct call)."""
    return f"rankeval_may_ask_{group}(given_measures)"


def macros_sql(groups: Mapping[str, Collection[str]]) -> str:
    """The macros of :func:`may_ask`: per group of families, whether a call's measure
    names may name one of them (not every name a plain name of another family); for
    :data:`PARAMETERS`, whether a name has parameters."""
    every = [*REGISTRY, *DIVERSITY]
    lines = [_PLAIN_ONLY]
    for group, families in groups.items():
        plain = _plain_pattern([f for f in every if f not in families])
        lines.append(f"CREATE OR REPLACE MACRO rankeval_may_ask_{group}(measures) AS\n"
                     f"    NOT rankeval_plain_only(measures, '{plain}');")
    lines.append(f"CREATE OR REPLACE MACRO rankeval_may_ask_{PARAMETERS}(measures) AS\n"
                 "    NOT rankeval_plain_only(measures, '[^(]*');\n")
    return "\n".join(lines)


def _closing(sql: str, start: int) -> int:
    """The index of the parenthesis that closes the one open at ``start`` - 1 (string
    literals and ``--`` comments skipped)."""
    depth, i = 1, start
    while depth:
        c = sql[i]
        if c == "'":
            i = sql.index("'", i + 1)
            while sql.startswith("''", i):  # an escaped quote inside the literal
                i = sql.index("'", i + 2)
        elif sql.startswith("--", i):
            i = sql.index("\n", i)
        elif c in "()":
            depth += 1 if c == "(" else -1
        i += 1
    return i - 1


def guard_ctes(sql: str, guards: dict[str, str]) -> str:
    """``sql`` with each CTE ``name AS (body)`` of ``guards`` read as ``name AS (SELECT *
    FROM (body) AS __rk_guarded WHERE condition)``.

    >>> guard_ctes("WITH\\n    _a AS (SELECT ')' AS x),", {"_a": "false"})
    "WITH\\n    _a AS (SELECT * FROM (SELECT ')' AS x) AS __rk_guarded WHERE false),"
    """
    for name, condition in guards.items():
        head = f"\n    {name} AS ("
        assert sql.count(head) == 1, name
        start = sql.index(head) + len(head)
        end = _closing(sql, start)
        sql = (f"{sql[:start]}SELECT * FROM ({sql[start:end]}) AS __rk_guarded "
               f"WHERE {condition}{sql[end:]}")
    return sql
