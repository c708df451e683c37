"""Generated TREC files and the option grid on which ``rankeval`` must print what
trec_eval 10.0 prints, byte for byte (``test_trec_eval_oracle.py`` and the counting
script ``python -m tests.cli._grid N`` use them)."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr
from dataclasses import dataclass
from pathlib import Path

from hypothesis import strategies as st

# Ids whose byte order is not their numeric or case-insensitive order, and long ones.
QUERIES = ["1", "2", "10", "9", "Q3", "q3", "topic-" + "x" * 50, "a.b"]
DOCS = ["d1", "d10", "d9", "D2", "d_2", "-z", "0", "clueweb12-" + "0" * 40 + "7", "A", "a"]
SCORES = ["1", "1.0", "2", "0.5", "-1", "0", "3.25", "1e1", "7"]  # few values: many ties
GRADES = [-2, -1, 0, 0, 1, 1, 2, 3, 4]

# flag sets (the files are appended); "{Z}" is replaced by a generated z-score file
GRID: dict[str, list[str]] = {
    "default": [],
    "q": ["-q"],
    "c": ["-c"],
    "l2": ["-l", "2"],
    "M5": ["-M", "5"],
    "n": ["-n", "-q"],
    "J": ["-J"],
    "all_trec": ["-m", "all_trec"],
    "official": ["-m", "official"],
    "set": ["-m", "set"],
    "q_c_l2_all": ["-q", "-c", "-l", "2", "-m", "all_trec"],
    "params": ["-q", "-m", "P.5,10", "-m", "ndcg_cut.5,10", "-m", "iprec_at_recall.0.5",
               "-m", "rbp.p=0.8"],
    "Z": ["-q", "-Z", "{Z}"],
    "N": ["-N", "1000", "-m", "official"],
    "yaap": ["-q", "-c", "-m", "yaap", "-m", "map"],  # not in all_trec; printed after map
}  # fmt: skip
# trec_eval 10.0's rbp leaves `min` and `max` uninitialised (m_rbp.c) before it scales
# graded gains into [0, 1]: with grades other than 0/1 its rbp.p=... values depend on
# stack garbage (seen even on binary judgments once parameters are given), so the
# rbp_p= lines are left out of that flag set's comparison; the rest must match.
BINARY = {"params"}
IGNORED = {"params": "rbp_p="}


def comparable(flags: str, output: bytes) -> str:
    """The output without the lines trec_eval computes from uninitialised memory."""
    prefix = IGNORED.get(flags)
    lines = output.decode().splitlines(keepends=True)
    return "".join(line for line in lines if prefix is None or not line.startswith(prefix))


@dataclass(frozen=True)
class Dataset:
    """The text of a qrels file, a run file and a z-score file."""

    qrels: str
    run: str
    zscores: str

    def write(self, folder: Path) -> dict[str, Path]:
        paths = {name: folder / f"{name}.txt" for name in ("qrels", "run", "zscores")}
        for name, path in paths.items():
            path.write_text(getattr(self, name))
        return paths


@st.composite
def datasets(draw: st.DrawFn, *, run_covers_qrels: bool = True, binary: bool = False) -> Dataset:
    """Graded qrels with negative judgments, a tie-heavy run, shuffled lines.

    trec_eval 10.0 stops (exit 4) when a qrels query has no run line and -c is not
    given, so ``run_covers_qrels`` keeps every qrels query in the run; queries only in
    the run, queries without a relevant document and (with False) qrels queries missing
    from the run are all drawn.
    """
    grades_pool = [0, 1] if binary else GRADES
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=1, max_size=4, unique=True))
    extra = draw(st.lists(st.sampled_from(QUERIES), max_size=2, unique=True))
    qrels, run = [], []
    for q in queries:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=7, unique=True))
        # one grade >= 0 a query: trec_eval 10.0 stops on a query whose grades are all < 0
        grades = [draw(st.sampled_from([g for g in grades_pool if g >= 0]))]
        grades += [draw(st.sampled_from(grades_pool)) for _ in docs[1:]]
        qrels += [f"{q} 0 {d} {g}" for d, g in zip(docs, grades)]
    in_run = set(queries) | set(extra)
    if not run_covers_qrels:
        in_run -= set(draw(st.lists(st.sampled_from(queries), max_size=len(queries) - 1)))
    tag = draw(st.sampled_from(["run1", "bm25-" + "y" * 30]))
    for q in sorted(in_run):
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True)):
            sep = draw(st.sampled_from([" ", "\t", "  "]))
            run.append(sep.join([q, "Q0", d, "1", draw(st.sampled_from(SCORES)), tag]))
    qrels = draw(st.permutations(qrels))
    run = draw(st.permutations(run))
    return Dataset("\n".join(qrels) + "\n", "\n".join(run) + "\n", _zscores(draw, queries))


def _zscores(draw: st.DrawFn, queries: Sequence[str]) -> str:
    """Means and deviations for some (query, measure) pairs; the rest print -1000000.

    A ``~`` query and measure sort after every id, so trec_eval's binary search (which
    can read one past the end of its table) never leaves the table.
    """
    lines = []
    for q in [*queries, "~"]:
        for measure in ("map", "P_5", "P_10", "num_ret", "num_rel", "recip_rank", "bpref", "~"):
            if q == "~" or measure == "~" or draw(st.booleans()):
                mean = draw(st.sampled_from(["0.25", "0.5", "0", "3"]))
                std = draw(st.sampled_from(["0.5", "0.1", "0", "2"]))
                lines.append(f"{q} {measure} {mean} {std}")
    return "\n".join(lines) + "\n"


def strategy(flags: str) -> st.SearchStrategy[Dataset]:
    """The datasets of a flag set."""
    return datasets(run_covers_qrels="-c" not in GRID[flags], binary=flags in BINARY)


def arguments(flags: str, paths: dict[str, Path]) -> list[str]:
    """The command line of a flag set, files included."""
    args = [str(paths["zscores"]) if a == "{Z}" else a for a in GRID[flags]]
    return [*args, str(paths["qrels"]), str(paths["run"])]


def run_trec_eval(binary: Path, args: Sequence[str]) -> tuple[int, bytes]:
    done = subprocess.run([str(binary), *args], capture_output=True, check=False, timeout=60)
    return done.returncode, done.stdout


def run_rankeval(args: Sequence[str]) -> tuple[int, bytes, str]:
    """``rankeval`` in this process (fast), its standard output as bytes."""
    from polars_rankeval.cli import main

    out, err = io.BytesIO(), io.StringIO()
    stdout, wrapper = sys.stdout, io.TextIOWrapper(out, encoding="utf-8")
    sys.stdout = wrapper
    try:
        with redirect_stderr(err):
            code = main(["--quiet", *args])
        wrapper.flush()
    finally:
        sys.stdout = stdout
        wrapper.detach()  # so that closing the wrapper does not close ``out``
    return code, out.getvalue(), err.getvalue()


def count(binary: Path, per_flag_set: int, *, seed: int = 0) -> dict[str, tuple[int, int, int]]:
    """{flag set: (byte-identical, compared, trec_eval failed)} on ``per_flag_set``
    generated datasets each (the figures of the issue's closing note)."""
    import random
    import tempfile
    import warnings

    from hypothesis.errors import NonInteractiveExampleWarning

    random.seed(seed)
    results = {}
    for flags in GRID:
        same = compared = failed = 0
        for _ in range(per_flag_set):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NonInteractiveExampleWarning)
                dataset = strategy(flags).example()
            with tempfile.TemporaryDirectory() as folder:
                args = arguments(flags, dataset.write(Path(folder)))
                code, theirs = run_trec_eval(binary, args)
                ours_code, ours, _ = run_rankeval(args)
            if code != 0:  # nothing to compare: counted apart
                failed += 1
                continue
            compared += 1
            same += ours_code == 0 and comparable(flags, ours) == comparable(flags, theirs)
        results[flags] = (same, compared, failed)
    return results


if __name__ == "__main__":  # python -m tests.cli._grid [N]
    from tests.cli._trec_eval import trec_eval_binary

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    totals = count(trec_eval_binary(), n)
    for flags, (same, compared, failed) in totals.items():
        print(f"{flags:12} {same:4}/{compared:<4} (trec_eval stopped on {failed})")
    print(
        f"{'total':12} {sum(v[0] for v in totals.values()):4}/{sum(v[1] for v in totals.values())}"
    )
