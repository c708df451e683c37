"""``rankeval QRELS RUN...``: trec_eval's options, and the evaluation of one run (whole or one part
of it) into trec_eval's per-query values and summary."""

from __future__ import annotations

import argparse
import re
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import polars as pl

from polars_rankeval.cli._common import (
    PROG,
    common_options,
    positive_int,
    progress,
    system_names,
)
from polars_rankeval.cli.inputs import Reader
from polars_rankeval.cli.output import (
    FORMATS,
    RunResult,
)
from polars_rankeval.cli.trec import (
    Measures,
    judged_only,
    num_rel_complete,
    relstring,
    trec_eval_nans,
    with_nans,
    zscores,
)

__all__ = ["eval_parser", "evaluate_part", "evaluate_run", "finish_run", "read_runs"]


def eval_parser() -> argparse.ArgumentParser:
    """The parser of the evaluation command (trec_eval's options, same letters)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate TREC-style runs against qrels (trec_eval's options and "
        "output; also Parquet and CSV). `rankeval compare -h` for significance tests.",
    )
    parser.add_argument(
        "-q",
        dest="per_query",
        action="store_true",
        help="per-query values too, then the summary over all queries",
    )
    common_options(parser)
    _trec_eval_options(parser)
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="output: trec (trec_eval's layout, default), table, json, csv, parquet "
        "(default from the -o suffix) or ndeval (ndeval's CSV of the diversity measures; "
        "QRELS: query subtopic item relevance)",
    )
    parser.add_argument("qrels", metavar="QRELS", help="qrels file (TREC, .parquet, .csv, -)")
    parser.add_argument("runs", metavar="RUN", nargs="+", help="run file(s)")
    return parser


def _trec_eval_options(parser: argparse.ArgumentParser) -> None:
    """trec_eval's -n, -J, -Z, -N, -R and -T."""
    parser.add_argument(
        "-n",
        dest="no_summary",
        action="store_true",
        help="no summary (the 'all' lines); with -q: per-query values only",
    )
    parser.add_argument(
        "-J",
        dest="judged_only",
        action="store_true",
        help="judged documents only: drop retrieved documents that are not "
        "in the qrels of their query with a relevance >= 0 (trec_eval -J)",
    )
    parser.add_argument(
        "-Z",
        dest="zscores",
        metavar="ZFILE",
        help="print z-scores (value - mean) / stddev from ZFILE's lines "
        "'qid measure mean stddev' (trec_eval -Z)",
    )
    parser.add_argument(
        "-N",
        dest="num_docs",
        type=positive_int,
        metavar="NUM",
        help="documents in the collection (trec_eval -N; used by no measure "
        "rankeval computes, accepted for compatibility)",
    )
    parser.add_argument(
        "-R",
        dest="rel_format",
        default="qrels",
        metavar="FORMAT",
        help="qrels format: only 'qrels' (trec_eval -R)",
    )
    parser.add_argument(
        "-T",
        dest="results_format",
        default="trec_results",
        metavar="FORMAT",
        help="run format: only 'trec_results' (trec_eval -T)",
    )


def read_runs(
    reader: Reader,
    paths: Sequence[str],
    top: int | None,
    *,
    quiet: bool,
    keep: Sequence[str] = (),
) -> Iterator[tuple[str, str, pl.LazyFrame]]:
    """(path, system name, run) for each RUN argument, cut to the top ``top`` if given."""
    names = system_names(paths)
    for path, name in progress(list(zip(paths, names)), description="runs", quiet=quiet):
        run = reader.run(path, keep)
        if top is not None:
            from polars_rankeval.prepare.ranking import keep_top

            run = keep_top(run, top)
        yield path, name, run


def _runid_frame(run: pl.LazyFrame, name: str) -> pl.LazyFrame:
    if "tag" in run.collect_schema():
        return run.select(pl.col("tag").last().fill_null(name).alias("runid"))
    return pl.LazyFrame({"runid": [name]})


def _counts(measures: Measures, names: Sequence[str]) -> frozenset[str]:
    from polars_rankeval._trec_names import is_count

    return frozenset(measures.label(n) for n in names if is_count(measures.measure(n)))


J_SENTINEL = "rankeval -J sentinel"


