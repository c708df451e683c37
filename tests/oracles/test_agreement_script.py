"""The agreement count (``tests/oracles/agreement.py``, issue 18's per-measure list)
still runs: two draws of each strategy, every family listed, nothing beyond 1e-9."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pyndeval")
pytest.importorskip("cwl")
pytest.importorskip("pycocotools")

FAMILIES = ["alpha_nDCG", "alpha_DCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA",
            "StRecall", "Compat", "Accuracy", "INST", "INSQ", "NERR8", "NERR9", "NERR10",
            "NERR11", "SDCG", "BPM", "SetP", "SetR", "SetF", "SetAP", "SetRelP",
            "AP(interp=all)", "AP(interp=voc11)", "AP(interp=coco101)"]  # fmt: skip


def test_the_agreement_script_counts_every_family(tmp_path: Path) -> None:
    from tests.oracles import agreement

    agreement.RESULTS.clear()
    out = tmp_path / "AGREEMENT.md"
    assert agreement.main(["--examples", "2", "--seed", "1", "--out", str(out)]) == 0
    # measure | oracle | engine | per-query values | means | max abs diff | over | skipped
    rows = [line.strip("| ").split(" | ") for line in out.read_text().splitlines()
            if line.startswith("| ") and line.count(" | ") == 7]  # fmt: skip
    assert rows[0][0] == "measure"
    measured = {row[0].split(" [")[0] for row in rows[1:]}
    assert set(FAMILIES) <= measured
    assert all(row[6] == "0" for row in rows[1:]), "a value beyond 1e-9 of its oracle"
    assert all({"polars", "duckdb"} == {r[2] for r in rows if r[0] == row[0]} for row in rows[1:])
    assert sum(int(row[3]) for row in rows[1:]) > 0


def test_the_readme_quotes_the_saved_count() -> None:
    """The README's figures ('41255 values per engine, ... the largest 6.1e-15, INST') are
    AGREEMENT.md's."""
    import re

    from tests.helpers import ROOT

    saved = (ROOT / "tests" / "oracles" / "AGREEMENT.md").read_text()
    readme = (ROOT / "README.md").read_text()
    polars, duckdb = re.search(
        r"Values compared in all: polars (\d+), duckdb (\d+)", saved
    ).groups()
    assert polars == duckdb and f"{polars} values per engine" in readme
    rows = [line.strip("| ").split(" | ") for line in saved.splitlines()
            if line.startswith("| ") and line.count(" | ") == 7][1:]  # fmt: skip
    largest = max(rows, key=lambda row: float(row[5]))
    assert f"the largest {largest[5]}, `{largest[0].split(' [')[0]}`" in readme.replace("\n", " ")
    assert all(row[6] == "0" for row in rows)
