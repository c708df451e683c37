"""``rankeval --format ndeval``: ndeval.c's CSV layout (version 4.5's outputMeasures:
header ``runid,topic,`` + 21 names, a line per run topic, ``runid,amean``, ``%.6f``)
with values against pyndeval (ndeval.c as a Python extension), per topic and mean.

pyndeval takes the run in trec_eval's order with distinct scores (as
tests/oracles/test_diversity.py gives it); our CLI ranks the run file itself.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from polars_rankeval.cli import main
from polars_rankeval.cli.ndeval import NDEVAL_MEASURES, _means
from tests.diversity_cases import cases, oracle_run
from tests.helpers import examples

pyndeval = pytest.importorskip("pyndeval")

HEADER = (
    "runid,topic,ERR-IA@5,ERR-IA@10,ERR-IA@20,nERR-IA@5,nERR-IA@10,nERR-IA@20,"
    "alpha-DCG@5,alpha-DCG@10,alpha-DCG@20,alpha-nDCG@5,alpha-nDCG@10,alpha-nDCG@20,"
    "NRBP,nNRBP,MAP-IA,P-IA@5,P-IA@10,P-IA@20,strec@5,strec@10,strec@20"
)  # ndeval.c's header, typed from its printf calls


def _write(folder: Path, qrels: list[tuple], run: list[tuple]) -> tuple[str, str]:
    qpath, rpath = folder / "qrels.txt", folder / "run.txt"
    qpath.write_text("".join(f"{q} {s} {d} {r}\n" for q, s, d, r in qrels))
    rpath.write_text(
        "".join(f"{q} Q0 {d} {i + 1} {s} tagged\n" for i, (q, d, s) in enumerate(run))
    )
    return str(qpath), str(rpath)


def _cli(capsys, *argv: str) -> list[list[str]]:
    code = main(["--format", "ndeval", "--quiet", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return [line.split(",") for line in out.splitlines()]


def test_layout_is_ndevals(capsys, tmp_path) -> None:
    """Header, one line per run topic in topic order (numbers ascending: 2 before 10; a
    run-only topic all zeros), the amean line; runid = the first line's tag; %.6f."""
    qrels = [("2", "1", "a", 1), ("10", "1", "b", 1), ("10", "2", "b", 1)]
    run = [("10", "b", 2.0), ("2", "a", 1.0), ("7", "c", 1.0)]
    rows = _cli(capsys, *_write(tmp_path, qrels, run))
    assert ",".join(rows[0]) == HEADER
    assert [r[:2] for r in rows[1:]] == [["tagged", "2"], ["tagged", "7"], ["tagged", "10"],
                                         ["tagged", "amean"]]  # fmt: skip
    assert all(len(r) == 23 for r in rows)
    assert all(len(v.split(".")[1]) == 6 for r in rows[1:] for v in r[2:])
    assert set(rows[2][2:]) == {"0.000000"}
    # both relevant topics are perfect for the ideal-normalised measures
    assert rows[4][HEADER.split(",").index("alpha-nDCG@20")] == "1.000000"


def test_measures_and_options(capsys, tmp_path) -> None:
    """-m picks the columns (ndeval's names where it has them); -c divides the mean by
    the qrels' topics (ndeval -c)."""
    qrels = [("1", "1", "a", 1), ("2", "1", "b", 1)]
    run = [("1", "a", 1.0)]
    paths = _write(tmp_path, qrels, run)
    rows = _cli(capsys, "-m", "alpha_nDCG@3", "-m", "AP_IA", "-m", "P@1", *paths)
    assert rows[0] == ["runid", "topic", "alpha-nDCG@3", "MAP-IA", "P@1"]
    assert rows[-1] == ["tagged", "amean", "1.000000", "1.000000", "1.000000"]
    rows = _cli(capsys, "-c", "-m", "alpha_nDCG@3", *paths)
    assert rows[-1] == ["tagged", "amean", "0.500000"]
    # -M 1 (ndeval -M): the top row only
    other = tmp_path / "other.txt"
    other.write_text("1 Q0 x 1 2.0 second\n1 Q0 a 2 1.0 second\n")
    assert _cli(capsys, "-M", "1", "-m", "P_IA@2", paths[0], str(other))[-1] == [
        "second", "amean", "0.000000"]
    # several runs: one header, then each run's lines
    rows = _cli(capsys, "-m", "P_IA@2", paths[0], paths[1], str(other))
    assert [r[:2] for r in rows] == [["runid", "topic"], ["tagged", "1"], ["tagged", "amean"],
                                     ["second", "1"], ["second", "amean"]]  # fmt: skip


