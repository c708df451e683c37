-- A whole evaluation in one pass over the ranked, joined rows (trec_eval's default
-- measures and their @k cutoffs), per query and as trec_eval's "all" summary.
--
--   SELECT * FROM rankeval_evaluate('run.parquet', 'qrels.parquet', k := 10);
--   SELECT * FROM rankeval_summary('run.parquet', 'qrels.parquet', k := 10);
--
-- Measures: AP, AP@k, nDCG, nDCG@k, P@k, R@k, RR, Rprec, Bpref, Success@k, NumRet,
-- NumRel, NumRelRet (names as polars_rankeval prints them, e.g. P(rel=2)@10 with rel := 2).
-- Queries: those in both run and qrels (trec_eval).  The summary averages over them,
-- except the counts (NumRet, NumRel, NumRelRet), which are summed, as trec_eval does.

CREATE OR REPLACE MACRO rankeval_evaluate_rows(run_table, qrels_table, k := 10, rel := 1)
AS TABLE
    WITH per_query AS (
        SELECT j.query,
            rankeval_AP_value(j._pos, j._rel, j._hits, j._num_rel, NULL, rel, 'R') AS v1,
            rankeval_AP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel, 'R') AS v2,
            rankeval_nDCG_value(j._pos, j._rel, j._ideal_pos, s._idcg, NULL, rel, 'linear', 'qrels')
                AS v3,
            rankeval_nDCG_value(j._pos, j._rel, j._ideal_pos, s._idcg_k, k, rel, 'linear', 'qrels')
                AS v4,
            rankeval_P_value(j._pos, j._rel, k, rel, 'k') AS v5,
            rankeval_R_value(j._pos, j._rel, j._num_rel, k, rel, 'R') AS v6,
            rankeval_RR_value(j._pos, j._rel, NULL, rel) AS v7,
            rankeval_Rprec_value(j._pos, j._rel, j._num_rel, rel) AS v8,
            rankeval_Bpref_value(j._pos, j._rel, j._nonrel, j._num_rel, j._num_nonrel, rel) AS v9,
            rankeval_Success_value(j._pos, j._rel, k, rel) AS v10,
            rankeval_NumRet_value(j._pos, NULL) AS v11,
            rankeval_NumRel_value(j._num_rel) AS v12,
            rankeval_NumRelRet_value(j._pos, j._rel, NULL, rel) AS v13
        FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
        LEFT JOIN (
            SELECT i.query,
                CAST(rankeval_dcg(i._rel, i._ideal_pos, NULL, 'linear') AS DOUBLE) AS _idcg,
                CAST(rankeval_dcg(i._rel, i._ideal_pos, k, 'linear') AS DOUBLE) AS _idcg_k
            FROM rankeval_ideal(qrels_table) AS i
            GROUP BY i.query
        ) AS s ON j.query = s.query
        GROUP BY j.query
        HAVING MAX(j._num_rel) IS NOT NULL
    )
    SELECT w.query, m.ord, m.measure, m.aggregate,
        CASE m.ord WHEN 1 THEN w.v1 WHEN 2 THEN w.v2 WHEN 3 THEN w.v3 WHEN 4 THEN w.v4
            WHEN 5 THEN w.v5 WHEN 6 THEN w.v6 WHEN 7 THEN w.v7 WHEN 8 THEN w.v8
            WHEN 9 THEN w.v9 WHEN 10 THEN w.v10 WHEN 11 THEN w.v11 WHEN 12 THEN w.v12
            ELSE w.v13 END AS value
    FROM per_query AS w
    CROSS JOIN (
        SELECT n.ord, n.aggregate,
            rankeval_name(n.family, rankeval_param('rel', rankeval_number(rel), '1'),
                CASE WHEN n.cut = 1 THEN k END) AS measure
        FROM (VALUES (1, 'AP', 0, 'mean'), (2, 'AP', 1, 'mean'), (3, 'nDCG', 0, 'mean'),
            (4, 'nDCG', 1, 'mean'), (5, 'P', 1, 'mean'), (6, 'R', 1, 'mean'),
            (7, 'RR', 0, 'mean'), (8, 'Rprec', 0, 'mean'), (9, 'Bpref', 0, 'mean'),
            (10, 'Success', 1, 'mean'), (11, 'NumRet', 0, 'sum'), (12, 'NumRel', 0, 'sum'),
            (13, 'NumRelRet', 0, 'sum')) AS n(ord, family, cut, aggregate)
    ) AS m;

-- One row per query and measure: query, measure, value.
CREATE OR REPLACE MACRO rankeval_evaluate(run_table, qrels_table, k := 10, rel := 1) AS TABLE
    SELECT e.query, e.measure, e.value
    FROM rankeval_evaluate_rows(run_table, qrels_table, k := k, rel := rel) AS e
    ORDER BY e.query, e.ord;

-- trec_eval's "all" line: one row per measure, the mean over queries (sum for counts).
CREATE OR REPLACE MACRO rankeval_summary(run_table, qrels_table, k := 10, rel := 1) AS TABLE
    SELECT e.measure,
        CASE WHEN MAX(e.aggregate) = 'sum' THEN SUM(e.value) ELSE AVG(e.value) END AS value
    FROM rankeval_evaluate_rows(run_table, qrels_table, k := k, rel := rel) AS e
    GROUP BY e.ord, e.measure
    ORDER BY e.ord;
