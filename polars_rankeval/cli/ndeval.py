"""``rankeval --format ndeval QRELS RUN...``: the diversity measures in ndeval's own layout.

ndeval.c (version 4.5, ``outputMeasures``) writes CSV: the header ``runid,topic,`` then
its 21 measure names, one line per topic of the run (in topic order; a topic without
judgments is all zeros), then ``runid,amean,...``: the sums over those lines divided by
the topics in both files (with ``-c``, by the qrels' topics).  Every value is printed
with ``%.6f``; ``runid`` is the tag of the run's first line.  Here QRELS is a subtopic
qrels file (``query subtopic item relevance``, or a Parquet / CSV file with a
``subtopic`` column), ``-m`` picks other measures than ndeval's 21 (ndeval's names where
it has the measure), ``-c``, ``-l`` and ``-M`` mean what they mean for trec_eval (ndeval's
``-c`` and ``-M`` too), and several runs print one header, then each run's lines.

Where ndeval is undefined our documented values are printed: nNRBP of a topic without
relevant subtopics is 0 (ndeval: nan), and ERR-IA@1 / alpha-DCG@1 are divided by the
subtopic count (ndeval leaves rank 1 undivided).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import polars as pl

from polars_rankeval.cli._common import UsageError, system_names, warnings_to_stderr
from polars_rankeval.cli.inputs import Reader
from polars_rankeval.cli.output import emit, text_writer

__all__ = ["NDEVAL_MEASURES", "ndeval_command", "ndeval_name"]

# ndeval's columns in its order, as (our name, ndeval's name)
_CUTOFFS = (5, 10, 20)
_AT_K = (("ERR_IA", "ERR-IA"), ("nERR_IA", "nERR-IA"), ("alpha_DCG", "alpha-DCG"),
         ("alpha_nDCG", "alpha-nDCG"))  # fmt: skip
NDEVAL_MEASURES: tuple[tuple[str, str], ...] = (
    *((f"{ours}@{k}", f"{theirs}@{k}") for ours, theirs in _AT_K for k in _CUTOFFS),
    ("NRBP", "NRBP"), ("nNRBP", "nNRBP"), ("AP_IA", "MAP-IA"),
    *((f"P_IA@{k}", f"P-IA@{k}") for k in _CUTOFFS),
    *((f"StRecall@{k}", f"strec@{k}") for k in _CUTOFFS),
)  # fmt: skip
# our family name -> ndeval's (its columns at any cutoff, e.g. alpha-nDCG@3)
_FAMILIES = {**dict(_AT_K), "NRBP": "NRBP", "nNRBP": "nNRBP", "AP_IA": "MAP-IA",
             "P_IA": "P-IA", "StRecall": "strec"}  # fmt: skip


def ndeval_name(name: str) -> str:
    """ndeval's column name of measure ``name`` (its canonical name when ndeval has no
    such column).

    >>> ndeval_name("alpha_nDCG@20"), ndeval_name("AP_IA"), ndeval_name("P@5")
    ('alpha-nDCG@20', 'MAP-IA', 'P@5')
    """
    from polars_rankeval._parse import parse_measure

    measure = parse_measure(name)
    canonical, family = str(measure), measure.family.name
    if family in _FAMILIES and canonical.startswith(family):
        return _FAMILIES[family] + canonical[len(family):]
    return canonical


def _topic_order(queries: pl.Series) -> list[str]:
    """ndeval's topic order (numbers ascending) when every id is a number, else byte
    order."""
    ids = queries.unique().to_list()
    if all(q.isdigit() for q in ids):
        return sorted(ids, key=int)
    return sorted(ids, key=lambda q: q.encode())


def _run_lines(
    run: pl.DataFrame, qrels: pl.DataFrame, names: Sequence[str], runid: str,
    args: argparse.Namespace,
) -> list[str]:  # fmt: skip
    """One run's topic lines and its amean line."""
    import polars_rankeval as rk

    options = {"complete": args.complete, "rel": args.rel, "top": args.top,
               "duplicates": args.duplicates}  # fmt: skip
    options = {k: v for k, v in options.items() if v not in (None, False)}
    from polars_rankeval._parse import parse_measure

    labels = [str(parse_measure(n)) for n in names]  # as evaluate labels them
    # one evaluation: the means are aggregated from its per-query values
    per_query = rk.evaluate(run, qrels, labels, per_query=True, **options)
    values = {(q, m): v for q, m, v in per_query.iter_rows()}
    lines = []
    for topic in _topic_order(run["query"]):  # ndeval prints the run's topics
        cells = [f"{values.get((topic, m), 0.0):.6f}" for m in labels]
        lines.append(",".join([runid, topic, *cells]))
    means = _means(per_query, labels)
    cells = [f"{means[m]:.6f}" for m in labels]
    return [*lines, ",".join([runid, "amean", *cells])]


def _means(per_query: pl.DataFrame, labels: Sequence[str]) -> dict[str, float]:
    """Each measure's summary from ``evaluate``'s per-query values (``query, measure,
    value``): its one aggregation, the values added in trec_eval's query order (query
    ids as text), as ``evaluate``'s own summary adds them: the same bits.

    >>> per_query = pl.DataFrame({"query": ["2", "10", "2", "10"],
    ...                           "measure": ["P_IA@5", "P_IA@5", "NRBP", "NRBP"],
    ...                           "value": [0.5, 0.25, 1.0, 0.0]})
    >>> _means(per_query, ["P_IA@5", "NRBP"])
    {'P_IA@5': 0.375, 'NRBP': 0.5}
    """
    from polars_rankeval._parse import parse_measure
    from polars_rankeval.engines.finish import aggregate

    ordered = per_query.sort(pl.col("query").cast(pl.String), maintain_order=True)
    unique = list(dict.fromkeys(labels))
    row = ordered.select(
        aggregate(pl.col("value").filter(pl.col("measure") == label),
                  parse_measure(label)).alias(label)
        for label in unique
    )  # fmt: skip
    return dict(zip(unique, row.row(0))) if unique else {}


def _runid(run: pl.DataFrame, name: str) -> str:
    """ndeval's runid: the tag of the run's first line (the system name without one)."""
    if "tag" in run.columns and run.height and run["tag"][0] is not None:
        return str(run["tag"][0])
    return name


def ndeval_command(args: argparse.Namespace, reader: Reader) -> int:
    """Evaluate every run of ``args`` and print ndeval's CSV (see the module docstring)."""
    names = list(args.measures) if args.measures else [ours for ours, _ in NDEVAL_MEASURES]
    given = [flag for flag, on in (("-n", args.no_summary), ("-J", args.judged_only),
                                   ("-Z", args.zscores is not None)) if on]  # fmt: skip
    if given:
        raise UsageError(f"--format ndeval: {', '.join(given)} not available (ndeval has none)")
    qrels = reader.subtopic_qrels(args.qrels).collect()
    out = [",".join(["runid", "topic", *(ndeval_name(n) for n in names)])]
    for path, name in zip(args.runs, system_names(args.runs), strict=True):
        run = reader.run(path, keep=("tag",)).collect()
        with warnings_to_stderr(f"{path}: ", quiet=args.quiet):
            out += _run_lines(run, qrels, names, _runid(run, name), args)
    emit(args.output, text_writer("\n".join(out) + "\n"))
    return 0
