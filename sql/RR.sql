-- RR: reciprocal rank of the first relevant item within the top k (0 if none), twin of
-- polars_rankeval/measures/rr.py (MRR is its mean; trec_eval recip_rank has no cutoff).
CREATE OR REPLACE MACRO rankeval_RR_value(pos, rel_value, k, rel) AS
    COALESCE(
        CAST(1 AS DOUBLE)
        / NULLIF(MIN(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN pos END), 0),
        0);

CREATE OR REPLACE MACRO rankeval_RR(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RR', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_RR_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
