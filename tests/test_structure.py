"""Rules on the package's code as a whole: no function over 60 lines, and the public
docstrings' parameters, described once (``polars_rankeval/_docparams.py``), matching
each function's signature.

Each rule is a function returning what breaks it, tested on the package and on a planted
case that must break it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from polars_rankeval._docparams import _TABLE, PARAMS, fill

PACKAGE = Path(__file__).resolve().parents[1] / "polars_rankeval"
MAX_LINES = 60

# the public functions whose docstrings have a Parameters section; every function
# decorated with @fill_params is checked too (found in the source)
PUBLIC = [
    "polars_rankeval.evaluate:evaluate",
    "polars_rankeval.compare:compare",
    "polars_rankeval.validate:validate",
    "polars_rankeval.sql:render",
    "polars_rankeval.spark:evaluate",
    "polars_rankeval.expr:measure",
    "polars_rankeval:parse_measure",
    "polars_rankeval.report:build_report",
    "polars_rankeval.report:write_report",
]
PUBLIC_MODULES = [
    "polars_rankeval", "polars_rankeval.expr", "polars_rankeval.sql", "polars_rankeval.spark",
    "polars_rankeval.duckdb", "polars_rankeval.io", "polars_rankeval.report",
    "polars_rankeval.compare", "polars_rankeval.validate", "polars_rankeval.evaluate",
]  # fmt: skip


# ---------------------------------------------------------------- function length


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """Functions (methods and nested ones too) over ``limit`` lines, counted from the
    first decorator (or ``def``) to the last line, docstring included."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            assert node.end_lineno is not None
            if node.end_lineno - first + 1 > limit:
                found.append((node.name, node.end_lineno - first + 1))
    return found


def _planted(lines: int, decorated: bool) -> str:
    """A function of exactly ``lines`` lines: decorator, def, docstring, statements."""
    head = ["@staticmethod"] if decorated else []
    head += ["def planted():", '    """A docstring', '    over two lines."""']
    return "\n".join(head + ["    x = 1"] * (lines - len(head)))


def test_no_function_in_the_package_is_longer_than_60_lines():
    long = {
        f"{path.relative_to(PACKAGE)}:{name}": n
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, n in long_functions(path.read_text())
    }
    assert long == {}


@pytest.mark.parametrize("decorated", [False, True])
def test_a_planted_61_line_function_is_found_and_a_60_line_one_is_not(decorated):
    assert long_functions(_planted(61, decorated)) == [("planted", 61)]
    assert long_functions(_planted(60, decorated)) == []
    # nested functions count on their own, and inside their parent
    nested = "def outer():\n" + "\n".join(
        "    " + line for line in _planted(61, decorated).splitlines()
    )
    assert long_functions(nested) == [("outer", 62), ("planted", 61)]


# ---------------------------------------------------------------- parameter documentation


def parameters_section(doc: str) -> dict[str, str]:
    """The numpydoc ``Parameters`` section of ``doc``: each documented name and its
    description (a header ``a, b`` documents both)."""
    text = inspect.cleandoc(doc)
    marker = "Parameters\n----------\n"
    if marker not in text:
        return {}
    section = text.split(marker, 1)[1].split("\n\n", 1)[0]
    entries: dict[str, list[str]] = {}
    names: list[str] = []
    for line in section.splitlines():
        if line.startswith(" "):
            for name in names:
                entries[name].append(line.removeprefix("    "))
        else:
            names = [n.strip() for n in line.split(",")]
            for name in names:
                entries[name] = []
    return {name: "\n".join(lines) for name, lines in entries.items()}


