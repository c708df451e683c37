"""``render(measures, dialect=...)``: the SQL twin as one statement for a warehouse.

Implemented in :mod:`polars_rankeval.engines.sqltwin.render`; this module keeps the
public import path.
"""

from polars_rankeval.engines.sqltwin.render import DIALECTS, render

__all__ = ["DIALECTS", "render"]
