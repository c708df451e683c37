"""Closed forms of trec_eval's G, ndcg_rel and Rndcg (default gains: a judged level's gain
is the level; unjudged and negative judgments gain 0), in plain Python, checked against
pytrec_eval on random queries (``python tests/_reference_gain_measures.py``: 17448
values, none differing by more than 1e-9).  Not collected by pytest: the families are
G, nDCG_rel and RnDCG (polars_rankeval/measures/g.py, ndcg_rel.py, rndcg.py), checked
against pytrec_eval directly in tests/oracles/test_oracle_pytrec_eval_gains.py; this is
the closed form their expressions follow.

With g_p the gain at run position p (n retrieved), g*_1 >= g*_2 >= ... the positive
judged gains sorted (Npos of them), DCG/IDCG the usual sums with 1/log2(p + 1):

* G = sum over rows with g_p != 0 of g_p / log2(2 + C(p) - CG(p)), divided by the sum
  of g*; CG(p) = sum of the run's gains at positions <= p, C(p) = sum over q <= p of
  max(g*_q, 1) (g*_q = 0 beyond Npos);
* ndcg_rel = (sum over rows with g_p > 0 of DCG(p) / IDCG(min(p, Npos)) + (Npos - those
  rows) * DCG(n) / IDCG(Npos)) / Npos, 0 when the sum is 0;
* Rndcg = 0 when R (at the relevance level) is 0; else the mean of DCG(min(b, n)) /
  IDCG(b) over the ends b of each positive gain level in the ideal ranking (b where
  g*_b != g*_{b+1}), plus DCG(n) / IDCG(Npos) when n >= Npos + 2 (trec_eval's "implied
  R-level at num_retrieved"; not added when n = Npos + 1).
"""

import math
import random

import pytrec_eval


def forms(ranked_gains, judged_levels, R):
    g = ranked_gains  # gains of the run in trec order (0 for unjudged / negative)
    n = len(g)
    ideal = sorted([v for v in judged_levels if v > 0], reverse=True)
    npos = len(ideal)

    def IG(p):
        return sum(ideal[: min(p, npos)])

    def IDCG(p):
        return sum(x / math.log2(q + 2) for q, x in enumerate(ideal[: min(p, npos)]))

    def DCG(p):
        return sum(x / math.log2(q + 2) for q, x in enumerate(g[:p]))

    def C(p):
        return sum(max(x, 1.0) for x in ideal[: min(p, npos)]) + max(0, p - npos)

    # G
    G = 0.0
    if npos:
        cg = 0.0
        s = 0.0
        for p in range(1, n + 1):
            cg += g[p - 1]
            if g[p - 1] != 0:
                s += g[p - 1] / math.log2(2 + C(p) - cg)
        G = s / IG(npos)
    # ndcg_rel
    nr = 0.0
    if npos:
        s = sum(DCG(p) / IDCG(min(p, npos)) for p in range(1, n + 1) if g[p - 1] > 0)
        s += (npos - sum(1 for x in g if x > 0)) * DCG(n) / IDCG(npos)
        nr = s / npos if s > 0 else 0.0
    # Rndcg
    rn = 0.0
    if R > 0:
        B = [b for b in range(1, npos + 1) if (ideal[b] if b < npos else 0) != ideal[b - 1]]
        extra = 1 if (npos >= 1 and n >= npos + 2) else 0
        s = sum(DCG(min(b, n)) / IDCG(b) for b in B) + (extra * DCG(n) / IDCG(npos) if extra else 0)
        rn = s / (len(B) + extra) if len(B) + extra else float("nan")
    return G, nr, rn


def main():
    rng = random.Random(1)
    checked = 0
    for trial in range(3000):
        items = [f"d{i}" for i in range(rng.randint(1, 12))]
        qrels = {
            it: rng.choice([-1, 0, 0, 1, 1, 2, 3, 4])
            for it in rng.sample(items, rng.randint(1, len(items)))
        }
        if max(qrels.values()) < 0:
            continue
        ret = rng.sample(items, rng.randint(1, len(items)))
        run = {it: float(rng.choice([0, 1, 2, 3])) for it in ret}
        order = sorted(ret, key=lambda it: it.encode(), reverse=True)
        order.sort(key=lambda it: run[it], reverse=True)
        gains = [max(qrels.get(it, 0), 0) for it in order]
        for rel in (1, 2):
            R = sum(1 for v in qrels.values() if v >= rel)
            ev = pytrec_eval.RelevanceEvaluator(
                {"q": qrels}, {"G", "ndcg_rel", "Rndcg"}, relevance_level=rel
            )
            out = ev.evaluate({"q": run})["q"]
            G, nr, rn = forms(gains, list(qrels.values()), R)
            for name, mine in (("G", G), ("ndcg_rel", nr), ("Rndcg", rn)):
                theirs = out[name]
                ok = (math.isnan(mine) and math.isnan(theirs)) or abs(mine - theirs) <= 1e-9
                assert ok, (name, qrels, run, order, rel, mine, theirs)
                checked += 1
    print("values compared:", checked)


if __name__ == "__main__":
    main()
