"""Examples that need an optional extra say which one and stop cleanly without it.

Each example runs in a fresh interpreter where the extra's module cannot be imported
(``sys.modules[name] = None`` makes ``import name`` raise and ``find_spec`` return None),
as on a machine where the extra was never installed.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

ROOT = Path(__file__).parents[2]
WRAPPER = (
    "import runpy, sys\n"
    "for name in sys.argv[2:]:\n"
    "    sys.modules[name] = None  # as if the package were not installed\n"
    "sys.argv = sys.argv[1:2]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def run_without(script: str, *modules: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WRAPPER, str(ROOT / "examples" / script), *modules],
        check=False, capture_output=True, text=True, cwd=ROOT, timeout=300,
    )


def test_spark_example_without_pyspark_names_the_extra_and_exits_cleanly():
    done = run_without("spark_eval.py", "pyspark")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    expected = (
        "examples/spark_eval.py needs pyspark: pip install 'polars_rankeval[spark]' "
        "(Spark also needs Java 17)"
    )
    assert done.stderr.strip().splitlines() == [expected]
    assert done.stdout == ""  # stopped before any Spark work


def test_spark_example_without_sqlglot_names_the_same_extra():
    done = run_without("spark_eval.py", "sqlglot")
    assert done.returncode == 0, done.stderr
    # a venv with only the [test] extra (the README's commands) has no pyspark either
    missing = "sqlglot" if find_spec("pyspark") is not None else "pyspark and sqlglot"
    assert f"needs {missing}: pip install 'polars_rankeval[spark]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_duckdb_example_without_sqlglot_runs_its_duckdb_part_and_names_the_sql_extra():
    done = run_without("duckdb_sql.py", "sqlglot")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == (
        "Skipped rendering SQL for a warehouse: it needs sqlglot, "
        "pip install 'polars_rankeval[sql]'"
    )
    assert "Spark SQL for the same evaluation" not in done.stdout
    assert "nDCG@10" in done.stdout  # the DuckDB part ran and printed its frames
