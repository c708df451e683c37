-- NumRel: number of relevant items R of the query, twin of
-- polars_rankeval/measures/counts.py (trec_eval num_rel).  Aggregates as a sum over
-- queries.  No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_NumRel_value(num_rel) AS
    CAST(MAX(num_rel) AS DOUBLE);

-- With ties 'average' (over rows of rankeval_tied): the same, the order does not matter.
CREATE OR REPLACE MACRO rankeval_NumRel_expected(num_rel) AS
    rankeval_NumRel_value(num_rel);

CREATE OR REPLACE MACRO rankeval_NumRel(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumRel', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_NumRel_value(j._num_rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('NumRel', k)
        AND rankeval_check_number('NumRel', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
