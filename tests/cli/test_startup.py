"""The command's start: ``import polars_rankeval`` leaves the measures and the engines
for later, so that ``rankeval`` reads its run file while importing them."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def _python(code: str) -> str:
    """What ``code`` prints, run in a new interpreter (a fresh ``sys.modules``)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


def test_the_package_import_leaves_the_engines_for_later() -> None:
    printed = _python("""
        import sys
        import polars as pl
        import polars_rankeval
        print(hasattr(pl.DataFrame, "rankeval"), hasattr(pl.col("x"), "rankeval"))
        for name in sorted(m for m in sys.modules if m.startswith("polars_rankeval")):
            print(name)
    """)
    assert printed.splitlines() == [
        "True True",
        "polars_rankeval",
        "polars_rankeval._errors",
        "polars_rankeval.io",
        "polars_rankeval.namespace",
    ]


def test_the_functions_named_like_their_modules_stay_functions() -> None:
    # the import system sets the package's attribute to a module when it first imports
    # it: here compare's module imports evaluate's, and validate's is imported by name
    printed = _python("""
        import polars_rankeval as rk
        import polars_rankeval.validate
        from polars_rankeval.compare import compare
        from polars_rankeval import expr, parse_measure, PRESETS, REGISTRY
        for f in (rk.compare, rk.evaluate, rk.validate):
            print(f"{f.__module__}.{f.__name__}")
        print(expr.__name__, parse_measure("AP@10"), "trec_eval" in PRESETS, "AP" in REGISTRY)
    """)
    assert printed.splitlines() == [
        "polars_rankeval.compare.compare",
        "polars_rankeval.evaluate.evaluate",
        "polars_rankeval.validate.validate",
        "polars_rankeval.expr AP@10 True True",
    ]


def test_the_run_is_read_before_the_measures_are_imported(tmp_path: Path) -> None:
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d2 1 1.0 t\n")
    printed = _python(f"""
        import sys
        import polars_rankeval.cli.chunked as chunked
        start = chunked.ReadAhead.__init__
        def recorded(self, chunks):
            print("measures imported:", "polars_rankeval._registry" in sys.modules)
            start(self, chunks)
        chunked.ReadAhead.__init__ = recorded
        from polars_rankeval.cli.main import main
        status = main(["-m", "map", {str(tmp_path / "qrels")!r}, {str(tmp_path / "run")!r}])
        print("status", status)
    """)
    assert printed.splitlines() == [
        "measures imported: False",
        "map                   \tall\t0.5000",
        "status 0",
    ]
