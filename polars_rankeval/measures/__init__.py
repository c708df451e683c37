"""One module per measure family: its declaration and its polars expression.

Importing this package registers every family in :data:`polars_rankeval._registry.REGISTRY`.
"""

from polars_rankeval.measures import (  # noqa: F401  (imported to register)
    ap,
    bpref,
    counts,
    ndcg,
    precision,
    recall,
    rprec,
    rr,
    success,
)
