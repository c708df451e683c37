"""Generator of the dbt package ``sql/dbt/`` (filled in below)."""

from __future__ import annotations

from pathlib import Path


def dbt_files() -> dict[Path, str]:
    return {}
