-- NumNonRelJudgedRet: judged non-relevant items retrieved (0 <= relevance < rel), twin of
-- polars_rankeval/measures/num_nonrel_judged_ret.py (trec_eval num_nonrel_judged_ret).
-- Aggregates as a sum.
CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet_value(rel_value, rel) AS
    CAST(SUM(CASE WHEN rel_value >= 0 AND rel_value < rel THEN 1 ELSE 0 END) AS DOUBLE);

-- With ties 'average' (over rows of rankeval_tied): the same, the order does not matter.
CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet_expected(rel_value, rel) AS
    rankeval_NumNonRelJudgedRet_value(rel_value, rel);

CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet(
    run_table, qrels_table, k := NULL, rel := 1
) AS TABLE
    SELECT j.query,
        rankeval_name('NumNonRelJudgedRet', rankeval_param('rel', rankeval_number(rel), '1'),
                      NULL) AS measure,
        rankeval_NumNonRelJudgedRet_value(j._rel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('NumNonRelJudgedRet', k)
        AND rankeval_check_number('NumNonRelJudgedRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