def test_trec_eval_only_options_are_refused(capsys, tmp_path) -> None:
    paths = _write(tmp_path, [("1", "1", "a", 1)], [("1", "a", 1.0)])
    assert main(["--format", "ndeval", "-J", "-n", *paths]) == 2
    assert "-n, -J not available" in capsys.readouterr().err


AGREED: list[int] = []


@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=cases())
def test_values_match_pyndeval(capsys, tmp_path_factory, case) -> None:
    """Every cell of every topic and the amean equal pyndeval's value printed with %.6f
    (to 1e-6), except our documented choices (ERR-IA@1 is not printed; nNRBP without
    relevant subtopics: 0 where ndeval has nan)."""
    qrels, run = case
    rows = _cli(capsys, *_write(tmp_path_factory.mktemp("nd"), qrels, oracle_run(run)))
    names = [theirs for _, theirs in NDEVAL_MEASURES]
    assert rows[0] == ["runid", "topic", *names]
    oracle = pyndeval.ndeval(qrels, oracle_run(run), names)
    got = {r[1]: dict(zip(names, map(float, r[2:]), strict=True)) for r in rows[1:]}
    checked = 0
    for topic, values in oracle.items():
        for name, expected in values.items():
            if math.isnan(expected):
                assert name == "nNRBP" and got[topic][name] == 0.0
                continue
            assert got[topic][name] == pytest.approx(expected, abs=1e-6), (topic, name)
            checked += 1
    for name in names:  # the mean over the topics in both files
        mean = sum(0.0 if math.isnan(v[name]) else v[name] for v in oracle.values()) / len(oracle)
        assert got["amean"][name] == pytest.approx(mean, abs=1e-6), name
    run_only = {q for q, _, _ in run} - set(oracle)
    assert all(set(got[t].values()) == {0.0} for t in run_only)
    AGREED.append(checked)


def test_one_evaluation_a_run_and_the_amean_is_evaluates_summary(
    capsys, tmp_path, monkeypatch
) -> None:
    """Each run is evaluated once (per query); its amean cells are ``evaluate``'s own
    summary printed with %.6f (the same sums in trec_eval's query order), also with -c
    (qrels-only topics count) over many topics whose sums depend on their order."""
    import polars as pl

    import polars_rankeval as rk

    qrels = [(str(q), str(s), f"d{d}", (q * s + d) % 3 - (d == 4))
             for q in range(1, 40) for s in (1, 2, 3) for d in range(q % 5 + 2)]  # fmt: skip
    run = [(str(q), f"d{d}", float((q * 7 + d * 3) % 5)) for q in range(1, 36) for d in range(6)]
    paths = _write(tmp_path, qrels, run)
    names = [ours for ours, _ in NDEVAL_MEASURES]
    qrels_frame = pl.DataFrame(qrels, schema=["query", "subtopic", "item", "relevance"],
                               orient="row")  # fmt: skip
    run_frame = pl.DataFrame(run, schema=["query", "item", "score"], orient="row")
    calls: list[bool] = []
    evaluate = rk.evaluate

    def counted(*args, **kwargs):
        calls.append(kwargs.get("per_query", False))
        return evaluate(*args, **kwargs)

    for flags in ([], ["-c"]):
        calls.clear()
        monkeypatch.setattr(rk, "evaluate", counted)
        rows = _cli(capsys, *flags, *paths)
        monkeypatch.setattr(rk, "evaluate", evaluate)
        assert calls == [True]
        summary = evaluate(run_frame, qrels_frame, names, complete=bool(flags))
        means = dict(summary.select("measure", "value").iter_rows())
        assert rows[-1] == ["tagged", "amean", *(f"{means[n]:.6f}" for n in names)]
        # bit for bit, before printing
        per_query = evaluate(run_frame, qrels_frame, names, per_query=True, complete=bool(flags))
        assert _means(per_query, names) == means


def test_other_formats_refuse_the_diversity_measures_naming_the_option(capsys, tmp_path) -> None:
    """Without --format ndeval the qrels are read as topic qrels: a diversity measure is
    refused by name, pointing at the option (not a missing-column error)."""
    paths = _write(tmp_path, [("1", "1", "a", 1)], [("1", "a", 1.0)])
    for fmt in ("trec", "json"):
        code = main(["--format", fmt, "-m", "P@1", "-m", "alpha_nDCG@20", *paths])
        err = capsys.readouterr().err
        assert code == 2 and "-m alpha_nDCG@20: the diversity measures" in err
        assert "--format ndeval" in err
