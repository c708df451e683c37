"""``render(measures, dialect=...)``: the SQL entry point (``rankeval_per_query`` /
``rankeval_summary``) as one statement for a warehouse, with every option of evaluate
but ``ties="average"``.

Implemented in :mod:`polars_rankeval.engines.sqltwin.render`; this module keeps the
public import path.
"""

from polars_rankeval.engines.sqltwin.render import DIALECTS, render

__all__ = ["DIALECTS", "render"]
