-- YAAP: yet another average precision, twin of polars_rankeval/measures/yaap.py
-- (trec_eval yaap, m_yaap.c): log((1 + S) / (1 + R - S)), S = sum over relevant items at
-- position i <= k of (relevant in top i / i); log(1 / (1 + R)) when none is retrieved.
-- rankeval_YAAP_value is an aggregate over the rows of one query of rankeval_joined.
CREATE OR REPLACE MACRO rankeval_YAAP_value(pos, rel_value, hits, num_rel, k, rel) AS
    LN(CAST(1 + COALESCE(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                              THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END), 0)
            AS DOUBLE)
       -- S <= relevant retrieved <= R: the denominator is at least 1
       / NULLIF(1 + MAX(num_rel)
            - COALESCE(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END), 0),
                0));

CREATE OR REPLACE MACRO rankeval_YAAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('YAAP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_YAAP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('YAAP', k)
        AND rankeval_check_number('YAAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
