-- SDCG (cwl-eval's NDCG-k), twin of polars_rankeval/measures/cwl.py: DCG of the top k
-- (k <= 1000, 1000 without a cutoff) divided by the DCG of k items of gain 1, sum over
-- i <= k of g_i / log2(i + 1) / sum over i <= k of 1 / log2(i + 1); g =
-- rankeval_cwl_gain (0 unjudged).  rel does not change it.
CREATE OR REPLACE MACRO rankeval_SDCG_value(pos, rel_value, k, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CASE WHEN pos <= LEAST(COALESCE(k, 1000), 1000)
                           THEN CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel) AS DOUBLE)
                                / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
                           ELSE 0 END), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('log', 0, 0, LEAST(COALESCE(k, 1000), 1000)), 0);

-- rankeval_SDCG_expected: the expected SDCG over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: each row's gain spread evenly over its tie
-- group's positions _tie_s + 1 .. _tie_s + _tie_n (those within k weigh).
CREATE OR REPLACE MACRO rankeval_SDCG_expected(rel_value, tie_n, tie_s, k, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel)
                           * rankeval_cwl_weights('log', 0, tie_s,
                                                  LEAST(tie_s + tie_n, COALESCE(k, 1000))) AS DOUBLE)
                      / NULLIF(tie_n, 0)), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('log', 0, 0, LEAST(COALESCE(k, 1000), 1000)), 0);

CREATE OR REPLACE MACRO rankeval_SDCG(
    run_table, qrels_table, k := NULL, rel := 1, max_rel := 1, min_rel := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('SDCG', CONCAT_WS(',', rankeval_param('max_rel', rankeval_number(max_rel), '1'),
            rankeval_param('min_rel', rankeval_number(min_rel), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_SDCG_value(j._pos, j._rel, k, min_rel, max_rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('SDCG', k)
        AND rankeval_check_number('SDCG', 'min_rel', min_rel, min_rel < max_rel,
            ' below max_rel')
        AND rankeval_check_number('SDCG', 'max_rel', max_rel, TRUE, '')
        AND rankeval_check_number('SDCG', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
