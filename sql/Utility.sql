-- Utility: set utility, twin of polars_rankeval/measures/utility.py (trec_eval utility,
-- m_utility.c).  With h = relevant retrieved, n = retrieved (in the top k), R = relevant:
-- a h + b (n - h) + c (R - h) + d (docs + h - n - R); trec_eval's defaults a, b, c, d =
-- 1, -1, 0, 0 and docs (its -N) = 0.  Retrieved items that are not relevant, unjudged
-- ones included, are n - h.
CREATE OR REPLACE MACRO rankeval_Utility_util(hits, n, num_rel, a, b, c, d, docs) AS
    a * hits + b * (n - hits) + c * (num_rel - hits) + d * (docs + hits - n - num_rel);

CREATE OR REPLACE MACRO rankeval_Utility_value(pos, rel_value, num_rel, k, rel, a, b, c, d, docs)
AS
    CAST(rankeval_Utility_util(
        SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END),
        SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END),
        MAX(num_rel), a, b, c, d, docs) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_Utility(
    run_table, qrels_table, k := NULL, rel := 1, a := 1, b := -1, c := 0, d := 0, docs := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('Utility', CONCAT_WS(',',
            rankeval_param('a', rankeval_number(a), '1'),
            rankeval_param('b', rankeval_number(b), '-1'),
            rankeval_param('c', rankeval_number(c), '0'),
            rankeval_param('d', rankeval_number(d), '0'),
            rankeval_param('docs', rankeval_number(docs), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_Utility_value(j._pos, j._rel, j._num_rel, k, rel, a, b, c, d, docs) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Utility', k)
        AND rankeval_check_number('Utility', 'a', a, TRUE, '')
        AND rankeval_check_number('Utility', 'b', b, TRUE, '')
        AND rankeval_check_number('Utility', 'c', c, TRUE, '')
        AND rankeval_check_number('Utility', 'd', d, TRUE, '')
        AND rankeval_check_number('Utility', 'docs', docs, docs >= 0, ' >= 0')
        AND rankeval_check_number('Utility', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
