-- Judged: judged rows in the top k / rows retrieved in the top k (ir_measures Judged),
-- twin of polars_rankeval/measures/judged.py.  Judged = in the qrels with relevance
-- >= 0 (a negative judgment is "pooled but unjudged", as for trec_eval).  rel does not
-- change it.
CREATE OR REPLACE MACRO rankeval_Judged_value(pos, rel_value, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= 0 AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Judged(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Judged', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Judged_value(j._pos, j._rel, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Judged', k)
        AND rankeval_check_number('Judged', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
