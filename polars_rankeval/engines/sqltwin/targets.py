"""The few places where SQL dialects differ: one table, :data:`TARGETS`, one
:class:`Target` per dialect, read by all three renderings of the canonical SQL.

* ``sql/rankeval.sql`` (DuckDB macros): :data:`polars_rankeval._sqlentry.DUCKDB` is built
  from ``TARGETS["duckdb"]``;
* ``sql.render(..., dialect=...)`` (:mod:`.render`): the target of the dialect;
* the dbt package: ``sql/dbt/macros/_generated_dialect.sql``'s dispatched macros
  (``rankeval.fail``, ``rankeval.real``...) are written from this table
  (:func:`polars_rankeval._sqldbt.dialect_macro`), :data:`PORTABLE` as ``default__``.

The pieces: the double and text types, how an expression raises an error, the score at
trec_eval's single precision, the finite-number test, byte-order text for the item
tie-break, whether a floating-point SUM can add its rows in a given order (``SUM(x ORDER
BY k)``: the same bits on every call); plus how a name is quoted and a string literal
escaped (Spark, BigQuery and Snowflake read backslash escapes in string literals,
PostgreSQL and DuckDB do not).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from polars_rankeval._errors import InputError

__all__ = ["DIALECTS", "PORTABLE", "TARGETS", "Target", "duckdb_real", "require_sqlglot"]

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Target:
    """One SQL dialect: types, error raising, quoting."""

    name: str
    quote: str  # the identifier quote character
    backslash: bool  # string literals and quoted names read backslash escapes
    double: str
    text: str
    integer: str
    fail: Callable[[str], str]  # an expression raising the message (a text expression)
    real: Callable[[str], str]  # the score as trec_eval compares it (single precision)
    finite: Callable[[str], str]  # x is a number, not null, NaN or infinite
    collate: str = ""  # appended to text sorted in byte order
    values: bool = True  # VALUES lists in FROM (typed NULLs in them)
    # SUM(x ORDER BY k) adds in that order: a parallel engine otherwise changes a double
    # sum's last bits from call to call.  Spark, BigQuery and Snowflake have no ordered
    # SUM (only ordered ARRAY_AGG/collect_list): their double sums keep the engine's order.
    ordered_sum: bool = False
    # a 64-bit hash of a column list (the run's duplicate check counts distinct hashes
    # first, exactly only when they repeat); None: exact distinct counts only
    fingerprint: Callable[[str], str] | None = None
    # recursive CTEs that may nest their self-reference in subqueries and windows (the
    # diversity family's greedy ideal ranking, polars_rankeval._sqldiversity)
    recursive: bool = False
    # LGAMMA (log-gamma): ties='average' takes its log-binomials from it; without it a
    # running log-product over the tie group (polars_rankeval._sqlties)
    lgamma: bool = False
    # higher-order array functions (AGGREGATE, TRANSFORM with lambdas, ARRAY_MAX over
    # structs): the greedy ideal ranking as a fold over a query's items instead
    arrays: bool = False
    # the data checks as one aggregate over the per-query counts, not one scalar subquery
    # each: Spark runs every scalar subquery as a job of its own (six jobs, -13% of a
    # five-measure statement's JVM CPU; benchmarks/TEST_TIMES.md, spark30)
    joined_checks: bool = False

    def bytes_order(self, x: str) -> str:
        """``x`` as text that sorts in byte order (trec_eval's strcmp), whatever the collation."""
        return f"CAST({x} AS {self.text}){self.collate}"

    def ordered(self, ordered: str, plain: str) -> str:
        """``ordered`` (an aggregate with ORDER BY) where the dialect has it, else ``plain``."""
        return ordered if self.ordered_sum else plain

    def literal(self, text: str) -> str:
        """``text`` as a string literal of this dialect."""
        if self.backslash:
            for raw, escaped in (("\\", "\\\\"), ("'", "\\'"), ("\n", "\\n"), ("\r", "\\r")):
                text = text.replace(raw, escaped)
            return f"'{text}'"
        return "'" + text.replace("'", "''") + "'"

    def identifier(self, name: object, what: str) -> str:
        """A user's table or column name: a plain word that is no keyword stays unquoted
        (so the warehouse folds its case as it does for the user's own queries), anything
        else is quoted and escaped: always a name, never SQL."""
        if not isinstance(name, str) or not name or "\x00" in name:
            raise InputError(f"{what} must be a non-empty string without NUL, got {name!r}")
        if _PLAIN.fullmatch(name) and name.upper() not in _keywords(self.name):
            return name
        q = self.quote
        if self.name == "bigquery":  # quoted names read escapes as literals do
            body = self.literal(name)[1:-1].replace("\\'", "'").replace("`", "\\`")
        else:
            body = name.replace(q, q + q)
        return f"{q}{body}{q}"

    def number(self, value: float) -> str:
        return f"CAST({float(value)!r} AS {self.double})"


def require_sqlglot() -> None:
    """ImportError naming the extra when sqlglot (its keyword lists) is missing."""
    try:
        import sqlglot  # noqa: F401
    except ImportError:
        raise ImportError(
            "polars_rankeval.sql.render needs sqlglot: pip install 'polars_rankeval[sql]'"
        ) from None


@functools.cache
def _keywords(dialect: str) -> frozenset[str]:
    """sqlglot's keywords of the dialect (with the SQL standard's reserved words)."""
    from sqlglot.dialects.dialect import Dialect as SqlglotDialect

    return frozenset(SqlglotDialect.get_or_raise(dialect).tokenizer_class.KEYWORDS)


def _postgres_finite(x: str) -> str:
    special = ", ".join(
        f"CAST('{v}' AS DOUBLE PRECISION)" for v in ("NaN", "Infinity", "-Infinity")
    )
    return f"({x} IS NOT NULL AND {x} NOT IN ({special}))"


def _snowflake_finite(x: str) -> str:
    # Snowflake's NaN equals itself (unlike IEEE), so NOT IN finds it
    special = ", ".join(f"CAST('{v}' AS DOUBLE)" for v in ("NaN", "inf", "-inf"))
    return f"({x} IS NOT NULL AND {x} NOT IN ({special}))"


# doubles from here up round to infinity in a C float (trec_eval's); DuckDB's cast raises
FLOAT_OVERFLOW = "3.4028235677973366e38"


def duckdb_real(x: str) -> str:
    """``x`` in single precision, a finite double beyond the float range becoming +-inf
    as in C (and polars) rather than DuckDB's conversion error."""
    d = f"CAST({x} AS DOUBLE)"
    return (f"CAST(CAST(CASE WHEN abs({d}) < {FLOAT_OVERFLOW} THEN {d} "
            f"ELSE sign({d}) * CAST('inf' AS DOUBLE) END AS REAL) AS DOUBLE)")


# doubles up to here round to zero in a C float (half its least subnormal, 2^-150);
# PostgreSQL's cast to REAL raises on them ("underflow") as on the overflow above
FLOAT_UNDERFLOW = repr(2.0**-150)


def postgres_real(x: str) -> str:
    """``x`` in single precision as in C: a finite double beyond the float range is
    +-inf, one that rounds to zero is 0, where PostgreSQL's cast raises "value out of
    range" (overflow, underflow)."""
    d = f"CAST({x} AS DOUBLE PRECISION)"
    return (f"CAST(CAST(CASE WHEN abs({d}) >= {FLOAT_OVERFLOW} THEN sign({d}) * "
            f"CAST('Infinity' AS DOUBLE PRECISION) WHEN abs({d}) <= {FLOAT_UNDERFLOW} THEN 0 "
            f"ELSE {d} END AS REAL) AS DOUBLE PRECISION)")


TARGETS: dict[str, Target] = {
    "duckdb": Target(
        "duckdb", '"', False, "DOUBLE", "VARCHAR", "INTEGER",
        fail=lambda m: f"error({m})",
        real=duckdb_real,
        finite=lambda x: f"isfinite({x})",
        ordered_sum=True,
        fingerprint=lambda columns: f"hash({columns})",
        recursive=True,
        lgamma=True,
    ),
    "postgres": Target(
        "postgres", '"', False, "DOUBLE PRECISION", "TEXT", "INTEGER",
        # no raise in an expression: casting the message to a number fails with it
        fail=lambda m: f"CAST(({m}) AS INTEGER)",
        real=postgres_real,
        finite=_postgres_finite,
        collate=' COLLATE "C"',  # byte order, whatever the database's collation
        ordered_sum=True,
        recursive=True,
    ),
    "spark": Target(
        "spark", "`", True, "DOUBLE", "STRING", "INT",
        fail=lambda m: f"raise_error({m})",
        real=lambda x: f"CAST(CAST({x} AS FLOAT) AS DOUBLE)",
        finite=lambda x: f"({x} IS NOT NULL AND NOT isnan({x}) AND abs({x}) <> double('infinity'))",
        arrays=True,
        joined_checks=True,
    ),
    "bigquery": Target(
        "bigquery", "`", True, "FLOAT64", "STRING", "INT64",
        fail=lambda m: f"ERROR({m})",
        real=lambda x: f"CAST({x} AS FLOAT64)",  # no single precision: doubles compared
        finite=lambda x: f"({x} IS NOT NULL AND NOT IS_NAN({x}) AND NOT IS_INF({x}))",
        values=False,
    ),
    "snowflake": Target(
        "snowflake", '"', True, "DOUBLE", "VARCHAR", "INTEGER",
        fail=lambda m: f"CAST(({m}) AS INTEGER)",
        real=lambda x: f"CAST({x} AS DOUBLE)",  # no single precision: doubles compared
        finite=_snowflake_finite,
        values=False,  # its VALUES takes constants only: the typed NULLs are not sure to pass
    ),
}  # fmt: skip
DIALECTS = ("spark", "postgres", "bigquery", "snowflake", "duckdb")

# portable SQL: the dbt package's default__ macros (an adapter without its own row)
PORTABLE = Target(
    "default", '"', False, "DOUBLE PRECISION", "VARCHAR", "INTEGER",
    fail=lambda m: f"CAST(({m}) AS INTEGER)",
    real=lambda x: f"CAST(CAST({x} AS REAL) AS DOUBLE PRECISION)",
    finite=lambda x: f"({x} IS NOT NULL)",
)  # fmt: skip


# the window frame of a running sum or product: every row up to this one, in order
RUNNING = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"


@dataclass(frozen=True)
class Dialect:
    """How the canonical SQL names the group columns, raises errors and types doubles.

    ``g(alias)``: the group columns (``by``) as a select-list prefix ("a._g, ");
    ``gj(a, b)``: a null-safe join condition prefix on them ("a._g IS NOT DISTINCT FROM
    b._g AND "); ``fail(message_sql)``: an expression that raises the message;
    ``ordered(with_order, without)``: an aggregate with ORDER BY where the dialect adds
    doubles in a given order, else the plain one.  The per-dialect pieces come from the
    one table :data:`TARGETS` (:meth:`of`); the
    dbt package passes its dispatched macros, generated from the same table.
    """

    g: Callable[[str], str]
    gj: Callable[[str, str], str]
    fail: Callable[[str], str]
    double: str
    real: Callable[[str], str]
    top: str  # the SQL of the top argument (NULL: all rows)
    complete: str  # the SQL of the complete argument (a boolean)
    first: str  # the SQL of duplicates = 'first' (a boolean)
    text: str
    # an id as text that sorts in byte order (trec_eval's strcmp), whatever the collation
    bytes_order: Callable[[str], str]
    ordered: Callable[[str, str], str]
    # true when ``by`` is empty, where g() is then still a column (DuckDB's constant
    # struct): the ranking leaves it out of its window then ("" elsewhere)
    no_groups: str = ""
    # a 64-bit hash of a column list, where the dialect has one (None: exact counts only)
    fingerprint: Callable[[str], str] | None = None
    # the SQL of ties = 'average' (a boolean): the expected values over every ordering
    # of tied rows; "" where the rendering does not take ties='average'
    average: str = ""
    # the diversity family's recursive CTEs are rendered (see Target.recursive)
    recursive: bool = False
    # the judged rows' positions may come from per-query lists of the run's keys, without
    # ranking every row (DuckDB's macros: list functions and lambdas; _sqlentry)
    judged_positions: bool = False
    # LGAMMA exists (see Target.lgamma)
    lgamma: bool = False
    # the diversity family's greedy ideal is rendered as a fold over arrays (Target.arrays)
    arrays: bool = False
    # the data checks as one aggregate (Target.joined_checks)
    joined_checks: bool = False
    # the families the statement is for (sql.render knows its measures): the CTEs, joins,
    # aggregates and formulas no family of them reads are left out; None: every family
    # (the DuckDB macros and the dbt package, which learn their measures at run time)
    families: frozenset[str] | None = None
    # with ``families``, the (family, parameter, value) of every parameter of the asked
    # measures: a piece read only with a parameter's value (nDCG(ideal=run)) is left
    # out without it; None: read with any value
    settings: frozenset[tuple[str, str, str]] | None = None
    # where the names come later (families None), how a piece a call's measures do not
    # read is left out (polars_rankeval/_sqlprune.py): ``guard(piece)``, a condition on
    # the names the engine folds while planning, around the piece's CTE (DuckDB's
    # macros); ``choose(piece, present, absent)``, the text that picks one when the names
    # are known (the dbt package's Jinja)
    guard: Callable[[str], str] | None = None
    choose: Callable[[str, str, str], str] | None = None

    def needs(self, *families: str) -> bool:
        """True when the statement computes one of ``families`` (always without a list).

        >>> from dataclasses import replace
        >>> d = Dialect.of(TARGETS["spark"], g=lambda a: "", gj=lambda a, b: "", top="NULL",
        ...                complete="FALSE", first="FALSE")
        >>> d.needs("G"), replace(d, families=frozenset({"AP"})).needs("G", "nDCG")
        (True, False)
        """
        return self.families is None or not self.families.isdisjoint(families)

    def only_when(self, condition: str | Callable[[Callable[[str], str]], str], body: str) -> str:
        """A CTE's ``body`` read only when ``condition`` holds, where the condition is
        constant for a call and folded while planning (``guard``: DuckDB's macros); the
        body as it is elsewhere.  ``condition``: the SQL, or how to write it from the
        guard (:meth:`guarded`).

        >>> Dialect.of(TARGETS["spark"], g=lambda a: "", gj=lambda a, b: "", top="NULL",
        ...            complete="FALSE", first="FALSE").only_when("x", "SELECT 1")
        'SELECT 1'
        """
        if self.guard is None:
            return body
        sql = condition if isinstance(condition, str) else condition(self.guard)
        return f"SELECT * FROM ({body}) AS __rk_guarded WHERE {sql}"

    def asked(self, condition: str) -> str:
        """``condition`` (an EXISTS over ``_specs``: a measure reading a CTE is asked)
        where the measures come later (the macros, the dbt package); ``TRUE`` where they
        are known (``settings``: sql.render leaves the CTE out unless asked, and Spark
        runs each such subquery as a job of its own).

        >>> from dataclasses import replace
        >>> d = Dialect.of(TARGETS["spark"], g=lambda a: "", gj=lambda a, b: "", top="NULL",
        ...                complete="FALSE", first="FALSE")
        >>> d.asked("EXISTS (...)"), replace(d, settings=frozenset()).asked("EXISTS (...)")
        ('EXISTS (...)', 'TRUE')
        """
        return condition if self.settings is None else "TRUE"

    def guarded(self, piece: str, body: str) -> str:
        """A CTE's ``body`` read only when the call may read ``piece`` (:meth:`only_when`
        with the macros' condition on the names)."""
        return self.only_when(lambda guard: guard(piece), body)

    @classmethod
    def of(
        cls, t: Target, *, g: Callable[[str], str], gj: Callable[[str, str], str],
        top: str, complete: str, first: str, no_groups: str = "", average: str = "",
    ) -> Dialect:  # fmt: skip
        """The dialect of target ``t`` (its row of the table) with these groups and options."""
        return cls(
            g=g, gj=gj, fail=t.fail, double=t.double, real=t.real, top=top,
            complete=complete, first=first, text=t.text, bytes_order=t.bytes_order,
            ordered=t.ordered, no_groups=no_groups, fingerprint=t.fingerprint,
            average=average, recursive=t.recursive, lgamma=t.lgamma, arrays=t.arrays,
            joined_checks=t.joined_checks,
        )  # fmt: skip

    def log2_discount(self, position: str) -> str:
        """log2(position + 1), the DCG discount, as trec_eval's nDCG takes it."""
        return f"(LN(CAST({position} AS {self.double}) + 1) / LN(2.0))"
