"""Results tables of a comparison: one table model, rendered as Markdown, LaTeX or HTML.

The layout is ranx's: one row per system (with a letter), one column per measure, the
best value of each measure in bold, and superscript letters naming the systems a value
is significantly better than.  With ``by`` groups there is one table per group.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import polars as pl

__all__ = ["Table", "TableModel", "by_of", "latex_table", "markdown_table", "table_model"]

TEST_NAMES = {
    "t": "paired t-test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
}
CORRECTION_NAMES = {
    "holm": "Holm correction",
    "bonferroni": "Bonferroni correction",
    "bh": "Benjamini-Hochberg correction",
    None: "no correction",
}
_UNSET: Any = "<from the comparison>"  # a label not given: read it from the frame


def by_of(comparison: pl.DataFrame) -> list[str]:
    """The ``by`` columns of a comparison: those before ``system``."""
    return comparison.columns[: comparison.columns.index("system")]


def _letters(n: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [letters[i] if i < 26 else letters[i // 26 - 1] + letters[i % 26] for i in range(n)]


@dataclass(frozen=True)
class Cell:
    text: str  # the value, formatted
    best: bool
    better_than: tuple[str, ...]  # letters of the systems this value significantly beats


@dataclass(frozen=True)
class Table:
    """One results table: a ``by`` group (empty without ``by``), rows and cells."""

    group: dict[str, Any]
    systems: list[str]
    letters: list[str]
    measures: list[str]
    cells: dict[tuple[str, str], Cell]

    @property
    def title(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self.group.items())


@dataclass(frozen=True)
class TableModel:
    tables: list[Table]
    legend: str


def _cells(comparison: pl.DataFrame, measures: list[str], digits: int) -> tuple[list[str], dict]:
    systems: list[str] = []
    for baseline, system in comparison.select("baseline", "system").iter_rows():
        systems += [name for name in (baseline, system) if name not in systems]
    letters = dict(zip(systems, _letters(len(systems))))
    means: dict[tuple[str, str], float] = {}
    beats: dict[tuple[str, str], list[str]] = {}
    for row in comparison.iter_rows(named=True):
        system, baseline, measure = row["system"], row["baseline"], row["measure"]
        means.setdefault((system, measure), row["mean"])
        means.setdefault((baseline, measure), row["baseline_mean"])
        if row["significant"] and row["delta"] != 0:
            winner, loser = (system, baseline) if row["delta"] > 0 else (baseline, system)
            beats.setdefault((winner, measure), []).append(letters[loser])
    cells = {}
    for measure in measures:
        texts = {s: f"{means[(s, measure)]:.{digits}f}" for s in systems if (s, measure) in means}
        best = max(float(t) for t in texts.values())
        for system, text in texts.items():
            marks = sorted(beats.get((system, measure), []), key=lambda x: (len(x), x))
            cells[(system, measure)] = Cell(text, float(text) == best, tuple(marks))
    return systems, cells


def _labels(comparison: pl.DataFrame, test: Any, correction: Any, alpha: Any) -> tuple:
    """The test, correction and alpha: as given, else from the comparison's label
    columns, else the defaults of compare()."""

    def label(value: Any, column: str, default: Any) -> Any:
        if value is not _UNSET:
            return value
        if column in comparison.columns and comparison.height:
            return comparison[column][0]
        return default

    level = label(_UNSET if alpha is _UNSET else 1 - alpha, "ci_level", 0.95)
    return label(test, "test", "t"), label(correction, "correction", "holm"), round(1 - level, 12)


def legend(comparison: pl.DataFrame, *, test: str, correction: str | None, alpha: float) -> str:
    baselines = set(comparison["baseline"].to_list())
    compared = set(comparison["system"].to_list())
    if len(baselines) == 1 and not baselines & compared and len(compared) > 1:
        against = f"comparisons against {next(iter(baselines))} only"
    else:
        against = "every pair of systems"
    family = "each measure" + (" in all groups" if by_of(comparison) else "")
    return (
        f"Best value per measure in bold. Superscript letters: significantly better than "
        f"the system with that letter ({TEST_NAMES.get(test, test)}, two-sided, "
        f"{CORRECTION_NAMES.get(correction, correction)} over the comparisons of "
        f"{family}, α = {alpha:g}; {against})."
    )


def table_model(
    comparison: pl.DataFrame,
    *,
    test: Any = _UNSET,
    correction: Any = _UNSET,
    alpha: Any = _UNSET,
    digits: int = 4,
) -> TableModel:
    """The tables (one per ``by`` group) and the legend of a comparison."""
    test, correction, alpha = _labels(comparison, test, correction, alpha)
    by = by_of(comparison)
    measures = list(dict.fromkeys(comparison["measure"].to_list()))
    parts = (
        comparison.partition_by(by, as_dict=True, maintain_order=True) if by else {(): comparison}
    )
    tables = []
    for values, part in parts.items():
        present = [m for m in measures if m in set(part["measure"])]
        systems, cells = _cells(part, present, digits)
        letters = _letters(len(systems))
        tables.append(Table(dict(zip(by, values)), systems, letters, present, cells))
    return TableModel(tables, legend(comparison, test=test, correction=correction, alpha=alpha))


def _marked(cell: Cell | None, bold: str, sup: str) -> str:
    """A cell's text with its bold and superscript marks (``bold``/``sup``: formats)."""
    if cell is None:
        return ""
    text = bold.format(cell.text) if cell.best else cell.text
    return text + (sup.format("".join(cell.better_than)) if cell.better_than else "")


