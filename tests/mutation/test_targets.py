"""The mutation tool's targets name code and tests that exist (no mutation run: fast).

``tests/mutation/run.py`` lists, per target, the files and functions it mutates and the
tests that must kill the mutants.  When code or tests move, a stale name would make the
tool fail (or, for a function name, silently mutate nothing): this holds every name.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.mutation.conftest import COLLECTED

ROOT = Path(__file__).resolve().parents[2]


@cache
def _run_module():
    spec = importlib.util.spec_from_file_location(
        "_mutation_run", Path(__file__).with_name("run.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _definitions(path: Path) -> set[str]:
    """Names of the functions and classes defined in a file or the files of a folder."""
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    names: set[str] = set()
    for file in files:
        for node in ast.walk(ast.parse(file.read_text(), filename=str(file))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
    return names


def _targets():
    return _run_module().TARGETS


@pytest.mark.parametrize("name", sorted(_targets()))
def test_code_paths_and_functions_exist(name):
    for code in _targets()[name].code:
        path = ROOT / code.path
        assert path.exists(), f"{name}: {code.path} does not exist"
        missing = set(code.functions) - _definitions(path)
        assert not missing, f"{name}: {sorted(missing)} not defined in {code.path}"


def _collected(files: list[str], session: set[str]) -> set[str]:
    """The node ids of ``files``: this session's when it collected them all (the whole
    suite, either tier), else a ``pytest --collect-only`` of them."""
    if all(any(node.startswith(f"{file}::") for node in session) for file in files):
        return {node for node in session if node.split("::", 1)[0] in files}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=",
         "-p", "no:cacheprovider", *files],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return {line.strip() for line in result.stdout.splitlines() if "::" in line}


def test_test_files_and_node_ids_exist(pytestconfig):
    entries = [
        t
        for target in _targets().values()
        for t in (*target.tests, *target.shared, *(x for v in target.narrow.values() for x in v))
    ]
    files = sorted({entry.split("::", 1)[0] for entry in entries})
    missing_files = [f for f in files if not (ROOT / f).is_file()]
    assert not missing_files, f"test files named in TARGETS do not exist: {missing_files}"
    collected = _collected(files, set(pytestconfig.stash.get(COLLECTED, frozenset())))
    nodes = {entry for entry in entries if "::" in entry}
    # a node id without a parameter also names its parametrized instances
    functions = {node.split("[", 1)[0] for node in collected}
    missing = sorted(n for n in nodes if n not in collected and n not in functions)
    assert not missing, f"test node ids named in TARGETS are not collected: {missing}"


def test_the_tests_named_in_killed_after_exist():
    # KILLED_AFTER names `[folder/]file.py::test` (or a file): a file under tests/,
    # the test defined in it
    named = {test for test in _run_module().KILLED_AFTER.values()}
    for entry in sorted(named):
        file, _, test = entry.partition("::")
        found = [f for f in (ROOT / "tests").rglob(Path(file).name) if f.as_posix().endswith(file)]
        assert found, f"{file} (KILLED_AFTER) is not under tests/"
        if test:
            assert any(test in _definitions(f) for f in found), f"{entry} is not defined"


def test_every_target_selects_code():
    # each Code entry must be reached by _wanted for a module under it
    run = _run_module()
    for name, target in run.TARGETS.items():
        for code in target.code:
            module = f"/tmp/x/repo/{code.path}" + ("" if code.path.endswith(".py") else "/a.py")
            definition = code.functions[0] if code.functions else "anything"
            assert run._wanted(target, module, definition), (name, code.path)
            if code.functions:
                assert not run._wanted(target, module, "_not_a_listed_function")
        assert not run._wanted(target, "/tmp/x/repo/polars_rankeval/elsewhere.py", "f")


def test_narrowed_lists_name_code_of_their_target_and_run_within_the_whole_list():
    # a key is a mutated file of the target or one of its functions; every narrowed test
    # is also in the whole list (its file or node), so the second pass is a superset
    for name, target in _targets().items():
        paths = {c.path for c in target.code}
        functions = {f for c in target.code for f in c.functions}
        for key, tests in target.narrow.items():
            under = any(key == p or key.startswith(p.rstrip("/") + "/") for p in paths)
            assert (under and (ROOT / key).is_file()) or key in functions, (name, key)
            for test in (*target.shared, *tests):
                file = test.split("::", 1)[0]
                assert test in target.tests or file in target.tests, (name, key, test)


def test_narrow_finds_the_mutated_file_line_and_function(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "_mutation_narrow", Path(__file__).with_name("narrow.py")
    )
    assert spec is not None and spec.loader is not None
    narrow = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(narrow)
    source = (ROOT / "polars_rankeval/_significance.py").read_text()
    row = next(i for i, x in enumerate(source.splitlines(), 1) if x.startswith("def t_ppf"))
    assert narrow.enclosing(source, row + 3) == "t_ppf"
    pristine = tmp_path / "pristine"
    import shutil

    shutil.copytree(ROOT / "polars_rankeval", pristine)
    assert narrow.mutated(pristine) is None  # the work tree is the pristine copy
    changed = pristine / "measures" / "err.py"
    lines = changed.read_text().splitlines(keepends=True)
    changed.write_text("".join([*lines[:4], "# changed\n", *lines[5:]]))
    assert narrow.mutated(pristine) == ("polars_rankeval/measures/err.py", 5)


def test_mutants_inside_annotations_are_left_out_only_where_never_evaluated(tmp_path):
    run = _run_module()
    source = "def f(x: int | None) -> int | None:\n    y: int | None = x | 1\n    return y\n"
    lazy, eager = tmp_path / "lazy.py", tmp_path / "eager.py"
    lazy.write_text("from __future__ import annotations\n\n" + source)
    eager.write_text(source)
    # the `|` of each annotation (rows and columns as cosmic-ray gives them) and the body's
    annotations, body = [(3, 13), (3, 28), (4, 11)], (4, 22)
    assert [run._in_annotation(str(lazy), r, c) for r, c in annotations] == [True] * 3
    assert not run._in_annotation(str(lazy), *body)
    assert not any(run._in_annotation(str(eager), r - 2, c) for r, c in annotations)


def test_a_target_cut_to_files_keeps_its_tests_and_mutates_only_those_files():
    run = _run_module()
    cut = run.target_named("measures:ap.py,ndcg.py")
    whole = run.TARGETS["measures"]
    assert (cut.tests, cut.narrow, cut.shared) == (whole.tests, whole.narrow, whole.shared)
    assert run._wanted(cut, "/tmp/x/repo/polars_rankeval/measures/ndcg.py", "f")
    assert not run._wanted(cut, "/tmp/x/repo/polars_rankeval/measures/rr.py", "f")


@pytest.mark.parametrize("narrow_only", [False, True])
@pytest.mark.parametrize("name", sorted(_targets()))
def test_the_baseline_runs_the_targets_tests_never_the_whole_suite(name, narrow_only):
    # session 20: significance's lists are narrowed per function, and --narrow-only's
    # baseline looked them up by file only: an empty list, so pytest ran the whole suite
    target = _targets()[name]
    tests = _run_module()._baseline(target, narrow_only)
    narrowed = {t for tests in target.narrow.values() for t in tests}
    assert tests
    assert set(tests) <= set(target.tests) | narrowed | set(target.shared)


def test_every_listed_survivor_is_a_line_of_its_targets_code():
    # EQUIVALENT, KILLED_AFTER and OPEN are looked up by the mutated source line: an entry
    # whose line is no longer in its target's code can never match a survivor again, so
    # it only says something of code that is gone (session 22 removed 23 such entries)
    run = _run_module()
    stale = []
    for table in (run.EQUIVALENT, run.KILLED_AFTER, run.OPEN):
        for target, line, _mutant in table:
            files = [
                f
                for code in run.TARGETS[target.split(":", 1)[0]].code
                for f in ((ROOT / code.path).rglob("*.py") if (ROOT / code.path).is_dir()
                          else [ROOT / code.path])
            ]  # fmt: skip
            if not any(line.strip() in f.read_text() for f in files):
                stale.append((target, line))
    assert not stale, f"listed survivors whose line is not in the target's code: {stale}"
