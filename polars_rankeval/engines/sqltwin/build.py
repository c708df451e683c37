"""The SQL twin's files (``sql/`` in the repository, ``polars_rankeval._sqlfiles`` in the
wheel) and the one-pass evaluation query both engines build on them.

The ``.sql`` files are the canonical SQL: DuckDB macros, one file per measure family
(``AP.sql`` defines ``rankeval_AP_value``, an aggregate over the rows of one query, and
``rankeval_AP``, a table macro) plus ``_shared.sql`` (ranking, qrels join, per-query
stats).  :func:`build_query` assembles an evaluation of any list of measures from them,
in one pass over the ranked, joined run per relevance level; it is executed as is by
:mod:`polars_rankeval.engines.duckdb` (macros installed, values bound as ``$p`` parameters) and
inlined and transpiled by :mod:`polars_rankeval.engines.sqltwin.render`.

Every name that appears in the generated text is one of ours (views, CTEs, ``_m{i}``,
stat columns); user values only ever travel as bound parameters.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from polars_rankeval._errors import MeasureError
from polars_rankeval._registry import Measure, Stat

__all__ = [
    "Macro",
    "Query",
    "build_query",
    "expected_macro",
    "macros",
    "sql_files",
    "value_macro",
]

SHARED = "_shared.sql"
EVALUATE = "_evaluate.sql"
ENTRY = "rankeval.sql"

# Parameters of a family's value macro that are columns of rankeval_joined ...
ROW_ARGUMENTS = {
    "pos": "_pos",
    "rel_value": "_rel",
    "hits": "_hits",
    "nonrel": "_nonrel",
    "ideal_pos": "_ideal_pos",
    "num_rel": "_num_rel",
    "num_nonrel": "_num_nonrel",
    "pooled": "_pooled",
    "err_decay": "_err_decay",
    # ... and of rankeval_gains (rankeval_joined plus the ideal ranking at each row's
    # position), which a level's pass reads instead when a measure needs one of these
    "run_cg": "_run_cg",
    "run_dcg": "_run_dcg",
    "ideal_cost": "_ideal_cost",
    "ideal_dcg": "_ideal_dcg",
    "ideal_level_ends": "_ideal_level_ends",
}
GAIN_ARGUMENTS = {"run_cg", "run_dcg", "ideal_cost", "ideal_dcg", "ideal_level_ends"}
# ... of which these depend on the relevance level the rows were joined at.
LEVEL_ARGUMENTS = {"hits", "nonrel", "num_rel", "num_nonrel"}
# Parameters that are per-query stats joined from the qrels side (kind of Stat).
STAT_ARGUMENTS = {
    "idcg": "idcg",
    "max_rel": "max_rel",
    "num_pos": "num_pos",
    "gain_sum": "ideal_gain",
    "cost_sum": "ideal_cost",
    "gain_levels": "gain_levels",
}
# Parameters of a family's expected macro (ties='average') that are the tie-group
# columns rankeval_tied adds to rankeval_joined's; tie_r, tie_h, tie_q depend on the level.
TIE_ARGUMENTS = {
    "tie_n": "_tie_n",
    "tie_s": "_tie_s",
    "tie_r": "_tie_r",
    "tie_h": "_tie_h",
    "tie_q": "_tie_q",
    "tie_gain_linear": "_tie_gain_linear",
    "tie_gain_exp": "_tie_gain_exp",
}
LEVEL_ARGUMENTS |= {"tie_r", "tie_h", "tie_q"}

_MACRO = re.compile(
    r"CREATE\s+OR\s+REPLACE\s+MACRO\s+(\w+)\s*\(([^()]*)\)\s*AS\s+(TABLE\s+)?(.*)",
    re.IGNORECASE | re.DOTALL,
)


def sql_dir() -> Path | resources.abc.Traversable:
    try:
        return resources.files("polars_rankeval._sqlfiles")
    except ModuleNotFoundError:  # a source checkout that was not installed
        return Path(__file__).resolve().parents[3] / "sql"


@functools.cache
def sql_files() -> tuple[tuple[str, str], ...]:
    """(file name, text) of every ``.sql`` file, in install order: ``_shared.sql``, the
    family files (alphabetical), then the other ``_*.sql`` files."""
    directory = sql_dir()
    # rankeval.sql is the generated SQL users' entry point (it repeats these files)
    names = sorted(
        p.name for p in directory.iterdir() if p.name.endswith(".sql") and p.name != ENTRY
    )
    if SHARED not in names:
        raise RuntimeError(f"the SQL twin is not installed: no {SHARED} in {directory}")
    families = [n for n in names if not n.startswith("_")]
    others = [n for n in names if n.startswith("_") and n != SHARED]
    order = [SHARED, *families, *others]
    return tuple((n, directory.joinpath(n).read_text(encoding="utf-8")) for n in order)


def _strip_comments(text: str) -> str:
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def statements(text: str) -> list[str]:
    """The statements of a file, comments removed (the files keep ``--`` and ``;`` out of
    string literals)."""
    return [s.strip() for s in _strip_comments(text).split(";") if s.strip()]


@dataclass(frozen=True)
class Macro:
    """One ``CREATE OR REPLACE MACRO`` of the SQL files."""

    name: str
    params: tuple[str, ...]
    defaults: dict[str, str] = field(hash=False)  # parameter -> default, as SQL text
    table: bool
    body: str
    file: str


@functools.cache
def macros() -> dict[str, Macro]:
    """Every macro of the SQL files by lower-case name (DuckDB names are case-insensitive)."""
    found: dict[str, Macro] = {}
    for file, text in sql_files():
        for statement in statements(text):
            match = _MACRO.fullmatch(statement)
            if match is None:
                raise RuntimeError(f"{file}: not a CREATE OR REPLACE MACRO: {statement[:80]!r}")
            name, params_text, table, body = match.groups()
            params: list[str] = []
            defaults: dict[str, str] = {}
            for part in filter(None, (p.strip() for p in params_text.split(","))):
                pname, _, default = (x.strip() for x in part.partition(":="))
                params.append(pname)
                if default:
                    defaults[pname] = default
            if name.lower() in found:
                raise RuntimeError(f"{file}: macro {name} defined twice")
            found[name.lower()] = Macro(name, tuple(params), defaults, bool(table), body, file)
    return found


def value_macro(family: str) -> Macro:
    """The aggregate macro ``rankeval_<family>_value`` of a family's SQL file."""
    macro = macros().get(f"rankeval_{family}_value".lower())
    if macro is None or macro.file != f"{family}.sql":
        raise MeasureError(
            f"measure family {family} has no SQL twin (sql/{family}.sql defining "
            f"rankeval_{family}_value); use engine='polars'"
        )
    return macro


