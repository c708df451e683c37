-- G: normalised gain, twin of polars_rankeval/measures/g.py (trec_eval G, m_G.c):
-- sum over rows at position p <= k with gain g > 0 (gain = relevance) of
-- g / log2(2 + C(p) - CG(p)), divided by the sum of the judged gains; CG(p) = the run's
-- gain at positions <= p (run_cg), C(p) = the ideal ranking's cost at p (ideal_cost:
-- the sum of max(g*, 1) over ideal positions <= p), past Npos the whole cost (cost_sum)
-- plus 1 per position.
CREATE OR REPLACE MACRO rankeval_G_value(
    pos, rel_value, run_cg, ideal_cost, num_pos, gain_sum, cost_sum, k
) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                      THEN CAST(rel_value AS DOUBLE)
                           / NULLIF(LN(2 + CASE WHEN pos <= num_pos THEN ideal_cost
                                                ELSE cost_sum + pos - num_pos END
                                       - run_cg) / LN(2.0), 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(gain_sum), 0),
        0);

CREATE OR REPLACE MACRO rankeval_G(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('G', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_G_value(j._pos, j._rel, j._run_cg, j._ideal_cost, s._num_pos, s._ideal_gain,
                         s._ideal_cost, k) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
