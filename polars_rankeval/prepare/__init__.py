"""From the user's frames to what the engines aggregate: the one trec_eval ranking
(:mod:`.ranking`), schema checks (:mod:`.schema`), data checks with a kind that every
engine counts (:mod:`.checks`), tie groups (:mod:`.ties`) and the join (:mod:`.judge`)."""

from polars_rankeval.prepare.checks import Check, raise_for_checks
from polars_rankeval.prepare.judge import IN_RUN, NUM_RET, Judgement, judge
from polars_rankeval.prepare.ranking import keep_top, order_column, order_key, position
from polars_rankeval.prepare.ties import tie_needs

__all__ = [
    "IN_RUN",
    "NUM_RET",
    "Check",
    "Judgement",
    "judge",
    "keep_top",
    "order_column",
    "order_key",
    "position",
    "raise_for_checks",
    "tie_needs",
]
