-- SetAP: unranked set AP, twin of polars_rankeval/measures/setap.py (trec_eval set_map):
-- h^2 / (n R), h = relevant in the top k, n = retrieved in the top k, R = relevant;
-- 0 when n = 0 or R = 0.
CREATE OR REPLACE MACRO rankeval_SetAP_value(pos, rel_value, num_rel, k, rel) AS
    COALESCE(
        CAST(POWER(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                            THEN 1 ELSE 0 END), 2) AS DOUBLE)
        / NULLIF(SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END) * MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_SetAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('SetAP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_SetAP_value(j._pos, j._rel, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('SetAP', k)
        AND rankeval_check_number('SetAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