def expected_macro(family: str) -> Macro:
    """The aggregate macro ``rankeval_<family>_expected`` (ties='average') of a family's
    SQL file, over rows of ``rankeval_tied``."""
    macro = macros().get(f"rankeval_{family}_expected".lower())
    if macro is None or macro.file != f"{family}.sql":
        raise MeasureError(
            f"measure family {family} has no SQL twin for ties='average' (sql/{family}.sql "
            f"defining rankeval_{family}_expected); use engine='polars'"
        )
    return macro


def family_sql_names() -> set[str]:
    """Families that have a SQL file."""
    return {name[: -len(".sql")] for name, _ in sql_files() if not name.startswith("_")}


class Params:
    """``$p<n>`` placeholders for values, one per distinct (type, value)."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self._names: dict[tuple[str, object], str] = {}

    def __call__(self, value: object) -> str:
        if value is not None and not isinstance(value, str | int | float):
            raise TypeError(f"cannot bind {value!r}")
        key = (type(value).__name__, value)
        if key not in self._names:
            name = f"p{len(self._names)}"
            self._names[key] = name
            self.values[name] = value
        return "$" + self._names[key]


def name_literal(name: str) -> str:
    """One of our own view names as a SQL string literal (for ``query_table``)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not an internal view name: {name!r}")
    return f"'{name}'"


def quote(name: str) -> str:
    """A double-quoted SQL identifier (for our own internal names)."""
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Query:
    """The evaluation query text (DuckDB, with ``rankeval_*`` macros and ``$p`` params)."""

    sql: str
    params: dict[str, object]
    stat_columns: list[str]


def _stat_sql(stat: Stat, p: Params) -> str:
    if stat.kind == "num_rel":
        return f"rankeval_num_rel(i._rel, {p(stat.level)})"
    if stat.kind == "num_nonrel":
        return f"rankeval_num_nonrel(i._rel, {p(stat.level)})"
    if stat.kind == "idcg":
        return f"CAST(rankeval_dcg(i._rel, i._ideal_pos, {p(stat.k)}, {p(stat.gain)}) AS DOUBLE)"
    if stat.kind == "max_rel":
        return "CAST(MAX(CASE WHEN i._rel >= 0 THEN i._rel END) AS DOUBLE)"
    if stat.kind in ("num_pos", "ideal_gain", "ideal_cost", "gain_levels"):
        return f"rankeval_{stat.kind}(i._rel)"
    raise ValueError(f"no SQL for stat {stat!r}")


