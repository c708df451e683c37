-- NumQ: number of queries evaluated, twin of polars_rankeval/measures/numq.py (trec_eval
-- num_q): 1 per query (also for a query scored 0 with complete=True), summed over
-- queries.  No cutoff: k is ignored; rel does not change it.
CREATE OR REPLACE MACRO rankeval_NumQ_value() AS
    CAST(1 AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_NumQ(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumQ', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_NumQ_value() AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('NumQ', k)
        AND rankeval_check_number('NumQ', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
