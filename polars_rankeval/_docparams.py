"""The parameters the public functions share, each described once.

A docstring names shared parameters with a placeholder in its ``Parameters`` section,
``{params: by, complete, ties}`` (on lines of their own); :func:`fill_params` replaces it, when the
function is defined, with those entries in numpydoc form, so ``help()``,
``__doc__``, editors and doctests see the whole text (pandas' ``@doc`` and
``Substitution`` do the same).  A parameter whose meaning differs between functions has
a named variant, ``by@compare``, shown as ``by``.  The documentation site fills the same
placeholders (``docs/hooks/shared_params.py``); ``tests/test_structure.py`` checks that
every public docstring documents exactly its signature's parameters and that no
parameter is described twice in different words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["PARAMS", "fill", "fill_params"]

F = TypeVar("F", bound=Callable[..., object])

# key (``name`` or ``name@variant``), then its description indented by four spaces
_TABLE = """
run
    Long format, one row per retrieved item: ``query``, ``item`` and ``score`` (ranked
    as trec_eval ranks: score descending, ties by item descending, byte order) or
    ``rank`` (1 = top; used when there is no score column, or with ``score=None``); plus
    ``relevant`` when no qrels are given.
runs
    A mapping ``name -> run frame``, or one frame with a ``system`` column.
qrels
    Optional judgments ``query, item, relevance``.  With qrels, relevance comes from
    them (unjudged = not relevant) and so do R and the ideal nDCG ranking; without, from
    the run's ``relevant`` column (recall is then relative to what was retrieved).
measures
    Names such as ``"AP"``, ``"nDCG@10"``, ``"P(rel=2)@5"``, ``"AP(norm=min)@10"`` or
    trec_eval names (``"map"``, ``"ndcg_cut_10"``).
per_query
    Return one row per query and measure (``<by...>, <query>, measure, value``) instead
    of each measure's summary over the queries (``<by...>, measure, value``: the mean;
    the sum for the counts, the geometric mean for GMAP and GMBpref).
by
    Columns of the run to evaluate separately (systems, A/B arms, segments): each group
    is evaluated as its own run (judgments join on the query only).  The ``by`` columns
    lead the output.
by@compare
    Columns of the runs that split the queries into groups (segments such as a query
    category, or days): every comparison is made within each group, over the queries
    of that group.  The ``by`` columns lead the output.
complete
    Average over every qrels query, those the run misses scoring 0 (trec_eval ``-c``).
    By default only queries in both run and qrels count; run-only queries are ignored
    with a warning that counts them.
conventions
    Preset for parameters a name leaves unset: ``"trec_eval"`` (default), ``"kaggle"``,
    ``"spark"``, ``"torchmetrics"``.
duplicates
    ``"error"`` (default, as trec_eval): a repeated (``by...``, query, item) row of the
    run is an error; ``"first"``: keep the best-ranked row of each (``evaluate``'s polars
    and duckdb engines warn with the number dropped).
rel
    Default relevance level for measures without their own ``rel=`` (trec_eval ``-l``).
top
    Keep only the top ``top`` rows of each query after ranking (trec_eval ``-M``).
ties
    ``"trec_eval"`` (default): tied scores (or ranks) are ordered by item descending.
    ``"average"``: each value is the expected value over every ordering of the tied rows
    of a query, in closed form (McSherry & Najork, ECIR 2008), as sklearn's and
    torchmetrics' nDCG do.  For AP (norm=R, min; hits without a cutoff), P, R, nDCG, RR,
    Success, Rprec and the counts; not with ``top`` or ``duplicates="first"``.
ties@sql
    ``"first"`` (default) or ``"trec_eval"``, the same: tied scores (or ranks) are
    ordered by item descending.  ``"average"``: the expected value over every ordering
    of the tied rows, for the measures :func:`~polars_rankeval.evaluate` computes it for.
engine
    ``"polars"`` (default), ``"duckdb"`` (the SQL users' macro ``rankeval_per_query`` of
    ``sql/rankeval.sql``, in an in-process DuckDB) or ``"spark"`` (chosen by itself when
    ``run`` is a pyspark DataFrame; it returns a pyspark DataFrame).
partitions
    The polars engine evaluates the queries in this many partitions (split by a hash of
    the query id), one after the other: memory follows the largest partition, not the
    run, and the values are the same bits.  Default: one per 2.5M run rows, at most 8
    (each partition reads the run again), when the row count is known without reading
    the rows (a DataFrame, a bare ``scan_parquet`` or ``scan_ipc``: their metadata), else
    one.
query
    Name of the query id column (of the run and the qrels).
item
    Name of the item id column (of the run and the qrels).
rank
    Name of the run's rank column (1 = top): it ranks the run when the run has no score
    column, or with ``score=None``.
rank@sql
    Name of the run's rank column (1 = top): given (or with ``score=None``: the column
    ``rank``), the run is ranked by it, ascending, instead of by score.
score
    Name of the run's score column: the run is ranked as trec_eval ranks, score
    descending, ties by item descending (byte order).
relevant
    Name of the run's relevance label column, read when no qrels are given.
relevance
    Name of the qrels' relevance column.