def _call(m: Measure, macro: Macro, p: Params, stat_alias: str) -> tuple[str, bool]:
    """The value macro call for one measure over rows ``j`` (and stats ``stat_alias``);
    also whether it reads a stat column."""
    params = dict(m.params)
    args: list[str] = []
    uses_stats = False
    for name in macro.params:
        if name in ROW_ARGUMENTS:
            args.append(f"j.{ROW_ARGUMENTS[name]}")
        elif name in TIE_ARGUMENTS:
            args.append(f"j.{TIE_ARGUMENTS[name]}")
        elif name == "k":
            args.append(p(m.k))
        elif name in params:  # before the stats: C/W/L's max_rel is a parameter
            value = params[name]
            args.append(p(float(value) if name == "rel" else value))
        elif name in STAT_ARGUMENTS:
            stats = [s for s in m.stats() if s.kind == STAT_ARGUMENTS[name]]
            if stats:
                args.append(f"{stat_alias}.{quote(stats[0].column)}")
                uses_stats = True
            else:
                args.append("NULL")
        else:
            raise RuntimeError(
                f"{macro.file}: {macro.name} has parameter {name!r}, which is neither a "
                f"column of rankeval_joined ({', '.join(ROW_ARGUMENTS)}), a stat "
                f"({', '.join(STAT_ARGUMENTS)}), k, nor a parameter of {m.family.name}"
            )
    return f"{macro.name}({', '.join(args)})", uses_stats


def _levels(measures: Sequence[Measure], macros_: Sequence[Macro]) -> dict[float, list[int]]:
    """Measure indices by the relevance level their rows must be joined at; measures
    whose macro reads no level-dependent column go with the first level."""
    levels: dict[float, list[int]] = {}
    free: list[int] = []
    for i, (m, macro) in enumerate(zip(measures, macros_, strict=True)):
        if any(name in LEVEL_ARGUMENTS for name in macro.params):
            levels.setdefault(m.rel, []).append(i)
        else:
            free.append(i)
    if not levels:
        levels[measures[0].rel] = []
    first = next(iter(levels))
    levels[first] = sorted(levels[first] + free)
    return levels


def _qstats_cte(stats: Sequence[Stat], stats_view: str, p: Params) -> str:
    select = "".join(f",\n        {_stat_sql(s, p)} AS {quote(s.column)}" for s in stats)
    return (
        "qstats AS (\n    SELECT i.query" + select
        + f"\n    FROM rankeval_ideal({name_literal(stats_view)}) AS i\n    GROUP BY i.query\n)"
    )


def _level_cte(
    n: int, level: float, calls: Sequence[tuple[int, str, bool]], *, rows_macro: str,
    run_view: str, qrels_view: str, raw_query: Callable[[str], str], duplicates: str,
    p: Params,
) -> str:
    """One pass over the rows joined at ``level``: a value column per measure call."""
    columns = "".join(f",\n        {call} AS {quote(f'_m{i}')}" for i, call, _ in calls)
    join_stats = any(uses_stats for _, _, uses_stats in calls)
    stats_join = f"\n    LEFT JOIN qstats AS s ON {raw_query('j')} = s.query" if join_stats else ""
    rows = (
        f"{rows_macro}({name_literal(run_view)}, {name_literal(qrels_view)}, "
        f"rel := {p(level)}, duplicates := {p(duplicates)})"
    )
    return (
        f"level{n} AS (\n    SELECT j.query{columns}\n    FROM {rows} AS j{stats_join}"
        "\n    GROUP BY j.query\n)"
    )


def _engine_select(
    values: Sequence[str], joins: str, stat_columns: Sequence[str], *, by: Sequence[str],
    has_qrels: bool, raw_query: Callable[[str], str],
) -> str:
    """One row per run key and per qrels query: ``_b0``.., ``_q``, ``_m{i}``, stats,
    ``_in_run``, ``_in_qrels``."""
    keys = [f"l0.query.{quote(f'b{n}')} AS {quote(f'_b{n}')}" for n in range(len(by))]
    key = "l0.query.q" if by else "l0.query"
    if not has_qrels:
        select = [*keys, f"{key} AS _q", *values, "TRUE AS _in_run", "TRUE AS _in_qrels"]
        return "SELECT " + ",\n    ".join(select) + "\nFROM level0 AS l0" + joins
    select = [
        *keys,
        f"COALESCE({key}, s.query) AS _q",
        *values,
        *(f"s.{quote(c)}" for c in stat_columns),
        "l0.query IS NOT NULL AS _in_run",
        "s.query IS NOT NULL AS _in_qrels",
    ]
    tail = f"\nFULL JOIN qstats AS s ON {raw_query('l0')} = s.query"
    return "SELECT " + ",\n    ".join(select) + "\nFROM level0 AS l0" + joins + tail


