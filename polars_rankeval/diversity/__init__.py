"""Diversity (novelty and intent-aware) evaluation over subtopic qrels: the families
(:mod:`.families`) and their computation (:mod:`.compute`)."""

from polars_rankeval.diversity.families import DIVERSITY, is_diversity

__all__ = ["DIVERSITY", "is_diversity"]
