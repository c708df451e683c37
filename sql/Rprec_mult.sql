-- Rprec_mult: precision at position c = floor(mult * R + 0.9) (trec_eval's rounding),
-- twin of polars_rankeval/measures/rprec_mult.py (trec_eval Rprec_mult_0.20 ...
-- Rprec_mult_2.00): relevant in the top c / c, 0 when c = 0.  No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_Rprec_mult_value(pos, rel_value, num_rel, rel, mult) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel
                           AND pos <= FLOOR(mult * num_rel + CAST(0.9 AS DOUBLE))
                      THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(FLOOR(mult * MAX(num_rel) + CAST(0.9 AS DOUBLE)), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Rprec_mult(
    run_table, qrels_table, k := NULL, rel := 1, mult := 1
) AS TABLE
    SELECT j.query,
        rankeval_name('Rprec_mult', CONCAT_WS(',',
            rankeval_param('mult', rankeval_number(mult), '1'),
            rankeval_param('rel', rankeval_number(rel), '1')), NULL) AS measure,
        rankeval_Rprec_mult_value(j._pos, j._rel, j._num_rel, rel, mult) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Rprec_mult', k)
        AND rankeval_check_number('Rprec_mult', 'mult', mult, mult > 0, ' > 0')
        AND rankeval_check_number('Rprec_mult', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
