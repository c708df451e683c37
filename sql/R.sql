-- R: recall at k, twin of polars_rankeval/measures/recall.py.
-- Relevant in the top k divided by R (norm 'R', trec_eval recall_k) or min(R, k)
-- (norm 'min'); 0 for a query without relevant items.
CREATE OR REPLACE MACRO rankeval_R_value(pos, rel_value, num_rel, k, rel, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

-- rankeval_R_expected: the expected R over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_R_expected(pos, tie_n, tie_r, num_rel, k, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_R(
    run_table, qrels_table, k := NULL, rel := 1, norm := 'R'
) AS TABLE
    SELECT j.query,
        rankeval_name('R', CONCAT_WS(',', rankeval_param('norm', norm, 'R'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_R_value(j._pos, j._rel, j._num_rel, k, rel, norm) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('R', k)
        AND rankeval_check_choice('R', 'norm', norm,
            CAST(norm AS VARCHAR) IN ('R', 'min'), 'R, min')
        AND rankeval_check_number('R', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
