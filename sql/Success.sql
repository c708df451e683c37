-- Success: 1 if a relevant item is in the top k, else 0 (hit rate), twin of
-- polars_rankeval/measures/success.py (trec_eval success_k).
CREATE OR REPLACE MACRO rankeval_Success_value(pos, rel_value, k, rel) AS
    CAST(MAX(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
         AS DOUBLE);

-- rankeval_Success_expected: the probability of a relevant item in the top k over every
-- ordering of tied rows (ties 'average'), over rows of rankeval_tied: 1 - P(none at
-- positions <= the last row within k); at the j-th position of a tie group of n rows,
-- r relevant, none above: P(none through j) = Q(j) (n - r - j + 1) / (n - j + 1).
CREATE OR REPLACE MACRO rankeval_Success_expected(pos, tie_n, tie_s, tie_r, tie_h, tie_q, k) AS
    CAST(1 AS DOUBLE)
    - COALESCE(
        MIN(CASE WHEN k IS NULL OR pos <= k
                 THEN CASE WHEN tie_h > 0 THEN CAST(0 AS DOUBLE)
                           ELSE CAST(tie_q * (tie_n - tie_r - (pos - tie_s) + 1) AS DOUBLE)
                                / NULLIF(tie_n - (pos - tie_s) + 1, 0) END
                 END),
        1);

CREATE OR REPLACE MACRO rankeval_Success(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Success', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Success_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Success', k)
        AND rankeval_check_number('Success', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
