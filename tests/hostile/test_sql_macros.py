"""The SQL twin's table macros check their parameters (Param's rules) with error()."""

from __future__ import annotations

import duckdb
import pytest

from polars_rankeval.engines.duckdb import install
from tests.hostile._places import HAND, QRELS, RUN


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    install(con)
    con.register("run", RUN.drop("rank").to_arrow())
    con.register("qrels", QRELS.to_arrow())
    return con


# call -> fragments of the error message
BAD = {
    "rankeval_P('run', 'qrels', k := 2.5)": ["rankeval_P", "k := 2.5", "positive integer"],
    "rankeval_P('run', 'qrels', k := 0)": ["rankeval_P", "k := 0"],
    "rankeval_AP('run', 'qrels', k := -3)": ["rankeval_AP", "k := -3"],
    "rankeval_P('run', 'qrels', norm := 'bogus')": ["norm := bogus", "k, ret"],
    "rankeval_AP('run', 'qrels', norm := NULL)": ["norm := NULL", "R, min, hits"],
    "rankeval_nDCG('run', 'qrels', gain := 'exponential')": ["gain := exponential", "linear, exp"],
    "rankeval_nDCG('run', 'qrels', ideal := 'x')": ["ideal := x"],
    "rankeval_RBP('run', 'qrels', p := 1)": ["p := 1", "(0, 1)"],
    "rankeval_RBP_resid('run', 'qrels', p := 0)": ["p := 0"],
    "rankeval_P('run', 'qrels', rel := CAST('nan' AS DOUBLE))": ["rel := nan", "finite"],
    "rankeval_AP('run', 'qrels', rel := CAST('inf' AS DOUBLE))": ["rel := inf"],
    "rankeval_Rprec('run', 'qrels', k := 5)": ["rankeval_Rprec", "no rank cutoff"],
    "rankeval_IPrec('run', 'qrels', recall := 1.5)": ["recall := 1.5", "[0, 1]"],
    "rankeval_F1('run', 'qrels', beta := 0)": ["beta := 0", "> 0"],
    "rankeval_Utility('run', 'qrels', docs := -1)": ["docs := -1", ">= 0"],
    "rankeval_Rprec_mult('run', 'qrels', mult := -1)": ["mult := -1"],
}


@pytest.mark.parametrize("call", sorted(BAD))
def test_bad_parameter_is_an_error_naming_it(con, call: str) -> None:
    with pytest.raises(duckdb.InvalidInputException) as raised:
        con.execute(f"SELECT * FROM {call}").fetchall()
    for fragment in BAD[call]:
        assert fragment in str(raised.value), (fragment, str(raised.value))


def test_unknown_parameter_is_refused(con) -> None:
    with pytest.raises(duckdb.BinderException):
        con.execute("SELECT * FROM rankeval_P('run', 'qrels', bogus := 1)").fetchall()


@pytest.mark.parametrize("call, name", [
    ("rankeval_AP('run', 'qrels')", "AP"),
    ("rankeval_P('run', 'qrels', k := 2)", "P@2"),
    ("rankeval_nDCG('run', 'qrels', k := 3)", "nDCG@3"),
    ("rankeval_RR('run', 'qrels')", "RR"),
])  # fmt: skip
def test_valid_parameters_give_the_hand_values(con, call: str, name: str) -> None:
    rows = con.execute(f"SELECT measure, AVG(value) FROM {call} GROUP BY measure").fetchall()
    assert rows[0][0] == name and rows[0][1] == pytest.approx(HAND[name], rel=1e-12)
