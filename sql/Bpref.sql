-- Bpref: binary preference, exactly trec_eval's m_bpref.c, twin of
-- polars_rankeval/measures/bpref.py.  (1/R) * sum over retrieved relevant r of
-- (1 - min(judged non-relevant above r, R) / min(N, R)); judged non-relevant = levels
-- 0 .. rel-1; unjudged items and negative judgments are skipped.  No cutoff: k is
-- ignored.
CREATE OR REPLACE MACRO rankeval_Bpref_value(pos, rel_value, nonrel, num_rel, num_nonrel, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel
                      THEN CASE WHEN nonrel > 0
                                THEN 1 - CAST(CASE WHEN nonrel < num_rel THEN nonrel
                                                   ELSE num_rel END AS DOUBLE)
                                         / NULLIF(CASE WHEN num_nonrel < num_rel THEN num_nonrel
                                                       ELSE num_rel END, 0)
                                ELSE 1 END
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Bpref(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Bpref', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_Bpref_value(j._pos, j._rel, j._nonrel, j._num_rel, j._num_nonrel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Bpref', k)
        AND rankeval_check_number('Bpref', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
