-- A whole evaluation with trec_eval's default measures and their @k cutoffs, per query:
--
--   SELECT * FROM rankeval_evaluate('run.parquet', 'qrels.parquet', k := 10);
--   SELECT * FROM rankeval_summary('run.parquet', 'qrels.parquet', k := 10);  -- "all"
--
-- Measures: AP, AP@k, nDCG, nDCG@k, P@k, R@k, RR, Rprec, Bpref, Success@k, NumRet,
-- NumRel, NumRelRet (names as polars_rankeval prints them, e.g. P(rel=2)@10 with rel := 2).
-- It is the SQL entry point (rankeval_per_query of sql/rankeval.sql, which
-- rankeval_summary summarises) with no measures named: load rankeval.sql too.

CREATE OR REPLACE MACRO rankeval_evaluate(run_table, qrels_table, k := 10, rel := 1) AS TABLE
    SELECT * FROM rankeval_per_query(run_table, qrels_table, k := k, rel := rel);
