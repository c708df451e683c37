"""One module per measure family: its declaration and its polars expression.

Importing this package registers every family in :data:`polars_rankeval._registry.REGISTRY`,
in the order below (the order of the README's measure table).
"""

# isort: skip_file
from polars_rankeval.measures import ap  # noqa: F401
from polars_rankeval.measures import precision  # noqa: F401
from polars_rankeval.measures import recall  # noqa: F401
from polars_rankeval.measures import rr  # noqa: F401
from polars_rankeval.measures import ndcg  # noqa: F401
from polars_rankeval.measures import success  # noqa: F401
from polars_rankeval.measures import rprec  # noqa: F401
from polars_rankeval.measures import bpref  # noqa: F401
from polars_rankeval.measures import counts  # noqa: F401
from polars_rankeval.measures import numq  # noqa: F401
from polars_rankeval.measures import f1  # noqa: F401
from polars_rankeval.measures import rprec_mult  # noqa: F401
from polars_rankeval.measures import gmap  # noqa: F401
from polars_rankeval.measures import iprec  # noqa: F401
from polars_rankeval.measures import iprec11pt  # noqa: F401
from polars_rankeval.measures import infap  # noqa: F401
from polars_rankeval.measures import judged  # noqa: F401
from polars_rankeval.measures import unjudged  # noqa: F401
from polars_rankeval.measures import rbp  # noqa: F401
from polars_rankeval.measures import rbp_resid  # noqa: F401
from polars_rankeval.measures import err  # noqa: F401
from polars_rankeval.measures import gmbpref  # noqa: F401
from polars_rankeval.measures import utility  # noqa: F401
from polars_rankeval.measures import bing  # noqa: F401
from polars_rankeval.measures import relp  # noqa: F401
from polars_rankeval.measures import setap  # noqa: F401
