"""trec_eval 10.0's behaviours that live in its command, not in its measures.

Each helper names the trec_eval source it follows: measure nicknames (``measures.c``),
``-m rbp.p=0.8`` pair parameters (``meas_init.c``), ``-J`` (``form_res_rels.c``), the
``num_rel`` total under ``-c`` (``m_num_rel.c``), ``-Z`` z-scores
(``convert_zscores.c``, ``get_zscores.c``) and ``relstring`` (``m_relstring.c``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

import polars as pl

from polars_rankeval._errors import InputError

__all__ = [
    "Measures",
    "judged_only",
    "num_rel_complete",
    "relstring",
    "resolve",
    "trec_eval_nans",
    "with_nans",
    "zscores",
]

# trec_eval's `set` nickname (measures.c set_names); `official` is its default set
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
        "set_recall", "set_relative_P", "set_map", "set_F")  # fmt: skip
_PAIR_PARAMS = {"rbp": "RBP", "rbp_resid": "RBP_resid"}  # measures taking name=value
MISSING_ZSCORE = -1000000.0  # trec_eval.h MISSING_ZSCORE_VALUE
RELSTRING_LENGTH = 10  # m_relstring.c's default N


class Measures(NamedTuple):
    """The measures of a command line: names in print order, and for each the name
    printed (``rbp_p=0.8``) and the library measure computed (``RBP(p=0.8)``)."""

    names: list[str]
    labels: Mapping[str, str] = MappingProxyType({})
    library: Mapping[str, str] = MappingProxyType({})
    relstring_length: int = RELSTRING_LENGTH

    def label(self, name: str) -> str:
        return self.labels.get(name, name)

    def measure(self, name: str) -> str:
        return self.library.get(name, name)


def resolve(options: Sequence[str] | None) -> Measures:
    """Expand ``-m`` options as trec_eval does, nicknames and pair parameters included.

    >>> m = resolve(["rbp.p=0.8", "official"])
    >>> m.names[:3], m.label("rbp"), m.measure("rbp")
    (['runid', 'num_q', 'num_ret'], 'rbp_p=0.8', 'RBP(p=0.8)')
    >>> m = resolve(["relstring.20"])
    >>> m.names, m.label("relstring"), m.relstring_length
    (['relstring'], 'relstring_20', 20)
    """
    from polars_rankeval._trec_names import _parses, expand

    labels, library, plain = {}, {}, []
    length = RELSTRING_LENGTH
    for option in options or []:
        base, dot, params = option.strip().partition(".")
        if option == "official":
            plain.append("trec")
        elif option == "set":
            plain += [n for n in _SET if n in ("runid", "num_q") or _parses(n)]
        elif dot and base in labels:  # meas_init.c: the first NAME.PARAMS of a measure wins
            continue
        elif dot and base in _PAIR_PARAMS and "=" in params:
            labels[base] = f"{base}_{params}"
            library[base] = f"{_PAIR_PARAMS[base]}({params.replace(',', ', ')})"
            plain.append(base)
        elif dot and base == "relstring":
            labels[base], length = f"relstring_{params}", _relstring_length(option, params)
            plain.append(base)
        else:
            plain.append(option)
    return Measures(expand(plain or None), labels, library, length)


def _relstring_length(option: str, params: str) -> int:
    try:
        return int(float(params))  # trec_eval reads it with atof, then uses it as a long
    except ValueError:
        raise InputError(f"-m {option}: cannot read the length {params!r}") from None


def relstring(run: pl.LazyFrame, qrels: pl.LazyFrame, length: int) -> pl.LazyFrame:
    """trec_eval's ``relstring`` (m_relstring.c): per query, the relevance of its first
    ``length`` documents in trec_eval's order, one character each.

    A grade 0-9 is printed as its digit, above 9 as ``>``, a negative judgment (in the
    pool, not judged) as ``.``, a document not in the query's qrels as ``-``.  Under
    ``--duplicates first`` the dropped repeats keep their positions, as in the measures.

    >>> run = pl.LazyFrame({"query": ["q"] * 4, "item": ["a", "b", "c", "d"],
    ...                     "score": [4.0, 3.0, 2.0, 1.0]})
    >>> qrels = pl.LazyFrame({"query": ["q"] * 3, "item": ["a", "b", "c"],
    ...                       "relevance": [2, -1, 12]})
    >>> relstring(run, qrels, 10).collect().row(0)
    ('q', '2.>-')
    """
    from polars_rankeval.options import Columns
    from polars_rankeval.prepare.ranking import order_column, position

    columns = Columns()
    order = order_column(columns, run.collect_schema())
    if order is None:  # pragma: no cover - the evaluation has refused such a run already
        raise InputError("run needs a score or a rank column")
    ranked = run.select("query", "item", position(columns, order, ["query"]).alias("_pos"))
    first = pl.col("_pos") == pl.col("_pos").min().over("query", "item")
    judged = ranked.filter(first & (pl.col("_pos") <= length)).join(
        qrels.select("query", "item", "relevance"), on=["query", "item"], how="left"
    )
    # compared as a number (a grade beyond Int64, e.g. 1e30 in a parquet file, is still
    # '>'); between 0 and 9 its integer part, as trec_eval reads it (atol)
    grade = pl.col("relevance").cast(pl.Float64)
    char = (
        pl.when(pl.col("relevance").is_null())
        .then(pl.lit("-"))
        .when(grade <= -1)
        .then(pl.lit("."))
        .when(grade >= 10)
        .then(pl.lit(">"))
        .otherwise(grade.clip(0, 9).floor().cast(pl.Int64).cast(pl.String))
    )
    return judged.group_by("query").agg(char.sort_by("_pos").str.join("").alias("text"))


def judged_only(run: pl.LazyFrame, qrels: pl.DataFrame) -> pl.LazyFrame:
    """trec_eval ``-J``: drop the retrieved documents that are not judged.

    Judged means in the qrels of that query with a relevance >= 0 (form_res_rels.c:
    negative judgments are "in the pool but unjudged").  A semi join on (query, item),
    after ``-M`` as in trec_eval; the ranks among the judged rows keep the original
    order.  Queries left without rows are put back by evaluating with ``complete``
    over the run's queries (see :func:`polars_rankeval.cli.eval.evaluate_run`).
    """
    judged = qrels.lazy().filter(pl.col("relevance") >= 0).select("query", "item")
    return run.join(judged, on=["query", "item"], how="semi", maintain_order="left")


def trec_eval_nans(
    run: pl.LazyFrame,
    judged_run: pl.LazyFrame | None,
    qrels: pl.DataFrame,
    *,
    rel: float | None,
    complete: bool,
    recall_levels: dict[str, tuple[float, ...]],
    rndcg: str | None,
) -> pl.LazyFrame:
    """``query, measure``: the per-query values trec_eval 10.0 prints as ``-nan``, 0/0 in
    its C code (x86's default NaN is negative).  Both cases concern the queries trec_eval
    evaluates: those of the qrels in the run and, under ``-c`` (``complete``), the other
    qrels queries too, as a ranking of one unjudged document (trec_eval.c's
    ``bogus_ranking``, which -J then empties):

    * ``-J`` (``judged_run``: the run after it) leaves a query without a retrieved
      document: num_ret is 0 and m_iprec_at_recall.c / m_11pt_avg.c start from
      ``precis = num_rel_ret / num_ret``, which they store at each recall level x whose
      cutoff ``lround(x * num_rel)`` is 0 (x * num_rel < 0.5); ``recall_levels`` has
      each printed iprec_at_recall / 11pt_avg name and its levels (11pt_avg, a sum over
      them, is NaN when one is);
    * ``Rndcg`` (its printed name ``rndcg``) under ``-l 0``: a query with judged
      documents whose grades are all 0 has num_rel > 0 but no ideal gain, and
      m_Rndcg.c divides by its 0 count of gain changes.

    Only the command's trec_eval output takes these NaN (and a mean over queries with one
    is NaN): the library's values stay numbers (0 there), as for every measure.
    """
    level = 1.0 if rel is None else rel
    # every qrels query, also one judged only negative (in the pool, unjudged: -J leaves
    # it no row, num_rel 0, so 0/0 too); its grades are its judgments >= 0
    judged = pl.col("relevance").filter(pl.col("relevance") >= 0)
    grades = (
        qrels.lazy()
        .group_by("query")
        .agg((judged >= level).sum().alias("num_rel"), judged.max().alias("top"))
    )
    queries = grades
    if not complete:
        queries = run.select("query").unique().join(grades, on="query", how="inner")
    found = [pl.LazyFrame(schema={"query": pl.String, "measure": pl.String})]
    if judged_run is not None and recall_levels:
        kept = judged_run.select("query").unique()
        empty = queries.join(kept, on="query", how="anti")
        num_rel = pl.col("num_rel").cast(pl.Float64)
        for label, xs in recall_levels.items():
            cut_to_0 = pl.any_horizontal([pl.lit(x) * num_rel < 0.5 for x in xs])
            found.append(empty.filter(cut_to_0).select("query", pl.lit(label).alias("measure")))
    if rndcg is not None and level <= 0:
        no_gain = (pl.col("num_rel") > 0) & (pl.col("top") == 0)
        found.append(queries.filter(no_gain).select("query", pl.lit(rndcg).alias("measure")))
    return pl.concat([f.cast({"query": pl.String}) for f in found])


def with_nans(
    per_query: pl.DataFrame, summary: pl.DataFrame, nans: pl.DataFrame
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The per-query values and means with NaN where trec_eval has it (``nans``, from
    :func:`trec_eval_nans`); a mean over a NaN is NaN."""
    if nans.is_empty():
        return per_query, summary
    marked = per_query.join(
        nans.with_columns(pl.lit(True).alias("_nan")), on=["query", "measure"], how="left",
        maintain_order="left",
    )  # fmt: skip
    value = pl.when(pl.col("_nan").fill_null(False)).then(float("nan")).otherwise("value")
    per_query = marked.with_columns(value.alias("value")).drop("_nan")
    measures = nans["measure"].unique().to_list()
    nan_mean = pl.when(pl.col("measure").is_in(measures)).then(float("nan"))
    return per_query, summary.with_columns(nan_mean.otherwise("value").alias("value"))


