"""``rankeval`` against the real trec_eval 10.0 on TREC text files (issue 13 item 5).

Paired measurements, medians of ``--repeat`` runs, wall time and peak RSS from
``/usr/bin/time -v``:

* a ``--lines`` (default 2M) line run with default measures: rankeval vs trec_eval
  (goal: <= 0.5x its wall time at <= 1.0x its peak memory);
* a 50k-line run: ``rankeval`` vs a bare ``python -c "import polars"`` (goal <= 1.25x).

trec_eval is built from the shared tarball by ``tests/cli/_trec_eval.py`` (cached).

    python benchmarks/cli_vs_trec_eval.py [--lines 2000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def write_files(folder: Path, lines: int, *, docs_per_query: int = 1000) -> tuple[Path, Path]:
    """A run of ``lines`` lines (1000 documents a query) and qrels with ~5% judged."""
    rng = random.Random(0)
    queries = max(1, lines // docs_per_query)
    run, qrels = folder / f"run{lines}.txt", folder / f"qrels{lines}.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for query in range(queries):
            for rank in range(docs_per_query):
                doc = rng.randrange(100_000)
                r.write(f"{query} Q0 doc{query}_{doc}_{rank} {rank + 1} {rng.random():.6f} bench\n")
                if rng.random() < 0.05:
                    q.write(f"{query} 0 doc{query}_{doc}_{rank} {rng.choice((0, 1, 2))}\n")
    return qrels, run


def measure(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one run of ``command``."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True,
                          check=True)  # fmt: skip
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    assert wall is not None, done.stderr
    hours, minutes, seconds = wall.groups()
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    assert rss is not None
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds), int(rss.group(1)) / 1024


def paired(commands: dict[str, list[str]], repeat: int) -> dict[str, tuple[float, float]]:
    """Median (wall, RSS) of each command, runs interleaved so load hits both alike."""
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():
            samples[name].append(measure(command))
    return {
        name: (statistics.median(w for w, _ in s), statistics.median(m for _, m in s))
        for name, s in samples.items()
    }


def main() -> None:
    from tests.cli._trec_eval import trec_eval_binary

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    python = sys.executable
    rankeval = [python, "-m", "polars_rankeval.cli", "--quiet"]
    with tempfile.TemporaryDirectory() as scratch:
        qrels, run = write_files(Path(scratch), args.lines)
        big = paired({"trec_eval": [str(trec_eval_binary()), str(qrels), str(run)],
                      "rankeval": [*rankeval, str(qrels), str(run)]}, args.repeat)  # fmt: skip
        qrels_s, run_s = write_files(Path(scratch), 50_000)
        small = paired({"import polars": [python, "-c", "import polars"],
                        "rankeval": [*rankeval, str(qrels_s), str(run_s)]}, args.repeat)  # fmt: skip
    for title, result, base in ((f"{args.lines} lines", big, "trec_eval"),
                                ("50000 lines", small, "import polars")):  # fmt: skip
        for name, (wall, rss) in result.items():
            print(f"{title:>16}  {name:<14} wall {wall:6.2f} s  peak RSS {rss:7.1f} MiB")
        (w0, m0), (w1, m1) = result[base], result["rankeval"]
        print(f"{title:>16}  rankeval / {base}: wall {w1 / w0:.2f}x, memory {m1 / m0:.2f}x")


if __name__ == "__main__":
    main()