def _inputs(
    run: pl.LazyFrame, qrels: pl.DataFrame, *, judged: bool, complete: bool
) -> tuple[pl.LazyFrame, pl.LazyFrame, bool]:
    """The run, the qrels and ``complete`` to evaluate; ``-J`` as trec_eval does it:
    unjudged rows dropped, and a query left with none still evaluated (as an empty
    ranking) when it has run rows, which ``complete`` over the run's queries gives."""
    if not judged:
        return run, qrels.lazy(), complete
    lazy_qrels = qrels.lazy()
    if not complete:
        lazy_qrels = lazy_qrels.join(run.select("query").unique(), on="query", how="semi")
    # -J may judge none of the run's rows: trec_eval then still prints every query (as
    # empty rankings), but the library refuses a run without rows; a row of a query that
    # cannot be in the qrels (TREC ids have no spaces) keeps it non-empty and is ignored,
    # as every run query outside the qrels is (its warning is muted in _collect)
    sentinel = run.head(1).with_columns(pl.lit(J_SENTINEL).alias("query"))
    return pl.concat([judged_only(run, qrels), sentinel]), lazy_qrels, True


def _collect(plans: list[pl.LazyFrame], *, judged: bool) -> list[pl.DataFrame]:
    """``pl.collect_all``; under -J without the warning about _inputs' sentinel query
    (the warning filters are global: chunks are evaluated one at a time under -J)."""
    # the in-memory engine: on chunks of ~100k rows it takes ~25% less CPU than the
    # streaming one (a lower fixed cost a plan), and its group-by output is not cut
    # into morsels (see chunked._judged_queries: the group count sets the rounding)
    if not judged:
        return pl.collect_all(plans, engine="in-memory")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=f".*{re.escape(repr(J_SENTINEL))}")
        return pl.collect_all(plans, engine="in-memory")


class Part(NamedTuple):
    """The evaluation of a run, or of a chunk of whole queries of it."""

    per_query: pl.DataFrame  # query, measure (printed name), value
    texts: pl.DataFrame | None  # query, measure, text (relstring)
    nans: pl.DataFrame  # query, measure: trec_eval's -nan values
    runid: str
    num_q: int


def evaluate_part(
    run: pl.LazyFrame, qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace, partitions: int | None = None,
) -> Part:  # fmt: skip
    """Evaluate a run (or whole queries of it): per-query values, the runid and the
    trec_eval -nan cells in one pass; measures labelled with trec_eval's names
    (``partitions``: evaluate's)."""
    from polars_rankeval._trec_names import PSEUDO, TEXT
    from polars_rankeval.evaluate import evaluate

    names = [n for n in measures.names if n not in PSEUDO and n not in TEXT]
    library = [measures.measure(n) for n in names]
    run_, qrels_, complete = _inputs(run, qrels, judged=args.judged_only, complete=args.complete)
    kwargs: dict[str, Any] = {"complete": complete, "rel": args.rel, "duplicates": args.duplicates,
                              "partitions": partitions}  # fmt: skip
    # one evaluation: the summary is aggregated from the per-query values; the printed
    # names given in the same plan (no measure: NumRet, for the queries, dropped below)
    evaluated = evaluate(run_, qrels_, library or ["NumRet"], per_query=True, **kwargs)
    to_label = {lib: measures.label(n) for n, lib in zip(names, library)}
    if library:
        evaluated = evaluated.with_columns(
            pl.col("measure").replace_strict(to_label, return_dtype=pl.String)
        )
    plans = [evaluated, _runid_frame(run, name)]
    if "relstring" in measures.names:
        plans.append(relstring(run_, qrels_, measures.relstring_length))
    plans.append(_nans(run, run_, qrels, measures, names, args))
    frames = _collect(plans, judged=args.judged_only)
    per_query = frames[0] if library else frames[0].clear()
    texts = None
    if "relstring" in measures.names:  # every evaluated query, '' for one without rows
        queries = frames[0].select(pl.col("query").unique(maintain_order=True))
        texts = queries.join(frames[2], on="query", how="left").select(
            "query",
            pl.lit(measures.label("relstring")).alias("measure"),
            pl.col("text").fill_null(""),
        )
    return Part(per_query, texts, frames[-1], str(frames[1]["runid"][0]),
                frames[0]["query"].n_unique())  # fmt: skip


