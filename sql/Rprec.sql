-- Rprec: precision at position R (relevant in the top R / R), twin of
-- polars_rankeval/measures/rprec.py (trec_eval Rprec).  No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_Rprec_value(pos, rel_value, num_rel, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND pos <= num_rel THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

-- rankeval_Rprec_expected: the expected Rprec over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_Rprec_expected(pos, tie_n, tie_r, num_rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN pos <= num_rel THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Rprec(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Rprec', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_Rprec_value(j._pos, j._rel, j._num_rel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Rprec', k)
        AND rankeval_check_number('Rprec', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