def _markdown_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("*", "\\*")


def markdown_table(
    comparison: pl.DataFrame,
    *,
    test: Any = _UNSET,
    correction: Any = _UNSET,
    alpha: Any = _UNSET,
    digits: int = 4,
) -> str:
    """A Markdown table of a :func:`~polars_rankeval.compare.compare` result, with legend.

    The test, correction and alpha of the legend come from the result's label columns
    unless given.  With ``by`` groups: one table per group, under a bold group line.

    >>> comparison = pl.DataFrame({
    ...     "system": ["dense"], "baseline": ["bm25"], "measure": ["AP"], "mean": [0.4],
    ...     "baseline_mean": [0.3], "delta": [0.1], "significant": [True]})
    >>> print(markdown_table(comparison))  # doctest: +NORMALIZE_WHITESPACE
    | # | System | AP |
    |:-:|:--|--:|
    | a | bm25 | 0.3000 |
    | b | dense | **0.4000**<sup>a</sup> |
    <BLANKLINE>
    Best value per measure in bold. Superscript letters: significantly better than the
    system with that letter (paired t-test, two-sided, Holm correction over the
    comparisons of each measure, α = 0.05; every pair of systems).
    """
    model = table_model(comparison, test=test, correction=correction, alpha=alpha, digits=digits)
    blocks = []
    for table in model.tables:
        lines = [f"**{_markdown_escape(table.title)}**", ""] if table.group else []
        lines += [
            "| # | System | " + " | ".join(_markdown_escape(m) for m in table.measures) + " |",
            "|:-:|:--|" + "--:|" * len(table.measures),
        ]
        for system, letter in zip(table.systems, table.letters):
            row = [_marked(table.cells.get((system, m)), "**{}**", "<sup>{}</sup>")
                   for m in table.measures]  # fmt: skip
            lines.append(f"| {letter} | {_markdown_escape(system)} | " + " | ".join(row) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n\n" + model.legend + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def latex_table(
    comparison: pl.DataFrame,
    *,
    test: Any = _UNSET,
    correction: Any = _UNSET,
    alpha: Any = _UNSET,
    digits: int = 4,
) -> str:
    """A LaTeX ``table`` (booktabs) of a comparison; the legend is the caption.  With
    ``by`` groups: one ``table`` per group, the group leading the caption."""
    model = table_model(comparison, test=test, correction=correction, alpha=alpha, digits=digits)
    caption = _latex_escape(model.legend).replace("α", r"$\alpha$")
    out = [r"% needs \usepackage{booktabs}"]
    for table in model.tables:
        title = _latex_escape(table.title + ". ") if table.group else ""
        out += [
            r"\begin{table}[t]",
            r"\centering",
            r"\caption{" + title + caption + "}",
            r"\begin{tabular}{cl" + "r" * len(table.measures) + "}",
            r"\toprule",
            r"\# & System & " + " & ".join(_latex_escape(m) for m in table.measures) + r" \\",
            r"\midrule",
        ]
        for system, letter in zip(table.systems, table.letters):
            row = [_marked(table.cells.get((system, m)), r"\textbf{{{}}}", r"$^{{{}}}$")
                   for m in table.measures]  # fmt: skip
            out.append(f"{letter} & {_latex_escape(system)} & " + " & ".join(row) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(out) + "\n"


def html_tables(model: TableModel) -> str:
    """The results tables as HTML (a heading per ``by`` group)."""
    blocks = []
    for table in model.tables:
        head = "".join(f"<th>{html.escape(m)}</th>" for m in table.measures)
        body = []
        for system, letter in zip(table.systems, table.letters):
            marked = [_marked(table.cells.get((system, m)), "<b>{}</b>", "<sup>{}</sup>")
                      for m in table.measures]  # fmt: skip
            tds = "".join(f'<td class="num">{text}</td>' for text in marked)
            body.append(
                f'<tr><td class="letter">{letter}</td><td>{html.escape(system)}</td>{tds}</tr>'
            )
        title = f"<h3>{html.escape(table.title)}</h3>" if table.group else ""
        blocks.append(
            f'{title}<table class="results"><thead><tr><th>#</th><th>System</th>{head}</tr>'
            f"</thead><tbody>{''.join(body)}</tbody></table>"
        )
    return "\n".join(blocks)
