"""``python -m polars_rankeval.cli``: the ``rankeval`` command."""

from __future__ import annotations

from polars_rankeval.cli.main import command

command()