def _decorated_functions() -> list[str]:
    """``module:function`` of every function decorated with ``@fill_params``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "fill_params" for d in node.decorator_list
            ):
                found.append(f"{module}:{node.name}")
    return found


def _public_with_parameters() -> list[str]:
    """``module:function`` of the public modules' exported functions that have a
    ``Parameters`` section."""
    found = []
    for module in PUBLIC_MODULES:
        for name in importlib.import_module(module).__all__:
            func = getattr(importlib.import_module(module), name)
            if inspect.isfunction(func) and "Parameters\n" in (func.__doc__ or ""):
                found.append(f"{module}:{name}")
    return found


def _documented() -> dict[str, Callable]:
    """The functions to check, each once (``sql.render`` is ``engines.sqltwin.render``'s)."""
    found: dict[str, Callable] = {}
    for name in [*PUBLIC, *_decorated_functions(), *_public_with_parameters()]:
        module, _, attribute = name.partition(":")
        func = getattr(importlib.import_module(module), attribute)
        if all(func is not other for other in found.values()):
            found[name] = func
    return found


def signature_mismatches(func: Callable) -> list[str]:
    """Parameters of ``func``'s signature its docstring does not document, and
    documented names that are not parameters (``*args``/``**kwargs`` with their stars)."""
    stars = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    signature = [
        stars.get(p.kind, "") + p.name
        for p in inspect.signature(func).parameters.values()
        if p.name != "self"
    ]
    documented = list(parameters_section(func.__doc__ or ""))
    return [f"undocumented {n}" for n in signature if n not in documented] + [
        f"not a parameter: {n}" for n in documented if n not in signature
    ]


def diverging(docs: dict[str, dict[str, str]]) -> list[str]:
    """Parameter names documented by several functions with a description that is not
    one of the shared table's entries for that name (a copy that can drift)."""
    shared: dict[str, set[str]] = {}
    for key, text in PARAMS.items():
        shared.setdefault(key.partition("@")[0], set()).add(text)
    users: dict[str, list[tuple[str, str]]] = {}
    for func, params in docs.items():
        for name, text in params.items():
            users.setdefault(name, []).append((func, text))
    return [
        f"{name} in {func}"
        for name, uses in users.items()
        if len(uses) > 1
        for func, text in uses
        if text not in shared.get(name, set())
    ]


def test_public_docstrings_document_exactly_their_signatures_parameters():
    documented = _documented()
    assert set(PUBLIC) <= set(documented)
    problems = {name: signature_mismatches(f) for name, f in documented.items()}
    assert {name: p for name, p in problems.items() if p} == {}
    for name, func in documented.items():
        assert "{params:" not in (func.__doc__ or ""), name


def test_a_parameter_is_described_once():
    docs = {name: parameters_section(f.__doc__ or "") for name, f in _documented().items()}
    assert diverging(docs) == []
    # every entry of the table is used (the table cannot keep a stale description)
    used = {text for params in docs.values() for text in params.values()}
    assert [key for key, text in PARAMS.items() if text not in used] == []


def test_the_checks_catch_a_planted_mismatch_and_a_planted_copy():
    def planted(run, top=None, *, extra=0, **options):
        """Planted.

        Parameters
        ----------
        {params: run, top}
        gone
            Not a parameter.
        **options
            Passed on.
        """

    planted.__doc__ = fill(planted.__doc__ or "")
    assert signature_mismatches(planted) == ["undocumented extra", "not a parameter: gone"]
    copied = {**PARAMS, "top": "Keep the top rows."}
    docs = {"a": {"top": PARAMS["top"]}, "b": {"top": copied["top"]}, "c": {"mine": "Only here."}}
    assert diverging(docs) == ["top in b"]
    assert diverging({"a": {"by": PARAMS["by"]}, "b": {"by": PARAMS["by@compare"]}}) == []


def test_the_table_has_each_key_once_and_fill_refuses_an_unknown_key():
    keys: Iterable[str] = [line for line in _TABLE.splitlines() if line and not line[0].isspace()]
    assert len(keys) == len(set(keys)) == len(PARAMS)
    with pytest.raises(KeyError, match="nonsense"):
        fill("Parameters\n----------\n{params: top, nonsense}")
    with pytest.raises(ValueError, match="closing brace"):
        fill("Parameters\n----------\n{params: top,\nrel\n\nReturns")
