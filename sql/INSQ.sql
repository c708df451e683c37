-- INSQ (Moffat et al. 2012), twin of polars_rankeval/measures/cwl.py (cwl-eval): the
-- expected gain per item, sum over positions i <= 1000 of g_i / (i + 2T - 1)^2 divided
-- by the same sum with every gain 1; g = rankeval_cwl_gain (0 unjudged and past the
-- run).  No cutoff; rel does not change it.
CREATE OR REPLACE MACRO rankeval_INSQ_value(pos, rel_value, T, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CASE WHEN pos <= 1000
                           THEN CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel) AS DOUBLE)
                                / NULLIF(POWER(pos - 1 + 2 * T, 2), 0)
                           ELSE 0 END), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('square', T, 0, 1000), 0);

-- rankeval_INSQ_expected: the expected INSQ over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: INSQ is linear in the gains, so each row's
-- gain is spread evenly over its tie group's positions _tie_s + 1 .. _tie_s + _tie_n.
CREATE OR REPLACE MACRO rankeval_INSQ_expected(rel_value, tie_n, tie_s, T, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel)
                           * rankeval_cwl_weights('square', T, tie_s, tie_s + tie_n) AS DOUBLE)
                      / NULLIF(tie_n, 0)), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('square', T, 0, 1000), 0);

CREATE OR REPLACE MACRO rankeval_INSQ(
    run_table, qrels_table, k := NULL, rel := 1, T := 1, max_rel := 1, min_rel := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('INSQ', CONCAT_WS(',', rankeval_param('T', rankeval_number(T), '1'),
            rankeval_param('max_rel', rankeval_number(max_rel), '1'),
            rankeval_param('min_rel', rankeval_number(min_rel), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_INSQ_value(j._pos, j._rel, T, min_rel, max_rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('INSQ', k)
        AND rankeval_check_number('INSQ', 'T', T, T > 0, ' above 0')
        AND rankeval_check_number('INSQ', 'min_rel', min_rel, min_rel < max_rel,
            ' below max_rel')
        AND rankeval_check_number('INSQ', 'max_rel', max_rel, TRUE, '')
        AND rankeval_check_number('INSQ', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
