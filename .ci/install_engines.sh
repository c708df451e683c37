#!/usr/bin/env bash
# Real SQL engines for the SQL-twin tests (tests/sql/test_postgres.py, tests/sql/test_spark.py):
# PostgreSQL from the Debian package, Java 17 for Spark, and the [sql,spark] extras
# (sqlglot, pyspark) into the project's virtualenv.  Without them those tests skip.
# Also Debian's chromium + chromium-driver, for the HTML report's browser test.
#
# Called by .ci/run from the repository root once .venv exists; idempotent (a second run
# only re-checks).  Measured on the development machine (Debian 12, 15 cores):
#   apt-get update 0.8 s; PostgreSQL 15 download 1.8 s (it was already installed, so
#   unpack/configure was not timed); pip install pyspark 4.3 + py4j 109 s (~400 MB
#   download); the engine tests then take ~20 s (PostgreSQL) and ~95 s (Spark).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

packages=()
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    packages+=(postgresql)
fi
if ! command -v java >/dev/null 2>&1; then
    packages+=(openjdk-17-jre-headless)
fi
# C compiler and make: tests/cli builds the real trec_eval 10.0 as an oracle
if ! command -v cc >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1; then
    packages+=(gcc make libc6-dev)
fi
# Chromium and its driver: tests/compare/test_report_browser.py opens the HTML report in it
if ! command -v chromium >/dev/null 2>&1; then
    packages+=(chromium)
fi
if ! command -v chromedriver >/dev/null 2>&1; then
    packages+=(chromium-driver)
fi
if [ "${#packages[@]}" -gt 0 ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

"$PYTHON" -m pip install --quiet -e ".[sql,spark,dbt]"
