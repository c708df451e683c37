-- infAP: inferred average precision, exactly trec_eval's m_infap.c, twin of
-- polars_rankeval/measures/infap.py.  (1/R) * sum over retrieved relevant rows at
-- position p of: 1 at p = 1, else 1/p + (p-1)/p * (pooled above / (p-1))
-- * (relevant above + 0.00001) / (relevant above + judged non-relevant above + 0.00002),
-- pooled = in the qrels (also a negative judgment: pooled but not judged).  No cutoff:
-- k is ignored.
CREATE OR REPLACE MACRO rankeval_infAP_value(pos, rel_value, hits, nonrel, pooled, num_rel, rel)
AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND pos = 1 THEN 1
                      WHEN rel_value >= rel
                      THEN CAST(1 AS DOUBLE) / NULLIF(pos, 0)
                           + CAST(pos - 1 AS DOUBLE) / NULLIF(pos, 0)
                             * (CAST(pooled - 1 AS DOUBLE) / NULLIF(pos - 1, 0))
                             * (CAST(hits - 1 + CAST(0.00001 AS DOUBLE) AS DOUBLE)
                                / NULLIF(hits - 1 + nonrel + CAST(0.00002 AS DOUBLE), 0))
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_infAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('infAP', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_infAP_value(j._pos, j._rel, j._hits, j._nonrel, j._pooled, j._num_rel, rel)
            AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('infAP', k)
        AND rankeval_check_number('infAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
