"""The SQL entry point (``rankeval_summary`` from ``sql/rankeval.sql`` in DuckDB) against
the polars engine (``rk.evaluate(...).collect()``), paired, each run a whole process.

    python benchmarks/sql_entry_vs_polars.py --smoke              # 20k rows, 1 repeat (CI)
    python benchmarks/sql_entry_vs_polars.py --rows 1M            # median of 3 pairs
    python benchmarks/sql_entry_vs_polars.py --rows 10M --baseline-sql /tmp/old_rankeval.sql

Data: ``generate.py`` (100 items per query, about 10 judged, Parquet), generated when
missing.  Measures: AP, nDCG@10, P@10, R@100, RR (issue 12's five).  Each repeat runs
every variant once as a fresh process, the order rotating, and records the wall time
(fork to exit: start-up, imports, reading Parquet, evaluating), the CPU time and the
peak RSS of that process (``os.wait4``), and the in-process time of the evaluation.
The printed table gives medians, and the median of the pair-by-pair ratios to the
polars engine.  Every variant's means must equal the polars engine's to 1e-9, or the
script exits with status 1.

Variants: ``polars`` (``rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels),
FIVE).collect()``), ``macro`` (``duckdb.connect()``, execute ``--sql`` (default
``sql/rankeval.sql``), ``SELECT * FROM rankeval_summary('run.parquet',
'qrels.parquet', [...])``), ``engine-duckdb`` (``rk.evaluate(..., engine="duckdb")``
on the same scans: the package's own ``sql/rankeval.sql``, whatever ``--sql`` says;
``--no-engine`` leaves it out), and with ``--baseline-sql PATH`` also
``macro-baseline`` (the same on another version of the file: before/after in one
paired run), with ``--baseline-python PATH`` also ``engine-duckdb-baseline`` (the
engine run by another interpreter, e.g. another checkout's venv, which imports its
own package).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SQL = HERE.parent / "sql" / "rankeval.sql"
FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]


# --------------------------------------------------------------------------- children


def _child_polars(run: str, qrels: str, _sql: str) -> dict[str, float]:
    import polars as pl

    import polars_rankeval as rk

    out = rk.evaluate(pl.scan_parquet(run), pl.scan_parquet(qrels), FIVE).collect()
    return dict(zip(out["measure"].to_list(), out["value"].to_list(), strict=True))


def _child_engine_duckdb(run: str, qrels: str, _sql: str) -> dict[str, float]:
    import polars as pl

    import polars_rankeval as rk

    out = rk.evaluate(
        pl.scan_parquet(run), pl.scan_parquet(qrels), FIVE, engine="duckdb"
    ).collect()
    return dict(zip(out["measure"].to_list(), out["value"].to_list(), strict=True))


def _child_macro(run: str, qrels: str, sql: str) -> dict[str, float]:
    import duckdb

    con = duckdb.connect()
    con.execute(Path(sql).read_text())
    names = "[" + ", ".join(f"'{n}'" for n in FIVE) + "]"
    rows = con.execute(
        f"SELECT measure, value FROM rankeval_summary('{run}', '{qrels}', {names})"
    ).fetchall()
    return {str(m): float(v) for m, v in rows}


def child(variant: str, run: str, qrels: str, sql: str) -> None:
    """One variant in this process: prints ``{"means": ..., "seconds": ...}``."""
    started = time.perf_counter()
    children = {"polars": _child_polars, "engine-duckdb": _child_engine_duckdb}
    means = children.get(variant, _child_macro)(run, qrels, sql)
    print(json.dumps({"means": means, "seconds": time.perf_counter() - started}))


# --------------------------------------------------------------------------- parent


def run_once(
    variant: str, paths: tuple[Path, Path], sql: Path, python: str = sys.executable
) -> dict[str, object]:
    """One whole process (``python`` running this file): wall, CPU, peak RSS (MiB), its
    means and in-process time."""
    name = variant.removesuffix("-baseline")
    name = name if name in ("polars", "engine-duckdb") else "macro"
    command = [python, __file__, "--child", name, str(paths[0]), str(paths[1]), str(sql)]
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    assert process.stdout is not None and process.stderr is not None
    stdout, stderr = process.stdout.read().decode(), process.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{variant} failed:\n{stderr[-2000:]}")
    payload = json.loads(stdout.strip().splitlines()[-1])
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss / 1024,
        "inproc": payload["seconds"],
        "means": payload["means"],
    }


def check(results: dict[str, list[dict[str, object]]]) -> list[str]:
    """Every run's means against the first polars run's (1e-9); the problems found."""
    reference = results["polars"][0]["means"]
    assert isinstance(reference, dict)
    problems = []
    for variant, runs in results.items():
        for r in runs:
            means = r["means"]
            assert isinstance(means, dict)
            for name, value in reference.items():
                got = means.get(name)
                if got is None or abs(got - value) > 1e-9:
                    problems.append(f"{variant} {name}: {got} vs polars {value}")
    return problems


def table(results: dict[str, list[dict[str, object]]]) -> list[str]:
    """Markdown rows: medians and the median pair-by-pair ratio to the polars engine."""
    base = results["polars"]
    lines = [
        "| variant | wall s | CPU s | in-process s | peak RSS MiB | x polars wall | x polars CPU | runs (wall) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for variant, runs in results.items():

        def med(key: str, runs: list[dict[str, object]] = runs) -> float:
            return statistics.median(float(r[key]) for r in runs)  # type: ignore[arg-type]

        def ratio(key: str, runs: list[dict[str, object]] = runs) -> float:
            return statistics.median(
                float(r[key]) / float(b[key])  # type: ignore[arg-type]
                for r, b in zip(runs, base, strict=True)
            )

        walls = ", ".join(f"{float(r['wall']):.2f}" for r in runs)  # type: ignore[arg-type]
        lines.append(
            f"| {variant} | {med('wall'):.2f} | {med('cpu'):.2f} | {med('inproc'):.2f} |"
            f" {max(float(r['rss']) for r in runs):.0f} |"  # type: ignore[arg-type]
            f" {ratio('wall'):.2f} | {ratio('cpu'):.2f} | {walls} |"
        )
    return lines


def data(rows: int) -> tuple[Path, Path]:
    """The Parquet files of ``rows`` run rows (100 per query), generated when missing."""
    out = subprocess.run(
        [
            sys.executable,
            str(HERE / "generate.py"),
            "--queries",
            str(max(rows // 100, 1)),
            "--json",
        ],
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    ).stdout
    info = json.loads(out.strip().splitlines()[-1])
    return Path(info["run"]), Path(info["qrels"])


def parse_rows(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    factor = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text[:-1] if factor != 1 else text) * factor)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=parse_rows, default=1_000_000, help="run rows: 1M, 10M, 20k")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="20k rows, 1 repeat")
    parser.add_argument("--sql", type=Path, default=SQL, help="the macro file (sql/rankeval.sql)")
    parser.add_argument("--baseline-sql", type=Path, help="also time this version of the file")
    parser.add_argument(
        "--no-engine", action="store_true", help='leave out rk.evaluate(..., engine="duckdb")'
    )
    parser.add_argument(
        "--baseline-python",
        help='also time engine="duckdb" with this interpreter (another checkout\'s venv)',
    )
    parser.add_argument("--child", nargs=4, metavar=("VARIANT", "RUN", "QRELS", "SQL"))
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    rows, repeats = (20_000, 1) if args.smoke else (args.rows, args.repeats)
    paths = data(rows)
    variants = {"polars": args.sql, "macro": args.sql}
    if not args.no_engine:
        variants["engine-duckdb"] = args.sql
    if args.baseline_sql:
        variants["macro-baseline"] = args.baseline_sql
    if args.baseline_python:
        variants["engine-duckdb-baseline"] = args.sql
    results: dict[str, list[dict[str, object]]] = {v: [] for v in variants}
    load = os.getloadavg()
    order = list(variants)
    for repeat in range(repeats):
        for variant in order[repeat % len(order) :] + order[: repeat % len(order)]:
            python = (
                args.baseline_python if variant == "engine-duckdb-baseline" else sys.executable
            )
            results[variant].append(run_once(variant, paths, variants[variant], python))
    end = os.getloadavg()
    print(
        f"{rows:,} run rows ({paths[0].name}), {repeats} repeat(s), {os.cpu_count()} cores;"
        f" load average {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} at start,"
        f" {end[0]:.2f}/{end[1]:.2f}/{end[2]:.2f} at end"
    )
    print("\n".join(table(results)))
    problems = check(results)
    print(
        "check: "
        + (
            "every variant equals the polars engine to 1e-9"
            if not problems
            else "FAILED\n" + "\n".join(problems)
        )
    )
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
