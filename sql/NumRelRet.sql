-- NumRelRet: number of relevant items retrieved (within the top k), twin of
-- polars_rankeval/measures/counts.py (trec_eval num_rel_ret).  Aggregates as a sum.
CREATE OR REPLACE MACRO rankeval_NumRelRet_value(pos, rel_value, k, rel) AS
    CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END) AS DOUBLE);

-- rankeval_NumRelRet_expected: the expected count over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_NumRelRet_expected(pos, tie_n, tie_r, k) AS
    CAST(SUM(CASE WHEN k IS NULL OR pos <= k THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0)
                  ELSE 0 END) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_NumRelRet(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumRelRet', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_NumRelRet_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('NumRelRet', k)
        AND rankeval_check_number('NumRelRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