subtopic
    Qrels holding this column are subtopic qrels, ``query, subtopic, item,
    relevance``, for every measure: the diversity measures such as ``alpha_nDCG@20``
    read them (see :mod:`polars_rankeval.diversity`), the others an item's highest
    relevance over its subtopics.
subtopic@sql
    The qrels' subtopic column, or None (topic qrels).  With it the qrels are subtopic
    qrels (``query, subtopic, item, relevance``): the diversity measures
    (``alpha_nDCG@20``, ``nERR_IA@10``, ``NRBP``...) are computed, the others see an
    item's highest relevance over its subtopics, and the subtopic qrels' checks (null
    subtopic, repeated (query, subtopic, item), weights) raise whatever the measures.
intent_weight
    A column of the subtopic qrels holding the weight of each (query, subtopic), the
    same on all its rows: the intent-aware measures (ERR_IA, nERR_IA, P_IA, AP_IA)
    become weighted means over the subtopics (default None: equal weights, as ndeval).
baseline
    Compare every other system against this one; None compares every pair (in the order
    the systems are given: the later one is ``system``, the earlier ``baseline``).
test
    ``"t"`` (paired Student's t-test; interval: the t interval of the mean difference),
    ``"randomization"`` (sign-flip permutation test of the mean difference, exact when
    2^n <= n_resamples; interval: the test inverted, every shift of the differences it
    does not reject) or ``"bootstrap"`` (paired bootstrap of the mean difference:
    shifted-null p-value, percentile interval).  All two-sided; the ``ci_method``
    column names the interval.  The test runs on the per-query differences; for GMAP on
    the differences of log(max(AP, 1e-5)) (a test of the ratio of geometric means),
    whose interval maps onto ``delta`` as ``baseline_mean * (exp(x) - 1)``; for counts
    the interval of the mean difference times ``n_queries``.
correction
    Multiple-comparison correction: ``"holm"`` (default), ``"bonferroni"``, ``"bh"``
    (Benjamini-Hochberg) or None.  The family is every comparison of one measure: all
    pairs in all ``by`` groups (groups x pairs p-values per measure).
alpha
    Significance level; the intervals are (1 - alpha) intervals.
n_resamples
    Number of resamples of the resampling tests (at most 10^7).
seed
    Seed of ``numpy.random.default_rng`` for the resampling tests (the same for every
    comparison, so a pair's result does not depend on the other systems).
system
    Name of the system column (of the one-frame form; the output column is
    ``system``).
cutoffs
    The k of the checks at a cutoff (score ties across positions k and k + 1, unjudged
    items in the top k); a bare int is one cutoff.
cutoffs@report
    The k of the P@k, R@k and nDCG@k curves (default: 1, 2, 3, 5, 10, ... up to the
    deepest ranking).
rank@expr
    Column (or expression) with the 1-based position of each row in its group.
relevance@expr
    Column (or expression) with the relevance label (bool, int or float).
num_relevant
    Optional column holding R for the row's query (e.g. joined from qrels); by default
    R is the number of relevant rows in the group.
"""


def _parse(table: str) -> dict[str, str]:
    """The table's entries: each key line and the indented lines under it, dedented."""
    entries: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in table.strip("\n").splitlines():
        if line.startswith(" "):
            lines.append(line[4:])
        elif line in entries:
            raise ValueError(f"{line!r} is twice in the table")
        else:
            lines = entries[line] = []
    return {key: "\n".join(lines) for key, lines in entries.items()}


PARAMS = _parse(_TABLE)


def _entries(indent: str, keys: list[str]) -> list[str]:
    """The table's entries for ``keys``, in numpydoc form, indented by ``indent``."""
    lines = []
    for key in keys:
        if key not in PARAMS:
            raise KeyError(f"{key!r} is not in polars_rankeval._docparams' table")
        lines.append(indent + key.partition("@")[0])
        lines += [f"{indent}    {line}" for line in PARAMS[key].splitlines()]
    return lines


def fill(doc: str) -> str:
    """``doc`` with each ``{params: key, ...}`` line replaced by those entries.

    >>> print(fill("Parameters\\n----------\\n{params: top, rel}"))
    Parameters
    ----------
    top
        Keep only the top ``top`` rows of each query after ranking (trec_eval ``-M``).
    rel
        Default relevance level for measures without their own ``rel=`` (trec_eval ``-l``).
    """
    out: list[str] = []
    keys: list[str] | None = None  # the keys of the placeholder being read (lines of its own)
    indent = ""
    for line in doc.split("\n"):
        text = line.strip()
        if keys is None and text.startswith("{params:"):
            indent, keys, text = line[: len(line) - len(line.lstrip())], [], text[len("{params:") :]
        if keys is None:
            out.append(line)
            continue
        keys += [key.strip() for key in text.rstrip("}").split(",") if key.strip()]
        if text.endswith("}"):
            out += _entries(indent, keys)
            keys = None
    if keys is not None:
        raise ValueError(f"a {{params: ...}} placeholder has no closing brace: {keys}")
    return "\n".join(out)


def fill_params(func: F) -> F:
    """Decorator: fill the shared parameters into ``func``'s docstring (:func:`fill`)."""
    if func.__doc__:  # None under python -OO
        func.__doc__ = fill(func.__doc__)
    return func