def num_rel_complete(qrels: pl.DataFrame) -> int:
    """trec_eval's ``num_rel`` total under ``-c``.

    m_num_rel.c's te_calc_avg_num_rel recounts it from the qrels of every topic, as the
    qrels lines with ``rel > 0``, whatever ``-l`` says: with ``-c -l 2`` it counts the
    grade-1 documents too (so it can differ from the sum of the per-query values).
    """
    return int(qrels.select((pl.col("relevance") > 0).sum()).item())


def zscores(path: str, per_query: pl.DataFrame) -> pl.DataFrame:
    """trec_eval ``-Z``: each per-query value as ``(value - mean) / stddev``.

    The file has lines ``qid measure mean stddev``; a (query, measure) not in it gives
    -1000000, as does a stddev of 0 unless the value equals the mean (then 0).
    """
    table = _read_zscores(Path(path))
    joined = per_query.join(table, on=["query", "measure"], how="left")
    value, mean, std = pl.col("value"), pl.col("_mean"), pl.col("_std")
    z = (
        pl.when(mean.is_null())
        .then(MISSING_ZSCORE)
        .when(std != 0)
        .then((value - mean) / std)
        .when(value == mean)
        .then(0.0)
        .otherwise(MISSING_ZSCORE)
    )
    return joined.with_columns(z.alias("value")).drop("_mean", "_std")


def _read_zscores(path: Path) -> pl.DataFrame:
    rows = []
    try:
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as error:
        raise InputError(f"-Z {path}: cannot read: {error.strerror or error}") from None
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise InputError(f"-Z {path}, line {number}: expected 'qid measure mean stddev'")
        rows.append((fields[0], fields[1], _atof(fields[2]), _atof(fields[3])))
    schema = {"query": pl.String, "measure": pl.String, "_mean": pl.Float64, "_std": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row").unique(["query", "measure"])


def _atof(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0  # C's atof reads what it can; a non-number is 0
