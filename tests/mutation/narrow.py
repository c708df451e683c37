"""cosmic-ray's test command for a target with narrowed test lists (see run.py).

Usage (run.py writes it into the config; cwd is the repository copy)::

    python tests/mutation/narrow.py TARGET PRISTINE LOG [--narrow-only]

PRISTINE is an unmutated copy of ``polars_rankeval``.  The one file that differs from it
is the mutated one; its path (or, for a target narrowed per function, the definition
around the first changed line) picks the narrowed tests from ``Target.narrow``, which run
first with ``-x``.  When they pass, the target's whole list runs (the second pass), so a
mutant that the narrowed list misses is never reported as a survivor without the wide
list having run on it.  ``--narrow-only`` (run.py's option of that name) skips the second
pass: a survivor has then survived the narrowed list only, and says so.  One JSON line per mutant goes to LOG (which pass killed it).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _run_module():
    spec = importlib.util.spec_from_file_location("_mutation_run", HERE / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def mutated(pristine: Path) -> tuple[str, int] | None:
    """The mutated file (a path in the repository) and its first changed line."""
    package = REPO / "polars_rankeval"
    for path in sorted(package.rglob("*.py")):
        original = pristine / path.relative_to(package)
        new = path.read_text()
        old = original.read_text() if original.is_file() else ""
        if new != old:
            pairs = zip(new.splitlines(), old.splitlines(), strict=False)
            row = next((i for i, (a, b) in enumerate(pairs, 1) if a != b), 1)
            return path.relative_to(REPO).as_posix(), row
    return None


def enclosing(source: str, row: int) -> str | None:
    """The name of the innermost function defined around ``row``."""
    best: tuple[int, str] | None = None
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            starts = [node.lineno, *(d.lineno for d in node.decorator_list)]
            if min(starts) <= row <= end and (best is None or node.lineno > best[0]):
                best = (node.lineno, node.name)
    return best[1] if best else None


# The narrowed tests take seconds to a minute (the pytrec_eval oracles, on a loaded
# machine); a mutant that makes them run this long loops (a bisection that never ends):
# killed, as cosmic-ray counts its own timeout.  60 s was too short for the oracles at
# load 12 (session 18: an unmutated list timed out).
NARROW_TIMEOUT = 240.0  # the same in run.py


def _pytest(tests: list[str], timeout: float | None = None) -> int:
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    try:
        return subprocess.run(
            [*command, "-o", "addopts=", *tests], cwd=REPO, check=False, timeout=timeout
        ).returncode
    except subprocess.TimeoutExpired:
        return -1


def main(argv: list[str]) -> int:
    name, pristine, log = argv[0], Path(argv[1]), Path(argv[2])
    narrow_only = "--narrow-only" in argv[3:]
    target = _run_module().target_named(name)
    found = mutated(pristine)
    narrow: list[str] = []
    function = None
    if found is not None:
        path, row = found
        function = enclosing(
            (pristine / Path(path).relative_to("polars_rankeval")).read_text(), row
        )
        narrow = list(target.narrow.get(path, ()) or target.narrow.get(function or "", ()))
    record: dict = {"module": found and found[0], "line": found and found[1], "function": function}
    start = time.monotonic()
    code = _pytest([*target.shared, *narrow], NARROW_TIMEOUT) if narrow else 0
    record["narrow"] = "killed" if code else ("passed" if narrow else "none")
    if code == -1:
        record["narrow"] = "timeout"
    record["narrow_seconds"] = round(time.monotonic() - start, 1)
    if code == 0 and narrow_only and narrow:
        record["wide"] = "skipped"
    elif code == 0:  # the second pass: the target's whole list
        code = _pytest(list(target.tests))
        record["wide"] = "killed" if code else "passed"
    record["seconds"] = round(time.monotonic() - start, 1)
    with log.open("a") as out:
        out.write(json.dumps(record) + "\n")
    return 1 if code else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
