-- RBP_resid: the residual of RBP, twin of polars_rankeval/measures/rbp_resid.py
-- (trec_eval 10 rbp_resid): p^n + (1 - p) * sum over the unjudged retrieved rows (not
-- in the qrels, or a negative judgment) of p^(position - 1), n = the last position;
-- 0 when every retrieved row is judged.  No cutoff: k is ignored; rel does not change it.
CREATE OR REPLACE MACRO rankeval_RBP_resid_value(pos, rel_value, p) AS
    CASE WHEN SUM(CASE WHEN rel_value IS NULL OR rel_value < 0 THEN 1 ELSE 0 END) > 0
         THEN POWER(p, MAX(pos))
              + (1 - p) * SUM(CASE WHEN rel_value IS NULL OR rel_value < 0
                                   THEN POWER(p, pos - 1) ELSE 0 END)
         ELSE 0 END;

CREATE OR REPLACE MACRO rankeval_RBP_resid(run_table, qrels_table, k := NULL, rel := 1, p := 0.9)
AS TABLE
    SELECT j.query,
        rankeval_name('RBP_resid', CONCAT_WS(',', rankeval_param('p', rankeval_number(p), '0.9'),
            rankeval_param('rel', rankeval_number(rel), '1')), NULL) AS measure,
        rankeval_RBP_resid_value(j._pos, j._rel, p) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('RBP_resid', k)
        AND rankeval_check_number('RBP_resid', 'p', p, p > 0 AND p < 1, ' in (0, 1)')
        AND rankeval_check_number('RBP_resid', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
