"""The HTML report opened in a real browser (headless Chromium driven by selenium).

It must load without console errors, show its three plots (decoded SVG images with a
size), its tables, and numbers equal to the comparison frame's (and the means to those
``evaluate`` gives for each run).  Skipped only when Chromium is not installed; CI
installs Debian's ``chromium`` and ``chromium-driver`` (``.ci/install_engines.sh``).
"""

from __future__ import annotations

import re
import shutil
from typing import Any

import polars as pl
import pytest

import polars_rankeval as rk
from tests.strategies import make_runs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,2400",
]  # fmt: skip


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    pytest.importorskip("matplotlib")
    from polars_rankeval import report as rp

    qrels, runs = make_runs(n_queries=12, depth=15)
    built = rp.build_report(
        runs, qrels, MEASURES, baseline="bm25", test="bootstrap", n_resamples=500
    )
    path = built.write(tmp_path_factory.mktemp("report") / "report.html")
    return built, runs, qrels, path


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (CI installs it: .ci/install_engines.sh)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    driver_path = shutil.which("chromedriver")
    assert driver_path is not None, "chromium is installed but chromedriver is not"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(120)
    yield driver
    driver.quit()


def _number(text: str) -> float:
    return float(text.replace("−", "-").strip())


def _cells(browser: Any, selector: str) -> list[list[str]]:
    return browser.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map("
        "  row => Array.from(row.cells).map(cell => cell.innerText.trim()));",
        selector,
    )


def test_report_loads_without_console_errors_and_shows_its_plots(page, browser):
    _, _, _, path = page
    browser.get(path.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
    images = browser.execute_script(
        "return Array.from(document.images).map(img => "
        "  [img.alt, img.complete, img.naturalWidth, img.naturalHeight,"
        "   img.getBoundingClientRect().width, img.src.slice(0, 25)]);"
    )
    assert len(images) == 3
    for alt, complete, width, height, shown, src in images:
        # decoded (a broken SVG has naturalWidth 0) and laid out on the page
        assert complete and width > 100 and height > 100 and shown > 100, alt
        assert src == "data:image/svg+xml;base64", alt
    alts = [image[0] for image in images]
    assert any("summaries" in a for a in alts) and any("differences" in a for a in alts)
    assert any("cutoff" in a for a in alts)
    tables = browser.execute_script(
        "return Array.from(document.querySelectorAll('table')).map(t => t.className);"
    )
    assert {"results", "comparison", "settings"} <= set(tables)


def test_numbers_on_the_page_equal_the_frame(page, browser):
    built, runs, qrels, path = page
    browser.get(path.as_uri())
    comparison = built.comparison
    rows = _cells(browser, "table.comparison tbody tr")
    assert len(rows) == comparison.height == 2 * len(MEASURES)
    for cells, row in zip(rows, comparison.iter_rows(named=True)):
        assert cells[:3] == [row["measure"], row["system"], row["baseline"]]
        assert int(cells[3]) == row["n_queries"]
        for text, value in zip(cells[4:7], (row["mean"], row["baseline_mean"], row["delta"])):
            assert abs(_number(text) - value) <= 5e-5, (cells, row)
        low, high = re.fullmatch(r"\[(\S+), (\S+)\]", cells[7]).groups()
        assert abs(_number(low) - row["ci_low"]) <= 5e-5
        assert abs(_number(high) - row["ci_high"]) <= 5e-5
        for text, value in zip(cells[8:10], (row["p_value"], row["p_value_corrected"])):
            if text == "< 0.0001":
                assert value < 1e-4
            else:
                assert abs(_number(text) - value) <= 5e-5, (cells, row)
        assert abs(_number(cells[10]) - row["effect_size"]) <= 5e-3
        assert cells[11] == ("yes" if row["significant"] else "no")
    # the results table: each system's mean of each measure, as evaluate() computes it
    header = _cells(browser, "table.results thead tr")[0]
    assert header[2:] == MEASURES
    results = _cells(browser, "table.results tbody tr")
    assert [r[1] for r in results] == list(runs)
    for cells in results:
        system = cells[1]
        means = rk.evaluate(runs[system], qrels, MEASURES)
        for measure, text in zip(MEASURES, cells[2:]):
            shown = _number(re.match(r"[-\d.]+", text).group())
            value = means.filter(pl.col("measure") == measure)["value"].item()
            assert abs(shown - value) <= 5e-5, (system, measure, text, value)
