"""Writes the generated SQL: ``sql/rankeval.sql`` (:mod:`polars_rankeval._sqlentry`) and
the dbt package's macros (:mod:`polars_rankeval._sqldbt`), from the measure registry::

    python -m polars_rankeval._sqlgen          # rewrite the generated files
    python -m polars_rankeval._sqlgen --check  # exit 1 when they are stale

Run it after adding a measure family or alias; a test fails when the files are stale.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from polars_rankeval._sqldbt import dbt_files
from polars_rankeval._sqlentry import ROOT, SQL_DIR, build_rankeval_sql

__all__ = ["generated_files", "main"]


def generated_files() -> dict[Path, str]:
    """Every generated file and its expected text."""
    return {SQL_DIR / "rankeval.sql": build_rankeval_sql(), **dbt_files()}


def main(argv: list[str] | None = None) -> int:
    """Rewrite the generated files, or with ``--check`` list the stale ones (exit 1);
    any other argument is refused before a file is written (``--help`` only prints).

    >>> main(["--check"])
    0
    """
    parser = argparse.ArgumentParser(
        prog="python -m polars_rankeval._sqlgen",
        description="Rewrite sql/rankeval.sql and the dbt package's generated macros.",
    )
    parser.add_argument("--check", action="store_true",
                        help="write nothing; list the stale files and exit 1 if any")
    check = parser.parse_args(argv).check
    stale = []
    for path, text in generated_files().items():
        if not path.exists() or path.read_text() != text:
            stale.append(path)
            if not check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    for path in stale:
        print(("stale: " if check else "wrote: ") + str(path.relative_to(ROOT)))
    return 1 if stale and check else 0


if __name__ == "__main__":
    raise SystemExit(main())
