-- IPrec: interpolated precision at a recall level, twin of
-- polars_rankeval/measures/iprec.py (trec_eval iprec_at_recall_0.00 ... 1.00).  The
-- best precision (relevant in top i / i) at a relevant row whose count of relevant
-- rows so far (hits) reaches c = FLOOR(recall * R + 0.5) (rounding 'v10', trec_eval
-- 10.0) or FLOOR(recall * R + 0.9) (rounding 'v9', trec_eval 9.x); 0 if fewer than c
-- are found.  No rank cutoff: k is ignored; the name prints the level after @.
CREATE OR REPLACE MACRO rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, recall, rounding)
AS
    COALESCE(
        MAX(CASE WHEN rel_value >= rel
                      AND hits >= FLOOR(recall * num_rel
                                        + CASE WHEN rounding = 'v9' THEN CAST(0.9 AS DOUBLE)
                                               ELSE CAST(0.5 AS DOUBLE) END)
                 THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) END),
        0);

CREATE OR REPLACE MACRO rankeval_IPrec(
    run_table, qrels_table, k := NULL, rel := 1, recall := 0, rounding := 'v10'
) AS TABLE
    SELECT j.query,
        rankeval_name('IPrec', CONCAT_WS(',', rankeval_param('rel', rankeval_number(rel), '1'),
            rankeval_param('rounding', rounding, 'v10')), NULL)
            || '@' || rankeval_number(recall) AS measure,
        rankeval_IPrec_value(j._pos, j._rel, j._hits, j._num_rel, rel, recall, rounding) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('IPrec', k)
        AND rankeval_check_number('IPrec', 'recall', recall, recall >= 0 AND recall <= 1, ' in [0, 1]')
        AND rankeval_check_choice('IPrec', 'rounding', rounding,
            CAST(rounding AS VARCHAR) IN ('v10', 'v9'), 'v10, v9')
        AND rankeval_check_number('IPrec', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
