"""Markdown tables for the README and the docs, generated from the registry.

``python -m polars_rankeval._docs --write`` rewrites the README's generated sections
(between ``<!-- NAME:start -->`` and ``<!-- NAME:end -->``); a test fails when they are
stale, so adding a measure never means editing a table by hand.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from polars_rankeval._parse import PRESETS, TREC_ALIASES
from polars_rankeval._registry import REGISTRY, Family
from polars_rankeval.diversity.families import DIVERSITY

PIPE = " \\| "  # a literal | inside a markdown table cell
DIGITS = r"(\d+)"


def measure_table(families: Iterable[Family] | None = None, tool: str = "trec_eval") -> str:
    """The README's measure table: one row per registered family (or per ``families``,
    their names in ``tool``'s column)."""
    lines = [
        f"| measure | @k | parameters (default first) | {tool} | aggregate | definition |",
        "|---|---|---|---|---|---|",
    ]
    for family in REGISTRY.values() if families is None else families:
        params = "; ".join(
            f"`{p.name}=` " + (PIPE.join(p.choices) if p.choices else str(p.default))
            for p in family.params
        )
        name = f"`{family.name}`" + "".join(f" / `{a}`" for a in family.aliases)
        lines.append(
            f"| {name} | {'yes' if family.cutoff else 'no'} | {params or '-'} | "
            f"{family.trec_eval} | {family.aggregate} | {family.formula} |"
        )
    return "\n".join(lines)


def diversity_table() -> str:
    """The diversity families (subtopic qrels), with ndeval's names for them.

    >>> diversity_table().splitlines()[2].split(" | ")[:2]
    ['| `alpha_DCG`', 'yes']
    """
    return measure_table(
        [replace(f, trec_eval=f.trec_eval.removeprefix("ndeval ")) for f in DIVERSITY.values()],
        tool="ndeval",
    )


def alias_list() -> str:
    """The trec_eval names accepted, as a sentence fragment."""
    return ", ".join(
        "`" + p.replace(DIGITS, "k").replace(r"(\d+\.\d+)", "x.xx") + "`" for p in TREC_ALIASES
    )


def preset_table() -> str:
    """What each ``conventions=`` preset sets."""
    lines = ["| conventions | sets | reproduces |", "|---|---|---|"]
    reproduces = {
        "trec_eval": "trec_eval 9.x/10.0 and pytrec_eval (and ir_measures, ranx with linear "
        "gains, which follow it)",
        "kaggle": "Kaggle `ml_metrics` `apk`/`mapk` (AP@k divided by min(R, k))",
        "spark": "Spark `RankingMetrics`: `meanAveragePrecisionAt(k)` (min(R, k)) and graded "
        "`ndcgAt(k)` (2^rel - 1)",
        "torchmetrics": "torchmetrics `retrieval_average_precision` / `RetrievalMAP` (divided "
        "by the relevant items found)",
    }
    for name, overrides in PRESETS.items():
        sets = ", ".join(
            f"`{family}({', '.join(f'{k}={v}' for k, v in params.items())})`"
            for family, params in overrides.items()
        )
        lines.append(f"| `{name}` | {sets or 'nothing: every default'} | {reproduces[name]} |")
    return "\n".join(lines)


def sections() -> dict[str, str]:
    """The generated README sections by marker name."""
    return {
        "measures": measure_table(), "diversity": diversity_table(), "presets": preset_table(),
        "aliases": alias_list() + ".",
    }  # fmt: skip


def _replacer(table: str) -> Callable[[re.Match[str]], str]:
    return lambda match: match.group(1) + table + match.group(2)


def rewrite(text: str) -> str:
    """``text`` with every generated section replaced by its current content."""
    for name, table in sections().items():
        pattern = re.compile(rf"(<!-- {name}:start -->\n).*?(\n<!-- {name}:end -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"no <!-- {name}:start --> ... <!-- {name}:end --> section")
        text = pattern.sub(_replacer(table), text)
    return text


def main(argv: list[str]) -> int:
    """``--write [README]``: rewrite the sections; ``--check [README]``: exit 1 if stale."""
    if not argv or argv[0] not in ("--write", "--check"):
        print(measure_table(), "\n")
        print(diversity_table(), "\n")
        print(preset_table(), "\n")
        print(alias_list())
        return 0
    path = Path(argv[1] if len(argv) > 1 else "README.md")
    text = path.read_text(encoding="utf-8")
    fresh = rewrite(text)
    if argv[0] == "--check":
        return 0 if fresh == text else 1
    path.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
