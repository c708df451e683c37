-- RnDCG: nDCG averaged over the ends of the ideal ranking's gain levels, twin of
-- polars_rankeval/measures/rndcg.py (trec_eval Rndcg, m_Rndcg.c): the mean of
-- DCG(min(b, n)) / IDCG(b) over the ends b (b <= Npos, next ideal gain lower), plus
-- DCG(n) / IDCG(Npos) when n >= Npos + 2 (n = rows in the top k); 0 when R = 0.  The sum
-- over ends is taken per row: each row's DCG share times ideal_level_ends, the sum over
-- the ends at or below its position of 1 / IDCG(b).
CREATE OR REPLACE MACRO rankeval_RnDCG_value(
    pos, rel_value, ideal_level_ends, num_rel, num_pos, idcg, gain_levels, k, rel
) AS
    CASE WHEN MAX(num_rel) > 0 THEN COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k) AND pos <= num_pos
                      THEN CAST(rel_value AS DOUBLE)
                           / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
                           * ideal_level_ends
                      ELSE 0 END)
             + CASE WHEN MAX(num_pos) >= 1
                         AND SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END)
                             >= MAX(num_pos) + 2
                    THEN COALESCE(CAST(rankeval_dcg(rel_value, pos, k, 'linear') AS DOUBLE)
                                  / NULLIF(MAX(idcg), 0), 0)
                    ELSE 0 END
             AS DOUBLE)
        / NULLIF(MAX(gain_levels)
                 + CASE WHEN MAX(num_pos) >= 1
                             AND SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END)
                                 >= MAX(num_pos) + 2
                        THEN 1 ELSE 0 END, 0),
        0) ELSE 0 END;

CREATE OR REPLACE MACRO rankeval_RnDCG(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RnDCG', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_RnDCG_value(j._pos, j._rel, j._ideal_level_ends, j._num_rel, s._num_pos,
                             i._idcg, s._gain_levels, k, rel) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    LEFT JOIN rankeval_idcg(qrels_table) AS i ON j.query = i.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
