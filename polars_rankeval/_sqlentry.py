"""Generator of the SQL user's entry point: ``sql/rankeval.sql`` and the dbt package.

``sql/rankeval.sql`` (DuckDB) defines ``rankeval_per_query`` and ``rankeval_summary``
on any table; ``sql/dbt/macros/`` holds the dbt package's macros.  Both are generated
here from one canonical one-pass SQL (:func:`compute_sql`) and from the measure
registry (families, parameters, aliases, presets), so a new family or alias reaches
the SQL by running::

    python -m polars_rankeval._sqlgen          # rewrite the generated files
    python -m polars_rankeval._sqlgen --check  # exit 1 when they are stale

The measure names are parsed in SQL (DuckDB: regular expressions over generated
tables) or in Jinja (dbt: the same tables as a Jinja dict), never evaluated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from polars_rankeval._parse import PRESETS, TREC_ALIASES, known_measures
from polars_rankeval._registry import REGISTRY, Family, Param
from polars_rankeval._sqlcompat import ctes_sql as compat_ctes_sql
from polars_rankeval._sqlcwl import FAMILIES as CWL_FAMILIES
from polars_rankeval._sqlcwl import LINEAR as CWL_LINEAR
from polars_rankeval._sqlcwl import cases as cwl_cases
from polars_rankeval._sqlcwl import ctes_sql as cwl_ctes_sql
from polars_rankeval._sqlcwl import linear_term as cwl_linear_term
from polars_rankeval._sqldiversity import FAMILIES as DIVERSITY_FAMILIES
from polars_rankeval._sqldiversity import ctes_sql as diversity_ctes_sql
from polars_rankeval._sqldiversity import empty_sql as no_diversity_sql
from polars_rankeval._sqlinterp import ctes_sql as interp_ctes_sql
from polars_rankeval._sqlprune import (
    COMMON_FAMILIES,
    EVERY_ROW,
    GAIN_IDEAL,
    READERS,
    WINDOWED,
    keep,
    macros_sql,
    may_ask,
    reads,
)
from polars_rankeval._sqlties import FAMILIES as TIES_FAMILIES
from polars_rankeval._sqlties import cases as ties_cases
from polars_rankeval._sqlties import ctes_sql as ties_ctes_sql
from polars_rankeval._sqlties import if_average
from polars_rankeval._sqlties import supported_list as ties_supported_list
from polars_rankeval.diversity.families import DIVERSITY
from polars_rankeval.engines.sqltwin.targets import RUNNING, TARGETS, Dialect

__all__ = [
    "COMMON_FAMILIES", "FAMILIES_SQL", "ROOT", "SQL_DIR", "build_rankeval_sql", "compute_sql",
    "is_choice", "qualifier", "summary_sql", "usual_only",
]  # fmt: skip

ROOT = Path(__file__).resolve().parent.parent
SQL_DIR = ROOT / "sql"
DBT_DIR = SQL_DIR / "dbt"

# Families the one-pass SQL computes (a test checks it covers REGISTRY).
FAMILIES_SQL = (
    "AP", "nDCG", "P", "R", "RR", "Success", "NumRet", "NumRel", "NumRelRet", "NumQ",
    "GMAP", "Bpref", "infAP", "Rprec", "Rprec_mult", "F1", "IPrec", "IPrec11pt", "ERR",
    "Judged", "Unjudged", "RBP", "RBP_resid", "SetAP", "RelP", "Utility", "binG", "GMBpref",
    "NumNonRelJudgedRet", "G", "nDCG_rel", "RnDCG", "YAAP", "Accuracy", *CWL_FAMILIES,
    *WINDOWED,
)  # fmt: skip


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _number(value: float) -> str:
    return repr(float(value))


def all_params() -> dict[str, Param]:
    """Every parameter name of every family (one wide column each in the specs)."""
    names: dict[str, Param] = {}
    for family in _families():
        for p in family.all_params:
            names.setdefault(p.name, p)
    return dict(sorted(names.items()))


def _families() -> list[Family]:
    """Every family the SQL parses: the registry's and the diversity family's."""
    return [*REGISTRY.values(), *DIVERSITY.values()]


def is_choice(name: str) -> bool:
    """True when parameter ``name`` takes a word from a list (norm, gain...), false
    when it takes a number (the SQL casts those to a double).

    >>> is_choice("gain"), is_choice("p")
    (True, False)
    """
    return all_params()[name].choices is not None


# ---------------------------------------------------------------------------------------
# Generated tables (DuckDB macros)


def tables_sql() -> str:
    """The registry as the DuckDB tables the measure parser reads."""
    fam_rows, name_rows, param_rows = [], [], []
    for family in _families():
        at = "NULL" if family.at_param is None else _quote(family.at_param)
        fam_rows.append(
            f"({_quote(family.name)}, {_quote(family.aggregate)}, "
            f"{'true' if family.cutoff else 'false'}, {at})"
        )
        for name in (family.name, *family.aliases):
            name_rows.append(f"({_quote(name)}, {_quote(family.name)})")
        for p in family.all_params:
            choices = (
                "NULL::VARCHAR[]"
                if p.choices is None
                else "[" + ", ".join(_quote(c) for c in p.choices) + "]::VARCHAR[]"
            )
            default = _quote(str(p.default) if p.choices else _number(float(p.default)))
            param_rows.append(
                f"({_quote(family.name)}, {_quote(p.name)}, {default}, {choices}, "
                f"{'NULL' if p.minimum is None else _number(p.minimum)}::DOUBLE, "
                f"{'NULL' if p.maximum is None else _number(p.maximum)}::DOUBLE, "
                f"{'true' if p.closed else 'false'})"
            )
    trec_rows = [
        f"({i}, {_quote(pattern)}, {_quote(target)})"
        for i, (pattern, target) in enumerate(TREC_ALIASES.items(), start=1)
    ]
    preset_rows = [f"({_quote(c)}, NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR)" for c in PRESETS]
    preset_rows += [
        f"({_quote(c)}, {_quote(f)}, {_quote(p)}, {_quote(str(v))})"
        for c, families in PRESETS.items()
        for f, params in families.items()
        for p, v in params.items()
    ]
    return "\n".join(
        [
            "-- Generated from polars_rankeval's measure registry (do not edit by hand).",
            "-- Tables, not VALUES lists in table macros: a call binds a table in a fraction",
            "-- of the time (a small call's CPU -32%, measured; benchmarks/RESULTS.md).",
            "CREATE OR REPLACE TABLE rankeval_m_families AS",
            "    SELECT * FROM (VALUES\n        " + ",\n        ".join(fam_rows)
            + "\n    ) AS t(family, aggregate, cutoff, at_param);",
            "CREATE OR REPLACE TABLE rankeval_m_names AS",
            "    SELECT * FROM (VALUES\n        " + ",\n        ".join(name_rows)
            + "\n    ) AS t(name, family);",
            "CREATE OR REPLACE TABLE rankeval_m_params AS",
            "    SELECT * FROM (VALUES\n        " + ",\n        ".join(param_rows)
            + "\n    ) AS t(family, param, default_value, choices, minimum, maximum, closed);",
            "CREATE OR REPLACE TABLE rankeval_m_trec AS",
            "    SELECT * FROM (VALUES\n        " + ",\n        ".join(trec_rows)
            + "\n    ) AS t(ord, pattern, target);",
            "CREATE OR REPLACE TABLE rankeval_m_presets AS",
            "    SELECT * FROM (VALUES\n        " + ",\n        ".join(preset_rows)
            + "\n    ) AS t(conventions, family, param, value);",
            f"CREATE OR REPLACE MACRO rankeval_m_known() AS {_quote(known_measures())};",
            "",
        ]
    )


# ---------------------------------------------------------------------------------------
# The canonical one-pass SQL, rendered for DuckDB macros or dbt (Jinja)


def qualifier(alias: str) -> str:
    """The prefix that qualifies a column with table alias ``alias`` ("" for none): the
    group columns of every rendering (DuckDB, ``sql.render``, dbt) are written with it.

    >>> qualifier("r") + "_q", qualifier("") + "_q"
    ('r._q', '_q')
    """
    return f"{alias}." if alias else ""


DUCKDB = replace(Dialect.of(
    TARGETS["duckdb"],
    g=lambda a: f"{qualifier(a)}_g, ",
    gj=lambda a, b: f"{a}._g IS NOT DISTINCT FROM {b}._g AND ",
    # checked where read (sql/entry/macros.sql: a check in _args alone was planned away)
    top="rankeval_top(top)",
    complete="rankeval_complete(complete)",
    first="(duplicates = 'first')",
    no_groups='len("by") = 0',
    average="(ties = 'average')",
), judged_positions=True, guard=may_ask)


# The retrieved rows within the cutoff (all without one): u._nall rows (after top) less
# the duplicates dropped there (duplicates='first'; their positions stay taken).
_CT = (
    "(CASE WHEN s._k IS NULL THEN u._nret"
    " ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)"
)


@dataclass(frozen=True)
class Sum:
    """``SUM(CASE WHEN when THEN then [ELSE otherwise] END) AS alias``, declared as data.

    A sum of doubles (``double=True``) adds its rows in ``key`` order where the dialect
    has ordered aggregates: ``SUM(then ORDER BY key) FILTER (WHERE when)`` (the filter
    gives it only its own rows to sort, not every spec's).  Integer counts are exact in
    any order and stay plain.  ``families``: the families whose formulas read it (empty:
    any): the spec's family is one of them (``when`` holds the rest of the condition),
    and the aggregate of the usual families leaves it out when none is (:func:`_agg_sql`).
    """

    alias: str
    when: str
    then: str
    otherwise: str | None = None
    double: bool = False
    families: tuple[str, ...] = ()

    def sql(self, d: Dialect, key: str) -> str:
        """The aggregate and its alias in dialect ``d``, ordered by ``key`` if a double."""
        when = f"{_family_is(self.families)} AND {self.when}" if self.families else self.when
        other = "" if self.otherwise is None else f" ELSE {self.otherwise}"
        plain = f"SUM(CASE WHEN {when} THEN {self.then}{other} END)"
        if self.double:
            plain = d.ordered(f"SUM({self.then} ORDER BY {key}) FILTER (WHERE {when})", plain)
        return f"{plain} AS {self.alias}"


@dataclass(frozen=True)
class Raw:
    """Any other aggregate (``MIN(...)``, ``MAX(...)``) under ``alias``, as :class:`Sum`."""

    alias: str
    expression: str
    double: bool = False
    families: tuple[str, ...] = ()

    def sql(self, d: Dialect, key: str) -> str:
        return f"{self.expression} AS {self.alias}"


# a declared aggregate, or one written out ("MIN(...) AS x": read by any family)
Aggregate = Sum | Raw | str

def _family_is(families: tuple[str, ...]) -> str:
    """The condition that the spec's family is one of ``families``."""
    if len(families) == 1:
        return f"s._family = {_quote(families[0])}"
    return "s._family IN (" + ", ".join(_quote(f) for f in families) + ")"


def _render(d: Dialect, aggregates: list[Aggregate], key: str, only: tuple[str, ...] = ()) -> str:
    """The select list of ``aggregates`` in dialect ``d``; with ``only``, the aggregates
    no family of ``only`` reads are typed NULLs."""

    def one(a: Aggregate) -> str:
        if isinstance(a, str):
            return a
        if only and a.families and not set(a.families) & set(only):
            return f"CAST(NULL AS {d.double if a.double else 'BIGINT'}) AS {a.alias}"
        return a.sql(d, key)

    return ",\n            ".join(one(a) for a in aggregates)


def _osum(d: Dialect, value: str, key: str) -> str:
    """``SUM(value)``, adding in ``key`` order where the dialect can."""
    return d.ordered(f"SUM({value} ORDER BY {key})", f"SUM({value})")


def summary_sql(d: Dialect, value: str, agg: str, query: str) -> str:
    """The one aggregation rule (engines/finish.aggregate) over a group's per-query
    ``value`` rows: the sum for the counts (``agg`` = 'sum'), trec_eval's floored
    geometric mean ('gmean', gm_map), else the mean.  Where the dialect has ordered sums
    the rows are added in trec_eval's query order (``query`` as byte-order text), as the
    polars engine adds them: the same bits on every call, where a parallel AVG's last
    bits depend on the threads; elsewhere SUM/AVG in the engine's order."""
    floored = f"LN(CASE WHEN {value} > 0.00001 THEN {value} ELSE 0.00001 END)"
    key = d.bytes_order(query)
    ordered = (
        f"CASE MIN({agg}) WHEN 'sum' THEN SUM({value} ORDER BY {key})"
        f" WHEN 'gmean' THEN EXP(SUM({floored} ORDER BY {key}) / COUNT({value}))"
        f" ELSE SUM({value} ORDER BY {key}) / COUNT({value}) END"
    )
    plain = (
        f"CASE MIN({agg}) WHEN 'sum' THEN SUM({value}) WHEN 'gmean' THEN EXP(AVG({floored}))"
        f" ELSE AVG({value}) END"
    )
    return d.ordered(ordered, plain)


def _safe(d: Dialect, num: str, den: str) -> str:
    """num / den as a double, 0 where den is 0 (trec_eval's convention)."""
    return f"CASE WHEN ({den}) > 0 THEN CAST({num} AS {d.double}) / ({den}) ELSE 0 END"


def _ranked_cases(d: Dialect) -> dict[str, str]:
    """The formulas of the families computed from ranks and cutoffs (AP, P, R...)."""
    D = d.double

    def safe(num: str, den: str) -> str:
        return _safe(d, num, den)

    ct = _CT
    hk = "COALESCE(a._hits_k, 0)"
    rr = "COALESCE(a._min_pos, 0)"
    return {
        "AP": safe(
            "COALESCE(a._prec_k, 0)",
            "CASE s._p_norm WHEN 'hits' THEN " + hk + " WHEN 'min' THEN CASE WHEN s._k IS NULL"
            " THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END",
        ),
        "GMAP": safe("COALESCE(a._prec_k, 0)", "st._R"),
        # trec_eval yaap: log((1 + S) / (1 + R - S)), S the precision sum (AP's numerator)
        "YAAP": "LN((1 + COALESCE(a._prec_k, 0)) / (1 + st._R - COALESCE(a._prec_k, 0)))",
        "P": "CASE WHEN s._k IS NULL THEN " + safe(hk, "u._nret")
        + " WHEN s._p_norm = 'ret' THEN " + safe(hk, ct)
        + f" ELSE CAST({hk} AS {D}) / s._k END",
        "R": safe(
            hk, "CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k)"
            " ELSE st._R END"
        ),
        "RR": f"CASE WHEN {rr} > 0 THEN 1.0 / {rr} ELSE 0 END",
        "Success": f"CASE WHEN {rr} > 0 THEN 1.0 ELSE 0 END",
        "NumRet": ct,
        "NumRel": "st._R",
        "NumRelRet": hk,
        "NumQ": "1",
        "nDCG": safe(
            "COALESCE(a._dcg, 0)",
            "CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0)"
            " ELSE COALESCE(ic._idcg, 0) END",
        ),
        "Rprec": safe("COALESCE(a._rprec, 0)", "st._R"),
        "Rprec_mult": safe("COALESCE(a._rprec_mult, 0)", "FLOOR(s._p_mult * st._R + 0.9)"),
        "F1": safe(
            f"(s._p_beta + 1) * {hk}",
            "s._p_beta * st._R + CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END",
        ),
        "IPrec": "COALESCE(a._iprec, 0)",
        "IPrec11pt": "COALESCE(a._ip11, 0) / 11.0",
        "ERR": "COALESCE(a._err, 0)",
    }


def _set_cases(d: Dialect) -> dict[str, str]:
    """The formulas of the judged-row and set families (Bpref, Judged, Utility...)."""
    D = d.double

    def safe(num: str, den: str) -> str:
        return _safe(d, num, den)

    ct = _CT
    hk = "COALESCE(a._hits_k, 0)"
    # trec_eval m_utility.c; a query missing from the run scores 0 (measures/utility.py)
    utility = (
        f"s._p_a * {hk} + s._p_b * ({ct} - {hk}) + s._p_c * (st._R - {hk})"
        f" + s._p_d * (s._p_docs + {hk} - {ct} - st._R)"
    )
    return {
        "Bpref": safe("COALESCE(a._bpref, 0)", "st._R"),
        "GMBpref": safe("COALESCE(a._bpref, 0)", "st._R"),
        "infAP": safe("COALESCE(a._infap, 0)", "st._R"),
        "Judged": safe("COALESCE(a._judged_k, 0)", ct),
        "Unjudged": f"CASE WHEN s._k IS NOT NULL THEN CAST({ct} - COALESCE(a._judged_k, 0)"
        f" AS {D}) / s._k ELSE " + safe(f"{ct} - COALESCE(a._judged_k, 0)", "u._nret") + " END",
        "RBP": "(1 - s._p_p) * COALESCE(a._rbp, 0)",
        # p^n' + (1 - p) * (the unjudged weights above n'), n' = the last kept position:
        # 1 - (1 - p) * (the judged and dropped weights above n')
        "RBP_resid": "CASE WHEN COALESCE(a._judged_all, 0) < u._nret THEN 1 - (1 - s._p_p)"
        " * (COALESCE(a._judged_pw, 0) + COALESCE(dk._dropw, 0)) ELSE 0 END",
        # set_map: h^2 / (n R)
        "SetAP": safe(f"{hk} * {hk}", f"{ct} * st._R"),
        # relative_P_k: min(k, R) even past the retrieved rows; set_relative_P: min(n, R)
        "RelP": safe(hk, "LEAST(CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END, st._R)"),
        "Utility": f"CASE WHEN u._nret > 0 THEN {utility} ELSE 0 END",
        "binG": safe("COALESCE(a._bing, 0)", "st._R"),
        "NumNonRelJudgedRet": "COALESCE(a._nonrel_judged, 0)",
        # ir_measures Accuracy: 1 - (non-relevant above each relevant) / (rel x nonrel)
        "Accuracy": f"CASE WHEN {hk} = 0 THEN 0 WHEN {ct} - {hk} <= 0 THEN 1 ELSE 1 - "
        f"CAST(COALESCE(a._acc_above, 0) AS {D}) / ({hk} * ({ct} - {hk})) END",
        **_gain_cases(d),
        **cwl_cases(d),
        **dict.fromkeys(WINDOWED, "COALESCE(wv._v, 0)"),
    }



def _gain_cases(d: Dialect) -> dict[str, str]:
    """The formulas of trec_eval's experimental gain families (G, ndcg_rel, Rndcg) from
    the ideal ranking's per-query stats (st._num_pos...) and the judged rows' sums."""

    def safe(num: str, den: str) -> str:
        return _safe(d, num, den)

    ct = _CT
    npos = "COALESCE(st._num_pos, 0)"
    dcg_n = safe("COALESCE(a._dcg, 0)", "COALESCE(st._idcg_lin, 0)")  # DCG(n) / IDCG
    # nDCG_rel: nDCG at each found item, at the end of the run for the others
    total = f"(COALESCE(a._ndr, 0) + ({npos} - COALESCE(a._found, 0)) * {dcg_n})"
    # Rndcg's "implied R-level at num_retrieved": only when n >= Npos + 2
    extra = f"CASE WHEN {npos} >= 1 AND {ct} >= {npos} + 2 THEN 1 ELSE 0 END"
    return {
        "G": safe("COALESCE(a._gsum, 0)", "COALESCE(st._ideal_gain, 0)"),
        "nDCG_rel": f"CASE WHEN {total} > 0 THEN {total} / {npos} ELSE 0 END",
        "RnDCG": "CASE WHEN st._R > 0 THEN "
        + safe(f"COALESCE(a._rnd, 0) + ({extra}) * {dcg_n}",
               f"COALESCE(st._gain_levels, 0) + ({extra})")
        + " ELSE 0 END",
    }


def _formulas(d: Dialect, *, others: str | None = None) -> str:
    """One value per (group, query, spec) from the raw sums of the judged rows (a.*),
    the query's counts (u._nret, st._R) and the spec (s.*): every family, by name.  A
    registered family without a formula here raises (never a silent NULL); ``others``
    replaces that error where the caller never reads those rows."""
    cases = ties_cases(d, {**_ranked_cases(d), **_set_cases(d)})
    assert set(cases) == set(FAMILIES_SQL)
    whens = "\n".join(
        keep(d, f, f"                WHEN {_quote(f)} THEN CAST({sql} AS {d.double})")
        for f, sql in cases.items()
        if d.needs(f)
    )
    missing = others or d.fail("s._name || ' is not available in SQL yet; use rk.evaluate'")
    return f"CASE s._family\n{whens}\n                ELSE {missing}\n            END"


def _iprec_sql(double: str, family: str, level: str) -> str:
    """The best precision at a relevant row where the relevant rows so far reach
    level x R (rounded as trec_eval 10, or 9 with rounding=v9); NULL when none does."""
    rounding = "CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END"
    need = f"FLOOR({level} * jl._R + {rounding})"
    return (
        f"MAX(CASE WHEN s._family = '{family}' AND jl._rel >= s._level AND jl._hits >= {need}"
        f" THEN CAST(jl._hits AS {double}) / jl._pos END)"
    )


def _raw_sums(d: Dialect) -> list[Aggregate]:
    """Aggregates over the judged retrieved rows of one (group, query) for one spec."""
    D = d.double
    isrel = "jl._rel >= s._level"
    intop = "(s._k IS NULL OR jl._pos <= s._k)"
    log2 = d.log2_discount("jl._pos")
    gain = "CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, jl._rel) - 1 ELSE jl._rel END"
    nonrel_above = "jl._nonrel"
    infap = (
        f"CASE WHEN jl._pos = 1 THEN 1.0 ELSE 1.0 / jl._pos + (CAST(jl._pos - 1 AS {D}) /"
        f" jl._pos) * (CAST(jl._jrank - 1 AS {D}) / (jl._pos - 1)) * ((jl._hits - 1 +"
        f" 0.00001) / (jl._hits - 1 + {nonrel_above} + 2 * 0.00001)) END"
    )
    bpref = (
        f"CASE WHEN {nonrel_above} > 0 THEN 1 - CAST(LEAST({nonrel_above}, jl._R) AS {D}) /"
        f" LEAST(jl._N, jl._R) ELSE 1.0 END"
    )

    ip11 = " + ".join(
        f"COALESCE({_iprec_sql(D, 'IPrec11pt', f'CAST({level / 10} AS {D})')}, 0)" for level in range(11)
    )
    sums: list[Aggregate] = [
        Sum("_hits_k", f"{isrel} AND {intop}", "1", "0"),
        Sum("_prec_k", f"{isrel} AND {intop}", f"CAST(jl._hits AS {D}) / jl._pos",
            double=True, families=("AP", "GMAP", "YAAP")),
        Raw("_min_pos", f"MIN(CASE WHEN {isrel} AND {intop} THEN jl._pos END)",
            families=("RR", "Success")),
        Sum("_acc_above", f"{isrel} AND {intop}", "jl._pos - jl._hits", families=("Accuracy",)),
        Sum("_dcg", f"{intop} AND jl._rel > 0", f"CAST({gain} AS {D}) / {log2}", double=True,
            families=("nDCG", "nDCG_rel", "RnDCG")),
        Sum("_bpref", isrel, bpref, double=True, families=("Bpref", "GMBpref")),
        Sum("_infap", isrel, infap, double=True, families=("infAP",)),
        Sum("_rprec", f"{isrel} AND jl._pos <= jl._R", "1", "0", families=("Rprec",)),
        Sum("_rprec_mult", f"{isrel} AND jl._pos <= FLOOR(s._p_mult * jl._R + 0.9)", "1", "0",
            families=("Rprec_mult",)),
        Raw("_iprec", _iprec_sql(D, "IPrec", "s._p_recall"), True, ("IPrec",)),
        Raw("_ip11", ip11, True, ("IPrec11pt",)),
        Sum("_err", intop,
            "(POWER(2.0, CASE WHEN jl._rel > 4 THEN 4 WHEN jl._rel > 0 THEN jl._rel ELSE 0 END)"
            " - 1) / 16.0 * jl._decay / jl._pos", double=True, families=("ERR",)),
    ]  # fmt: skip
    cwl = Sum("_cwl", "jl._pos <= 1000", cwl_linear_term(D), double=True,
              families=tuple(CWL_LINEAR))  # C/W/L's linear families (_sqlcwl)
    return [*sums, *_judged_sums(d), *_gain_sums(d), cwl]



def _agg_sql(d: Dialect) -> str:
    """The sums per (spec, group, query) over the judged rows: the usual families'
    specs (:data:`COMMON_FAMILIES`) with their own aggregates only, the others' with
    all (each spec has one family, so each group comes from one branch)."""
    aggregates = _raw_sums(d)
    common = _family_is(COMMON_FAMILIES)
    rare = () if d.families is None else tuple(sorted(d.families - set(COMMON_FAMILIES)))
    guard = "" if d.guard is None else f" AND {d.guard('rare')}"

    def branch(only: tuple[str, ...], family: str) -> str:
        return (
            f"SELECT s._idx, {d.g('jl')}jl._q,\n            "
            f"{_render(d, aggregates, 'jl._pos', only)}\n        FROM _jl AS jl\n"
            "        -- a family with a cutoff reads only the rows within it (the others have"
            " no _k)\n        JOIN _specs AS s ON s._level = jl._level AND (s._k IS NULL OR"
            f" jl._pos <= s._k)\n            AND {family}\n"
            f"        GROUP BY s._idx, {d.g('jl')}jl._q"
        )

    usual = (branch(tuple(f for f in COMMON_FAMILIES if d.needs(f)), common)
             if d.needs(*COMMON_FAMILIES) else "")  # fmt: skip
    if d.guard is not None:  # the macros: the usual branch is _agg_usual (_values_usual)
        usual = "SELECT * FROM _agg_usual"
    union = "\n        UNION ALL\n        " if usual else ""
    return usual + keep(d, "rare", union + branch(rare, f"NOT ({common}){guard}"))


def _gain_sums(d: Dialect) -> list[Aggregate]:
    """The aggregates of G, nDCG_rel and RnDCG (trec_eval m_G.c, m_ndcg_rel.c,
    m_Rndcg.c) over the found rows (gain > 0 in the top k), as _raw_sums."""
    D = d.double
    found = "jl._rel > 0 AND (s._k IS NULL OR jl._pos <= s._k)"
    log2 = d.log2_discount("jl._pos")
    # the ideal ranking's cost at p; past it each position costs 1 more
    cost = (
        "CASE WHEN jl._pos <= jl._num_pos THEN jl._icost"
        " ELSE jl._ideal_cost + jl._pos - jl._num_pos END"
    )
    ideal = "CASE WHEN jl._pos <= jl._num_pos THEN jl._idcg_at ELSE jl._idcg_lin END"
    return [
        Sum("_gsum", found, f"CAST(jl._rel AS {D}) / (LN(2 + {cost} - jl._cg) / LN(2.0))",
            double=True, families=("G",)),
        Sum("_ndr", found, f"jl._rdcg / ({ideal})", double=True, families=("nDCG_rel",)),
        Sum("_found", found, "1", "0", families=("nDCG_rel",)),
        Sum("_rnd", f"{found} AND jl._pos <= jl._num_pos",
            f"CAST(jl._rel AS {D}) / {log2} * jl._lends", double=True, families=("RnDCG",)),
    ]  # fmt: skip


def _judged_sums(d: Dialect) -> list[Aggregate]:
    """The aggregates of the families that read judged rows at any level (Judged,
    RBP...), as _raw_sums."""
    D = d.double
    isrel = "jl._rel >= s._level"
    intop = "(s._k IS NULL OR jl._pos <= s._k)"
    judged = "jl._rel >= 0"
    weight = f"POWER(s._p_p, CAST(jl._pos - 1 AS {D}))"
    rbp_gain = (
        f"CASE WHEN s._p_gain = 'binary' THEN CASE WHEN {isrel} THEN 1.0 ELSE 0 END"
        " WHEN jl._rel > 0 THEN jl._rel / GREATEST(COALESCE(jl._maxrel, 1), 1) ELSE 0 END"
    )
    return [
        Sum("_judged_k", f"{judged} AND {intop}", "1", "0", families=("Judged", "Unjudged")),
        Sum("_judged_all", judged, "1", "0", families=("RBP_resid",)),
        Sum("_judged_pw", judged, weight, double=True, families=("RBP_resid",)),
        Sum("_rbp", intop, f"({rbp_gain}) * {weight}", double=True, families=("RBP",)),
        # binG: the rows above that are not relevant, unjudged ones too: pos - hits
        Sum("_bing", f"{isrel} AND {intop}",
            f"1.0 / (LN(CAST(2 + jl._pos - jl._hits AS {D})) / LN(2.0))", double=True,
            families=("binG",)),
        Sum("_nonrel_judged", f"{judged} AND jl._rel < s._level", "1", "0",
            families=("NumNonRelJudgedRet",)),
    ]  # fmt: skip


# The entry point's error for repeated (by..., query, item) run rows; engine="duckdb"
# recognises it to report the repeats with the user's column names and an example row.
RUN_DUPLICATES_ERROR = "run: duplicate (query, item) rows"
# the macro's error for repeated judgments (the engine counts them only after it)
QRELS_DUPLICATES_ERROR = "qrels: duplicate (query, item) judgments"


def _check_sql(d: Dialect) -> str:
    """The data checks of the run and qrels (counted in _check) as one expression that
    raises the first problem found, else 0."""
    T = d.text
    return (
        "CASE WHEN c._run_rows = 0 THEN " + d.fail(
            f"'the run has no rows (' || CAST(c._run_rows AS {T}) || '): there is nothing to"
            " evaluate'")
        + " WHEN c._run_dup > 0 AND NOT " + d.first + " THEN " + d.fail(
            f"'{RUN_DUPLICATES_ERROR}: ' || CAST(c._run_dup AS {T}) ||"
            f" ' extra row(s); example query: ' || CAST(c._run_dup_q AS {T})")
        + " WHEN c._qrels_dup > 0 THEN " + d.fail(
            f"'{QRELS_DUPLICATES_ERROR}: ' || CAST(c._qrels_dup AS {T})"
            f" || ' extra row(s); example query: ' || CAST(c._qrels_dup_q AS {T})")
        + " WHEN c._shared = 0 AND NOT " + d.complete + " THEN " + d.fail(
            f"'run and qrels share no query (' || CAST(c._shared AS {T}) || ' in common):"
            " check the query column and its type'")
        + " ELSE 0 END"
    )


# DuckDB's macros (Dialect.judged_positions): the reads of the run that wait for _rq's
# aggregate (the tied rows, the exact repeats, the window) read it again
# from the file (sql/entry/macros.sql's _run_raw), which no stored copy of every row then
# serves: -9% CPU and -330 MiB at 10M rows with a few tied judged rows, +2-4% CPU with
# none or with most rows tied (benchmarks/RESULTS.md, sqlfast28)
RUN_AGAIN = "_run_again"


def _ranked_sql(d: Dialect) -> str:
    """The run's positions: trec_eval's order (key descending, item descending in byte
    order) within each (group, query).  Where the group columns are a value that is the
    same on every row when ``by`` is empty (DuckDB's macros: a struct), a second branch
    ranks without them then: the window's sort key is a fifth narrower (measured), and
    the planner drops the branch whose condition is false."""

    # with judged-row positions (_judged_positions_sql) the window ranks only otherwise,
    # from the run read again (RUN_AGAIN)
    source = "_run AS r"
    if d.judged_positions:
        source = f"{RUN_AGAIN} AS r\n        CROSS JOIN _lists AS lf WHERE NOT lf._on AND "
    elif d.no_groups:
        source += " WHERE "

    def select(part: Callable[[str], str], where: str) -> str:
        window = (
            f"PARTITION BY {part('r')}r._q ORDER BY r._key DESC, {d.bytes_order('r._item')} DESC"
        )
        return (
            f"SELECT {d.g('r')}r._q, r._item,\n            ROW_NUMBER() OVER ({window}) AS _pos"
            f"\n        FROM {source}{where}"
        )

    if not d.no_groups:
        return select(d.g, "TRUE" if d.judged_positions else "")
    return (
        select(lambda a: "", d.no_groups)
        + "\n        UNION ALL\n        "
        + select(d.g, f"NOT ({d.no_groups})")
    )


# The keys' lists hold single precision (sorted and copied in half the bytes: -4.5% CPU
# at 10M rows in loaded pairs, benchmarks/RESULTS.md, sqlfast29): every score key is one
# already (trec_eval's C float), a rank key (-rank) while the rank is at most 2^24; a run
# with a larger rank ranks with the window (_lists._on)
REAL_EXACT = 2**24


# A judged row's position from its query's sorted list of keys costs a scan of the list
# up to its place (list_position): the lists are used while (the qrels rows of a query,
# at most its rows) x (its rows) summed over the queries stays within this many times
# the run's rows, else the window ranks
LIST_WORK = 32

# The lists of judged rows (_rq) are built only while the qrels alone say the lists will
# likely be used (the list work with each query's judgments standing for its rows):
# otherwise the window ranks (_lists._on) and the run's aggregate skips the join, which
# cost ~10% of a 10M-row call with a third of its rows judged (benchmarks/RESULTS.md,
# sqlfast29)
JUDGED_FEW = (
    f"(SELECT COALESCE(SUM(y._nj * y._nj), 0) <= {LIST_WORK} * COALESCE(SUM(y._nj), 0)"
    " FROM _qq AS y)"
)


def _judged_positions_sql(d: Dialect) -> str:
    """CTEs (DuckDB's macros): the judged rows' positions without ranking every row.
    A judged row's position is 1 + the rows of its query with a higher key + the rows
    with the same key and an item greater in byte order (trec_eval's order, as the
    window's ROW_NUMBER); the first two from its query's list of keys (``_rq._keys``)
    sorted descending: the first place of the row's key there is 1 + the rows above it
    (``list_position``, a native scan that stops there), and the key repeats when the
    next place holds it too (``_tied``); the third by a join only for the (rare) judged
    rows whose key repeats in their query.  The sort runs once per query, in ``_rq``'s
    aggregate: it replaced two lambda passes over the whole list per judged row (-1 to
    -7% of a 10M-row call's CPU; sorting in a CTE of its own, only when the lists are
    used, cost more: benchmarks/RESULTS.md, sqlfast23, session 22).
    Used (``_lists._on``) without duplicates='first' (its dropped rows need every
    position), without a family reading every ranked row, and while the list passes
    cost less than ranking (:data:`LIST_WORK`); otherwise these CTEs are empty and the
    window ranks (:func:`_ranked_sql`).  Equal positions to the window's: the keys
    compare as doubles alike (-0.0 = 0.0 in both).  The judged rows themselves come
    from ``_rq``'s lists (:func:`_listed_repeats_sql`, the run joined to the qrels in
    its aggregate), unnested beside their query's keys: no second read of the run and
    no join back to ``_rq``."""
    g = d.g
    every = ", ".join(_quote(f) for f in EVERY_ROW)
    no_every_row = f"NOT EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN ({every}))"
    if d.guard is not None:
        no_every_row = f"(NOT {d.guard('every_row')}\n                 OR {no_every_row})"
    return f"""
    _lists AS (
        SELECT NOT {d.first}
            AND {no_every_row}
            AND COALESCE((SELECT SUM(LEAST(y._nj, x._n) * x._n) FROM _rq AS x
                          JOIN _qq AS y ON y._q = x._q), 0)
                <= {LIST_WORK} * COALESCE((SELECT SUM(x._n) FROM _rq AS x), 0)
            AND COALESCE((SELECT MIN(x._kmin) FROM _rq AS x), 0) >= -{REAL_EXACT}
            AND {JUDGED_FEW} AS _on
    ),
    _jkeys AS (
        SELECT {g('j')}j._q, j._item, j._key, j._rel, j._first - 1 AS _above,
            COALESCE(j._keys[j._first + 1] = CAST(j._key AS REAL), false) AS _tied
        FROM (
            SELECT {g('j')}j._q, j._item, j._key, j._rel, j._keys,
                list_position(j._keys, CAST(j._key AS REAL)) AS _first
            FROM (
                SELECT {g('k')}k._q, unnest(k._jitems) AS _item, unnest(k._jkeys) AS _key,
                    unnest(k._jrels) AS _rel, k._keys
                FROM _rq AS k
                CROSS JOIN _lists AS lf WHERE lf._on
            ) AS j
        ) AS j
    ),
    {_tied_rows_sql(d)}"""


def _tied_rows_sql(d: Dialect) -> str:
    """CTE ``_jties`` (after :func:`_judged_positions_sql`'s ``_jkeys``): per tied judged
    row, the rows of its query with the same key and an item greater in byte order.
    It reads the run again (:data:`RUN_AGAIN`) for only the queries of tied judged rows:
    both small sides come from ``unnest`` of one list, which the planner estimates at
    one row, so it builds its hash tables on them (estimated from ``_jkeys``, it built
    on the 10M run rows), and DuckDB prunes the scan to those queries' row groups; with
    no tied judged row the scan is skipped."""
    g, gj = d.g, d.gj
    packed_group = "_g := t._g, " if g("t") else ""  # the group columns, where a column
    return f"""_jties AS (
        SELECT {g('j')}j._q, j._item, COUNT(*) AS _above
        FROM (
            SELECT {g('u._t')}u._t._q AS _q, u._t._item AS _item, u._t._key AS _key
            FROM (SELECT unnest(list(struct_pack({packed_group}_q := t._q, _item := t._item,
                                                 _key := t._key))) AS _t
                  FROM _jkeys AS t WHERE t._tied) AS u
        ) AS j
        JOIN (
            SELECT {g('r')}r._q, r._item, r._key
            FROM {RUN_AGAIN} AS r
            JOIN (SELECT unnest(list(DISTINCT t._q)) AS _q FROM _jkeys AS t WHERE t._tied) AS tq
                ON r._q = tq._q
        ) AS r ON {gj('r', 'j')}r._q = j._q AND r._key = j._key
            AND {d.bytes_order('r._item')} > {d.bytes_order('j._item')}
        GROUP BY {g('j')}j._q, j._item
    ),"""


def _judged_rows_sql(d: Dialect) -> str:
    """The select of ``_rows``: the ranked run's judged rows (and, with
    :attr:`Dialect.judged_positions`, those positioned from the lists)."""
    g = d.g
    ranked = f"""SELECT {g('r')}r._q, r._item, r._pos, q._rel
        FROM _ranked AS r
        JOIN _qrels AS q ON r._q = q._q AND r._item = q._item"""
    if not d.judged_positions:
        return ranked
    return ranked + f"""
        UNION ALL
        SELECT {g('j')}j._q, j._item, 1 + j._above + COALESCE(t._above, 0) AS _pos, j._rel
        FROM _jkeys AS j
        LEFT JOIN _jties AS t ON {d.gj('t', 'j')}t._q = j._q AND t._item = j._item"""


def _repeats_sql(d: Dialect) -> str:
    """CTEs ``_rq``: the run's rows per (group, query); ``_rdup``: per (group, query), its
    rows and those repeating a (group, query, item) (_n, _dup), at least for every query
    that has repeats.

    Without a fingerprint both come from one aggregate over the run (``_rdup`` is
    ``_rq``).  With one (DuckDB), the repeats are first counted over the whole run by
    fingerprint, one single-column distinct count (a collision can only over-count), and
    exactly per query only when that count is not 0 (otherwise DuckDB skips the exact
    pass: a join with an empty side); the rows per query are a plain ``COUNT(*)`` per
    (group, query) over the run (the ranking window's ``COUNT(*)`` over the partition,
    read on each query's first row, cost more: 9.2-9.9 against 9.7-10.9 CPU s a call at
    10M rows, 4 pairs, load 18-20).  The exact per-query distinct count over every row
    was ~15% of a call's CPU."""
    g = d.g

    def exact(source: str, flagged: str = "") -> str:
        """The exact per-(group, query) rows and repeats of ``source``'s rows (joined to
        ``flagged``, the queries to count)."""
        return f"""SELECT {g('r')}r._q, COUNT(*) AS _n, COUNT(*) - COUNT(DISTINCT r._item) AS _dup
        FROM {source} AS r{flagged}
        GROUP BY {g('r')}r._q"""

    if d.fingerprint is None:
        return f"_rq AS (\n        {exact('_run')}\n    ),\n    _rdup AS (SELECT * FROM _rq),"
    fingerprint = d.fingerprint(f"{g('r')}r._q, r._item")
    if d.no_groups:  # a constant group column is not hashed (measured ~1/3 of the hashing)
        fingerprint = (
            f"CASE WHEN {d.no_groups} THEN {d.fingerprint('r._q, r._item')} ELSE {fingerprint} END"
        )
    if d.judged_positions:  # the exact count only over the queries the pre-check flags
        flagged = (f"\n        JOIN (SELECT {g('f')}f._q FROM _rq AS f WHERE f._hdup > 0) AS f"
                   f"\n            ON {d.gj('f', 'r')}f._q = r._q")
        item_hash = f"CAST({d.fingerprint('r._item')} >> 32 AS UINTEGER)"
        return _listed_repeats_sql(d, exact(RUN_AGAIN, flagged), item_hash)
    flagged = "\n        CROSS JOIN (SELECT 1 AS _one FROM _fp AS f WHERE f._h > 0) AS f"
    return f"""_rq AS (
        SELECT {g('r')}r._q, COUNT(*) AS _n FROM _run AS r GROUP BY {g('r')}r._q
    ),
    _fp AS (SELECT COUNT(*) - COUNT(DISTINCT {fingerprint}) AS _h FROM _run AS r),
    _rdup AS (
        {exact('_run', flagged)}
    ),"""


def _equal_sorted_neighbours(hashes: str, rows: str) -> str:
    """How many neighbours are equal in the sorted list ``hashes`` of ``rows`` values: the
    values less the distinct ones (DuckDB; the run's and the qrels' duplicate
    pre-checks)."""
    return (
        f"len(list_filter(range(1, {rows}), "
        f"lambda __rk_i: {hashes}[__rk_i] = {hashes}[__rk_i + 1]))"
    )


def _listed_repeats_sql(d: Dialect, exact: str, item_hash: str) -> str:
    """``_rq`` and ``_rdup`` as :func:`_repeats_sql`, in one aggregate over the run with
    the judged rows' lists (:func:`_judged_positions_sql`): per (group, query) its rows,
    its keys sorted descending (``_keys``; null with duplicates='first': a CASE, not the
    aggregate's FILTER, which selects and copies every row even when constant: 0.11 CPU s
    at 10M rows as a single statement, benchmarks/RESULTS.md, sqlfast27) and its repeated
    item hashes (``_hdup``, a collision only over-counting); the exact count (``exact``,
    joined by the caller to the queries with ``_hdup > 0``) runs only on the queries
    flagged.
    ``_hdup`` counts the neighbours that are equal in the sorted list of hashes, which
    is the rows less the distinct hashes: the same number as ``COUNT(*) -
    list_unique(...)``: a hash set per query cost more than sorting its 64-bit values
    (0.5 CPU s less as a single statement at 10M rows, ~3-6% of a call;
    benchmarks/RESULTS.md, session 18).  ``item_hash`` is 32 bits (sorted faster than
    64): a collision in one of 100k queries of 100 items is expected in ~1 run in 9,
    and then costs the exact count of that query alone (benchmarks/RESULTS.md,
    session 20).
    The same aggregate lists each query's judged rows (``_jitems``, ``_jkeys``,
    ``_jrels``: the run joined to the qrels as it is read, for
    :func:`_judged_positions_sql`), so the run is not read a second time to find them
    (-3.5 to -4.5% CPU at 10M rows in loaded pairs, benchmarks/RESULTS.md, sqlfast29).
    A repeated judgment repeats its run row here (its count and hashes grow), but then the qrels'
    duplicate error is raised anyway, and ``exact`` counts the run's own rows.
    With duplicates='first' (no lists) the join is planned away.  The qrels side waits
    for the run's column checks (``_runcheck``, sql/entry/macros.sql), as the run's
    rows do, so a missing run column is reported before the join casts ids to its type."""
    g = d.g
    judged = "FILTER (WHERE q._rel IS NOT NULL)"
    return f"""_rq AS (
        SELECT {g('h')}h._q, h._n, h._keys, h._kmin, h._jitems, h._jkeys, h._jrels,
            {_equal_sorted_neighbours('h._hashes', 'h._n')}
                AS _hdup
        FROM (
            SELECT {g('r')}r._q, COUNT(*) AS _n,
                CASE WHEN {d.first} THEN NULL
                     ELSE list_sort(list(CAST(r._key AS REAL)), 'DESC') END AS _keys,
                CASE WHEN rank IS NULL THEN NULL ELSE MIN(r._key) END AS _kmin,
                list_sort(list({item_hash})) AS _hashes,
                list(r._item) {judged} AS _jitems, list(r._key) {judged} AS _jkeys,
                list(q._rel) {judged} AS _jrels
            FROM _run AS r
            LEFT JOIN (SELECT q._q, q._item, q._rel FROM _qrels AS q
                       CROSS JOIN _runcheck AS k WHERE k._ok = 0 AND {JUDGED_FEW}) AS q
                ON NOT {d.first} AND r._q = q._q AND r._item = q._item
            GROUP BY {g('r')}r._q
        ) AS h
    ),
    _rdup AS (
        {exact}
    ),"""


def _qrels_repeats_sql(d: Dialect) -> str:
    """CTEs ``_qq``: per judged query its highest relevance (_maxrel); ``_qdup``: per
    query its repeated (query, item) judgments (_dup), at least for every query that
    has some.  Without a fingerprint one aggregate gives both (``_qdup`` is ``_qq``);
    with one, as for the run (:func:`_repeats_sql`), the repeats are counted exactly
    per query only when a distinct count of 64-bit hashes over the whole qrels finds
    one; in DuckDB's macros (:attr:`Dialect.judged_positions`) that count is the equal
    neighbours of each query's sorted item hashes, in ``_qq``'s own aggregate, as the
    run's (:func:`_listed_repeats_sql`): one hash table less (-6% of a 10M-row call's
    CPU, benchmarks/RESULTS.md, session 19)."""
    exact = """SELECT q._q, COUNT(*) - COUNT(DISTINCT q._item) AS _dup,
            MAX(CASE WHEN q._rel >= 0 THEN q._rel END) AS _maxrel
        FROM _qrels AS q@@FLAGGED@@
        GROUP BY q._q"""
    if d.fingerprint is None:
        return f"_qq AS (\n        {exact.replace('@@FLAGGED@@', '')}\n    ),\n    _qdup AS (SELECT * FROM _qq),"
    flagged = "\n        CROSS JOIN (SELECT 1 AS _one FROM _qfp AS f WHERE f._h > 0) AS f"
    if d.judged_positions:  # as the run's (_listed_repeats_sql): equal sorted neighbours
        qq = f"""SELECT h._q, h._maxrel, h._nj,
            {_equal_sorted_neighbours('h._hashes', 'h._nj')}
                AS _hdup
        FROM (
            SELECT q._q, MAX(CASE WHEN q._rel >= 0 THEN q._rel END) AS _maxrel, COUNT(*) AS _nj,
                list_sort(list({d.fingerprint('q._item')})) AS _hashes
            FROM _qrels AS q
            GROUP BY q._q
        ) AS h"""
        qfp = "SELECT COALESCE(SUM(x._hdup), 0) AS _h FROM _qq AS x"
    else:
        qq = """SELECT q._q, MAX(CASE WHEN q._rel >= 0 THEN q._rel END) AS _maxrel, COUNT(*) AS _nj
        FROM _qrels AS q
        GROUP BY q._q"""
        qfp = (f"SELECT COUNT(*) - COUNT(DISTINCT {d.fingerprint('q._q, q._item')}) AS _h"
               " FROM _qrels AS q")
    return f"""_qq AS (
        {qq}
    ),
    _qfp AS ({qfp}),
    _qdup AS (
        {exact.replace('@@FLAGGED@@', flagged)}
    ),"""


def _counts_sql(d: Dialect) -> str:
    """CTEs: the ranked run, per-query counts and the data checks."""
    repeats = f"""
    {_repeats_sql(d)}
    {_qrels_repeats_sql(d)}"""
    if d.judged_positions:  # the run's aggregate reads the qrels' counts (JUDGED_FEW)
        repeats = f"""
    {_qrels_repeats_sql(d)}
    {_repeats_sql(d)}"""
    ranked = f"""
    _ranked AS (
        {_ranked_sql(d)}
    ),
    -- the judged retrieved rows: all that is read of the ranked run
    _rows AS (
        {_judged_rows_sql(d)}
    ),"""
    if d.judged_positions:  # the lists' choice reads the counts
        ranked = repeats + _judged_positions_sql(d) + ranked
    else:
        ranked += repeats
    return f"""
    _levels AS (SELECT DISTINCT _level FROM _specs),{ranked}
    _check AS (
        {_checks_sql(d)}
    ),
"""


def _checks_sql(d: Dialect) -> str:
    """The select of ``_check``: one row of the run's rows, its repeated rows, the qrels'
    repeated judgments (each with the first query that has some) and the (group, query)
    pairs in both.  With :attr:`Dialect.joined_checks` (Spark) one aggregate over the
    run's counts per query fully joined to the qrels' (a scalar subquery is a Spark job
    of its own); else a scalar subquery each.  Without a fingerprint only (``_rdup`` is
    ``_rq`` there)."""
    if not d.joined_checks:
        return """SELECT COALESCE((SELECT SUM(x._n) FROM _rq AS x), 0) AS _run_rows,
            COALESCE((SELECT SUM(x._dup) FROM _rdup AS x), 0) AS _run_dup,
            (SELECT MIN(x._q) FROM _rdup AS x WHERE x._dup > 0) AS _run_dup_q,
            COALESCE((SELECT SUM(x._dup) FROM _qdup AS x), 0) AS _qrels_dup,
            (SELECT MIN(x._q) FROM _qdup AS x WHERE x._dup > 0) AS _qrels_dup_q,
            (SELECT COUNT(*) FROM _rq AS x JOIN _qq AS y ON x._q = y._q) AS _shared"""
    assert d.fingerprint is None
    # the run's counts summed over its groups first: one row per query on each side
    return """SELECT COALESCE(SUM(x._n), 0) AS _run_rows, COALESCE(SUM(x._dup), 0) AS _run_dup,
            MIN(CASE WHEN x._dup > 0 THEN x._q END) AS _run_dup_q,
            COALESCE(SUM(y._dup), 0) AS _qrels_dup,
            MIN(CASE WHEN y._dup > 0 THEN y._q END) AS _qrels_dup_q,
            COALESCE(SUM(CASE WHEN y._q IS NOT NULL THEN x._groups END), 0) AS _shared
        FROM (
            SELECT x._q, SUM(x._n) AS _n, SUM(x._dup) AS _dup, COUNT(*) AS _groups
            FROM _rdup AS x
            GROUP BY x._q
        ) AS x
        FULL JOIN _qdup AS y ON x._q = y._q"""


def _dropped_sql(d: Dialect) -> str:
    """CTE: the run rows duplicates='first' drops (a repeated item below its best-ranked
    row), with their positions; empty unless asked (only queries with repeats rank).
    Where the statement is rendered without duplicates='first' (``first`` the literal
    FALSE: sql.render), an empty relation of the same columns, nothing to plan."""
    g = d.g
    if d.first == "FALSE":
        return f"""
    _dropped AS (SELECT {g('r')}r._q, r._pos, 0 AS _tail FROM _rows AS r WHERE 1 = 0),
"""
    body = f"""
        SELECT {g('x')}x._q, x._pos,
            -- 1: below the last kept row (all rows under it dropped too)
            CASE WHEN COUNT(*) OVER (
                PARTITION BY {g('x')}x._q ORDER BY x._pos DESC
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) = x._nall - x._pos + 1 THEN 1 ELSE 0 END AS _tail
        FROM (
            SELECT {g('r')}r._q, r._pos, r._nall,
                ROW_NUMBER() OVER (PARTITION BY {g('r')}r._q, r._item ORDER BY r._pos) AS _nth
            FROM (
                SELECT {g('r0')}r0._q, r0._item,
                    CASE WHEN {d.top} IS NULL THEN y._n ELSE LEAST(y._n, {d.top}) END AS _nall,
                    ROW_NUMBER() OVER (
                        PARTITION BY {g('r0')}r0._q
                        ORDER BY r0._key DESC, {d.bytes_order('r0._item')} DESC
                    ) AS _pos
                FROM _run AS r0
                JOIN _rdup AS y ON {d.gj('y', 'r0')}y._q = r0._q
                WHERE {d.first} AND y._dup > 0
            ) AS r
            WHERE {d.top} IS NULL OR r._pos <= {d.top}
        ) AS x
        WHERE x._nth > 1
    """
    return f"""
    _dropped AS ({d.only_when(d.first, body)}),
"""


def _ideal_gain(double: str) -> str:
    """nDCG's discounted gain of an ideal-ranking row (i._rel at i._ipos)."""
    return (
        f"CAST(CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, i._rel) - 1 ELSE i._rel END AS {double})"
        f" / (LN(CAST(i._ipos AS {double}) + 1) / LN(2.0))"
    )


_IDEAL_GAIN = ", ".join(_quote(f) for f in GAIN_IDEAL)


def _ideal_sql(d: Dialect) -> str:
    """CTEs: the ideal rankings, and the running sums over them of the families that
    read them (G, nDCG_rel, RnDCG; where the statement computes one of them)."""
    D = d.double
    ideal = """
    _ideal AS (
        SELECT q._q, q._rel,
            ROW_NUMBER() OVER (PARTITION BY q._q ORDER BY q._rel DESC) AS _ipos
        FROM _qrels AS q
        WHERE q._rel > 0
    ),"""
    body = f"""
        SELECT e.*,
            SUM(CASE WHEN e._ipos = e._level_end THEN 1.0 / e._idcg_at ELSE 0 END) OVER (
                PARTITION BY e._q ORDER BY e._ipos DESC
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) AS _lends
        FROM (
            SELECT i._q, i._rel, i._ipos,
                MAX(i._ipos) OVER (PARTITION BY i._q, i._rel) AS _level_end,
                SUM(CASE WHEN i._rel >= 1 THEN i._rel ELSE 1 END) OVER (
                    PARTITION BY i._q ORDER BY i._ipos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
                ) AS _icost,
                SUM(CAST(i._rel AS {D}) / (LN(CAST(i._ipos AS {D}) + 1) / LN(2.0))) OVER (
                    PARTITION BY i._q ORDER BY i._ipos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
                ) AS _idcg_at
            FROM _ideal AS i
            -- only for the families that read it
            WHERE {d.asked(f"EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN ({_IDEAL_GAIN}))")}
        ) AS e
    """
    return ideal + keep(d, "gain", f"""
    _gideal AS ({d.guarded("gain", body)}),""")


def _gain_stats_sql(d: Dialect) -> tuple[str, str, str]:
    """The ``_gq`` CTE (per query, the ideal ranking's sums of G, nDCG_rel and RnDCG),
    and ``_qstat``'s columns and join of them (typed NULLs where no family reads them)."""
    D = d.double
    columns = "gq._num_pos, gq._ideal_gain, gq._ideal_cost, gq._idcg_lin, gq._gain_levels"
    nulls = ", ".join(f"CAST(NULL AS {D}) AS {c[3:]}" for c in columns.split(", "))
    gq = f"""
    _gq AS (
        SELECT e._q, CAST(COUNT(*) AS {D}) AS _num_pos, {_osum(d, 'e._rel', 'e._ipos')} AS _ideal_gain,
            MAX(e._icost) AS _ideal_cost, MAX(e._idcg_at) AS _idcg_lin,
            CAST(COUNT(DISTINCT e._rel) AS {D}) AS _gain_levels
        FROM _gideal AS e
        GROUP BY e._q
    ),"""
    join = "\n        LEFT JOIN _gq AS gq ON gq._q = c._q"
    return keep(d, "gain", gq), keep(d, "gain", columns, nulls), keep(d, "gain", join)


def _stats_sql(d: Dialect) -> str:
    """CTEs: the qrels' per-query stats (per relevance level) and the ideal DCGs."""
    D = d.double
    idcg = _ideal_gain(D)
    gq, gains, join_gq = _gain_stats_sql(d)
    # (not guarded in the macros: a guard on it saved nothing measurable a call)
    idcg_cte = f"""
    _idcg AS (
        SELECT s._idx, i._q,
            {_osum(d, idcg, 'i._ipos')} AS _idcg
        FROM _ideal AS i
        JOIN _specs AS s ON s._family = 'nDCG' AND (s._k IS NULL OR i._ipos <= s._k)
        GROUP BY s._idx, i._q
    ),"""
    return _ideal_sql(d) + gq + f"""
    _qstat AS (
        SELECT c.*, {gains},
            x._maxrel
        FROM (
            SELECT q._q, l._level,
                CAST(SUM(CASE WHEN q._rel >= l._level THEN 1 ELSE 0 END) AS {D}) AS _R,
                CAST(SUM(CASE WHEN q._rel >= 0 AND q._rel < l._level THEN 1 ELSE 0 END)
                     AS {D}) AS _N
            FROM _qrels AS q CROSS JOIN _levels AS l
            GROUP BY q._q, l._level
        ) AS c
        JOIN _qq AS x ON x._q = c._q{join_gq}
    ),{keep(d, "idcg", idcg_cte)}
"""


def _judged_sql(d: Dialect) -> str:
    """CTEs: the judged retrieved rows with their windows, and their sums per spec."""
    g = d.g
    log2 = d.log2_discount("r._pos")
    stop = (
        "(POWER(2.0, CASE WHEN r._rel > 4 THEN 4 WHEN r._rel > 0 THEN r._rel ELSE 0 END)"
        " - 1) / 16.0"
    )
    w = f"PARTITION BY l._level, {g('r')}r._q ORDER BY r._pos"
    ideal_sums, join_gideal = "gi._icost, gi._idcg_at, gi._lends", (
        "\n        LEFT JOIN _gideal AS gi ON gi._q = j._q AND gi._ipos = j._pos")
    nulls = ", ".join(f"CAST(NULL AS {d.double}) AS {c[3:]}" for c in ideal_sums.split(", "))
    ideal_sums, join_gideal = keep(d, "gain", ideal_sums, nulls), keep(d, "gain", join_gideal)
    agg = _agg_sql(d)
    stats, join_stats = _jl_stats_sql(d, agg)
    usual = "" if d.guard is None else f"""    _agg_usual AS (
        {_agg_sql(_usual(d))}
    ),
"""
    return f"""
    -- the judged retrieved rows, once per relevance level, with every running sum in one
    -- window (one sort); the per-query stats are joined after it
    _judged AS (
        SELECT {g('r')}r._q, r._pos, r._rel, l._level,
            ROW_NUMBER() OVER ({w}) AS _jrank,
            SUM(CASE WHEN r._rel >= l._level THEN 1 ELSE 0 END) OVER ({w} {RUNNING}) AS _hits,
            SUM(CASE WHEN r._rel >= 0 AND r._rel < l._level THEN 1 ELSE 0 END) OVER (
                {w} {RUNNING}) AS _nonrel,
            SUM(CASE WHEN r._rel > 0 THEN r._rel ELSE 0 END) OVER ({w} {RUNNING}) AS _cg,
            SUM(CASE WHEN r._rel > 0 THEN r._rel / {log2} ELSE 0 END) OVER ({w} {RUNNING}) AS _rdcg,
            EXP(COALESCE(SUM(LN(1 - {stop})) OVER (
                {w} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ), 0)) AS _decay
        FROM (
            SELECT {g('r0')}r0._q, r0._pos, r0._rel
            FROM _rows AS r0
            LEFT JOIN _dropped AS dr ON {d.gj('dr', 'r0')}dr._q = r0._q AND dr._pos = r0._pos
            WHERE r0._rel IS NOT NULL AND ({d.top} IS NULL OR r0._pos <= {d.top})
                AND dr._pos IS NULL
        ) AS r
        CROSS JOIN _levels AS l
    ),
    _jl AS (
        SELECT j.*, {stats},
            {ideal_sums}
        FROM _judged AS j{join_stats}{join_gideal}
    ),
{usual}    _agg AS (
        {agg}
    ),
"""


# the per-query stats (_qstat) the judged rows carry in _jl
_JL_STATS = ("_R", "_N", "_num_pos", "_ideal_cost", "_idcg_lin", "_maxrel")


def _jl_stats_sql(d: Dialect, agg: str) -> tuple[str, str]:
    """``_jl``'s columns of the per-query stats and its join of ``_qstat``: where the
    measures are known and neither ``_agg`` (its text ``agg``) nor InterpAP reads one,
    typed NULLs and no join (the join keeps every judged row: each has its (query,
    level) in ``_qstat``), so Spark, which computes a CTE once per reference, computes
    ``_qstat`` once, for ``_values`` (-8% of a five-measure statement's JVM CPU,
    benchmarks/TEST_TIMES.md, spark30)."""
    read = re.search(r"\bjl\.(" + "|".join(_JL_STATS) + r")\b", agg) or reads(d, "interp")
    if d.families is None or read:
        columns = ", ".join(f"st.{c}" for c in _JL_STATS)
        return columns, "\n        JOIN _qstat AS st ON st._q = j._q AND st._level = j._level"
    return ", ".join(f"CAST(NULL AS {d.double}) AS {c}" for c in _JL_STATS), ""


def _irun_sql(d: Dialect) -> str:
    """CTE: nDCG(ideal=run)'s ideal DCG per (measure, group, query) (where the
    statement may compute it)."""
    g, D = d.g, d.double
    gain = "CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, i._rel) - 1 ELSE i._rel END"
    idcg = (
        f"CASE WHEN s._k IS NULL OR i._ipos <= s._k THEN CAST({gain} AS {D})"
        f" / (LN(CAST(i._ipos AS {D}) + 1) / LN(2.0)) END"
    )
    asked = """EXISTS (
                SELECT 1 FROM _specs AS s0 WHERE s0._family = 'nDCG' AND s0._p_ideal = 'run')"""
    body = f"""
        SELECT s._idx, {g('i')}i._q,
            {_osum(d, idcg, 'i._ipos')} AS _idcg_run
        FROM (
            SELECT {g('j')}j._q, j._rel, j._level,
                ROW_NUMBER() OVER (
                    PARTITION BY j._level, {g('j')}j._q ORDER BY j._rel DESC, j._pos
                ) AS _ipos
            FROM _judged AS j
            WHERE j._rel > 0 AND {d.asked(asked)}
        ) AS i
        JOIN _specs AS s
            ON s._family = 'nDCG' AND s._p_ideal = 'run' AND s._level = i._level
        GROUP BY s._idx, {g('i')}i._q
    """
    return keep(d, "irun", f"""
    -- nDCG(ideal=run): the ideal DCG of the run's own judged rows (only when asked)
    _irun AS ({d.guarded("irun", body)}),
""")


def _universe_sql(d: Dialect) -> str:
    """CTEs: the groups, and the evaluated (group, query) pairs with their row counts
    (every qrels query under ``complete``)."""
    g, gj = d.g, d.gj
    return f"""
    _groups AS (SELECT DISTINCT {g('x')}1 AS _one FROM _rq AS x),
    _universe AS (
        SELECT {g('x')}x._q, x._n FROM _rq AS x JOIN _qq AS y ON x._q = y._q
        WHERE NOT {d.complete}
        UNION ALL
        SELECT {g('gr')}y._q, x._n FROM _groups AS gr CROSS JOIN _qq AS y
        LEFT JOIN _rq AS x ON {gj('x', 'gr')}x._q = y._q
        WHERE {d.complete}
    ),"""


def _extra_sql(d: Dialect) -> str:
    """CTEs: the dropped duplicates per (spec, query), then the rarely present extras."""
    g, D = d.g, d.double
    dropw = (
        "CASE WHEN s._family = 'RBP_resid' AND x._tail = 0"
        f" THEN POWER(s._p_p, CAST(x._pos - 1 AS {D})) END"
    )
    irun = f"""
            SELECT x._idx, {g('x')}x._q, x._idcg_run, CAST(NULL AS {D}) AS _nk,
                CAST(NULL AS {D}) AS _dropw
            FROM _irun AS x
            UNION ALL"""
    # the first branch names the columns: _irun's where it is read, else _dropk's
    irun = keep(d, "irun", irun)
    idcg_run, nk = keep(d, "irun", "", " AS _idcg_run"), keep(d, "irun", "", " AS _nk")
    return f"""
    _dropk AS (
        SELECT s._idx, {g('x')}x._q, COUNT(*) AS _nk,
            {_osum(d, dropw, 'x._pos')} AS _dropw
        FROM _dropped AS x JOIN _specs AS s ON s._k IS NULL OR x._pos <= s._k
        GROUP BY s._idx, {g('x')}x._q
    ),
    -- the rarely present extras in one table (one join below): nDCG(ideal=run)'s ideal
    -- DCG, the dropped duplicates
    _extra AS (
        SELECT e._idx, {g('e')}e._q, MAX(e._idcg_run) AS _idcg_run, MAX(e._nk) AS _nk,
            MAX(e._dropw) AS _dropw
        FROM ({irun}
            SELECT x._idx, {g('x')}x._q, CAST(NULL AS {D}){idcg_run}, CAST(x._nk AS {D}){nk}, x._dropw
            FROM _dropk AS x
        ) AS e
        GROUP BY e._idx, {g('e')}e._q
    ),"""


def _usual(d: Dialect) -> Dialect:
    """The macros' dialect ``d`` for the calls whose measures are all of
    :data:`COMMON_FAMILIES` (:func:`_values_sql`).

    >>> _usual(DUCKDB).needs("AP"), _usual(DUCKDB).needs("G"), _usual(DUCKDB).guard
    (True, False, None)
    """
    return replace(d, families=frozenset(COMMON_FAMILIES), guard=None)


def usual_only(d: Dialect) -> str:
    """The macros' condition, constant for a call, that its values come from
    ``_values_usual``: no measure name may read a piece that ``_values_usual`` leaves
    out (:func:`~polars_rankeval._sqlprune.may_ask`).

    >>> usual_only(DUCKDB).startswith("NOT (rankeval_may_ask_gain(given_measures) OR")
    True
    """
    assert d.guard is not None
    left_out = [may_ask(p) for p in READERS if reads(d, p) and not reads(_usual(d), p)]
    return f"NOT ({' OR '.join(left_out)})"


def _values_sql(d: Dialect) -> str:
    """CTEs: the pairs, the extras and one value per requested measure.  The macros
    (``d.guard``) write ``_values`` twice: ``_values_usual``, only the formulas and
    joins of :data:`COMMON_FAMILIES` over ``_agg_usual``, and ``_values`` (every family);
    the statement reads one by name (``query_table``, :func:`usual_only`), and DuckDB
    (2.0) binds only the CTEs it reads: most calls bind none of the rarer families' CTEs
    (their binding and planning was most of a small call's CPU; benchmarks/RESULTS.md,
    duckbind31)."""
    # a call reads _values_usual only when every name is a usual family (usual_only), but
    # DuckDB 1.x computes it for every call: a rarer family's rows there are NULL, never
    # the error _values raises for a family without SQL
    usual = "" if d.guard is None else _one_values_sql(
        _usual(d), "_values_usual", "_agg_usual", others="NULL") + ","  # fmt: skip
    return _universe_sql(d) + _extra_sql(d) + usual + _one_values_sql(d, "_values", "_agg")


def _one_values_sql(d: Dialect, name: str, agg: str, *, others: str | None = None) -> str:
    """The CTE ``name``: one value per requested measure, with the sums of ``agg``."""
    g, gj = d.g, d.gj
    tied = if_average(d, f"\n        LEFT JOIN _tagg AS ta ON ta._idx = s._idx AND {gj('ta', 'u')}ta._q = u._q")
    idcg = "\n        LEFT JOIN _idcg AS ic ON ic._idx = s._idx AND ic._q = u._q"
    cwl = (
        "\n        LEFT JOIN _cwlnorm AS cn ON cn._idx = s._idx"
        f"\n        LEFT JOIN _cwlagg AS cw ON cw._idx = s._idx AND {gj('cw', 'u')}cw._q = u._q"
    )
    windowed = f"\n        LEFT JOIN _windowed AS wv ON wv._idx = s._idx AND {gj('wv', 'u')}wv._q = u._q"
    idcg, cwl, windowed = keep(d, "idcg", idcg), keep(d, "cwl", cwl), keep(d, "windowed", windowed)
    return f"""
    {name} AS (
        SELECT {g('u')}u._q, s._idx, s._name, s._agg,
            CASE WHEN c._ok <> 0 THEN NULL ELSE {_formulas(d, others=others)} END AS _value
        FROM (
            SELECT {g('u1')}u1._q, u1._nall, u1._nall - COALESCE(dq._n, 0) AS _nret
            FROM (
                SELECT {g('u0')}u0._q,
                    CASE WHEN u0._n IS NULL THEN 0 WHEN {d.top} IS NULL THEN u0._n
                         ELSE LEAST(u0._n, {d.top}) END AS _nall
                FROM _universe AS u0
            ) AS u1
            LEFT JOIN (
                SELECT {g('x')}x._q, COUNT(*) AS _n FROM _dropped AS x GROUP BY {g('x')}x._q
            ) AS dq ON {gj('dq', 'u1')}dq._q = u1._q
        ) AS u
        CROSS JOIN _specs AS s
        CROSS JOIN (SELECT {_check_sql(d)} AS _ok FROM _check AS c) AS c
        LEFT JOIN _qstat AS st ON st._q = u._q AND st._level = s._level{idcg}
        LEFT JOIN {agg} AS a ON a._idx = s._idx AND {gj('a', 'u')}a._q = u._q
        LEFT JOIN _extra AS dk ON dk._idx = s._idx AND {gj('dk', 'u')}dk._q = u._q{cwl}{windowed}{tied}
    )"""


def compute_sql(d: Dialect) -> str:
    """The canonical one-pass evaluation, as CTEs after the inputs ``_run`` (group
    columns, _q, _item, _key: higher ranks first, _bad: 1 on a bad run row), ``_qrels``
    (_q, _item, _rel, _bad) and ``_specs`` (one row per requested measure).  Ends with
    ``_values``: group columns, _q, _idx, _name, _agg, _value."""
    return (
        _counts_sql(d) + _dropped_sql(d) + _stats_sql(d) + _judged_sql(d)
        + ties_ctes_sql(d) + _irun_sql(d) + keep(d, "cwl", cwl_ctes_sql(d))
        + _windowed_sql(d)
        + _values_sql(d)
    )


def _windowed_sql(d: Dialect) -> str:
    """CTEs: InterpAP's, Compat's and the diversity family's own (each ending with a
    comma; :mod:`polars_rankeval._sqldiversity`), then their values
    per (spec, group, query) in one table ``_windowed``: those of the families the
    statement may compute (none: no ``_windowed``)."""
    g = d.g
    parts = [
        (ctes, values) for ctes, values, piece in (
            (interp_ctes_sql, "_interpvals", "interp"),
            (compat_ctes_sql, "_compatvals", "compat"),
            (diversity_ctes_sql, "_divvals", "diversity"),
        ) if reads(d, piece)
    ]  # fmt: skip
    union = "\n        UNION ALL\n        ".join(
        f"SELECT x._idx, {g('x')}x._q, x._v FROM {values} AS x" for _, values in parts
    )
    windowed = f"""
    _windowed AS ({d.guarded("windowed", f"{chr(10)}        {union}{chr(10)}    ")}),"""
    # dbt: the diversity CTEs only for a call that asks (then on an adapter that has them)
    return keep(d, "windowed", "".join(
        keep(d, "diversity", ctes(d), no_diversity_sql(d)) if values == "_divvals" else ctes(d)
        for ctes, values in parts
    ) + windowed)


# ---------------------------------------------------------------------------------------
# DuckDB: the measure parser and the public macros


def _spec_columns() -> str:
    """The resolved parameters as one typed column each (_p_norm, _p_k...)."""
    out = []
    for name in all_params():
        value = f"MAX(CASE WHEN v.param = {_quote(name)} THEN v.value END)"
        if not is_choice(name):
            value = f"TRY_CAST({value} AS DOUBLE)"
        out.append(f"{value} AS _p_{name}")
    return ",\n            ".join(out)


def _read(name: str) -> str:
    return (SQL_DIR / name).read_text()


def build_rankeval_sql() -> str:
    """The text of ``sql/rankeval.sql``."""
    parse = _read("entry/parse.sql").replace("{{SPEC_COLUMNS}}", _spec_columns())
    entry = (
        _read("entry/macros.sql")
        .replace("{{COMPUTE}}", compute_sql(DUCKDB).strip("\n"))
        .replace("{{USUAL_ONLY}}", usual_only(DUCKDB))
        .replace("{{SUMMARY}}", summary_sql(DUCKDB, "x.value", "x._agg", "x._q"))
        .replace("{{AVERAGE_FAMILIES}}", ties_supported_list())
        .replace("{{AVERAGE_LIST}}", _quote(", ".join(TIES_FAMILIES)))
        .replace("{{DIVERSITY_FAMILIES}}", ", ".join(_quote(f) for f in DIVERSITY_FAMILIES))
    )
    low_level = []
    for path in sorted(SQL_DIR.glob("*.sql")):
        if path.name.startswith("_") or path.name == "rankeval.sql":
            continue
        low_level.append(f"-- ---- {path.name}\n{path.read_text().rstrip()}\n")
    return "\n".join(
        [
            _read("entry/header.sql").rstrip() + "\n",
            tables_sql(),
            parse.rstrip() + "\n",
            macros_sql(),
            entry.rstrip() + "\n",
            # rankeval_evaluate: the entry point with no measures named, per query
            "-- ---- _evaluate.sql",
            _read("_evaluate.sql").rstrip() + "\n",
            "-- =====================================================================",
            "-- The low-level layer: one table macro per measure family (rankeval_AP,",
            "-- rankeval_nDCG, ...) over columns named query, item, score, relevance.",
            "-- =====================================================================",
            "-- ---- _shared.sql",
            _read("_shared.sql").rstrip() + "\n",
            *low_level,
        ]
    )
