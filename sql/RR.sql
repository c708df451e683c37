-- RR: reciprocal rank of the first relevant item within the top k (0 if none), twin of
-- polars_rankeval/measures/rr.py (MRR is its mean; trec_eval recip_rank has no cutoff).
CREATE OR REPLACE MACRO rankeval_RR_value(pos, rel_value, k, rel) AS
    COALESCE(
        CAST(1 AS DOUBLE)
        / NULLIF(MIN(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN pos END), 0),
        0);

-- rankeval_RR_expected: the expected RR over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: the sum over positions p <= k of
-- P(first relevant at p) / p, where for the j-th position of a tie group of n rows, r
-- relevant, none above: P = Q(j) r / (n - j + 1) = C(n-j, r-1) / C(n, r).
CREATE OR REPLACE MACRO rankeval_RR_expected(pos, tie_n, tie_s, tie_r, tie_h, tie_q, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN tie_h = 0 AND (k IS NULL OR pos <= k)
                      THEN CAST(tie_q * tie_r AS DOUBLE)
                           / NULLIF((tie_n - (pos - tie_s) + 1) * pos, 0)
                      ELSE 0 END) AS DOUBLE),
        0);

CREATE OR REPLACE MACRO rankeval_RR(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RR', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_RR_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('RR', k)
        AND rankeval_check_number('RR', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
