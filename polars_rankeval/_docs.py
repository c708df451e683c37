"""Markdown tables for the README, generated from the registry (a test keeps them in sync)."""

from __future__ import annotations

from polars_rankeval._parse import PRESETS, TREC_ALIASES
from polars_rankeval._registry import REGISTRY

PIPE = " \\| "  # a literal | inside a markdown table cell
DIGITS = r"(\d+)"


def measure_table() -> str:
    """The README's measure table: one row per registered family."""
    lines = [
        "| measure | @k | parameters (default first) | trec_eval | aggregate | definition |",
        "|---|---|---|---|---|---|",
    ]
    for family in REGISTRY.values():
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


def alias_list() -> str:
    """The trec_eval names accepted, as a sentence fragment."""
    return ", ".join("`" + p.replace(DIGITS, "k") + "`" for p in TREC_ALIASES)


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


if __name__ == "__main__":
    print(measure_table(), "\n")
    print(preset_table(), "\n")
    print(alias_list())
