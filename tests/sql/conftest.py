"""Fixtures of the warehouse tests: one SparkSession per pytest-xdist worker that runs a
Spark module, and
one throwaway PostgreSQL cluster per pytest-xdist worker that runs a module asking for
``postgres`` (the modules load their own tables, replacing any of the same name).

Session-scoped, and the three Spark modules run as one group on one worker
(``SHARED_WORKER`` in ``tests/conftest.py``), so a run starts one JVM, not one per module
(the JVM's start and its JIT warm-up are most of a small Spark test's CPU time).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.sql.postgres_cluster import Postgres


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local SparkSession (``local[2]``, UI off, 1 shuffle partition, bound to
    127.0.0.1, the C1 JIT only, no generated code: test-only settings for tiny tables).
    Skips, saying why, only when pyspark or Java is absent; ``.ci/install_engines.sh``
    installs pyspark (Java 17 is expected on the machine)."""
    pytest.importorskip("pyspark", reason="pyspark not installed: run .ci/install_engines.sh")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for Spark (install openjdk-17-jre)")
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("polars_rankeval-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # one shuffle partition: a statement is ~150 tiny stages over a few hundred rows;
        # one task each instead of two cost 15-25% less JVM CPU for a 90-measure grid
        # statement (two pairs, alternating in one JVM, load 13-16; TEST_TIMES.md suite8)
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        # a short-lived JVM on a small machine: the C1 JIT only and the serial GC cost about
        # 40% less CPU than the defaults for the same queries (the results do not change)
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        # a few hundred rows: most of a statement's CPU is Catalyst planning its ~500-measure
        # grid; adaptive execution re-plans each of its ~150 stages, and ConvertToLocalRelation
        # folds the local input through every projection; without them a grid statement cost
        # 13% less JVM CPU (41.3 -> 36.0 s, paired, load 16-20; the results do not change)
        .config("spark.sql.adaptive.enabled", "false")
        .config(
            "spark.sql.optimizer.excludedRules",
            "org.apache.spark.sql.catalyst.optimizer.ConvertToLocalRelation",
        )
        # ... and much of the rest is Janino compiling the generated Java of those wide projections,
        # for a few hundred rows: interpreted expressions, no whole-stage code, cost 22% less
        # JVM CPU for a JVM's first 150-measure statement (42.0 -> 32.6 s) and 31% less for
        # a later one (26.4 -> 17.9 s), load 20-25, benchmarks/TEST_TIMES.md (the results do
        # not change: each statement still equals polars to 1e-9)
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        # ... and Catalyst infers every filter's constraints through each of the statement's
        # joins and projections, for no filter it could push: without it the 90-measure grid
        # statement cost 12.1 s of JVM CPU against 16.9 s (medians of 7 pairs alternating in
        # one warm JVM, each pair lower, load 3-5; the results do not change;
        # benchmarks/TEST_TIMES.md, spark31)
        .config("spark.sql.constraintPropagation.enabled", "false")
        # ... and Spark re-validates the whole plan after every optimizer rule that changes
        # it (its own rules' integrity, which these tests check by every value anyway):
        # without it the same statement cost 12.4 s against 15.1 s (6 pairs, 5 lower, load
        # 5-17; the results do not change; benchmarks/TEST_TIMES.md, spark31)
        .config("spark.sql.lightweightPlanChangeValidation", "false")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A cluster for the worker's whole session (initdb and a server start cost seconds of
    CPU: four modules ask for one), in a fresh temp directory, removed at the end."""
    # a fresh directory the postgres user can reach (pytest's base temp is root-only)
    directory = Path(tempfile.mkdtemp(prefix="rankeval-postgres-"))
    directory.chmod(0o755)
    server = Postgres(directory)
    try:
        server.start()
    except (RuntimeError, KeyError) as error:
        log = directory / "log"
        detail = log.read_text()[-1500:] if log.exists() else ""
        pytest.fail(f"could not start a PostgreSQL cluster: {error}\n{detail}")
    try:
        yield server
    finally:
        with contextlib.suppress(Exception):
            server.stop()
        shutil.rmtree(directory, ignore_errors=True)
