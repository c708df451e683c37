-- Unjudged: unjudged rows in the top k / k (trec_eval 10 unj_k; without a cutoff / the
-- rows retrieved), twin of polars_rankeval/measures/unjudged.py.  Unjudged = not in the
-- qrels, or a negative judgment.  rel does not change it.
CREATE OR REPLACE MACRO rankeval_Unjudged_value(pos, rel_value, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN (rel_value IS NULL OR rel_value < 0) AND (k IS NULL OR pos <= k)
                      THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, 0),
        0);

CREATE OR REPLACE MACRO rankeval_Unjudged(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Unjudged', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Unjudged_value(j._pos, j._rel, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Unjudged', k)
        AND rankeval_check_number('Unjudged', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
