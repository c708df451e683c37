"""``rankeval`` against the real trec_eval 10.0 on TREC text files (issue 13 item 5).

Two paired comparisons, default measures (no ``-m``), each command run as a whole
process, the two in turn (A B A B ..., which one goes first alternating) so that a
change in the machine's load hits both alike:

* a ``--lines`` (default 2M) line run: ``rankeval`` vs ``trec_eval``
  (goal: <= 0.5x its wall time at <= 1.0x its peak memory);
* a ``--small-lines`` (default 50k) line run: ``rankeval`` vs a bare
  ``python -c "import polars"`` (goal: <= 1.25x its wall time), with ``--small-repeat``
  pairs (default 3x ``--repeat``: these ~0.25 s processes' pair ratios spread widely, and
  7 pairs' median moved by 0.1 between runs of the same code).

Each run's wall time (``time.perf_counter`` around ``fork``/``wait``), CPU time
(user + system) and peak RSS (``ru_maxrss``) come from ``os.wait4``; the report gives
the medians, the median of the pair-by-pair ratios and the ratio of the medians (when
the two differ much, the pairs were noisy), with the load average before and after.  Before timing, both commands' outputs on the data are compared: rankeval must
print exactly what trec_eval prints (exit status 1 otherwise).

The package's modules are byte-compiled first (``compileall``, as ``pip install``
does): with ``PYTHONDONTWRITEBYTECODE`` set, every run would otherwise compile them.
trec_eval is built from the shared tarball by ``tests/cli/_trec_eval.py`` (cached).
The data (seeded, 1000 documents a query, ~5% judged with grades 0-2) is written to
``--data`` (default ``benchmarks/data/``, gitignored) once and reused.

    python benchmarks/cli_vs_trec_eval.py --smoke     # CI: small files, 1 pair, < 30 s
    python benchmarks/cli_vs_trec_eval.py             # 2M and 50k lines, 7 and 21 pairs
    python benchmarks/cli_vs_trec_eval.py --sorted    # each query's lines in score order
    python benchmarks/cli_vs_trec_eval.py --lines 500000 --repeat 5
    python benchmarks/cli_vs_trec_eval.py --data DIR     # TREC files already written in DIR
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"


def write_files(
    folder: Path, lines: int, *, docs_per_query: int = 1000, sorted_scores: bool = False
) -> tuple[Path, Path]:
    """A run of ``lines`` lines (1000 documents a query) and qrels with ~5% judged;
    written once (the files are reused when present).  By default the scores are random
    along the ranks (trec_eval sorts every query); ``sorted_scores``: each query's lines
    in score order, as retrieval systems write them."""
    kind = "sorted" if sorted_scores else "random"
    qrels, run = folder / f"cli_qrels{lines}.txt", folder / f"cli_run{lines}_{kind}.txt"
    if qrels.exists() and run.exists():
        return qrels, run
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(0)
    queries = max(1, lines // docs_per_query)
    with open(run, "w") as r, open(qrels, "w") as q:
        for query in range(queries):
            docs = [(rng.randrange(100_000), rng.random()) for _ in range(docs_per_query)]
            judged = [rng.random() < 0.05 for _ in docs]
            grades = [rng.choice((0, 1, 2)) for _ in docs]
            for rank, (doc, _) in enumerate(docs):
                if judged[rank]:
                    q.write(f"{query} 0 doc{query}_{doc}_{rank} {grades[rank]}\n")
            order = sorted(range(len(docs)), key=lambda i: -docs[i][1]) if sorted_scores else None
            r.writelines(
                f"{query} Q0 doc{query}_{docs[i][0]}_{i} {position} {docs[i][1]:.6f} bench\n"
                for position, i in enumerate(order or range(len(docs)), 1)
            )
    return qrels, run


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds
    rss: float  # peak resident set size, MiB


def measure(command: list[str]) -> Sample:
    """One run of ``command``, its output thrown away."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{command} exited with {process.returncode}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def paired(a: list[str], b: list[str], repeat: int) -> tuple[list[Sample], list[Sample]]:
    """``repeat`` runs of each after one warm-up each, in turn, alternating which goes first."""
    for command in (a, b):
        measure(command)
    samples: tuple[list[Sample], list[Sample]] = ([], [])
    for i in range(repeat):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        for which in order:
            samples[which].append(measure((a, b)[which]))
    return samples


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def report(title: str, names: tuple[str, str], samples: tuple[list[Sample], list[Sample]]) -> str:
    """Markdown rows: each command's medians, then the medians of the pair ratios."""
    rows = []
    for name, runs in zip(names, samples):
        med = {f: statistics.median(getattr(s, f) for s in runs) for f in ("wall", "cpu", "rss")}
        walls = sorted(s.wall for s in runs)
        rows.append(f"| {title} | {name} | {med['wall']:.2f} ({walls[0]:.2f}–{walls[-1]:.2f}) "
                    f"| {med['cpu']:.2f} | {med['rss']:.0f} |")  # fmt: skip
    ratio = {
        f: statistics.median(getattr(x, f) / getattr(y, f) for x, y in zip(*samples))
        for f in ("wall", "cpu", "rss")
    }
    rows.append(f"| {title} | **{names[0]} / {names[1]}** (median of pairs) | "
                f"**{ratio['wall']:.2f}x** | {ratio['cpu']:.2f}x | {ratio['rss']:.2f}x |")  # fmt: skip
    medians = [{f: statistics.median(getattr(s, f) for s in runs) for f in ("wall", "cpu", "rss")}
               for runs in samples]  # fmt: skip
    of = {f: medians[0][f] / medians[1][f] for f in ("wall", "cpu", "rss")}
    rows.append(f"| {title} | {names[0]} / {names[1]} (ratio of the medians) | "
                f"{of['wall']:.2f}x | {of['cpu']:.2f}x | {of['rss']:.2f}x |")  # fmt: skip
    return "\n".join(rows)


