-- RBP: rank-biased precision, twin of polars_rankeval/measures/rbp.py (trec_eval 10 rbp).
-- (1 - p) * sum over the top k of gain * p^(position - 1); gain 'graded' = relevance /
-- max(1, the query's highest judged level max_rel) (trec_eval; unjudged and negative
-- judgments gain 0; rel is ignored), 'binary' = 1 when relevance >= rel.
CREATE OR REPLACE MACRO rankeval_RBP_value(pos, rel_value, max_rel, k, rel, p, gain) AS
    (1 - p) * COALESCE(
        SUM(CASE WHEN k IS NULL OR pos <= k
                 THEN CASE WHEN gain = 'binary'
                           THEN CASE WHEN rel_value >= rel THEN 1 ELSE 0 END
                           WHEN rel_value > 0
                           THEN CAST(rel_value AS DOUBLE)
                                / NULLIF(CASE WHEN max_rel > 1 THEN max_rel ELSE 1 END, 0)
                           ELSE 0 END
                      * POWER(p, pos - 1)
                 ELSE 0 END),
        0);

CREATE OR REPLACE MACRO rankeval_RBP(
    run_table, qrels_table, k := NULL, rel := 1, p := 0.9, gain := 'graded'
) AS TABLE
    SELECT j.query,
        rankeval_name('RBP', CONCAT_WS(',', rankeval_param('gain', gain, 'graded'),
            rankeval_param('p', rankeval_number(p), '0.9'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_RBP_value(j._pos, j._rel, s._max_rel, k, rel, p, gain) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN (
        SELECT q.query, MAX(CASE WHEN q.relevance >= 0 THEN q.relevance END) AS _max_rel
        FROM query_table(qrels_table) AS q
        GROUP BY q.query
    ) AS s ON j.query = s.query
    WHERE rankeval_check_k('RBP', k)
        AND rankeval_check_number('RBP', 'p', p, p > 0 AND p < 1, ' in (0, 1)')
        AND rankeval_check_choice('RBP', 'gain', gain,
            CAST(gain AS VARCHAR) IN ('graded', 'binary'), 'graded, binary')
        AND rankeval_check_number('RBP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
