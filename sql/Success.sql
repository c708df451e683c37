-- Success: 1 if a relevant item is in the top k, else 0 (hit rate), twin of
-- polars_rankeval/measures/success.py (trec_eval success_k).
CREATE OR REPLACE MACRO rankeval_Success_value(pos, rel_value, k, rel) AS
    CAST(MAX(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
         AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_Success(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Success', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Success_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
