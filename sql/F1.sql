-- F1: F measure, the weighted harmonic mean (beta + 1) P R / (beta P + R) of precision
-- and recall, twin of polars_rankeval/measures/f1.py (trec_eval set_F without a cutoff).
-- P = hits / d, d = k (P@k) or, without a cutoff, the number retrieved; R = hits / R;
-- so F = (beta + 1) hits / (beta R + d), 0 when nothing relevant is found.  beta is
-- trec_eval set_F's parameter (beta 1: F1).
CREATE OR REPLACE MACRO rankeval_F1_value(pos, rel_value, num_rel, k, rel, beta) AS
    COALESCE(
        CAST((beta + 1) * SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                   THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(beta * MAX(num_rel) + CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, 0),
        0);

CREATE OR REPLACE MACRO rankeval_F1(run_table, qrels_table, k := NULL, rel := 1, beta := 1)
AS TABLE
    SELECT j.query,
        rankeval_name('F1', CONCAT_WS(',',
            rankeval_param('beta', rankeval_number(beta), '1'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_F1_value(j._pos, j._rel, j._num_rel, k, rel, beta) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('F1', k)
        AND rankeval_check_number('F1', 'beta', beta, beta > 0, ' > 0')
        AND rankeval_check_number('F1', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
