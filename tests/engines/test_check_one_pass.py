"""``check_per_query`` counts everything it checks in one pass (``engines.finish._found``)
and looks again only at what it found: a clean per-query frame (or one with a null
value, or a query of the qrels alone) passes with nothing said; each kind of bad frame
raises or warns, with the message of its check."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import polars_rankeval as rk
from polars_rankeval.engines import finish
from polars_rankeval.engines import polars as polars_engine

RUN = pl.DataFrame(
    {"query": ["q1", "q1", "q2", "q2", "q3"], "item": ["a", "b", "a", "c", "a"],
     "score": [2.0, 1.0, 2.0, 1.0, 1.0]}
)  # fmt: skip
QRELS = pl.DataFrame({"query": ["q1", "q2", "q3"], "item": ["b", "c", "a"], "relevance": [1, 1, 0]})


def _captured(monkeypatch: pytest.MonkeyPatch, **options: object) -> dict:
    """The per-query frame, judgement and options ``check_per_query`` sees in a clean
    evaluation of RUN against QRELS."""
    seen: dict = {}
    real = finish.check_per_query

    def capture(frame: pl.DataFrame, judgement: object, **kwargs: object) -> pl.DataFrame:
        seen.update(frame=frame, judgement=judgement, kwargs=kwargs)
        return real(frame, judgement, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(polars_engine, "check_per_query", capture)
    rk.evaluate(RUN, QRELS, ["AP", "P@2", "NumRet"], **options)
    monkeypatch.undo()
    return seen


def _reports(frame: pl.DataFrame, seen: dict) -> list[str]:
    """What ``check_per_query`` says about ``frame``: the error, then the warnings."""
    said: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            assert finish.check_per_query(frame, seen["judgement"], **seen["kwargs"]) is frame
        except rk.InputError as error:
            said.append(str(error))
    return said + [str(w.message) for w in caught]


def _variants(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The clean frame and frames each with one thing to report (or, for nulls, none)."""
    first = pl.int_range(pl.len()) == 0
    checks = [c for c in frame.columns if c.startswith("_check_")]
    flags = {"_in_run": "run", "_in_qrels": "qrels"}
    out = {"clean": frame}
    for column in checks:
        out[f"{column} = 1"] = frame.with_columns(
            pl.when(first).then(1).otherwise(pl.col(column)).cast(frame.schema[column])
            .alias(column)
        )  # fmt: skip
    for value in (float("nan"), float("inf"), float("-inf"), None):
        out[f"_m0 = {value}"] = frame.with_columns(
            pl.when(first).then(pl.lit(value, pl.Float64)).otherwise(pl.col("_m0")).alias("_m0")
        )
    for flag, name in flags.items():
        for value in (False, None):
            out[f"no {name} row ({value})"] = frame.with_columns(pl.lit(value, pl.Boolean).alias(flag))
            out[f"one {name} flag {value}"] = frame.with_columns(
                pl.when(first).then(pl.lit(value, pl.Boolean)).otherwise(pl.col(flag)).alias(flag)
            )
    disjoint = pl.int_range(pl.len()) % 2 == 0
    out["no query in both"] = frame.with_columns(
        disjoint.alias("_in_run"), (~disjoint).alias("_in_qrels")
    )
    out["_dropped = 1"] = frame.with_columns(pl.when(first).then(1).otherwise(0).alias("_dropped"))
    return out


EXPECTED = {  # the start of what each variant's check says
    "_m0 = nan": "AP is nan for {'query': 'q",  # the first row's query: any of them
    "_m0 = inf": "AP is inf for {'query': 'q",  # the first row's query: any of them
    "_m0 = -inf": "AP is -inf for {'query': 'q",  # the first row's query: any of them
    "no run row (False)": "the run has no rows: there is nothing to evaluate",
    "no run row (None)": "the run has no rows: there is nothing to evaluate",
    "one qrels flag False": "1 run query is not in the qrels and is ignored",
    "one qrels flag None": "1 run query is not in the qrels and is ignored",
    "_dropped = 1": "duplicates='first': dropped 1 duplicate (query, item) run row(s)",
}


@pytest.mark.parametrize("complete", [False, True])
def test_one_pass_reports_exactly_what_is_wrong(
    monkeypatch: pytest.MonkeyPatch, complete: bool
) -> None:
    seen = _captured(monkeypatch, complete=complete)
    variants = _variants(seen["frame"])
    checks = [c for c in seen["frame"].columns if c.startswith("_check_")]
    assert len(variants) > 20 and checks
    said = {name: _reports(frame, seen) for name, frame in variants.items()}
    # a null value is no error, a query of the qrels alone (not in the run) no warning
    quiet = ("clean", "_m0 = None", "one run flag False", "one run flag None")
    # a hash-based count is recounted exactly over the run, which has no such row
    judgement = seen["judgement"]
    recounted = [c.name for c in (*judgement.run_checks, *judgement.qrels_checks) if c.recount]
    quiet += tuple(f"{name} = 1" for name in recounted)
    assert recounted and all(said[name] == [] for name in quiet), {n: said[n] for n in quiet}
    for name in variants:
        if name not in quiet:
            assert len(said[name]) == 1, (name, said[name])
    for name, start in EXPECTED.items():
        assert said[name][0].startswith(start), (name, said[name])
    for value in ("nan", "inf", "-inf"):
        assert "}: a measure value must be finite" in said[f"_m0 = {value}"][0]
    for column in set(checks) - set(recounted):  # the first check with bad rows raises
        assert said[f"{column} = 1"][0].startswith(("run column", "qrels column")), column
    no_qrels_row = ("complete=True needs judged queries to average over, but" if complete
                    else "run and qrels share no query:") + " the qrels have no rows"
    assert said["no qrels row (False)"][0].startswith(no_qrels_row)
    assert said["no qrels row (None)"][0].startswith(no_qrels_row)
    # no query in both: an error unless complete (then the run-only queries are warned of)
    assert said["no query in both"][0].startswith(
        "2 run queries are not in the qrels" if complete else "run and qrels share no query"
    ), said["no query in both"]
