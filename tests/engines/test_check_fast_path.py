"""``check_per_query``'s one-pass test (``engines.finish._nothing_to_report``): when it
says a per-query frame has nothing to report, the checks one by one raise and warn
nothing; each kind of bad frame sends the frame through them."""

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


def _reports(frame: pl.DataFrame, seen: dict, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the checks one by one say about ``frame``: the error, then the warnings."""
    said: list[str] = []
    monkeypatch.setattr(finish, "_nothing_to_report", lambda *a, **k: False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            finish.check_per_query(frame, seen["judgement"], **seen["kwargs"])
        except rk.InputError as error:
            said.append(str(error))
    monkeypatch.undo()
    return said + [str(w.message) for w in caught]


def _fast(frame: pl.DataFrame, seen: dict) -> bool:
    return finish._nothing_to_report(frame, seen["judgement"], **seen["kwargs"])


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


@pytest.mark.parametrize("complete", [False, True])
def test_nothing_to_report_only_when_the_checks_say_nothing(
    monkeypatch: pytest.MonkeyPatch, complete: bool
) -> None:
    seen = _captured(monkeypatch, complete=complete)
    variants = _variants(seen["frame"])
    assert len(variants) > 20 and any(c.startswith("_check_") for c in seen["frame"].columns)
    fast = {name: _fast(frame, seen) for name, frame in variants.items()}
    said = {name: _reports(frame, seen, monkeypatch) for name, frame in variants.items()}
    for name in variants:
        if fast[name]:
            assert said[name] == [], name
    # the usual case takes the one pass; a null value is no error, a query of the qrels
    # alone (not in the run) is no warning
    quiet = ("clean", "_m0 = None", "one run flag False", "one run flag None")
    assert all(fast[name] and said[name] == [] for name in quiet), fast
    bad = [name for name in variants if name not in quiet]
    assert not any(fast[name] for name in bad), [n for n in bad if fast[n]]
    # each of these is an error or a warning of the checks one by one
    for name in ("_m0 = nan", "_m0 = inf", "no run row (False)", "one qrels flag False",
                 "no qrels row (None)", "_dropped = 1"):  # fmt: skip
        assert said[name], name
    assert bool(said["no query in both"]) is True
