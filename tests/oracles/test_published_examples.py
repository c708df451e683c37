"""Known answers printed in public sources for the measures of issue 18, as printed.

Issue 18 asks for the worked examples of the papers (Clarke et al. 2008 for alpha-nDCG,
Chapelle et al. 2009 for ERR and ERR-IA, Clarke et al. 2020 for compatibility).  None
of the three papers could be read here (no network), and no value is made up: what was
searched in session 18, and what was found, is listed here.

- Stored public pages (the search returns each page's opening only): the slide deck
  https://www.sambuz.com/doc/5-novelty-diversity-outline-ppt-presentation-731517 (its
  first slides only; the alpha-nDCG example is further in), the Springer encyclopedia
  entries on alpha-nDCG and ERR-IA (previews), the lingpipe-blog and notesonai notes on
  ERR (formulas and the grade-to-probability table, no ranking with a value in what is
  stored), the papers' records on paperswithcode, mendeley, openalex and bibtex.github.io
  (abstracts only), and Chapelle et al. 2011 (the ERR-IA journal paper) on vdocuments.net
  (its first page only).
- Public code: claclark/Compatibility (README and data files, no expected values),
  ndeval.c, ir_measures' tests, repositories' alpha-nDCG unit tests (none citing a
  paper's example), Elasticsearch's ERR test (``ExpectedReciprocalRankTests.testERRAt``:
  0.8984375 for grades 3, 2, 0 at k = 3, but with a maximum grade of 3, where gdeval and
  so our ``ERR`` fix it at 4: not comparable).
- Public issue threads: the one printed known answer for these measures that names its
  inputs completely, below (not a paper's: the ir_measures maintainer's, ndeval's values).
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_rankeval as rk
from tests.helpers import values as _values

# https://github.com/terrierteam/ir_measures/issues/61 (2024-10-02): the ir_measures
# maintainer's "minimal example for using diversity metrics", with the values
# ir_measures printed (its pyndeval provider: ndeval's definitions, alpha = 0.5).
# q0 has two subtopics; d0 is relevant to both, d1 to subtopic 0 only.
ISSUE_61_QRELS = pl.DataFrame({
    "query": ["q0", "q0", "q0"], "subtopic": ["0", "1", "0"],
    "item": ["d0", "d0", "d1"], "relevance": [1, 1, 1],
})  # fmt: skip
ISSUE_61_PRINTED = {"d0": 0.8637574337885664, "d1": 0.4318787168942832}


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("item", sorted(ISSUE_61_PRINTED))
def test_alpha_ndcg_of_ir_measures_issue_61(item, engine):
    # a run of one item, as printed in the issue; by hand (alpha = 0.5): the ideal
    # ranking is d0 (gain 2: two new subtopics), then d1 (subtopic 0 seen once: 0.5),
    # ideal DCG@10 = 2 + 0.5 / log2(3); d0 alone has DCG 2, d1 alone 1
    run = pl.DataFrame({"query": ["q0"], "item": [item], "score": [1.0]})
    got = _values(rk.evaluate(run, ISSUE_61_QRELS, ["alpha_nDCG@10"], engine=engine))
    assert got["alpha_nDCG@10"] == pytest.approx(ISSUE_61_PRINTED[item], rel=1e-14, abs=0)
