-- NumRet: number of items retrieved (within the top k), twin of
-- polars_rankeval/measures/counts.py (trec_eval num_ret).  Aggregates as a sum over
-- queries; rel does not change it.
CREATE OR REPLACE MACRO rankeval_NumRet_value(pos, k) AS
    CAST(SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END) AS DOUBLE);

-- With ties 'average' (over rows of rankeval_tied): the same, the order does not matter.
CREATE OR REPLACE MACRO rankeval_NumRet_expected(pos, k) AS
    rankeval_NumRet_value(pos, k);

CREATE OR REPLACE MACRO rankeval_NumRet(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumRet', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_NumRet_value(j._pos, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('NumRet', k)
        AND rankeval_check_number('NumRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
