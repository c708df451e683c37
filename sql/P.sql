-- P: precision at k, twin of polars_rankeval/measures/precision.py.
-- Relevant in the top k divided by k even when fewer were retrieved (norm 'k',
-- trec_eval P_k) or by the number retrieved within the cutoff (norm 'ret'); without a
-- cutoff, relevant retrieved / retrieved (trec_eval set_P).
CREATE OR REPLACE MACRO rankeval_P_value(pos, rel_value, k, rel, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(
            CASE WHEN k IS NULL THEN COUNT(pos)
                 WHEN norm = 'ret' THEN SUM(CASE WHEN pos <= k THEN 1 ELSE 0 END)
                 ELSE k END,
            0),
        0);

-- rankeval_P_expected: the expected P over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_P_expected(pos, tie_n, tie_r, k, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN k IS NULL THEN COUNT(pos)
                 WHEN norm = 'ret' THEN SUM(CASE WHEN pos <= k THEN 1 ELSE 0 END)
                 ELSE k END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_P(
    run_table, qrels_table, k := NULL, rel := 1, norm := 'k'
) AS TABLE
    SELECT j.query,
        rankeval_name('P', CONCAT_WS(',', rankeval_param('norm', norm, 'k'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_P_value(j._pos, j._rel, k, rel, norm) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('P', k)
        AND rankeval_check_choice('P', 'norm', norm,
            CAST(norm AS VARCHAR) IN ('k', 'ret'), 'k, ret')
        AND rankeval_check_number('P', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