def same_output(rankeval: list[str], trec_eval: list[str]) -> None:
    """rankeval prints byte for byte what trec_eval prints, or exit status 1."""
    ours = subprocess.run(rankeval, capture_output=True, check=True).stdout
    theirs = subprocess.run(trec_eval, capture_output=True, check=True).stdout
    if ours != theirs:
        raise SystemExit(f"rankeval's output differs from trec_eval's: {rankeval[-2:]}")


def main(argv: list[str] | None = None) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.cli._trec_eval import BuildUnavailable, trec_eval_binary

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000, help="big run (vs trec_eval)")
    parser.add_argument("--small-lines", type=int, default=50_000, help="vs import polars")
    parser.add_argument("--repeat", type=int, default=7, help="pairs timed (after a warm-up)")
    parser.add_argument(
        "--small-repeat", type=int, default=None,
        help="pairs timed for the small run (default: 3x --repeat)",
    )  # fmt: skip
    parser.add_argument(
        "--data", type=Path, default=DATA,
        help="folder of the TREC files (written there once when missing; default %(default)s)",
    )  # fmt: skip
    parser.add_argument("--smoke", action="store_true", help="CI: 20k and 2k lines, 1 pair")
    parser.add_argument(
        "--sorted", action="store_true", help="runs in score order (default: random scores)"
    )
    args = parser.parse_args(argv)
    if args.smoke:
        args.lines, args.small_lines, args.repeat, args.small_repeat = 20_000, 2_000, 1, 1
    small_repeat = 3 * args.repeat if args.small_repeat is None else args.small_repeat
    try:
        trec_eval = str(trec_eval_binary())
    except BuildUnavailable as error:
        print(f"skipped: trec_eval cannot be built here ({error})")
        return
    compileall.compile_dir(ROOT / "polars_rankeval", quiet=1)
    python = sys.executable
    rankeval = [python, "-m", "polars_rankeval.cli", "--quiet"]
    before = load()
    rows = []
    runs = (
        (args.lines, "trec_eval", args.repeat),
        (args.small_lines, "import polars", small_repeat),
    )
    for lines, base, repeat in runs:
        qrels, run = (str(p) for p in write_files(args.data, lines, sorted_scores=args.sorted))
        same_output([*rankeval, qrels, run], [trec_eval, qrels, run])
        other = [trec_eval, qrels, run] if base == "trec_eval" else [python, "-c", "import polars"]
        samples = paired([*rankeval, qrels, run], other, repeat)
        rows.append(report(f"{lines:,} lines", ("rankeval", base), samples))
    print(f"load average before {before}, after {load()}; {os.cpu_count()} cores; "
          f"{args.repeat} and {small_repeat} pairs, after a warm-up each; runs with "
          f"{'sorted' if args.sorted else 'random'} scores; outputs identical to trec_eval's\n")  # fmt: skip
    print("| run | command | wall s, median (min–max) | CPU s | peak RSS MiB |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
