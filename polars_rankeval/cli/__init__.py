"""The ``rankeval`` command: trec_eval's habits, polars_rankeval's measures.

::

    rankeval [-q] [-c] [-l REL] [-M N] [-J] [-n] [-m MEASURE ...] [--format FORMAT]
             [-o OUT] QRELS RUN [RUN ...]
    rankeval compare QRELS RUN RUN [RUN ...] [--baseline NAME] [--test TEST]
             [--correction CORRECTION] [-m MEASURE ...] [--report OUT.html|.md|.tex]

Inputs are TREC text files (default), ``.parquet`` or ``.csv`` (columns ``query``,
``item``, ``score`` or ``rank``; qrels ``query``, ``item``, ``relevance``); ``-`` reads
standard input.  Ids are read as strings, as trec_eval does.  Exit status: 0, 1 for
bad data (a run that does not parse, no query in common, ...), 2 for usage errors.

The package is split by job: :mod:`.main` dispatches, :mod:`.inputs` reads files,
:mod:`.eval` is the trec_eval-style command, :mod:`.compare` the significance command,
:mod:`.output` formats and writes; :mod:`._common` holds what they share.
"""

from __future__ import annotations

from polars_rankeval.cli.main import command, main

__all__ = ["command", "keep_top", "main"]


def __getattr__(name: str) -> object:
    # `keep_top` is re-exported lazily so that `rankeval --help` does not import the engine
    if name == "keep_top":
        from polars_rankeval.prepare.ranking import keep_top

        return keep_top
    raise AttributeError(name)
