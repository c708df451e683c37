-- Accuracy: pairwise accuracy (ir_measures Accuracy), twin of
-- polars_rankeval/measures/accuracy.py.  Among the rows of the top k: 1 - (sum over
-- relevant rows of the non-relevant rows above them) / (relevant rows x non-relevant
-- rows); unjudged rows are non-relevant; 0 without a relevant row, 1 without a
-- non-relevant one.  The i-th relevant row, at position pos, has pos - i (pos - hits)
-- non-relevant rows above it.
CREATE OR REPLACE MACRO rankeval_Accuracy_value(pos, rel_value, hits, k, rel) AS
    CASE WHEN COALESCE(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                THEN 1 ELSE 0 END), 0) = 0 THEN 0.0
         WHEN SUM(CASE WHEN (k IS NULL OR pos <= k) AND NOT COALESCE(rel_value >= rel, FALSE)
                       THEN 1 ELSE 0 END) = 0 THEN 1.0
         ELSE 1 - CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                THEN pos - hits ELSE 0 END) AS DOUBLE)
              / NULLIF(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                THEN 1 ELSE 0 END)
                       * SUM(CASE WHEN (k IS NULL OR pos <= k)
                                       AND NOT COALESCE(rel_value >= rel, FALSE)
                                  THEN 1 ELSE 0 END), 0)
    END;

CREATE OR REPLACE MACRO rankeval_Accuracy(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Accuracy', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Accuracy_value(j._pos, j._rel, j._hits, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Accuracy', k)
        AND rankeval_check_number('Accuracy', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
