"""Reports: Markdown/LaTeX tables (bold best, significance letters, legend) and the HTML page."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("numpy")

import polars_rankeval as rk
from polars_rankeval import report as rp
from polars_rankeval.cli import main
from tests.helpers import ROOT
from tests.strategies import make_runs

MEASURES = ["AP", "nDCG@10", "P_10", "RR"]


def comparison_frame() -> pl.DataFrame:
    """Three systems, every pair: c beats a on AP; a beats b on AP; nothing else significant."""
    rows = [
        # system, baseline, measure, mean, baseline_mean, delta, significant
        ("b", "a", "AP", 0.20, 0.30, -0.10, True),
        ("c", "a", "AP", 0.40, 0.30, 0.10, True),
        ("c", "b", "AP", 0.40, 0.20, 0.20, False),
        ("b", "a", "P|10", 0.50, 0.50, 0.00, False),
        ("c", "a", "P|10", 0.45, 0.50, -0.05, False),
        ("c", "b", "P|10", 0.45, 0.50, -0.05, False),
    ]
    names = ["system", "baseline", "measure", "mean", "baseline_mean", "delta", "significant"]
    return pl.DataFrame(rows, schema=names, orient="row")


def test_markdown_table_marks_best_and_significance():
    text = rp.markdown_table(comparison_frame(), test="randomization", correction="bh", alpha=0.01)
    lines = text.splitlines()
    assert lines[0] == "| # | System | AP | P\\|10 |"
    # a beats b on AP (b's letter on a); c beats a (a's letter on c); a and b tie on P|10
    assert lines[2] == "| a | a | 0.3000<sup>b</sup> | **0.5000** |"
    assert lines[3] == "| b | b | 0.2000 | **0.5000** |"
    assert lines[4] == "| c | c | **0.4000**<sup>a</sup> | 0.4500 |"
    legend = lines[-1]
    assert "randomization test" in legend and "Benjamini-Hochberg" in legend
    assert "α = 0.01" in legend and "every pair" in legend


def test_markdown_legend_with_a_baseline():
    frame = comparison_frame().filter(pl.col("baseline") == "a")
    assert "comparisons against a only" in rp.markdown_table(frame)


def test_latex_table_escapes_and_marks():
    frame = comparison_frame().with_columns(
        pl.col("measure").str.replace("|", "_", literal=True),
        pl.col("system").replace({"c": "c&d"}),
    )
    text = rp.latex_table(frame, digits=3)
    assert r"\begin{tabular}{clrr}" in text
    assert r"\# & System & AP & P\_10 \\" in text
    assert r"c & c\&d & \textbf{0.400}$^{a}$ & 0.450 \\" in text
    assert r"a & a & 0.300$^{b}$ & \textbf{0.500} \\" in text
    assert r"$\alpha$" in text and "booktabs" in text


@pytest.fixture(scope="module")
def report():
    pytest.importorskip("matplotlib")
    qrels, runs = make_runs(n_queries=12, depth=15)
    return rp.build_report(
        runs, qrels, MEASURES, baseline="bm25", test="bootstrap", n_resamples=500
    ), runs


def test_html_report_contains_every_system_and_measure(report, tmp_path):
    built, runs = report
    path = built.write(tmp_path / "report.html", title="Three <systems>")
    page = path.read_text()
    for system in runs:
        assert system in page
    for measure in MEASURES:
        assert measure in page
    assert "Three &lt;systems&gt;" in page
    # self-contained: no scripts, no external resources; three embedded SVG plots
    assert "<script" not in page
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)
    assert len(images) == 3
    for data in images:
        assert base64.b64decode(data).lstrip().startswith(b"<?xml")
    # the comparisons table lists each (system, measure) against the baseline
    assert page.count("<tr class=") == 2 * len(MEASURES)
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary left


def test_report_summary_and_curves(report):
    built, runs = report
    assert built.systems == list(runs)
    assert built.comparison.height == 2 * len(MEASURES)
    ks = [k for k, _ in built.curves["Precision@k"]]
    assert ks == [1, 2, 3, 5, 10, 15]  # up to the depth of the runs (15)
    ap = built.summary.filter(pl.col("measure") == "AP", pl.col("system") == "dense").row(
        0, named=True
    )
    assert ap["ci_low"] < ap["mean"] < ap["ci_high"]
    assert ap["n_queries"] == 12


def test_failed_write_leaves_the_old_file(report, tmp_path, monkeypatch):
    built, _ = report
    target = tmp_path / "report.md"
    target.write_text("old")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(rp.tables, "markdown_table", broken)
    with pytest.raises(RuntimeError):
        built.write(target)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]


def test_write_report_by_suffix(tmp_path):
    qrels, runs = make_runs(n_queries=8, depth=10)
    md = rp.write_report(tmp_path / "r.md", runs, qrels, ["AP"], n_resamples=100)
    assert md.read_text().startswith("| # | System | AP |")
    tex = rp.write_report(tmp_path / "r.tex", runs, qrels, ["AP"])
    assert r"\begin{table}" in tex.read_text()
    with pytest.raises(rk.RankevalError, match=r"\.html, \.md or \.tex"):
        rp.write_report(tmp_path / "r.pdf", runs, qrels, ["AP"])


def test_compare_command_writes_reports(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    qrels, runs = make_runs(n_queries=10, depth=12)
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {i} {r}\n" for q, i, r in qrels.iter_rows()))
    paths = []
    for name, run in runs.items():
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"{q} Q0 {i} 0 {s:.6f} {name}\n" for q, i, s in run.iter_rows()))
        paths.append(str(path))
    for suffix in ("html", "md", "tex"):
        target = tmp_path / f"out.{suffix}"
        code = main(["compare", str(qrels_path), *paths, "-m", "map", "--report", str(target),
                     "--quiet"])  # fmt: skip
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "map" in out and err == ""
        text = target.read_text()
        assert all(name in text for name in runs)
    code = main(["compare", str(qrels_path), *paths, "-m", "map", "--format", "markdown"])
    assert code == 0 and capsys.readouterr().out.startswith("| # | System | map |")


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_renders_the_report(report, tmp_path):
    built, _ = report
    page = built.write(tmp_path / "report.html")
    shot = tmp_path / "shot.png"
    profile = tempfile.mkdtemp()
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", f"--user-data-dir={profile}", f"--screenshot={shot}",
         "--window-size=1280,2400", page.as_uri()],
        capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    shutil.rmtree(profile, ignore_errors=True)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert shot.stat().st_size > 50_000  # a real page with plots, not a blank one
    assert Path(page).read_text().count("<img") == 3


def test_compare_example_data_is_what_its_seeded_generator_makes(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "example", ROOT / "examples" / "compare_systems.py"
    )
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    example.make_data(tmp_path)
    shipped = ROOT / "examples" / "data" / "compare"
    for name in ("qrels.txt", "bm25.run", "dense.run", "hybrid.run"):
        assert (tmp_path / name).read_bytes() == (shipped / name).read_bytes()
