-- ERR: expected reciprocal rank (Chapelle et al. 2009), twin of
-- polars_rankeval/measures/err.py, as gdeval (ir_measures' ERR): sum over the top k of
-- R / position * (the probability of reaching the row, rankeval_joined's _err_decay:
-- the product of 1 - R over the rows above), R = (2^grade - 1) / 2^4, grade = relevance
-- clipped to 0..4 (unjudged and negative judgments: 0).  rel does not change it.
CREATE OR REPLACE MACRO rankeval_ERR_value(pos, rel_value, err_decay, k) AS
    COALESCE(
        SUM(CASE WHEN k IS NULL OR pos <= k
                 THEN CAST((POWER(2.0, CASE WHEN rel_value > 4 THEN 4 WHEN rel_value > 0
                                            THEN rel_value ELSE 0 END) - 1) * 0.0625
                           * err_decay AS DOUBLE)
                      / NULLIF(pos, 0)
                 ELSE 0 END),
        0);

CREATE OR REPLACE MACRO rankeval_ERR(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('ERR', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_ERR_value(j._pos, j._rel, j._err_decay, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('ERR', k)
        AND rankeval_check_number('ERR', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
