"""The README's "What the tests hold" table cannot rot (issue 17).

The table maps each claim of the README to the tests that hold it.  These checks keep it
honest cheaply (source parsing only, no test is imported or run):

- every test it names exists: the file, and the function (``::name``; a parametrized
  id ``name[...]`` is checked by its function name; ``Class::name`` inside the class);
- every other reference is an existing file (``benchmarks/RESULTS.md``);
- every section of the README has a bold group row, and every group row names a section;
- every row names at least one reference, and no claim is listed twice;
- every ``tests/....py`` path the README's prose names exists (a moved test file
  otherwise leaves a dangling pointer).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

from tests.helpers import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
TITLE = "What the tests hold"
FENCE = re.compile(r"^```")
HEADING = re.compile(r"^(#{1,3}) (.+?)\s*$")
GROUP = re.compile(r"^\*\*(.+)\*\*$")
REFERENCE = re.compile(r"`([^`]+)`")


def headings() -> list[str]:
    """The README's headings (levels 1 to 3), outside code blocks."""
    found, fenced = [], False
    for line in README.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := HEADING.match(line)):
            found.append(match.group(2))
    return found


def table() -> list[tuple[str, str, str]]:
    """(group, claim, held by) for each row of the table under the TITLE heading."""
    section = README.split(f"## {TITLE}\n", 1)
    assert len(section) == 2, f"the README has no '## {TITLE}' section"
    lines = section[1].split("\n## ", 1)[0].splitlines()
    rows = [line for line in lines if line.startswith("|")]
    assert rows[:2] == ["| claim (README section) | held by |", "|---|---|"], rows[:2]
    out, group = [], ""
    for line in rows[2:]:
        cells = [cell.strip() for cell in line.strip("|").split(" | ")]
        assert len(cells) == 2, f"a row with {len(cells)} cells: {line}"
        claim, held = cells
        if (match := GROUP.match(claim)) and not held:
            group = match.group(1)
            continue
        assert group, f"a claim before any section row: {line}"
        out.append((group, claim, held))
    return out


ROWS = table()


@functools.cache
def definitions(path: Path) -> frozenset[str]:
    """The test functions of a module: ``name`` and ``Class::name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
            }
    return frozenset(n for n in names if n.split("::")[-1].startswith("test"))


def check_reference(reference: str) -> str | None:
    """None when the reference exists, else what is wrong with it."""
    path_text, _, node = reference.partition("::")
    path = ROOT / path_text
    if not path.is_file():
        return f"no file {path_text}"
    if not path_text.startswith("tests/"):
        return None if not node else f"{path_text} is not a test module"
    if not re.fullmatch(r"tests/(.+/)?test_\w+\.py", path_text):
        return f"{path_text} is not a test module"
    name = re.sub(r"\[.*\]$", "", node)  # a parametrized id: its function
    if node and name not in definitions(path):
        return f"{path_text} defines no test {name}"
    return None


def test_every_named_test_exists() -> None:
    problems = []
    for group, claim, held in ROWS:
        references = REFERENCE.findall(held)
        if not references:
            problems.append(f"{group}: {claim!r} names no test")
        problems += [
            f"{group}: {claim!r}: {bad}" for r in references if (bad := check_reference(r))
        ]
    assert not problems, "\n".join(problems)


def test_every_section_has_a_row_and_every_row_a_section() -> None:
    sections = [h for h in headings() if h != TITLE]
    groups = [group for group, _, _ in ROWS]
    assert [s for s in sections if s not in groups] == [], "sections without a row"
    assert sorted(set(groups) - set(sections)) == [], "rows naming no section"
    # rows follow the README's order of sections
    order = {s: i for i, s in enumerate(sections)}
    ranks = [order[g] for g in groups]
    assert ranks == sorted(ranks)


def test_no_claim_is_listed_twice() -> None:
    claims = [claim for _, claim, _ in ROWS]
    assert sorted({c for c in claims if claims.count(c) > 1}) == []


def test_performance_rows_point_to_the_benchmark_results() -> None:
    rows = [held for group, _, held in ROWS if group == "Performance"]
    assert rows and all("benchmarks/RESULTS.md" in held for held in rows)


@pytest.mark.parametrize("path", sorted(set(re.findall(r"tests/[\w/]+\.py", README))))
def test_test_files_named_in_the_prose_exist(path: str) -> None:
    assert (ROOT / path).is_file(), path
