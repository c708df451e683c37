-- RelP: relative precision, twin of polars_rankeval/measures/relp.py (trec_eval
-- relative_P_k, set_relative_P): relevant in the top k / min(k, R), k even when fewer
-- were retrieved; without a cutoff relevant retrieved / min(retrieved, R); 0 when R = 0.
CREATE OR REPLACE MACRO rankeval_RelP_value(pos, rel_value, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(LEAST(CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, MAX(num_rel)), 0),
        0);

-- rankeval_RelP_expected: over rows of rankeval_tied (ties 'average'): relevant replaced
-- by r / n of the row's tie group; the denominator does not depend on the order.
CREATE OR REPLACE MACRO rankeval_RelP_expected(pos, tie_n, tie_r, num_rel, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(LEAST(CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, MAX(num_rel)), 0),
        0);

CREATE OR REPLACE MACRO rankeval_RelP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RelP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_RelP_value(j._pos, j._rel, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('RelP', k)
        AND rankeval_check_number('RelP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
