"""Every code block of README.md and docs/ runs, and prints what the text shows.

The block runner reads each fenced block of the Markdown files:

- ``python``: executed in a fresh namespace; its standard output is compared with the
  ``text`` block that follows it, when one does (a line such as "prints" may sit between).
- ``bash`` / ``sh``: run by ``bash -euo pipefail``, with this interpreter's ``bin`` folder
  (``rankeval``, ``python``) first on PATH; output compared the same way.
- ``sql``: run in DuckDB (Python) with the ``rankeval_*`` macros installed.
- ``text``: the output of the block before it; it may follow nothing else.

Every block runs in a fresh folder laid out like the repository root (``examples/``,
``sql/``, ``benchmarks/`` are links to the repository's) plus the small files the shell
examples name: ``qrels.txt``, ``run.txt``, ``bm25.run``, ``dense.run`` (the shipped TREC
files of ``examples/data/compare``) and ``run.parquet``, ``qrels.parquet`` (the
quickstart data). Relative paths therefore mean what they mean at the repository root,
and what a block writes (``report.html``) is thrown away with the folder.

A comment on the line before a block changes how it is handled, visibly in the source:

- ``<!-- no-run: reason -->``: not run; the test is skipped with the reason.
- ``<!-- needs: module -->``: skipped when ``module`` is not installed.
- ``<!-- signature-of: package.function -->``: a ``def`` stub whose parameters (names,
  kinds, defaults) must equal the function's.

Any other language, or a stray ``text`` block, fails: nothing is left unclassified.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```([\w-]*)\s*$")
MARKER = re.compile(r"^<!--\s*(no-run|needs|signature-of):\s*(.*?)\s*-->$")
RUNNABLE = {"python", "bash", "sh", "sql"}
BETWEEN_CODE_AND_OUTPUT = {"", "prints", "prints:", "gives", "gives:"}


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    marker: tuple[str, str] | None = None
    output: str | None = None  # the text block shown after it

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def parse(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, each with its marker and shown output."""
    lines = path.read_text().splitlines()
    blocks: list[Block] = []
    i, last_text_end = 0, -1
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        code = "\n".join(lines[i + 1 : end]) + "\n"
        before = [line.strip() for line in lines[max(last_text_end + 1, 0) : i]]
        prose = [line for line in before if line]
        marker = MARKER.match(prose[-1]) if prose else None
        block = Block(path, i + 1, opening.group(1), code, marker and marker.groups())
        previous = blocks[-1] if blocks else None
        is_output = (
            block.lang == "text"
            and previous is not None
            and previous.lang in RUNNABLE
            and previous.output is None
            and all(line in BETWEEN_CODE_AND_OUTPUT for line in before)
        )
        if is_output:
            previous.output = code.rstrip("\n")
        else:
            blocks.append(block)
        i = last_text_end = end
        i += 1
    return blocks


BLOCKS = [block for path in FILES for block in parse(path)]


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    """A fresh folder laid out like the repository root (see the module docstring)."""
    for name in ("examples", "sql", "benchmarks"):
        (tmp_path / name).symlink_to(ROOT / name)
    compare = ROOT / "examples" / "data" / "compare"
    for target, source in {
        "qrels.txt": compare / "qrels.txt",
        "run.txt": compare / "bm25.run",
        "bm25.run": compare / "bm25.run",
        "dense.run": compare / "dense.run",
        "run.parquet": ROOT / "examples" / "data" / "quickstart_run.parquet",
        "qrels.parquet": ROOT / "examples" / "data" / "quickstart_qrels.parquet",
    }.items():
        shutil.copyfile(source, tmp_path / target)
    return tmp_path


def duckdb_cli() -> Path | None:
    """The DuckDB command line program: on PATH, or the ``duckdb-cli`` wheel's binary."""
    found = shutil.which("duckdb") or shutil.which("duckdb", path=str(Path(sys.executable).parent))
    if found:
        return Path(found)
    spec = importlib.util.find_spec("duckdb_cli")
    if spec and spec.origin and (Path(spec.origin).parent / "duckdb").exists():
        return Path(spec.origin).parent / "duckdb"
    return None


def run_python(code: str, name: str) -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, name, "exec"), {"__name__": "__main__"})  # noqa: S102 (the docs code)
    return printed.getvalue()


def run_shell(code: str, cwd: Path) -> str:
    bin_dir = cwd / ".bin"
    bin_dir.mkdir()
    if re.search(r"\bduckdb\b(?!\.)", code.replace("duckdb_", "")):
        cli = duckdb_cli()
        if cli is None:
            pytest.skip("the DuckDB CLI is not installed (pip install duckdb-cli)")
        (bin_dir / "duckdb").symlink_to(cli)
    path = os.pathsep.join([str(bin_dir), str(Path(sys.executable).parent), os.environ["PATH"]])
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, "PATH": path}, timeout=300, check=False,
    )
    assert done.returncode == 0, f"exit status {done.returncode}\n{done.stderr}"
    return done.stdout


def run_sql(code: str) -> str:
    import duckdb

    from polars_rankeval.duckdb import install

    con = duckdb.connect()
    install(con)
    shown = []
    for statement in con.extract_statements(code):
        result = con.execute(statement)
        if result.description:
            shown.append(str(result.pl()))
    return "\n".join(shown)


def check_signature(code: str, target: str) -> None:
    namespace: dict[str, object] = {}
    exec(compile("from __future__ import annotations\n" + code, target, "exec"), namespace)  # noqa: S102
    module, name = target.rsplit(".", 1)
    real = inspect.signature(getattr(importlib.import_module(module), name))
    shown = inspect.signature(namespace[name])  # type: ignore[arg-type]

    def parts(signature: inspect.Signature) -> list[tuple[str, object, object]]:
        return [(p.name, p.kind, p.default) for p in signature.parameters.values()]

    assert parts(shown) == parts(real)


# shell blocks start processes (rankeval, duckdb): seconds each, so in the slow tier
@pytest.mark.parametrize(
    "block",
    [pytest.param(b, marks=pytest.mark.slow) if b.lang in ("bash", "sh") else b for b in BLOCKS],
    ids=lambda b: b.id,
)
def test_block(block: Block, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kind, argument = block.marker or ("", "")
    if kind == "no-run":
        pytest.skip(f"marked no-run: {argument}")
    if kind == "needs" and importlib.util.find_spec(argument) is None:
        pytest.skip(f"{argument} is not installed")
    if kind == "signature-of":
        check_signature(block.code, argument)
        return
    assert block.lang in RUNNABLE, (
        f"a ```{block.lang} block that is neither code nor the output of the block before "
        "it: mark it <!-- no-run: reason --> or make it runnable"
    )
    monkeypatch.chdir(scratch)
    if block.lang == "python":
        printed = run_python(block.code, block.id)
    elif block.lang == "sql":
        printed = run_sql(block.code)
    else:
        printed = run_shell(block.code, scratch)
    if block.output is not None:
        assert printed.rstrip() == block.output.rstrip()


def test_every_file_has_blocks_and_the_runner_sees_them_all() -> None:
    """Guards the parser: a fence it failed to see would be a block never run."""
    for path in FILES:
        fences = sum(1 for line in path.read_text().splitlines() if FENCE.match(line)) // 2
        blocks = [b for b in BLOCKS if b.path == path]
        outputs = sum(1 for b in blocks if b.output is not None)
        assert fences == len(blocks) + outputs, path
