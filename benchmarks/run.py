"""Time polars_rankeval against a floor and its peers, each run as a whole process.

Every run of a variant is a fresh ``python benchmarks/variants.py ...`` process, so the
wall time includes interpreter start-up, imports, reading the Parquet files and the
evaluation, and the peak RSS (``os.wait4``'s ``ru_maxrss``) is that process's alone.
Repeats alternate between the variants (rotating their order), and the table reports
the median wall time.  Every variant prints its per-measure means, which must agree
with pytrec_eval's (trec_eval) to 1e-9, or the script exits with status 1.

    python benchmarks/run.py --smoke                        # CI: tiny data, < 30 s
    python benchmarks/run.py                                # 1M and 10M rows, all variants
    python benchmarks/run.py --sizes 10M --repeats 3 --slow-repeats 1
    python benchmarks/run.py --sizes 100M --variants floor,polars-streaming,duckdb --append
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from importlib.util import find_spec
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# Spec only: generate.py imports numpy/polars lazily.  The runner must stay small,
# because a child's ru_maxrss starts from the RSS of the process that forked it.
from generate import DATA, Spec

VARIANTS_PY = HERE / "variants.py"
RESULTS = HERE / "RESULTS.md"
TOLERANCE = 1e-9

FIVE = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
TWENTY = [
    "AP",
    "AP@10",
    "AP@100",
    "P@1",
    "P@5",
    "P@10",
    "P@20",
    "P@100",
    "R@10",
    "R@100",
    "R@1000",
    "nDCG",
    "nDCG@5",
    "nDCG@10",
    "nDCG@20",
    "RR",
    "RR@10",
    "Success@1",
    "Success@5",
    "Rprec",
]


@dataclass(frozen=True)
class Variant:
    key: str  # name on the command line
    script: str  # variant name in variants.py
    label: str
    ours: bool
    measures: tuple[str, ...] = tuple(FIVE)
    peer: str | None = None  # module to look for
    trec_ties: bool = True  # breaks score ties as trec_eval does
    env: dict[str, str] = field(default_factory=dict)
    # reads the one-query data (one query holding every run row; see one_query_spec)
    one_query: bool = False


VARIANTS = [
    Variant("floor", "floor", "floor: scan both + join + group_by count", True, ()),
    Variant("floor-in-memory", "floor-in-memory", "floor, in-memory engine", True, ()),
    Variant(
        "floor-sorted", "floor-sorted", "sorted floor: the floor + score rank window", True, ()
    ),
    Variant("polars-rank", "polars-rank", "polars_rankeval, rank-given run (query, rank, item)",
            True),
    Variant("polars", "polars", "polars_rankeval, polars engine, collect()", True),
    Variant("polars-rank-1q", "polars-rank",
            "rank-given run, one query holding every row", True, one_query=True),
    Variant("polars-1q", "polars", "score-only run, one query holding every row", True,
            one_query=True),
    Variant("polars-parts", "polars-parts",
            "query-hash partitions one at a time (BENCH_PARTS, default 4)", True),
    Variant("polars-rank-parts", "polars-rank-parts",
            "rank-given run, query-hash partitions (BENCH_PARTS, default 4)", True),
    Variant("polars-in-memory", "polars-in-memory", "polars engine, in-memory engine", True),
    Variant("polars-streaming", "polars-streaming", "polars engine, streaming engine", True),
    Variant("duckdb", "duckdb", "polars_rankeval, DuckDB engine", True),
    Variant("pytrec_eval", "pytrec_eval", "pytrec_eval", False, peer="pytrec_eval"),
    Variant(
        "ranx-cold", "ranx", "ranx, cold (empty numba cache)", False, peer="ranx", trec_ties=False
    ),
    Variant("ranx", "ranx", "ranx, numba on-disk cache", False, peer="ranx", trec_ties=False),
    Variant("ir_measures", "ir_measures", "ir_measures", False, peer="ir_measures"),
    Variant("polars-20", "polars-20", "polars engine, 20 measures", True, tuple(TWENTY)),
]
BY_KEY = {v.key: v for v in VARIANTS}
# the partitioned variants are an experiment (issue 15), the one-query ones need their
# own data (--one-query): by name only
DEFAULT_VARIANTS = [
    v.key for v in VARIANTS if not v.key.endswith("-parts") and not v.one_query
]
SMOKE_VARIANTS = [
    "floor",
    "floor-sorted",
    "polars-rank",
    "polars",
    "polars-in-memory",
    "polars-streaming",
    "duckdb",
    "polars-20",
    "pytrec_eval",
]
# the table (#15): the floors, both run shapes and pytrec_eval, paired in one run
PAIRED_VARIANTS = ["floor", "floor-sorted", "polars-rank", "polars", "pytrec_eval"]
# --one-query (#15's single-huge-query figure): both run shapes on one query holding
# every run row, paired with the same shapes over many queries
ONE_QUERY_VARIANTS = ["polars-rank", "polars-rank-1q", "polars", "polars-1q"]
SLOW = {"ranx-cold", "ranx", "ir_measures"}  # their runs are capped by --slow-repeats
PEER_MODULES = {"pytrec_eval": "pytrec_eval", "ranx": "ranx", "ir_measures": "ir_measures"}
DISTRIBUTIONS = {
    "polars": "polars",
    "duckdb": "duckdb",
    "polars_rankeval": "polars_rankeval",
    "pytrec_eval": "pytrec-eval-terrier",
    "ranx": "ranx",
    "ir_measures": "ir_measures",
    "numba": "numba",
    "numpy": "numpy",
    "pandas": "pandas",
    "pyarrow": "pyarrow",
}


@dataclass
class Run:
    wall: float
    cpu: float  # user + system seconds of the process and its threads
    rss_kib: int
    status: str  # ok, skipped, n/a, error, timeout
    payload: dict
    stderr: str = ""


@dataclass
class Row:
    key: str
    label: str
    measures: int
    runs: list[Run] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)  # after adjustments (ranx)
    cpus: list[float] = field(default_factory=list)
    computes: list[float] = field(default_factory=list)
    status: str = "ok"
    note: str = ""
    check: str = ""

    @property
    def wall(self) -> float:
        return statistics.median(self.walls) if self.walls else math.nan

    @property
    def rss_mib(self) -> float:
        ok = [r.rss_kib for r in self.runs if r.status == "ok"]
        return max(ok) / 1024 if ok else math.nan


# --------------------------------------------------------------------------- sizes


def parse_rows(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    factor = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(text[-1:], 1)
    number = text[:-1] if factor != 1 else text
    try:
        rows = int(float(number) * factor)
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size {text!r}: use e.g. 1M, 10M, 20k") from None
    if rows < 100:
        raise argparse.ArgumentTypeError(f"size {text!r} is below 100 rows")
    return rows


def human(rows: int) -> str:
    for factor, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if rows >= factor and rows % (factor // 10) == 0:
            value = rows / factor
            return f"{value:g}{suffix}"
    return str(rows)


# --------------------------------------------------------------------------- running


def run_process(
    variant: Variant,
    paths: tuple[Path, Path],
    measures: list[str],
    *,
    timeout: float,
    env: dict[str, str],
    max_rss_gib: float | None = None,
) -> Run:
    """One variant as its own process: wall time, its own peak RSS, its JSON line.

    The process is killed after ``timeout`` seconds, or when its RSS passes
    ``max_rss_gib`` (a shared machine should not meet the OOM killer)."""
    command = [
        sys.executable,
        str(VARIANTS_PY),
        variant.script,
        str(paths[0]),
        str(paths[1]),
        json.dumps(measures),
    ]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env={**os.environ, **env})
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        over = threading.Event()
        done = threading.Event()
        if max_rss_gib is not None:
            watchdog = threading.Thread(
                target=_watch_rss, args=(process, max_rss_gib, over, done), daemon=True
            )
            watchdog.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
            done.set()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode(errors="replace")
        stderr = err.read().decode(errors="replace")
    rss = int(usage.ru_maxrss)  # KiB on Linux
    cpu = usage.ru_utime + usage.ru_stime
    if process.returncode != 0:
        if over.is_set():
            status_text, note = "memory", f"killed: RSS above --max-rss-gib {max_rss_gib:g}"
        elif wall >= timeout:
            status_text, note = "timeout", f"timed out after {timeout:g} s"
        else:
            status_text, note = "error", "\n".join(stderr.strip().splitlines()[-5:])
        return Run(wall, cpu, rss, status_text, {"note": note}, stderr)
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        note = f"no JSON output; stderr: {stderr[-500:]}"
        return Run(wall, cpu, rss, "error", {"note": note}, stderr)
    payload = json.loads(lines[-1])
    return Run(wall, cpu, rss, payload.get("status", "ok"), payload, stderr)


def _watch_rss(
    process: subprocess.Popen, limit_gib: float, over: threading.Event, done: threading.Event
) -> None:
    status = Path(f"/proc/{process.pid}/status")
    while not done.wait(0.2):
        try:
            for line in status.read_text().splitlines():
                if line.startswith("VmRSS:"):
                    if int(line.split()[1]) > limit_gib * 1024**2:
                        over.set()
                        process.kill()
                        return
                    break
        except (OSError, ValueError):
            return


def compare(means: dict[str, float], reference: dict[str, float]) -> tuple[bool, str]:
    """Agreement of ``means`` with ``reference`` on their common measures."""
    worst_name, worst, checked = "", 0.0, 0
    for name, value in means.items():
        if name not in reference:
            continue
        checked += 1
        diff = abs(value - reference[name])
        if not diff <= worst:  # also catches NaN
            worst_name, worst = name, diff
    if not worst <= TOLERANCE:
        return False, f"DIFFERS: {worst_name} off by {worst:.3g}"
    if checked == 0:
        return True, "unchecked (no measure in common with the reference)"
    unchecked = len(means) - checked
    extra = f", {unchecked} not in the reference" if unchecked else ""
    return True, f"ok (max diff {worst:.1e}{extra})"


def peer_available(variant: Variant) -> bool:
    return variant.peer is None or find_spec(PEER_MODULES[variant.peer]) is not None


def bench_size(
    rows: int, keys: list[str], args: argparse.Namespace, log
) -> tuple[list[Row], str, bool, Spec, tuple[int, int]]:
    """Generate the data, run every variant ``repeats`` times, check; returns the rows,
    a note on the reference, and whether everything passed."""
    queries = max(1, rows // args.depth)
    spec = Spec(queries, depth=args.depth, judged=args.judged, ties=args.ties, seed=args.seed)
    variants = [BY_KEY[k] for k in keys]
    ranked = bool({"polars-rank", "polars-rank-parts"} & set(keys))
    paths, counts = materialise(spec, args.data, ranked=ranked)
    data = {False: paths}  # one_query -> (run, qrels)
    if any(v.one_query for v in variants):
        data[True], (_, one_qrels) = materialise(
            one_query_spec(rows, args), args.data, ranked=True
        )
        shape_note = f"one-query data: 1 query × {rows:,} run rows, {one_qrels:,} qrels rows"
    table = {v.key: Row(v.key, v.label, len(v.measures)) for v in variants}
    cache = args.data / "numba-cache"
    big = rows > args.peer_max_rows

    runnable: list[Variant] = []
    for v in variants:
        row = table[v.key]
        if not peer_available(v):
            row.status, row.note = "skipped", f"{v.peer} not installed (pip install -e .[bench])"
        elif not v.ours and big:
            row.status = "skipped"
            row.note = f"peers only up to --peer-max-rows {human(args.peer_max_rows)}"
        else:
            runnable.append(v)

    # reference: pytrec_eval (trec_eval itself) on every measure any variant reports,
    # on each data shape (the one-query data has its own)
    wanted = list(dict.fromkeys(m for v in runnable for m in v.measures))
    reference: dict[str, float] | None = None
    references: dict[bool, dict[str, float]] = {}  # one_query -> pytrec_eval's means
    reference_note = ""
    pytrec = BY_KEY["pytrec_eval"]
    if wanted and peer_available(pytrec) and rows <= args.reference_max_rows:
        for one_query, shape_paths in data.items():
            log(f"[{human(rows)}] reference: pytrec_eval on {len(wanted)} measures"
                + (" (one-query data)" if one_query else ""))
            ref = run_process(pytrec, shape_paths, wanted, timeout=args.timeout, env={})
            if ref.status != "ok":
                reference_note = f"pytrec_eval reference failed: {ref.payload.get('note')}"
                references.clear()
                break
            references[one_query] = ref.payload["means"]
            reference_note = f"pytrec_eval (trec_eval) on all {len(wanted)} measures"
        reference = references.get(False)
        if True in references:
            reference_note += " (the one-query variants against pytrec_eval on their data)"
    if True in data:
        reference_note += f"; {shape_note}"
    elif not peer_available(pytrec):
        reference_note = "pytrec_eval not installed: variants checked against each other"
    else:
        reference_note = (
            f"pytrec_eval not run at this size (--reference-max-rows "
            f"{human(args.reference_max_rows)}): variants checked against each other"
        )

    if any(v.key == "ranx" for v in runnable):
        # fill numba's on-disk cache (tiny data, same types) so that "ranx" measures a
        # process that loads compiled code, as every run after a user's first one does
        log(f"[{human(rows)}] filling the numba cache for ranx")
        tiny, _ = materialise(
            Spec(50, depth=args.depth, judged=args.judged, seed=args.seed), args.data
        )
        run_process(
            BY_KEY["ranx"],
            tiny,
            list(FIVE),
            timeout=args.timeout,
            env={"NUMBA_CACHE_DIR": str(cache)},
        )

    for repeat in range(args.repeats):
        shift = repeat % max(1, len(runnable))
        for v in runnable[shift:] + runnable[:shift]:
            if v.key in SLOW and repeat >= args.slow_repeats:
                continue
            row = table[v.key]
            if row.status in ("n/a", "error", "timeout", "memory"):
                continue
            env = {}
            if v.key == "ranx-cold":
                env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-", dir=args.data)
            elif v.script == "ranx":
                env["NUMBA_CACHE_DIR"] = str(cache)
            result = run_process(
                v,
                data[v.one_query],
                list(v.measures),
                timeout=args.timeout,
                env=env,
                max_rss_gib=args.max_rss_gib,
            )
            if v.key == "ranx-cold":
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
            row.runs.append(result)
            if result.status != "ok":
                row.status = result.status
                row.note = str(result.payload.get("note", ""))
                log(f"[{human(rows)}] {v.key}: {result.status}: {row.note}")
                continue
            seconds = result.payload.get("seconds", {})
            wall = result.wall
            cpu = result.cpu
            compute = seconds.get("total", seconds.get("eval", math.nan))
            if v.script == "ranx":
                # the process made two calls; a one-call process is wall - the other one
                wall -= result.payload["second_call"]
                cpu -= result.payload["second_cpu"]
                warm = table.setdefault(
                    "ranx-warm",
                    Row("ranx-warm", "ranx, warm (2nd call in the process)", len(v.measures)),
                )
                if v.key == "ranx":
                    warm.runs.append(result)
                    warm.walls.append(result.wall - result.payload["first_call"])
                    warm.cpus.append(result.cpu - result.payload["first_cpu"])
                    warm.computes.append(
                        seconds["read"] + seconds["build_warm"] + seconds["eval_warm"]
                    )
            row.walls.append(wall)
            row.cpus.append(cpu)
            row.computes.append(compute)
            log(
                f"[{human(rows)}] repeat {repeat + 1}/{args.repeats} {v.key}: "
                f"{wall:.2f} s wall, {cpu:.2f} s CPU, {result.rss_kib / 1024:.0f} MiB"
            )

    # checks
    passed = True
    reference_key = None
    if reference is None:
        for row in table.values():
            means = next((r.payload.get("means") for r in row.runs if r.status == "ok"), None)
            variant = BY_KEY.get(row.key)
            if means and variant is not None and variant.ours and not variant.one_query:
                reference, reference_key = means, row.key
                reference_note += f" (reference: {row.label})"
                break
    for row in table.values():
        if row.status == "error" or (
            row.status in ("timeout", "memory") and BY_KEY.get(row.key, pytrec).ours
        ):
            passed = False
        oks = [r for r in row.runs if r.status == "ok"]
        if not row.measures or not oks:  # the floors compute no measure
            row.check = "" if not row.measures else row.status
            continue
        if reference is None:
            row.check = "unchecked"
            continue
        if row.key == reference_key and len(oks) == 1:
            row.check = "the reference (unchecked)"
            continue
        variant = BY_KEY.get(row.key, BY_KEY["ranx"])  # ranx-warm: the ranx process
        if variant.one_query and True not in references:
            row.check = "unchecked (no pytrec_eval reference on the one-query data)"
            continue
        against = references[True] if variant.one_query else reference
        results = [compare(r.payload["means"], against) for r in oks]
        bad = [text for ok, text in results if not ok]
        row.check = bad[0] if bad else results[0][1]
        if bad and args.ties and not variant.trec_ties:
            row.check += " (expected: breaks score ties unlike trec_eval; not a failure)"
        elif bad:
            passed = False
    if "ranx-warm" in table:  # keep it next to the other ranx rows
        warm = table.pop("ranx-warm")
        ordered = {}
        for key, row in table.items():
            ordered[key] = row
            if key == "ranx" or (key == "ranx-cold" and "ranx" not in table):
                ordered["ranx-warm"] = warm
        if "ranx-warm" not in ordered:
            ordered["ranx-warm"] = warm
        table = ordered
    return list(table.values()), reference_note, passed, spec, counts


def one_query_spec(rows: int, args: argparse.Namespace) -> Spec:
    """The one-query data of a size: one query holding all ``rows`` run rows and as many
    judgments per run row as the many-query data (a tenth; about half of them retrieved)."""
    judged = max(2, rows * args.judged // args.depth)
    return Spec(1, depth=rows, judged=judged, ties=args.ties, seed=args.seed)


def materialise(
    spec: Spec, data: Path, *, ranked: bool = False
) -> tuple[tuple[Path, Path], tuple[int, int]]:
    """Generate (if missing) in a child process; the paths and the row counts
    (``ranked``: also the run's rank-given copy that the polars-rank variant reads)."""
    command = [
        sys.executable,
        str(HERE / "generate.py"),
        "--queries",
        str(spec.queries),
        "--depth",
        str(spec.depth),
        "--judged",
        str(spec.judged),
        "--seed",
        str(spec.seed),
        "--data",
        str(data),
        "--json",
        *(["--ties"] if spec.ties else []),
        *(["--ranked"] if ranked else []),
    ]
    out = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
    info = json.loads(out.strip().splitlines()[-1])
    return (Path(info["run"]), Path(info["qrels"])), (info["run_rows"], info["qrels_rows"])


# --------------------------------------------------------------------------- report


def fmt(value: float, digits: int = 2) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def render(rows: list[Row]) -> list[str]:
    by_key = {r.key: r for r in rows}
    floor = by_key.get("floor")
    # "× polars engine": collect() as a user writes it, else the engine that was run
    ours = next(
        (by_key[k] for k in ("polars", "polars-streaming", "polars-in-memory") if k in by_key),
        None,
    )
    floor_wall = floor.wall if floor and floor.walls else math.nan
    floor_compute = statistics.median(floor.computes) if floor and floor.computes else math.nan
    floor_cpu = statistics.median(floor.cpus) if floor and floor.cpus else math.nan
    ours_wall = ours.wall if ours and ours.walls else math.nan
    header = (
        "| variant | measures | wall s (median) | runs | CPU s | in-process s | peak RSS MiB "
        "| × floor (wall) | × floor (CPU) | × floor (in-process) | × polars engine (wall) "
        "| check |"
    )
    lines = [header, "|" + "---|" * 12]
    for row in rows:
        if not row.walls:
            note = row.note.replace("|", "/").replace("\n", " ")[:160]
            lines.append(
                f"| {row.label} | {row.measures or '–'} | {row.status} | 0 | – | – | – | – | – "
                f"| – | – | {note} |"
            )
            continue
        compute = statistics.median(row.computes)
        cpu = statistics.median(row.cpus)
        span = f"{len(row.walls)}"
        if len(row.walls) > 1:
            span += f" ({min(row.walls):.2f}–{max(row.walls):.2f})"
        lines.append(
            f"| {row.label} | {row.measures or '–'} | {fmt(row.wall)} | {span} | {fmt(cpu)} "
            f"| {fmt(compute)} | {fmt(row.rss_mib, 0)} | {fmt(row.wall / floor_wall)} "
            f"| {fmt(cpu / floor_cpu)} | {fmt(compute / floor_compute)} "
            f"| {fmt(row.wall / ours_wall)} | {row.check} |"
        )
    return lines


def render_paired(rows: list[Row]) -> list[str]:
    """The issue-#15 table: each shape against its floor, pytrec_eval against us, memory
    against pytrec_eval's; ratios of medians, wall and CPU (CPU is steadier under load)."""
    by_key = {r.key: r for r in rows if r.walls}

    def figures(key: str) -> tuple[float, float, float]:
        row = by_key.get(key)
        if row is None:
            return math.nan, math.nan, math.nan
        return row.wall, statistics.median(row.cpus), row.rss_mib

    floor, sorted_floor = figures("floor"), figures("floor-sorted")
    given, score, pytrec = figures("polars-rank"), figures("polars"), figures("pytrec_eval")

    def ratio(a: tuple[float, ...], b: tuple[float, ...], what: str) -> str:
        return f"{fmt(a[0] / b[0])}x / {fmt(a[1] / b[1])}x {what}"

    table = [
        ("floor: scan + join + group count", floor, "1.00x / 1.00x floor", ""),
        ("sorted floor: + score rank window", sorted_floor, ratio(sorted_floor, floor, "floor"),
         ""),
        ("rank-given run (query, rank, item)", given, ratio(given, floor, "floor"),
         "≤ 1.25x floor"),
        ("score-only run (query, item, score)", score,
         ratio(score, sorted_floor, "sorted floor"), "≤ 1.25x sorted floor"),
        ("pytrec_eval (read + dicts + evaluate)", pytrec,
         ratio(pytrec, score, "score-only run"), "≥ 8x score-only run"),
    ]
    lines = [
        "| variant | wall s | CPU s | peak RSS MiB | ratio (wall / CPU) | goal |",
        "|---|---|---|---|---|---|",
    ]
    for label, (wall, cpu, rss), text, goal in table:
        lines.append(f"| {label} | {fmt(wall)} | {fmt(cpu)} | {fmt(rss, 0)} | {text} | {goal} |")
    memory = ", ".join(
        f"{name} {fmt(ours[2] / pytrec[2])}x" for name, ours in (("score-only", score),
                                                                  ("rank-given", given))
    )
    lines.append(f"| memory vs pytrec_eval (peak RSS) | | | | {memory} | ≤ 0.2x |")
    return lines


def render_one_query(rows: list[Row]) -> list[str]:
    """#15's single-huge-query figure: each run shape on one query holding every row
    against the same shape over many queries (goal: at most 3x), ratios of medians."""
    by_key = {r.key: r for r in rows if r.walls}
    header = (
        "| run shape | many queries: wall s / CPU s / peak MiB "
        "| one query: wall s / CPU s / peak MiB | one / many (wall / CPU) | goal |"
    )
    lines = [header, "|---|---|---|---|---|"]
    for label, many_key, one_key in (
        ("rank-given (query, rank, item)", "polars-rank", "polars-rank-1q"),
        ("score-only (query, item, score)", "polars", "polars-1q"),
    ):
        many, one = by_key.get(many_key), by_key.get(one_key)
        if many is None or one is None:
            continue
        figures = []
        for row in (many, one):
            cpu = statistics.median(row.cpus)
            figures.append(f"{fmt(row.wall)} / {fmt(cpu)} / {fmt(row.rss_mib, 0)}")
        ratio = (
            f"{fmt(one.wall / many.wall)}x / "
            f"{fmt(statistics.median(one.cpus) / statistics.median(many.cpus))}x"
        )
        lines.append(f"| {label} | {figures[0]} | {figures[1]} | {ratio} | ≤ 3x |")
    return lines


def _ram_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return int(line.split()[1]) / 1024**2
    except OSError:
        pass
    return 16.0


def machine() -> list[str]:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = "unknown"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                ram = f"{int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    versions = []
    for name, dist in DISTRIBUTIONS.items():
        try:
            versions.append(f"{name} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    try:
        commit = subprocess.run(
            ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "-C",
                str(HERE.parent),
                "status",
                "--porcelain",
                "--",
                "polars_rankeval",
                "sql",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        commit += " + uncommitted changes in polars_rankeval/ or sql/" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    affinity = os.environ.get("POLARS_ENGINE_AFFINITY")
    if affinity:
        load += f"; POLARS_ENGINE_AFFINITY={affinity}"
    return [
        (
            f"- Machine: {os.cpu_count()} cores, {ram} RAM, CPU {cpu}, "
            f"{platform.system()} {platform.release()}; load average at start {load}"
        ),
        f"- polars_rankeval commit: {commit}",
        f"- Python {platform.python_version()}; " + ", ".join(versions),
        f"- Date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
    ]


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="variants: " + ", ".join(f"{v.key} ({v.label})" for v in VARIANTS),
    )
    parser.add_argument(
        "--sizes", default="1M,10M", help="run rows, comma separated (default 1M,10M)"
    )
    parser.add_argument("--variants", default=",".join(DEFAULT_VARIANTS), help="comma separated")
    parser.add_argument("--repeats", type=int, default=3, help="runs per variant (default 3)")
    parser.add_argument(
        "--slow-repeats",
        type=int,
        default=None,
        help="runs of the slow peers (ranx, ir_measures); default --repeats",
    )
    parser.add_argument(
        "--peer-max-rows",
        type=parse_rows,
        default=parse_rows("10M"),
        help="skip the peers above this size (default 10M)",
    )
    parser.add_argument(
        "--reference-max-rows",
        type=parse_rows,
        default=parse_rows("20M"),
        help="no pytrec_eval reference above this size (default 20M)",
    )
    parser.add_argument("--ties", action="store_true", help="tie-heavy scores")
    parser.add_argument("--depth", type=int, default=100, help="run rows per query (default 100)")
    parser.add_argument("--judged", type=int, default=10, help="judgments per query (default 10)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per process")
    parser.add_argument(
        "--max-rss-gib",
        type=float,
        default=round(_ram_gib() * 0.85, 1),
        help="kill a process whose RSS passes this (default 85%% of RAM)",
    )
    parser.add_argument("--data", type=Path, default=DATA, help="data folder (benchmarks/data)")
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="Markdown report (default benchmarks/RESULTS.md; none with --smoke)",
    )
    parser.add_argument("--no-results", action="store_true", help="write no report")
    parser.add_argument("--append", action="store_true", help="append to the report")
    parser.add_argument(
        "--suite",
        choices=["all", "paired"],
        default="all",
        help="paired: the issue-#15 table (floor, sorted floor, rank-given run, score-only "
        "run, pytrec_eval; 10M rows unless --sizes), with its ratios",
    )
    parser.add_argument(
        "--one-query",
        action="store_true",
        help="issue #15's single-huge-query figure: both run shapes (rank-given, "
        "score-only) on one query holding every run row, paired with the same shapes over "
        "many queries (with --suite paired: these variants only, unless --variants)",
    )
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="CI check: 20k rows, 1 repeat, our variants + pytrec_eval",
    )
    args = parser.parse_args(argv)

    given = argv if argv is not None else sys.argv[1:]
    if args.suite == "paired":
        if "--sizes" not in given:
            args.sizes = "10M"
        if "--variants" not in given:
            args.variants = ",".join(ONE_QUERY_VARIANTS if args.one_query else PAIRED_VARIANTS)
    elif args.one_query and "--variants" not in given:
        args.variants = ",".join(ONE_QUERY_VARIANTS)
    if args.smoke:
        if "--sizes" not in (argv if argv is not None else sys.argv[1:]):
            args.sizes = "20k"
        if "--variants" not in (argv if argv is not None else sys.argv[1:]):
            args.variants = ",".join(SMOKE_VARIANTS)
        args.repeats = 1
        args.timeout = min(args.timeout, 120)
    if args.slow_repeats is None:
        args.slow_repeats = args.repeats
    if args.repeats < 1 or args.slow_repeats < 0:
        parser.error("--repeats must be >= 1 and --slow-repeats >= 0")
    keys = [k.strip() for k in args.variants.split(",") if k.strip()]
    unknown = [k for k in keys if k not in BY_KEY]
    if unknown:
        parser.error(f"unknown variant(s) {unknown}; choose from {', '.join(BY_KEY)}")
    try:
        sizes = [parse_rows(s) for s in args.sizes.split(",") if s.strip()]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    results = None if args.no_results else (args.results or (None if args.smoke else RESULTS))

    started = time.perf_counter()

    def log(message: str) -> None:
        print(f"{time.perf_counter() - started:7.1f}s  {message}", file=sys.stderr, flush=True)

    command = "python benchmarks/run.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    report = [
        "## "
        + datetime.now(UTC).strftime("%Y-%m-%d")
        + ": "
        + (
            ", ".join(human(s) for s in sizes)
            + " run rows"
            + (" (tie-heavy scores)" if args.ties else "")
        ),
        "",
        f"Command: `{command.strip()}`",
        "",
        *machine(),
        "",
    ]
    all_passed = True
    for rows in sizes:
        table, reference_note, passed, spec, (_, qrels_rows) = bench_size(rows, keys, args, log)
        all_passed &= passed
        title = (
            f"### {human(rows)} run rows ({spec.queries:,} queries × {spec.depth}; "
            f"{qrels_rows:,} qrels rows{', tie-heavy scores' if spec.ties else ''})"
        )
        lines = render(table)
        if args.suite == "paired" and "floor" in keys:
            lines += ["", *render_paired(table)]
        if any(BY_KEY[k].one_query for k in keys):
            lines += ["", *render_one_query(table)]
        repeats = f"{args.repeats} repeat(s)" + (
            f", ranx and ir_measures {args.slow_repeats}"
            if args.slow_repeats != args.repeats
            else ""
        )
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        notes = [f"Checked against: {reference_note}; {repeats}; load average at the end {load}."]
        notes += [f"{r.label}: {r.note}" for r in table if r.note and r.walls]
        print("\n" + title + "\n\n" + "\n".join(lines) + "\n\n" + "\n".join(notes) + "\n")
        report += [title, "", *lines, "", *notes, ""]
    if results is not None:
        text = "\n".join(report) + "\n"
        if args.append and results.exists():
            text = results.read_text().rstrip("\n") + "\n\n" + text
        elif not args.append or not results.exists():
            text = PREAMBLE + "\n" + text
        results.write_text(text)
        log(f"wrote {results}")
    log("PASSED: every variant agrees to 1e-9" if all_passed else "FAILED: see the check column")
    return 0 if all_passed else 1


PREAMBLE = """# Benchmark results

Written by `benchmarks/run.py` (see `benchmarks/README.md` for what each variant
measures).  Wall time is the whole process (interpreter start-up, imports, reading
Parquet, evaluating), median over the repeats; CPU s is that process's user + system
time (median); peak RSS is the largest over the repeats; "in-process" is the time
measured inside the process from the first read to the result (imports excluded).
"× floor" divides by the floor variant (scan both files, join, group_by count: the
least any evaluation must do), "× polars engine" by `rk.evaluate(...).collect()`.
Every variant's means agree with pytrec_eval's to 1e-9 where the check column says ok.
On a shared machine (see the load averages) wall times are noisy; CPU time is the
steadier comparison.
"""


if __name__ == "__main__":
    raise SystemExit(main())
