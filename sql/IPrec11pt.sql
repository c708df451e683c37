-- IPrec11pt: 11-point interpolated average precision, twin of
-- polars_rankeval/measures/iprec11pt.py (trec_eval 11pt_avg): the mean of IPrec (see
-- IPrec.sql) at the recall levels 0.0, 0.1, ..., 1.0, with the same rounding.  No
-- cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_IPrec11pt_value(pos, rel_value, hits, num_rel, rel, rounding) AS
    CAST(
        rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.0 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.1 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.2 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.3 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.4 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.5 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.6 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.7 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.8 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.9 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(1.0 AS DOUBLE), rounding)
        AS DOUBLE) / NULLIF(11, 0);

CREATE OR REPLACE MACRO rankeval_IPrec11pt(
    run_table, qrels_table, k := NULL, rel := 1, rounding := 'v10'
) AS TABLE
    SELECT j.query,
        rankeval_name('IPrec11pt', CONCAT_WS(',', rankeval_param('rel', rankeval_number(rel), '1'),
            rankeval_param('rounding', rounding, 'v10')), NULL) AS measure,
        rankeval_IPrec11pt_value(j._pos, j._rel, j._hits, j._num_rel, rel, rounding) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('IPrec11pt', k)
        AND rankeval_check_choice('IPrec11pt', 'rounding', rounding,
            CAST(rounding AS VARCHAR) IN ('v10', 'v9'), 'v10, v9')
        AND rankeval_check_number('IPrec11pt', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
