"""``evaluate(run_df, qrels_df, measures, ...)`` on pyspark DataFrames, with evaluate's
options (the SQL entry point rendered for Spark SQL).  Implemented in :mod:`polars_rankeval.engines.spark`; ``rk.evaluate``
given pyspark DataFrames dispatches there too.  This module keeps the public import path.
"""

from polars_rankeval.engines.spark import evaluate

__all__ = ["evaluate"]
