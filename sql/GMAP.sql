-- GMAP: geometric mean average precision, twin of polars_rankeval/measures/gmap.py
-- (trec_eval gm_map).  Per query: AP (sum over relevant items at position i <= k of
-- relevant in top i / i, divided by R); over queries the engines take the geometric
-- mean EXP(AVG(LN(max(AP, 0.00001)))).
CREATE OR REPLACE MACRO rankeval_GMAP_value(pos, rel_value, hits, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                      THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_GMAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('GMAP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_GMAP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('GMAP', k)
        AND rankeval_check_number('GMAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
