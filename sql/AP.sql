-- AP: average precision (MAP is its mean), twin of polars_rankeval/measures/ap.py.
-- Sum over relevant items at position i <= k of (relevant in top i / i), divided by
-- norm 'R' = all relevant R (trec_eval map / map_cut_k), 'min' = min(R, k) (Kaggle apk,
-- Spark, RecBole) or 'hits' = relevant retrieved in the top k (torchmetrics).
-- rankeval_AP_value is an aggregate over the rows of one query of rankeval_joined.
CREATE OR REPLACE MACRO rankeval_AP_value(pos, rel_value, hits, num_rel, k, rel, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                      THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'hits'
                     THEN SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                   THEN 1 ELSE 0 END)
                 WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

-- rankeval_AP_expected: the expected AP over every ordering of tied rows (ties
-- 'average'), an aggregate over the rows of one query of rankeval_tied.  At the j-th
-- position p of a tie group of n rows, r of them relevant and h relevant rows above it:
-- E[rel(p) * hits(<= p)] = (h + 1) r / n + (j - 1) r (r - 1) / (n (n - 1)).  norm 'hits'
-- only without a cutoff (where it does not depend on the order).
CREATE OR REPLACE MACRO rankeval_AP_expected(
    pos, rel_value, tie_n, tie_s, tie_r, tie_h, num_rel, k, rel, norm
) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(CAST((tie_h + 1) * tie_r AS DOUBLE) / NULLIF(tie_n, 0)
                                + CASE WHEN tie_n > 1
                                       THEN CAST((pos - tie_s - 1) * tie_r * (tie_r - 1)
                                                 AS DOUBLE)
                                            / NULLIF(tie_n * (tie_n - 1), 0)
                                       ELSE 0 END
                                AS DOUBLE)
                           / NULLIF(pos, 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'hits' THEN SUM(CASE WHEN rel_value >= rel THEN 1 ELSE 0 END)
                 WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_AP(
    run_table, qrels_table, k := NULL, rel := 1, norm := 'R'
) AS TABLE
    SELECT j.query,
        rankeval_name('AP', CONCAT_WS(',', rankeval_param('norm', norm, 'R'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_AP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel, norm) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('AP', k)
        AND rankeval_check_choice('AP', 'norm', norm,
            CAST(norm AS VARCHAR) IN ('R', 'min', 'hits'), 'R, min, hits')
        AND rankeval_check_number('AP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
