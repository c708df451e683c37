"""Every script in examples/ runs (they are documentation: they must not drift)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.helpers import FULL_PROFILE, ROOT

# The Spark example runs in the Spark tests' JVM by default (tests/sql/test_spark_example.py:
# a JVM's start is ~25 s of CPU); in a process and a JVM of its own, as a user runs it, under
# HYPOTHESIS_PROFILE=full.
IN_SPARK_GROUP = set() if FULL_PROFILE else {"spark_eval.py"}
SCRIPTS = sorted(
    p for p in (ROOT / "examples").glob("*.py")
    if p.name != "make_example_data.py" and p.name not in IN_SPARK_GROUP
)  # fmt: skip
NEEDS = {"spark_eval.py": "pyspark"}
SLOW = {"spark_eval.py", "compare_systems.py"}  # a JVM; bootstrap resampling and figures
# The Spark example's JVM with the test SparkSession's flags (tests/sql/conftest.py): the C1
# JIT only and the serial GC cost ~37% less CPU for a JVM this short-lived (85.5 -> 53.7 s
# for the example's processes, load 17-20); the example itself keeps the JVM's defaults.
JVM_FLAGS = {"spark_eval.py": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}


@pytest.mark.parametrize(
    "script",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in SCRIPTS],
    ids=lambda p: p.name,
)
def test_example_runs(script):
    module = NEEDS.get(script.name)
    if module and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[{module[2:]}]')")
    env = dict(os.environ)
    if script.name in JVM_FLAGS:  # read by the java launcher that pyspark starts
        env["JDK_JAVA_OPTIONS"] = f"{env.get('JDK_JAVA_OPTIONS', '')} {JVM_FLAGS[script.name]}"
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=300,
        check=False, env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "an example should show its result"


def test_example_data_is_what_the_seeded_generator_makes(tmp_path, monkeypatch):
    import polars as pl

    spec = importlib.util.spec_from_file_location("gen", ROOT / "examples" / "make_example_data.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    monkeypatch.setattr(gen, "HERE", tmp_path)
    gen.make()
    for name in ("quickstart_run.parquet", "quickstart_qrels.parquet"):
        shipped = pl.read_parquet(ROOT / "examples" / "data" / name)
        assert shipped.equals(pl.read_parquet(tmp_path / name))
