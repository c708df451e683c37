-- nDCG_rel: nDCG averaged over the items with a positive gain, twin of
-- polars_rankeval/measures/ndcg_rel.py (trec_eval ndcg_rel, m_ndcg_rel.c):
-- (1/Npos) * (sum over rows at p <= k with gain > 0 of DCG(p) / IDCG(min(p, Npos))
-- + (Npos - those rows) * DCG(n) / IDCG(Npos)), gain = relevance; run_dcg is DCG(p),
-- ideal_dcg IDCG(p) up to Npos, idcg the whole ideal DCG.
CREATE OR REPLACE MACRO rankeval_nDCG_rel_value(
    pos, rel_value, run_dcg, ideal_dcg, num_pos, idcg, k
) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                      THEN CAST(run_dcg AS DOUBLE)
                           / NULLIF(CASE WHEN pos <= num_pos THEN ideal_dcg ELSE idcg END, 0)
                      ELSE 0 END)
             + (MAX(num_pos) - SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                                        THEN 1 ELSE 0 END))
               * COALESCE(CAST(rankeval_dcg(rel_value, pos, k, 'linear') AS DOUBLE)
                          / NULLIF(MAX(idcg), 0), 0)
             AS DOUBLE)
        / NULLIF(MAX(num_pos), 0),
        0);

CREATE OR REPLACE MACRO rankeval_nDCG_rel(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('nDCG_rel', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_nDCG_rel_value(j._pos, j._rel, j._run_dcg, j._ideal_dcg, s._num_pos, i._idcg,
                                k) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    LEFT JOIN rankeval_idcg(qrels_table) AS i ON j.query = i.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