def _long_select(
    values: Sequence[str], joins: str, names: Sequence[str], *, has_qrels: bool, p: Params
) -> str:
    """``query, measure, value`` for the run queries in the qrels (``names``: labels)."""
    cases = "".join(f" WHEN {i} THEN {v}" for i, v in enumerate(values))
    rows = ", ".join(f"({i}, {p(name)})" for i, name in enumerate(names))
    stats_filter = "\nJOIN qstats AS s ON l0.query = s.query" if has_qrels else ""
    return (
        "SELECT l0.query AS query, m.measure AS measure,\n"
        f"    CASE m.ord{cases} END AS value\n"
        "FROM level0 AS l0"
        + stats_filter
        + joins
        + f"\nCROSS JOIN (VALUES {rows}) AS m(ord, measure)"
        + "\nORDER BY l0.query, m.ord"
    )


def _level_ctes(
    measures: Sequence[Measure], macros_: Sequence[Macro], levels: dict[float, list[int]], p: Params,
    *, average: bool, run_view: str, qrels_view: str, raw_query: Callable[[str], str],
    duplicates: str,
) -> tuple[list[str], dict[int, str]]:
    """One CTE ``level<n>`` per relevance level, computing the measures that read it, and
    the alias (``l<n>``) of the CTE holding each measure's value, by measure index."""
    ctes: list[str] = []
    source: dict[int, str] = {}
    for n, (level, indices) in enumerate(levels.items()):
        calls = [(i, *_call(measures[i], macros_[i], p, "s")) for i in indices]
        source |= {i: f"l{n}" for i in indices}
        gains = any(a in GAIN_ARGUMENTS for i in indices for a in macros_[i].params)
        rows_macro = "rankeval_tied" if average else "rankeval_joined"
        ctes.append(_level_cte(
            n, level, calls, rows_macro="rankeval_gains" if gains else rows_macro,
            run_view=run_view, qrels_view=qrels_view, raw_query=raw_query,
            duplicates=duplicates, p=p,
        ))
    return ctes, source


def build_query(
    measures: Sequence[Measure],
    *,
    run_view: str,
    qrels_view: str,
    stats_view: str,
    raw_query: Callable[[str], str],
    duplicates: str,
    final: str,
    has_qrels: bool = True,
    by: Sequence[str] = (),
    names: Sequence[str] = (),
    ties: str = "trec_eval",
) -> Query:
    """The evaluation of ``measures`` as one query.

    ``run_view`` (query, item, score) is ranked and joined with ``qrels_view`` (query,
    item, relevance) by ``rankeval_joined``, once per relevance level that a measure's
    cumulative or per-query columns depend on; per-query stats (R, N, ideal DCG) come
    from ``stats_view`` (query, item, relevance), keyed by ``raw_query(alias)`` of a run
    key.  ``final``:

    * ``"engine"``: one row per run key and per ``stats_view`` query (a full join):
      ``_b0``.. (the ``by`` fields of a struct key), ``_q``, ``_m{i}``, the stat
      columns, ``_in_run``, ``_in_qrels``;
    * ``"long"``: ``query, measure, value`` for the run queries in ``stats_view``
      (``names`` are the measure labels).

    ``ties="average"``: the expected values over every ordering of tied rows, by the
    ``rankeval_<family>_expected`` macros over ``rankeval_tied``.
    """
    if final not in ("engine", "long"):
        raise ValueError(final)
    p = Params()
    average = ties == "average"
    macro_of = expected_macro if average else value_macro
    macros_ = [macro_of(m.family.name) for m in measures]
    levels = _levels(measures, macros_)
    stats = list(dict.fromkeys(s for m in measures for s in m.stats()))
    level_ctes, source = _level_ctes(
        measures, macros_, levels, p, average=average, run_view=run_view, qrels_view=qrels_view,
        raw_query=raw_query, duplicates=duplicates,
    )  # fmt: skip
    ctes = [_qstats_cte(stats, stats_view, p), *level_ctes]
    joins = "".join(
        f"\nLEFT JOIN level{n} AS l{n} ON l0.query = l{n}.query" for n in range(1, len(levels))
    )
    values = [f"{source[i]}.{quote(f'_m{i}')}" for i in range(len(measures))]
    stat_columns = [s.column for s in stats]
    if final == "engine":
        body = _engine_select(
            values, joins, stat_columns, by=by, has_qrels=has_qrels, raw_query=raw_query
        )
    else:
        body = _long_select(values, joins, names, has_qrels=has_qrels, p=p)
    return Query("WITH " + ",\n".join(ctes) + "\n" + body, p.values, stat_columns)