def finish_run(
    parts: Sequence[Part], qrels: pl.DataFrame, measures: Measures, *, name: str,
    args: argparse.Namespace,
) -> RunResult:  # fmt: skip
    """The run's result from its parts (each query in one part): per-query values in
    trec_eval's query order, the summary over them, -nan cells, -Z and -c totals."""
    from polars_rankeval._trec_names import PSEUDO, TEXT

    names = [n for n in measures.names if n not in PSEUDO and n not in TEXT]
    per_query = pl.concat([p.per_query for p in parts]).sort("query", maintain_order=True)
    texts = [p.texts for p in parts if p.texts is not None]
    result = RunResult(
        name=name,
        runid=parts[-1].runid,
        summary=summarize(per_query, measures, names),
        per_query=per_query,
        num_q=sum(p.num_q for p in parts),
        counts=_counts(measures, names),
        texts=pl.concat(texts) if texts else None,
    )
    nans = pl.concat([p.nans for p in parts])
    result.per_query, result.summary = with_nans(result.per_query, result.summary, nans)
    return _trec_eval_totals(result, qrels, measures, names, args)


def evaluate_run(
    run: pl.LazyFrame,
    qrels: pl.DataFrame,
    measures: Measures,
    *,
    name: str,
    args: argparse.Namespace,
) -> RunResult:
    """Evaluate one run: per-query values, the summary, the runid and num_q in one pass;
    measures are labelled with the names trec_eval prints."""
    part = evaluate_part(run, qrels, measures, name=name, args=args)
    return finish_run([part], qrels, measures, name=name, args=args)


def _nans(
    run: pl.LazyFrame,
    judged_run: pl.LazyFrame,
    qrels: pl.DataFrame,
    measures: Measures,
    names: Sequence[str],
    args: argparse.Namespace,
) -> pl.LazyFrame:
    """The (query, measure) pairs trec_eval prints as -nan (see trec_eval_nans): the
    printed name and recall levels of each iprec_at_recall / 11pt_avg, and of Rndcg.
    None in the other formats (csv, json, parquet, table): their values are the
    library's, numbers."""
    from polars_rankeval._parse import parse_measure

    levels: dict[str, tuple[float, ...]] = {}
    rndcg = None
    for name in names if getattr(args, "trec_nans", True) else ():
        m = parse_measure(measures.measure(name))
        if m.family.name == "IPrec":
            levels[measures.label(name)] = (float(m["recall"]),)
        elif m.family.name == "IPrec11pt":  # m_11pt_avg.c's default levels
            levels[measures.label(name)] = tuple(i / 10 for i in range(11))
        elif m.family.name == "RnDCG":
            rndcg = measures.label(name)
    return trec_eval_nans(
        run, judged_run if args.judged_only else None, qrels, rel=args.rel,
        complete=args.complete, recall_levels=levels, rndcg=rndcg,
    )  # fmt: skip


def summarize(per_query: pl.DataFrame, measures: Measures, names: Sequence[str]) -> pl.DataFrame:
    """``measure, value``: each measure's one aggregation (mean, sum or geometric mean)
    over its per-query values, added in trec_eval's query order (query ids as text), as
    ``evaluate``'s own summary adds them: the same bits, without a second evaluation."""
    from polars_rankeval._parse import parse_measure
    from polars_rankeval.engines.finish import aggregate

    labels = [measures.label(name) for name in names]
    values = per_query.sort(pl.col("query").cast(pl.String), maintain_order=True)
    row = values.select(
        aggregate(pl.col("value").filter(pl.col("measure") == label),
                  parse_measure(measures.measure(name))).alias(label)
        for name, label in zip(names, labels)
    )  # fmt: skip
    return pl.DataFrame(
        {"measure": labels, "value": list(row.row(0)) if labels else []},
        schema={"measure": pl.String, "value": pl.Float64},
    )


def _trec_eval_totals(
    result: RunResult,
    qrels: pl.DataFrame,
    measures: Measures,
    names: Sequence[str],
    args: argparse.Namespace,
) -> RunResult:
    """-Z (z-scores, summaries recomputed in trec_eval's order) and the -c num_rel total."""
    if args.zscores is not None:
        result.per_query = zscores(args.zscores, result.per_query)
        result.summary = summarize(result.per_query, measures, names)
    if args.complete and "num_rel" in names:
        result.summary = result.summary.with_columns(
            pl.when(pl.col("measure") == "num_rel")
            .then(float(num_rel_complete(qrels)))
            .otherwise(pl.col("value"))
            .alias("value")
        )
    return result
