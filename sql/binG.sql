-- binG: binary G, twin of polars_rankeval/measures/bing.py (trec_eval binG, m_binG.c):
-- (1/R) * sum over relevant rows at position p <= k of 1 / log2(2 + p - hits), hits =
-- relevant rows at positions <= p (so p - hits: the non-relevant rows above).
CREATE OR REPLACE MACRO rankeval_binG_value(pos, rel_value, hits, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                      THEN CAST(1 AS DOUBLE)
                           / NULLIF(LN(CAST(2 + pos - hits AS DOUBLE)) / LN(2.0), 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_binG(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('binG', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_binG_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('binG', k)
        AND rankeval_check_number('binG', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
