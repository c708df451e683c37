-- polars_rankeval for SQL users: rank-based evaluation (MAP, nDCG@k, P@k, ...) on your
-- own tables, in one statement.  GENERATED FILE: edit sql/entry/*.sql, the family files
-- or the measure registry, then run `python -m polars_rankeval._sqlgen`.
--
-- Load it:   duckdb my.db < sql/rankeval.sql      (DuckDB CLI 1.5+)
--            .read sql/rankeval.sql                (inside the CLI)
--            polars_rankeval.duckdb.install(con)   (Python)
-- It creates macros named rankeval_* and the measure parser's tables rankeval_m_*.
--
--   SELECT * FROM rankeval_summary('runs', 'judgments', ['MAP', 'nDCG@10', 'P@5'],
--       by := ['system', 'day'], query := 'qid', item := 'doc_id', score := 'sim',
--       relevance := 'grade');
--
-- rankeval_per_query(run_table, qrels_table, measures VARCHAR[] := NULL, by := [],
--     query := 'query', item := 'item', score := 'score', rank := NULL,
--     relevance := 'relevance', rel := 1, complete := false, conventions := 'trec_eval',
--     ties := 'first', top := NULL, duplicates := 'error', k := NULL)
--   -> <by columns>, <query column>, measure, value      (one row per query and measure)
-- rankeval_summary(... the same arguments ...)
--   -> <by columns>, measure, value   (the mean over queries; the sum for NumRet, NumRel,
--                                       NumRelRet, NumNonRelJudgedRet, NumQ; the geometric
--                                       mean for GMAP and GMBpref)
--
-- run_table / qrels_table: a table or view name, a CTE name or a file ('run.parquet').
-- measures: names as polars_rankeval parses them, echoed as given in `measure`:
--   'MAP', 'nDCG@10', 'P(rel=2)@5', 'AP(norm=min)@10', 'RBP(p=0.8)', 'IPrec@0.1' and the
--   trec_eval names ('map', 'ndcg_cut_10', 'P_5', 'recall_100', 'recip_rank', ...).
--   Without measures: AP, AP@k, nDCG, nDCG@k, P@k, R@k, RR, Rprec, Bpref, Success@k,
--   NumRet, NumRel, NumRelRet, with k := 10 unless given (k only applies to these).
--   rankeval_evaluate(run_table, qrels_table, k := 10, rel := 1) is rankeval_per_query
--   with these.
-- by: run columns evaluated separately (systems, days, arms); the qrels serve every group.
-- query / item / score / rank / relevance: your column names (kept in the output).
-- rank: rank by this column (1 = top) instead of the score.
-- rel: relevance level of measures without their own rel= (trec_eval -l).
-- complete: also average over the qrels queries a group misses, scored 0 (trec_eval -c).
-- conventions: 'trec_eval', 'kaggle', 'spark' or 'torchmetrics' parameter defaults.
-- ties: 'first' (= 'trec_eval': tied scores ordered by item descending); 'average': the
--   expected value over every ordering of tied rows (AP, P, R, RelP, RR, nDCG, Success,
--   Rprec, the counts, INSQ, SDCG; not with top or duplicates := 'first').
-- top: keep the top `top` rows of each query (trec_eval -M).
-- duplicates: 'error' (a repeated (by..., query, item) run row raises) or 'first' (keep the
--   best-ranked one; the rows dropped keep their positions).
--
-- trec_eval's conventions: score descending compared in single precision (REAL), ties by
-- item descending in byte order; a run query without judgments is not evaluated.  Bad
-- input raises: unknown measures or parameters, duplicate (by..., query, item) run rows,
-- duplicate judgments, null ids, null/NaN/infinite scores or relevance, missing columns,
-- column types it cannot use (ids neither text nor integers, or text on one side and
-- integers on the other; scores, ranks or relevance that are not numbers).

-- Generated from polars_rankeval's measure registry (do not edit by hand).
-- Tables, not VALUES lists in table macros: a call binds a table in a fraction
-- of the time (a small call's CPU -32%, measured; benchmarks/RESULTS.md).
CREATE OR REPLACE TABLE rankeval_m_families AS
    SELECT * FROM (VALUES
        ('AP', 'mean', true, NULL),
        ('SetAP', 'mean', true, NULL),
        ('YAAP', 'mean', true, NULL),
        ('InterpAP', 'mean', true, NULL),
        ('P', 'mean', true, NULL),
        ('RelP', 'mean', true, NULL),
        ('R', 'mean', true, NULL),
        ('RR', 'mean', true, NULL),
        ('nDCG', 'mean', true, NULL),
        ('nDCG_rel', 'mean', true, NULL),
        ('RnDCG', 'mean', true, NULL),
        ('Success', 'mean', true, NULL),
        ('Rprec', 'mean', false, NULL),
        ('Bpref', 'mean', false, NULL),
        ('NumRet', 'sum', true, NULL),
        ('NumRel', 'sum', false, NULL),
        ('NumRelRet', 'sum', true, NULL),
        ('NumNonRelJudgedRet', 'sum', false, NULL),
        ('NumQ', 'sum', false, NULL),
        ('F1', 'mean', true, NULL),
        ('Rprec_mult', 'mean', false, NULL),
        ('GMAP', 'gmean', true, NULL),
        ('GMBpref', 'gmean', false, NULL),
        ('IPrec', 'mean', false, 'recall'),
        ('IPrec11pt', 'mean', false, NULL),
        ('infAP', 'mean', false, NULL),
        ('Judged', 'mean', true, NULL),
        ('Unjudged', 'mean', true, NULL),
        ('RBP', 'mean', true, NULL),
        ('RBP_resid', 'mean', false, NULL),
        ('ERR', 'mean', true, NULL),
        ('Utility', 'mean', true, NULL),
        ('binG', 'mean', true, NULL),
        ('G', 'mean', true, NULL),
        ('Compat', 'mean', false, NULL),
        ('Accuracy', 'mean', true, NULL),
        ('INST', 'mean', false, NULL),
        ('INSQ', 'mean', false, NULL),
        ('NERR8', 'mean', true, NULL),
        ('NERR9', 'mean', true, NULL),
        ('NERR10', 'mean', false, NULL),
        ('NERR11', 'mean', false, NULL),
        ('SDCG', 'mean', true, NULL),
        ('BPM', 'mean', true, NULL),
        ('alpha_DCG', 'mean', true, NULL),
        ('alpha_nDCG', 'mean', true, NULL),
        ('ERR_IA', 'mean', true, NULL),
        ('nERR_IA', 'mean', true, NULL),
        ('NRBP', 'mean', false, NULL),
        ('nNRBP', 'mean', false, NULL),
        ('AP_IA', 'mean', false, NULL),
        ('P_IA', 'mean', true, NULL),
        ('StRecall', 'mean', true, NULL)
    ) AS t(family, aggregate, cutoff, at_param);
CREATE OR REPLACE TABLE rankeval_m_names AS
    SELECT * FROM (VALUES
        ('AP', 'AP'),
        ('MAP', 'AP'),
        ('SetAP', 'SetAP'),
        ('YAAP', 'YAAP'),
        ('InterpAP', 'InterpAP'),
        ('P', 'P'),
        ('Precision', 'P'),
        ('SetP', 'P'),
        ('RelP', 'RelP'),
        ('RelativeP', 'RelP'),
        ('SetRelP', 'RelP'),
        ('R', 'R'),
        ('Recall', 'R'),
        ('SetR', 'R'),
        ('RR', 'RR'),
        ('MRR', 'RR'),
        ('nDCG', 'nDCG'),
        ('NDCG', 'nDCG'),
        ('nDCG_rel', 'nDCG_rel'),
        ('NDCG_rel', 'nDCG_rel'),
        ('RnDCG', 'RnDCG'),
        ('Rndcg', 'RnDCG'),
        ('Success', 'Success'),
        ('HitRate', 'Success'),
        ('Rprec', 'Rprec'),
        ('Bpref', 'Bpref'),
        ('NumRet', 'NumRet'),
        ('NumRel', 'NumRel'),
        ('NumRelRet', 'NumRelRet'),
        ('NumNonRelJudgedRet', 'NumNonRelJudgedRet'),
        ('NumQ', 'NumQ'),
        ('F1', 'F1'),
        ('F', 'F1'),
        ('SetF', 'F1'),
        ('Rprec_mult', 'Rprec_mult'),
        ('GMAP', 'GMAP'),
        ('GMBpref', 'GMBpref'),
        ('IPrec', 'IPrec'),
        ('iPrec', 'IPrec'),
        ('IPrec11pt', 'IPrec11pt'),
        ('infAP', 'infAP'),
        ('InfAP', 'infAP'),
        ('Judged', 'Judged'),
        ('Unjudged', 'Unjudged'),
        ('RBP', 'RBP'),
        ('RBP_resid', 'RBP_resid'),
        ('ERR', 'ERR'),
        ('Utility', 'Utility'),
        ('binG', 'binG'),
        ('BinG', 'binG'),
        ('G', 'G'),
        ('Compat', 'Compat'),
        ('Accuracy', 'Accuracy'),
        ('INST', 'INST'),
        ('INSQ', 'INSQ'),
        ('NERR8', 'NERR8'),
        ('NERR9', 'NERR9'),
        ('NERR10', 'NERR10'),
        ('NERR11', 'NERR11'),
        ('SDCG', 'SDCG'),
        ('BPM', 'BPM'),
        ('alpha_DCG', 'alpha_DCG'),
        ('alpha_nDCG', 'alpha_nDCG'),
        ('ERR_IA', 'ERR_IA'),
        ('nERR_IA', 'nERR_IA'),
        ('NRBP', 'NRBP'),
        ('nNRBP', 'nNRBP'),
        ('AP_IA', 'AP_IA'),
        ('MAP_IA', 'AP_IA'),
        ('P_IA', 'P_IA'),
        ('StRecall', 'StRecall')
    ) AS t(name, family);
CREATE OR REPLACE TABLE rankeval_m_params AS
    SELECT * FROM (VALUES
        ('AP', 'norm', 'R', ['R', 'min', 'hits']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('AP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('SetAP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('YAAP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('InterpAP', 'interp', 'all', ['all', 'voc11', 'coco101']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('InterpAP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('P', 'norm', 'k', ['k', 'ret']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('P', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RelP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('R', 'norm', 'R', ['R', 'min']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('R', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RR', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nDCG', 'gain', 'linear', ['linear', 'exp']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nDCG', 'ideal', 'qrels', ['qrels', 'run']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nDCG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nDCG_rel', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RnDCG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Success', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Rprec', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Bpref', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NumRet', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NumRel', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NumRelRet', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NumNonRelJudgedRet', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NumQ', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('F1', 'beta', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('F1', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Rprec_mult', 'mult', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('Rprec_mult', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('GMAP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('GMBpref', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('IPrec', 'recall', '0.0', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('IPrec', 'rounding', 'v10', ['v10', 'v9']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('IPrec', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('IPrec11pt', 'rounding', 'v10', ['v10', 'v9']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('IPrec11pt', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('infAP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Judged', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Unjudged', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RBP', 'p', '0.9', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, false),
        ('RBP', 'gain', 'graded', ['graded', 'binary']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RBP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('RBP_resid', 'p', '0.9', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, false),
        ('RBP_resid', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('ERR', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Utility', 'a', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Utility', 'b', '-1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Utility', 'c', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Utility', 'd', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Utility', 'docs', '0.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, true),
        ('Utility', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('binG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('G', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Compat', 'p', '0.95', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('Compat', 'normalize', 'true', ['true', 'false']::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Compat', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('Accuracy', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INST', 'T', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('INST', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INST', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INST', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INSQ', 'T', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('INSQ', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INSQ', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('INSQ', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR8', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR8', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR8', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR9', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR9', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR9', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR10', 'p', '0.9', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('NERR10', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR10', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR10', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR11', 'T', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('NERR11', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR11', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NERR11', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('SDCG', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('SDCG', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('SDCG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('BPM', 'T', '1.0', NULL::VARCHAR[], 0.0::DOUBLE, NULL::DOUBLE, false),
        ('BPM', 'min_rel', '0.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('BPM', 'max_rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('BPM', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('alpha_DCG', 'alpha', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('alpha_DCG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('alpha_nDCG', 'alpha', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('alpha_nDCG', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('ERR_IA', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nERR_IA', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('NRBP', 'alpha', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('NRBP', 'beta', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('NRBP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('nNRBP', 'alpha', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('nNRBP', 'beta', '0.5', NULL::VARCHAR[], 0.0::DOUBLE, 1.0::DOUBLE, true),
        ('nNRBP', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('AP_IA', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('P_IA', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false),
        ('StRecall', 'rel', '1.0', NULL::VARCHAR[], NULL::DOUBLE, NULL::DOUBLE, false)
    ) AS t(family, param, default_value, choices, minimum, maximum, closed);
CREATE OR REPLACE TABLE rankeval_m_trec AS
    SELECT * FROM (VALUES
        (1, 'num_q', 'NumQ'),
        (2, 'num_ret', 'NumRet'),
        (3, 'num_rel', 'NumRel'),
        (4, 'num_rel_ret', 'NumRelRet'),
        (5, 'map', 'AP'),
        (6, 'gm_map', 'GMAP'),
        (7, 'Rprec', 'Rprec'),
        (8, 'bpref', 'Bpref'),
        (9, 'recip_rank', 'RR'),
        (10, 'iprec_at_recall_(\d+\.\d+)', 'IPrec@{}'),
        (11, 'P_(\d+)', 'P@{}'),
        (12, 'recall_(\d+)', 'R@{}'),
        (13, 'infAP', 'infAP'),
        (14, 'gm_bpref', 'GMBpref'),
        (15, 'Rprec_mult_(\d+\.\d+)', 'Rprec_mult(mult={})'),
        (16, 'utility', 'Utility'),
        (17, '11pt_avg', 'IPrec11pt'),
        (18, 'binG', 'binG'),
        (19, 'G', 'G'),
        (20, 'ndcg', 'nDCG'),
        (21, 'ndcg_rel', 'nDCG_rel'),
        (22, 'Rndcg', 'RnDCG'),
        (23, 'ndcg_cut_(\d+)', 'nDCG@{}'),
        (24, 'map_cut_(\d+)', 'AP@{}'),
        (25, 'relative_P_(\d+)', 'RelP@{}'),
        (26, 'success_(\d+)', 'Success@{}'),
        (27, 'set_P', 'P'),
        (28, 'set_relative_P', 'RelP'),
        (29, 'set_recall', 'R'),
        (30, 'set_map', 'SetAP'),
        (31, 'set_F', 'F1'),
        (32, 'num_nonrel_judged_ret', 'NumNonRelJudgedRet'),
        (33, 'rbp', 'RBP'),
        (34, 'rbp_resid', 'RBP_resid'),
        (35, 'unj_(\d+)', 'Unjudged@{}'),
        (36, 'yaap', 'YAAP')
    ) AS t(ord, pattern, target);
CREATE OR REPLACE TABLE rankeval_m_presets AS
    SELECT * FROM (VALUES
        ('trec_eval', NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR),
        ('kaggle', NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR),
        ('spark', NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR),
        ('torchmetrics', NULL::VARCHAR, NULL::VARCHAR, NULL::VARCHAR),
        ('kaggle', 'AP', 'norm', 'min'),
        ('spark', 'AP', 'norm', 'min'),
        ('spark', 'nDCG', 'gain', 'exp'),
        ('torchmetrics', 'AP', 'norm', 'hits')
    ) AS t(conventions, family, param, value);
CREATE OR REPLACE MACRO rankeval_m_known() AS 'known measures: AP (MAP), SetAP, YAAP, InterpAP, P (Precision/SetP), RelP (RelativeP/SetRelP), R (Recall/SetR), RR (MRR), nDCG (NDCG), nDCG_rel (NDCG_rel), RnDCG (Rndcg), Success (HitRate), Rprec, Bpref, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet, NumQ, F1 (F/SetF), Rprec_mult, GMAP, GMBpref, IPrec (iPrec), IPrec11pt, infAP (InfAP), Judged, Unjudged, RBP, RBP_resid, ERR, Utility, binG (BinG), G, Compat, Accuracy, INST, INSQ, NERR8, NERR9, NERR10, NERR11, SDCG, BPM; trec_eval names: num_q, num_ret, num_rel, num_rel_ret, map, gm_map, Rprec, bpref, recip_rank, iprec_at_recall_x.xx, P_k, recall_k, infAP, gm_bpref, Rprec_mult_x.xx, utility, 11pt_avg, binG, G, ndcg, ndcg_rel, Rndcg, ndcg_cut_k, map_cut_k, relative_P_k, success_k, set_P, set_relative_P, set_recall, set_map, set_F, num_nonrel_judged_ret, rbp, rbp_resid, unj_k, yaap';

-- The measure parser: measure names as given -> one resolved spec per distinct name
-- (twin of polars_rankeval/_parse.py: trec_eval aliases, Name(param=value,...)@k,
-- family aliases, presets, parameter checks).  Every problem raises via error().
--   _idx, _name       position of the name's first occurrence, the name as given
--   _family, _agg     family and its summary over queries (mean, sum, gmean)
--   _k, _level        the @k cutoff (NULL: none), the relevance level (rel)
--   _p_<param>        every other parameter, resolved (NULL where the family has none)
CREATE OR REPLACE MACRO rankeval_measure_specs(measures, conventions := 'trec_eval', rel := 1)
AS TABLE
WITH given AS (
    SELECT MIN(t.i) AS _idx, measures[t.i] AS _name
    FROM range(1, CASE WHEN len(measures) > 0 THEN len(measures) + 1
                       ELSE error('no measure given') END) AS t(i)
    GROUP BY measures[t.i]
),
translated AS (
    SELECT g._idx, g._name,
        COALESCE(arg_min(replace(a.target, '{}',
                     regexp_extract(trim(g._name), '^(?:' || a.pattern || ')$', 1)), a.ord),
                 trim(g._name)) AS _src
    FROM given AS g
    LEFT JOIN rankeval_m_trec AS a ON regexp_full_match(trim(g._name), a.pattern)
    GROUP BY g._idx, g._name
),
parsed AS (
    SELECT t._idx, t._name, t._src,
        regexp_full_match(t._src,
            '([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*(@\s*(.*))?') AS _ok,
        regexp_extract(t._src,
            '^([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*(@\s*(.*))?$', 1) AS _word,
        regexp_extract(t._src,
            '^([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*(@\s*(.*))?$', 2) <> '' AS _call,
        trim(regexp_extract(t._src,
            '^([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*(@\s*(.*))?$', 3)) AS _args,
        NULLIF(trim(regexp_extract(t._src,
            '^([A-Za-z_][A-Za-z0-9_]*)\s*(\((.*)\))?\s*(@\s*(.*))?$', 5)), '') AS _at
    FROM translated AS t
),
named AS (
    SELECT w.* REPLACE (
        -- object detection's AP(interp=voc11) is InterpAP (as _parse.py reads it)
        CASE WHEN w._family = 'AP' AND regexp_matches(w._args, '(^|,)\s*interp\s*=')
             THEN 'InterpAP' ELSE w._family END AS _family)
    FROM (
        SELECT p.*,
            COALESCE(
                (SELECT MIN(x.family) FROM rankeval_m_names AS x WHERE x.name = p._word),
                (SELECT MIN(x.family) FROM rankeval_m_names AS x
                 WHERE lower(x.name) = lower(p._word))) AS _family
        FROM parsed AS p
    ) AS w
),
fam AS (
    SELECT n.*, f.aggregate AS _agg, f.cutoff AS _cutoff, f.at_param AS _at_param,
        '''' || n._name || '''' AS _quoted,
        CASE WHEN n._name IS NULL THEN 'a measure name must be a string, got NULL'
             WHEN NOT n._ok THEN 'cannot parse measure ''' || n._name || ''': expected Name,'
                 || ' Name@k or Name(param=value,...)@k; ' || rankeval_m_known()
             WHEN n._family IS NULL THEN 'unknown measure ''' || n._name || '''; '
                 || rankeval_m_known()
             WHEN n._at IS NOT NULL AND f.at_param IS NOT NULL
                  AND NOT regexp_full_match(n._at, '-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?')
                 THEN 'measure ''' || n._name || ''': the ' || f.at_param
                     || ' after @ must be a number'
             WHEN n._at IS NOT NULL AND f.at_param IS NULL
                  AND regexp_full_match(n._at, '-\s*[0-9]+')
                 THEN 'measure ''' || n._name || ''': the cutoff must be a positive integer, got '
                     || replace(n._at, ' ', '')
             WHEN n._at IS NOT NULL AND f.at_param IS NULL
                  AND NOT regexp_full_match(n._at, '[0-9]+')
                 THEN 'measure ''' || n._name || ''': the cutoff after @ must be a positive integer'
             WHEN n._at IS NOT NULL AND f.at_param IS NULL
                  AND TRY_CAST(n._at AS HUGEINT) <= 0
                 THEN 'measure ''' || n._name || ''': the cutoff must be a positive integer, got '
                     || CAST(TRY_CAST(n._at AS HUGEINT) AS VARCHAR)
             WHEN n._at IS NOT NULL AND f.at_param IS NULL
                  AND (length(n._at) > 12 OR TRY_CAST(n._at AS HUGEINT) > 2147483647)
                 THEN 'measure ''' || n._name || ''': the cutoff must be at most 2147483647'
             WHEN n._at IS NOT NULL AND f.at_param IS NULL AND NOT f.cutoff
                 THEN 'measure ''' || n._name || ''': ' || n._family || ' takes no @k cutoff'
        END AS _error
    FROM named AS n
    LEFT JOIN rankeval_m_families AS f ON f.family = n._family
),
-- the parameters written in the name (and the at_param given after @)
written AS (
    SELECT w._idx, trim(w._arg) AS _arg,
        regexp_extract(trim(w._arg), '^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$', 1) AS _param,
        trim(regexp_extract(trim(w._arg), '^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$', 2)) AS _raw
    FROM (
        SELECT f._idx, unnest(string_split(f._args, ',')) AS _arg
        FROM fam AS f WHERE f._error IS NULL AND f._args <> ''
    ) AS w
    UNION ALL
    SELECT f._idx, f._at, f._at_param, f._at
    FROM fam AS f WHERE f._error IS NULL AND f._at IS NOT NULL AND f._at_param IS NOT NULL
),
written_values AS (
    SELECT w.*,
        CASE WHEN regexp_full_match(w._raw, '''[^'']*''|"[^"]*"')
                 THEN substr(w._raw, 2, length(w._raw) - 2)
             ELSE w._raw END AS _value,
        regexp_full_match(w._raw, '-?\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?')
            AS _is_number,
        CASE WHEN w._param = '' THEN 'parameters must be named, as in P(rel=2)@5'
             WHEN w._raw IN ('True', 'False') THEN 'parameter values cannot be booleans'
             WHEN NOT regexp_full_match(w._raw,
                 '-?\s*([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*|''[^'']*''|"[^"]*"')
                  OR w._raw = 'None'
                 THEN 'parameter values must be words or numbers'
             WHEN COUNT(*) OVER (PARTITION BY w._idx, w._param) > 1
                 THEN 'repeated or unnamed parameter'
        END AS _problem
    FROM written AS w
),
-- every parameter of each family: written, else the preset, else rel / the default
resolved AS (
    SELECT f._idx, f._name, f._family, p.param, p.choices, p.minimum, p.maximum, p.closed,
        w._value IS NOT NULL AS _written,
        CASE WHEN w._value IS NOT NULL THEN replace(w._value, ' ', '')
             WHEN ps.value IS NOT NULL THEN ps.value
             WHEN p.param = 'rel' THEN CAST(TRY_CAST(rel AS DOUBLE) AS VARCHAR)  -- TRY: a text rel raises in _args's check, not here first
             ELSE p.default_value END AS _value,
        CASE WHEN w._value IS NULL THEN p.choices IS NULL ELSE w._is_number END AS _is_number
    FROM fam AS f
    JOIN rankeval_m_params AS p ON p.family = f._family
    LEFT JOIN written_values AS w ON w._idx = f._idx AND w._param = p.param
    LEFT JOIN rankeval_m_presets AS ps
        ON ps.conventions = conventions AND ps.family = f._family AND ps.param = p.param
    WHERE f._error IS NULL
),
param_errors AS (
    SELECT w._idx, MIN(CASE
        WHEN w._problem IS NOT NULL THEN w._problem
        WHEN NOT EXISTS (SELECT 1 FROM rankeval_m_params AS p
                         WHERE p.family = f._family AND p.param = w._param)
            THEN f._family || ' has no parameter ''' || w._param || '''; its parameters: '
                || (SELECT string_agg(p.param, ', ' ORDER BY p.param)
                    FROM rankeval_m_params AS p WHERE p.family = f._family)
        WHEN f._at_param = w._param AND w._arg <> f._at AND f._at IS NOT NULL
            THEN f._at_param || ' given twice' END) AS _problem
    FROM written_values AS w JOIN fam AS f ON f._idx = w._idx
    GROUP BY w._idx
    UNION ALL
    SELECT r._idx, MIN(CASE
        WHEN r.choices IS NOT NULL AND NOT list_contains(r.choices, r._value)
            THEN r.param || '=' || CASE WHEN r._is_number THEN r._value
                                        ELSE '''' || r._value || '''' END
                || ' is not allowed; choose one of ' || array_to_string(r.choices, ', ')
        WHEN r.choices IS NULL AND NOT r._is_number
            THEN r.param || ' must be a finite number, got ''' || r._value || ''''
        WHEN r.choices IS NULL AND r.closed AND CAST(r._value AS DOUBLE) < r.minimum
            THEN r.param || ' must be >= ' || CAST(r.minimum AS VARCHAR) || ', got ' || r._value
        WHEN r.choices IS NULL AND r.closed AND CAST(r._value AS DOUBLE) > r.maximum
            THEN r.param || ' must be <= ' || CAST(r.maximum AS VARCHAR) || ', got ' || r._value
        WHEN r.choices IS NULL AND NOT r.closed AND CAST(r._value AS DOUBLE) <= r.minimum
            THEN r.param || ' must be > ' || CAST(r.minimum AS VARCHAR) || ', got ' || r._value
        WHEN r.choices IS NULL AND NOT r.closed AND CAST(r._value AS DOUBLE) >= r.maximum
            THEN r.param || ' must be < ' || CAST(r.maximum AS VARCHAR) || ', got ' || r._value
        END)
    FROM resolved AS r
    GROUP BY r._idx
),
checked AS (
    SELECT f.*,
        COALESCE(f._error,
            CASE WHEN conventions IS NULL OR conventions NOT IN (
                     SELECT DISTINCT c.conventions FROM rankeval_m_presets AS c)
                 THEN 'unknown conventions ''' || COALESCE(conventions, 'NULL')
                     || '''; choose one of ' || (SELECT string_agg(DISTINCT c.conventions, ', ')
                                               FROM rankeval_m_presets AS c) END,
            (SELECT 'measure ''' || f._name || ''': ' || MIN(e._problem)
             FROM param_errors AS e WHERE e._idx = f._idx)) AS _problem
    FROM fam AS f
),
raised AS (
    SELECT c._idx, c._name, c._agg,
        CASE WHEN c._problem IS NOT NULL THEN error(c._problem) ELSE c._family END AS _family,
        CASE WHEN c._at_param IS NULL THEN TRY_CAST(c._at AS INTEGER) END AS _k
    FROM checked AS c
)
SELECT r._idx, r._name, r._family, r._agg, r._k, s._p_rel AS _level, s.* EXCLUDE (_idx)
FROM raised AS r
LEFT JOIN (
    SELECT v._idx,
        TRY_CAST(MAX(CASE WHEN v.param = 'T' THEN v.value END) AS DOUBLE) AS _p_T,
            TRY_CAST(MAX(CASE WHEN v.param = 'a' THEN v.value END) AS DOUBLE) AS _p_a,
            TRY_CAST(MAX(CASE WHEN v.param = 'alpha' THEN v.value END) AS DOUBLE) AS _p_alpha,
            TRY_CAST(MAX(CASE WHEN v.param = 'b' THEN v.value END) AS DOUBLE) AS _p_b,
            TRY_CAST(MAX(CASE WHEN v.param = 'beta' THEN v.value END) AS DOUBLE) AS _p_beta,
            TRY_CAST(MAX(CASE WHEN v.param = 'c' THEN v.value END) AS DOUBLE) AS _p_c,
            TRY_CAST(MAX(CASE WHEN v.param = 'd' THEN v.value END) AS DOUBLE) AS _p_d,
            TRY_CAST(MAX(CASE WHEN v.param = 'docs' THEN v.value END) AS DOUBLE) AS _p_docs,
            MAX(CASE WHEN v.param = 'gain' THEN v.value END) AS _p_gain,
            MAX(CASE WHEN v.param = 'ideal' THEN v.value END) AS _p_ideal,
            MAX(CASE WHEN v.param = 'interp' THEN v.value END) AS _p_interp,
            TRY_CAST(MAX(CASE WHEN v.param = 'max_rel' THEN v.value END) AS DOUBLE) AS _p_max_rel,
            TRY_CAST(MAX(CASE WHEN v.param = 'min_rel' THEN v.value END) AS DOUBLE) AS _p_min_rel,
            TRY_CAST(MAX(CASE WHEN v.param = 'mult' THEN v.value END) AS DOUBLE) AS _p_mult,
            MAX(CASE WHEN v.param = 'norm' THEN v.value END) AS _p_norm,
            MAX(CASE WHEN v.param = 'normalize' THEN v.value END) AS _p_normalize,
            TRY_CAST(MAX(CASE WHEN v.param = 'p' THEN v.value END) AS DOUBLE) AS _p_p,
            TRY_CAST(MAX(CASE WHEN v.param = 'recall' THEN v.value END) AS DOUBLE) AS _p_recall,
            TRY_CAST(MAX(CASE WHEN v.param = 'rel' THEN v.value END) AS DOUBLE) AS _p_rel,
            MAX(CASE WHEN v.param = 'rounding' THEN v.value END) AS _p_rounding
    FROM (SELECT x._idx, x.param, x._value AS value FROM resolved AS x) AS v
    GROUP BY v._idx
) AS s ON s._idx = r._idx;

-- true only when every measure name of a call matches the pattern `plain`: the
-- rankeval_may_ask_* macros below are constant for a call (its names are literals), so
-- DuckDB folds them while planning and rankeval_rows' CTEs of the families no name can
-- be of become empty results (polars_rankeval/_sqlprune.py)
CREATE OR REPLACE MACRO rankeval_plain_only(measures, plain) AS COALESCE(
    list_bool_and(list_transform(TRY_CAST(measures AS VARCHAR[]),
                                 lambda __rk_m: regexp_full_match(__rk_m, plain))),
    false);
-- false only when no measure name of a call holds the text `word` (a NULL list: true)
CREATE OR REPLACE MACRO rankeval_may_mention(measures, word) AS COALESCE(
    list_bool_or(list_transform(TRY_CAST(measures AS VARCHAR[]),
                                lambda __rk_m: contains(__rk_m, word))),
    true);

CREATE OR REPLACE MACRO rankeval_may_ask_gain(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|ndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_idcg(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg_rel|Rndcg|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_irun(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg_rel|Rndcg|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap')
    AND rankeval_may_mention(measures, 'ideal');
CREATE OR REPLACE MACRO rankeval_may_ask_cwl(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_windowed(measures) AS
    (NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap')
        OR rankeval_may_mention(measures, 'interp'));
CREATE OR REPLACE MACRO rankeval_may_ask_interp(measures) AS
    (NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap')
        OR rankeval_may_mention(measures, 'interp'));
CREATE OR REPLACE MACRO rankeval_may_ask_compat(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM|alpha_DCG|alpha_nDCG|ERR_IA|nERR_IA|NRBP|nNRBP|AP_IA|MAP_IA|P_IA|StRecall)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_diversity(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Compat|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_every_row(measures) AS
    NOT rankeval_plain_only(measures, '(?:AP|MAP|SetAP|YAAP|InterpAP|P|Precision|SetP|RelP|RelativeP|SetRelP|R|Recall|SetR|RR|MRR|nDCG|NDCG|nDCG_rel|NDCG_rel|RnDCG|Success|HitRate|Bpref|NumRet|NumRel|NumRelRet|NumNonRelJudgedRet|NumQ|F1|F|SetF|Rprec_mult|GMAP|GMBpref|IPrec11pt|InfAP|Judged|Unjudged|RBP|RBP_resid|ERR|Utility|BinG|Accuracy|INST|INSQ|NERR8|NERR9|NERR10|NERR11|SDCG|BPM)(?:\([^()]*\))?(?:@[0-9]+)?|(?:IPrec|iPrec)(?:\([^()]*\))?(?:@[0-9]+(?:\.[0-9]+)?)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|bpref|recip_rank|iprec_at_recall_(\d+\.\d+)|P_(\d+)|recall_(\d+)|infAP|gm_bpref|Rprec_mult_(\d+\.\d+)|utility|11pt_avg|binG|G|ndcg|ndcg_rel|Rndcg|ndcg_cut_(\d+)|map_cut_(\d+)|relative_P_(\d+)|success_(\d+)|set_P|set_relative_P|set_recall|set_map|set_F|num_nonrel_judged_ret|rbp|rbp_resid|unj_(\d+)|yaap');
CREATE OR REPLACE MACRO rankeval_may_ask_rare(measures) AS
    (NOT rankeval_plain_only(measures, '(?:AP|MAP|YAAP|P|Precision|SetP|R|Recall|SetR|RR|MRR|nDCG|NDCG|Success|HitRate|NumRet|NumRel|NumRelRet|NumQ|F1|F|SetF|GMAP)(?:\([^()]*\))?(?:@[0-9]+)?|num_q|num_ret|num_rel|num_rel_ret|map|gm_map|Rprec|recip_rank|P_(\d+)|recall_(\d+)|ndcg|ndcg_cut_(\d+)|map_cut_(\d+)|success_(\d+)|set_P|set_recall|set_F|yaap')
        OR rankeval_may_mention(measures, 'interp'));

-- The public macros over the one-pass evaluation (its CTEs are generated from the
-- canonical SQL of polars_rankeval/_sqlentry.py, shared with the dbt package).
-- A column type (typeof's name) as the entry point's checks see it: 'integer' or 'text'
-- ids (the two never join), 'number' (scores, relevance), 'absent' (no such column or
-- row: other checks name it) or 'other' (refused).
CREATE OR REPLACE MACRO rankeval_type_kind(t) AS CASE
    WHEN t IS NULL OR t = '"NULL"' THEN 'absent'
    WHEN regexp_full_match(t, 'U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)') THEN 'integer'
    WHEN t = 'VARCHAR' OR t LIKE 'ENUM(%' THEN 'text'
    -- a composite key (engine='duckdb' keys a run without qrels by (by..., query) this way)
    WHEN t LIKE 'STRUCT(%' THEN 'composite'
    WHEN t IN ('FLOAT', 'DOUBLE', 'BOOLEAN') OR t LIKE 'DECIMAL(%' THEN 'number'
    ELSE 'other' END;

-- complete := and top := checked where the statement reads them (a check in _args alone
-- never ran when a filter on complete folded to false while planning; DuckDB 1.4.0 folded
-- `WHERE complete` with complete := 'x', and cast top := 'x' where it was read, into
-- conversion errors that named no argument)
CREATE OR REPLACE MACRO rankeval_complete(complete) AS CASE
    WHEN TRY_CAST(complete AS BOOLEAN) IS NULL
        THEN error('complete must be true or false, got ' || COALESCE(CAST(complete AS VARCHAR), 'NULL'))
    ELSE TRY_CAST(complete AS BOOLEAN) END;
CREATE OR REPLACE MACRO rankeval_top(top) AS CASE
    WHEN top IS NULL THEN NULL
    WHEN TRY_CAST(top AS DOUBLE) IS NULL OR TRY_CAST(top AS DOUBLE) <= 0
            OR TRY_CAST(top AS DOUBLE) <> FLOOR(TRY_CAST(top AS DOUBLE))
        THEN error('top=' || CAST(top AS VARCHAR) || ': give a positive number of rows per query')
    ELSE TRY_CAST(top AS BIGINT) END;

-- rankeval_rows: every value with the internal columns; the macros below shape it.
-- given_measures: the measure names as the caller wrote them (NULL: not known), which
-- decide what is planned (polars_rankeval/_sqlprune.py): the caller's literal, not
-- the measures expression, which DuckDB would bind again at every guard.
CREATE OR REPLACE MACRO rankeval_rows(
    run_table, qrels_table, measures, "by" := []::VARCHAR[], query := 'query',
    item := 'item', score := 'score', rank := NULL, relevance := 'relevance', rel := 1,
    complete := false, conventions := 'trec_eval', ties := 'first', top := NULL,
    duplicates := 'error', subtopic := NULL, intent_weight := NULL, given_measures := NULL
) AS TABLE
WITH RECURSIVE
_args AS (
    SELECT CASE
        WHEN ties IS NULL OR ties NOT IN ('first', 'trec_eval', 'average')
            THEN error('ties=''' || COALESCE(ties, 'NULL')
                       || ''': choose ''first'' (= ''trec_eval'') or ''average''')
        WHEN ties = 'average' AND (top IS NOT NULL OR duplicates = 'first')
            THEN error('ties=''average'' cannot be combined with '
                       || CASE WHEN top IS NOT NULL THEN 'top=' ELSE 'duplicates=''first''' END
                       || ': which rows are kept would depend on the order of tied rows; filter'
                       || ' or de-duplicate the run first')
        WHEN duplicates IS NULL OR duplicates NOT IN ('error', 'first')
            THEN error('duplicates=''' || COALESCE(duplicates, 'NULL')
                       || ''': choose ''error'' or ''first''')
        WHEN rel IS NULL OR NOT isfinite(TRY_CAST(rel AS DOUBLE)) OR TRY_CAST(rel AS DOUBLE) IS NULL
            THEN error('rel must be a finite number, got ' || COALESCE(CAST(rel AS VARCHAR), 'NULL'))
        WHEN list_contains("by", query)
            THEN error('by=' || CAST("by" AS VARCHAR) || ' must not repeat columns or contain the query column')
        WHEN query = item OR query = COALESCE(rank, score) OR item = COALESCE(rank, score)
            THEN error('the run''s columns must differ: query=''' || query || ''', item=''' || item
                       || ''', ' || CASE WHEN rank IS NULL THEN 'score=''' || score
                                         ELSE 'rank=''' || rank END
                       || ''' name the same column twice')
        WHEN len("by") <> len(list_distinct("by"))
            THEN error('by=' || CAST("by" AS VARCHAR) || ' must not repeat columns or contain the query column')
        ELSE 0 END AS _ok
),
-- one row of each table: its columns, the row (for messages) and the key columns' types
-- ('"NULL"' for a missing column; typeof is folded from the types: no pass over the data)
_runcols AS (
    SELECT json_keys(r._row) AS _cols, r.*
    FROM (
        SELECT to_json(struct_pack(*COLUMNS(lambda c: c <> '__rk_none'))) AS _row,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = query))) AS _qt,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = item))) AS _it,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = COALESCE(rank, score)))) AS _vt
        FROM (SELECT NULL AS __rk_none, * FROM query_table(run_table) LIMIT 1)
    ) AS r
),
_qrelscols AS (
    SELECT json_keys(r._row) AS _cols, r.*
    FROM (
        SELECT to_json(struct_pack(*COLUMNS(lambda c: c <> '__rk_none'))) AS _row,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = query))) AS _qt,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = item))) AS _it,
            typeof(COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = relevance))) AS _vt
        FROM (SELECT NULL AS __rk_none, * FROM query_table(qrels_table) LIMIT 1)
    ) AS r
),
-- the column types evaluate() checks: ids string or integer and of one kind on both
-- sides (else DuckDB's cast in the joins fails naming an internal column), scores, ranks
-- and relevance numeric (text is checked value by value below)
_types AS (
    SELECT CASE
        WHEN rankeval_type_kind(r._qt) IN ('number', 'other')
            THEN error('run column ''' || query || ''' must hold string or integer ids, got '
                       || r._qt || '; example row: ' || r._row)
        WHEN rankeval_type_kind(r._it) IN ('number', 'other')
            THEN error('run column ''' || item || ''' must hold string or integer ids, got '
                       || r._it || '; example row: ' || r._row)
        WHEN rankeval_type_kind(r._vt) = 'other'
            THEN error('run column ''' || COALESCE(rank, score) || ''' must be numeric, got '
                       || r._vt || '; example row: ' || r._row)
        WHEN rankeval_type_kind(j._qt) IN ('number', 'other')
            THEN error('qrels column ''' || query || ''' must hold string or integer ids, got '
                       || j._qt || '; example row: ' || j._row)
        WHEN rankeval_type_kind(j._it) IN ('number', 'other')
            THEN error('qrels column ''' || item || ''' must hold string or integer ids, got '
                       || j._it || '; example row: ' || j._row)
        WHEN rankeval_type_kind(j._vt) = 'other'
            THEN error('qrels column ''' || relevance || ''' must be numeric or boolean, got '
                       || j._vt || '; example row: ' || j._row)
        WHEN rankeval_type_kind(r._qt) <> rankeval_type_kind(j._qt)
             AND 'absent' NOT IN (rankeval_type_kind(r._qt), rankeval_type_kind(j._qt))
            THEN error('run column ''' || query || ''' is ' || r._qt || ' but qrels column '''
                       || query || ''' is ' || j._qt || ': ids of different types never match'
                       || ' (cast one side, e.g. CAST(' || query || ' AS VARCHAR)); example run row: '
                       || r._row || '; example qrels row: ' || j._row)
        WHEN rankeval_type_kind(r._it) <> rankeval_type_kind(j._it)
             AND 'absent' NOT IN (rankeval_type_kind(r._it), rankeval_type_kind(j._it))
            THEN error('run column ''' || item || ''' is ' || r._it || ' but qrels column '''
                       || item || ''' is ' || j._it || ': ids of different types never match'
                       || ' (cast one side, e.g. CAST(' || item || ' AS VARCHAR)); example run row: '
                       || r._row || '; example qrels row: ' || j._row)
        ELSE 0 END AS _ok
    FROM (SELECT 1) AS o LEFT JOIN _runcols AS r ON true LEFT JOIN _qrelscols AS j ON true
),
_runcheck AS (
    SELECT c._cols, a._ok + t._ok + CASE
        WHEN len(list_filter("by", lambda b: NOT list_contains(c._cols, b))) > 0
            THEN error('run has no column ''' || list_filter("by", lambda b: NOT list_contains(c._cols, b))[1]
                       || ''' (columns: ' || CAST(c._cols AS VARCHAR) || '); check by := [...]')
        WHEN rank IS NULL AND NOT list_contains(c._cols, score)
            THEN error('run needs a score column (''' || score || ''') or a rank column; columns: '
                       || CAST(c._cols AS VARCHAR) || '; pass score := ... or rank := ...')
        -- as _run's row checks say it, but before any row: the run's join to the qrels
        -- (_rq) reads only after this check, where DuckDB 1.4 cast the qrels ids to an
        -- absent column's type first (a conversion error naming an internal column)
        WHEN NOT list_contains(c._cols, query)
            THEN error('run has no column ''' || query || ''' (columns: '
                       || CAST(c._cols AS VARCHAR) || '); pass the right name, e.g.'
                       || ' query := ''my_query_column''')
        WHEN NOT list_contains(c._cols, item)
            THEN error('run has no column ''' || item || ''' (columns: '
                       || CAST(c._cols AS VARCHAR) || '); pass the right name, e.g.'
                       || ' item := ''my_item_column''')
        ELSE 0 END AS _ok
    FROM _runcols AS c CROSS JOIN _args AS a CROSS JOIN _types AS t
),
-- the run as read, with each row's key (null where _run's check raises): not stored, read
-- once by _run and again by the reads after _rq's aggregate (_run_again), which each
-- scan the file again where a stored copy of every row (~550 MB at 10M rows: page
-- faults and copies) cost more (benchmarks/RESULTS.md, sqlfast28)
_run_raw AS NOT MATERIALIZED (
    SELECT i._g, i._q0, i._item0, i._o0,
        CASE WHEN rank IS NULL THEN
                 CASE WHEN isfinite(TRY_CAST(i._o0 AS DOUBLE)) THEN  -- single precision as in trec_eval's C float:
                      -- beyond its range +-inf (C's rounding), not DuckDB's cast error
                      CAST(CAST(CASE WHEN abs(TRY_CAST(i._o0 AS DOUBLE)) < 3.4028235677973366e38
                                     THEN TRY_CAST(i._o0 AS DOUBLE)
                                     ELSE sign(TRY_CAST(i._o0 AS DOUBLE)) * CAST('inf' AS DOUBLE) END
                                AS REAL) AS DOUBLE) END
             WHEN TRY_CAST(i._o0 AS DOUBLE) > 0
                  AND TRY_CAST(i._o0 AS DOUBLE) = FLOOR(TRY_CAST(i._o0 AS DOUBLE))
                 THEN -TRY_CAST(i._o0 AS DOUBLE) END AS _key0
    FROM (
        SELECT struct_pack(*COLUMNS(lambda c: c = '__rk_g' OR list_contains("by", c))) AS _g,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = query)) AS _q0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = item)) AS _item0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = COALESCE(rank, score))) AS _o0
        FROM (SELECT 0 AS __rk_g, NULL AS __rk_none, * FROM query_table(run_table)) AS r
    ) AS i
),
_run AS (
    SELECT o._g, o._q, o._item,
        CASE WHEN o._key0 IS NOT NULL THEN o._key0
             WHEN rank IS NULL AND o._o IS NOT NULL AND TRY_CAST(o._o AS DOUBLE) IS NULL  -- text such as 'high'
                 THEN error('run column ''' || score || ''': score must be numeric, got '''
                            || CAST(o._o AS VARCHAR) || '''; example row: ' || query || '='
                            || CAST(o._q AS VARCHAR) || ', ' || item || '='
                            || CAST(o._item AS VARCHAR))
             WHEN rank IS NULL
                 THEN error('run column ''' || score || ''': score is null, NaN or infinite;'
                            || ' example query: ' || CAST(o._q AS VARCHAR))
             ELSE error('run column ''' || rank || ''': rank must be a positive integer (1 = top);'
                        || ' example query: ' || CAST(o._q AS VARCHAR)) END AS _key
    FROM (
        -- a null id or score raises; CASE, not COALESCE(x, error(...)), which copies every
        -- value of the column (0.3 CPU s at 10M rows as a single statement; 2-5% of a call:
        -- benchmarks/RESULTS.md, sqlfast27)
        SELECT i._g,
            CASE WHEN i._q0 IS NULL THEN
                error(CASE WHEN list_contains(k._cols, query)
                           THEN 'run column ''' || query || ''': query id is null'
                           ELSE 'run has no column ''' || query || ''' (columns: '
                                || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                                || ' query := ''my_query_column''' END)
                ELSE i._q0 END AS _q,
            CASE WHEN i._item0 IS NULL THEN
                error(CASE WHEN list_contains(k._cols, item)
                           THEN 'run column ''' || item || ''': item id is null'
                           ELSE 'run has no column ''' || item || ''' (columns: '
                                || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                                || ' item := ''my_item_column''' END)
                ELSE i._item0 END AS _item,
            CASE WHEN i._o0 IS NULL THEN
                error(CASE WHEN list_contains(k._cols, COALESCE(rank, score))
                           THEN 'run column ''' || COALESCE(rank, score) || ''': '
                                || CASE WHEN rank IS NULL THEN 'score is null, NaN or infinite'
                                        ELSE 'rank must be a positive integer (1 = top)' END
                           ELSE 'run has no column ''' || COALESCE(rank, score) || ''' (columns: '
                                || CAST(k._cols AS VARCHAR) || ')' END)
                ELSE i._o0 END AS _o,
            i._key0
        FROM _run_raw AS i
        CROSS JOIN _runcheck AS k
        WHERE k._ok = 0
    ) AS o
),
-- the run read again (_sqlentry: the tied rows, exact repeats, the window's
-- ranking): unchecked, as _run raised before any of them runs (each waits for _rq's
-- aggregate); where no row is asked for, the join skips the scan
_run_again AS NOT MATERIALIZED (
    SELECT r._g, r._q0 AS _q, r._item0 AS _item, r._key0 AS _key
    FROM _run_raw AS r
    CROSS JOIN _runcheck AS k
    WHERE k._ok = 0
),
_qrels_src AS (
    -- CASE, not COALESCE(x, error(...)): as in _run
    SELECT q.* EXCLUDE (__rk_qv0, __rk_iv0, __rk_rv0),
        CASE WHEN q.__rk_qv0 IS NULL THEN
            error(CASE WHEN list_contains(k._cols, query)
                       THEN 'qrels column ''' || query || ''': query id is null'
                       ELSE 'qrels has no column ''' || query || ''' (columns: '
                            || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                            || ' query := ''my_query_column''' END)
            ELSE q.__rk_qv0 END AS __rk_qv,
        CASE WHEN q.__rk_iv0 IS NULL THEN
            error(CASE WHEN list_contains(k._cols, item)
                       THEN 'qrels column ''' || item || ''': item id is null'
                       ELSE 'qrels has no column ''' || item || ''' (columns: '
                            || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                            || ' item := ''my_item_column''' END)
            ELSE q.__rk_iv0 END AS __rk_iv,
        CASE WHEN q.__rk_rv0 IS NULL THEN
            error(CASE WHEN list_contains(k._cols, relevance)
                       THEN 'qrels column ''' || relevance || ''': relevance is null, NaN or infinite'
                       ELSE 'qrels has no column ''' || relevance || ''' (columns: '
                            || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                            || ' relevance := ''my_relevance_column''' END)
            ELSE q.__rk_rv0 END AS __rk_rv
    FROM (
        SELECT *,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = query)) AS __rk_qv0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = item)) AS __rk_iv0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = relevance)) AS __rk_rv0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = COALESCE(subtopic, '__rk_none')))
                AS __rk_sv0,
            COALESCE(*COLUMNS(lambda c: c = '__rk_none' OR c = COALESCE(intent_weight, '__rk_none')))
                AS __rk_wv0
        FROM (SELECT NULL AS __rk_q, NULL AS __rk_none, * FROM query_table(qrels_table)) AS q0
    ) AS q
    CROSS JOIN (SELECT j._cols, t._ok FROM _qrelscols AS j CROSS JOIN _types AS t) AS k
    WHERE k._ok = 0
),
_qrels_all AS (
    SELECT q.__rk_qv AS _q, q.__rk_iv AS _item,
        CASE WHEN isfinite(TRY_CAST(q.__rk_rv AS DOUBLE)) THEN CAST(q.__rk_rv AS DOUBLE)
             WHEN TRY_CAST(q.__rk_rv AS DOUBLE) IS NULL  -- text such as 'yes' (null ids raised above)
                 THEN error('qrels column ''' || relevance || ''': relevance must be numeric, got '''
                            || CAST(q.__rk_rv AS VARCHAR) || '''; example row: ' || query || '='
                            || CAST(q.__rk_qv AS VARCHAR) || ', ' || item || '='
                            || CAST(q.__rk_iv AS VARCHAR))
             ELSE error('qrels column ''' || relevance || ''': relevance is null, NaN or infinite;'
                        || ' example query: ' || CAST(q.__rk_qv AS VARCHAR)) END AS _rel,
        q.__rk_sv0 AS _sub, q.__rk_wv0 AS _w0
    FROM _qrels_src AS q
),
-- with subtopic := (subtopic qrels): an item's relevance to the topic is its highest
-- over the subtopics (ndeval's MAP); the diversity measures read _subq
_qrels AS (
    SELECT q._q, q._item, q._rel FROM _qrels_all AS q WHERE subtopic IS NULL
    UNION ALL
    SELECT q._q, q._item, MAX(q._rel) FROM _qrels_all AS q WHERE subtopic IS NOT NULL
    GROUP BY q._q, q._item
),
_subq AS (
    SELECT x._q, CAST(x._sub AS VARCHAR) AS _sub, x._item, x._rel, CASE
        WHEN NOT list_contains(k._cols, subtopic)
            THEN error('qrels has no column ''' || subtopic || ''' (columns: '
                       || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                       || ' subtopic := ''my_subtopic_column''')
        WHEN intent_weight IS NOT NULL AND NOT list_contains(k._cols, intent_weight)
            THEN error('qrels has no column ''' || intent_weight || ''' (columns: '
                       || CAST(k._cols AS VARCHAR) || '); pass the right name, e.g.'
                       || ' intent_weight := ''my_weight_column''')
        WHEN x._sub IS NULL
            THEN error('qrels column ''' || subtopic || ''': subtopic is null; example query: '
                       || CAST(x._q AS VARCHAR))
        WHEN x._n > 1
            THEN error('qrels: duplicate (query, subtopic, item) judgments; example query: '
                       || CAST(x._q AS VARCHAR))
        WHEN x._w IS NULL OR NOT isfinite(x._w) OR x._w < 0
            THEN error('qrels column ''' || intent_weight || ''' (intent_weight) must be a'
                       || ' finite weight >= 0; example query: ' || CAST(x._q AS VARCHAR))
        WHEN x._wmin <> x._wmax
            THEN error('qrels column ''' || intent_weight || ''' (intent_weight) differs within'
                       || ' a (query, subtopic); example query: ' || CAST(x._q AS VARCHAR))
        ELSE x._w END AS _w
    FROM (
        SELECT q.*, COUNT(*) OVER (PARTITION BY q._q, q._sub, q._item) AS _n,
            MIN(q._w) OVER (PARTITION BY q._q, q._sub) AS _wmin,
            MAX(q._w) OVER (PARTITION BY q._q, q._sub) AS _wmax
        FROM (
            SELECT a.* EXCLUDE (_w0),
                CASE WHEN intent_weight IS NULL THEN 1.0 ELSE CAST(a._w0 AS DOUBLE) END AS _w
            FROM _qrels_all AS a WHERE subtopic IS NOT NULL
        ) AS q
    ) AS x
    CROSS JOIN _qrelscols AS k
),
-- one row per judged query (grouped by _q alone, so the LEFT JOIN below is on a unique
-- key): a summary, which reads no _qs, drops the join and this pass over the qrels
_qnames AS (
    SELECT q.__rk_qv AS _q,
        ANY_VALUE(struct_pack(*COLUMNS(lambda c: c = query OR c = '__rk_q'))) AS _qs
    FROM _qrels_src AS q
    GROUP BY q.__rk_qv
),
-- ties='average': only the families with an expected value over tied orderings
_specs AS (
    SELECT s.* REPLACE (CASE
        WHEN s._family IN ('alpha_DCG', 'alpha_nDCG', 'ERR_IA', 'nERR_IA', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA', 'StRecall') AND subtopic IS NULL
            THEN error('measure ''' || s._name || ''' is a diversity measure: it needs subtopic'
                       || ' qrels (query, subtopic, item, relevance); pass subtopic := '
                       || '''subtopic'' (the qrels column naming the subtopic)')
        WHEN s._family IN ('alpha_DCG', 'ERR_IA') AND s._k IS NULL
            THEN error('measure ''' || s._name || ''' needs a cutoff, e.g. ' || s._family
                       || '@20 (ndeval''s 5, 10, 20)')
        WHEN ties <> 'average' THEN s._family
        WHEN s._family NOT IN ('AP', 'P', 'RelP', 'R', 'RR', 'nDCG', 'Success', 'Rprec', 'NumRet', 'NumRel', 'NumRelRet', 'NumNonRelJudgedRet', 'INSQ', 'SDCG')
            THEN error('measure ''' || s._name || ''' does not support ties=''average'''
                       || ' (measures that do: ' || 'AP, P, RelP, R, RR, nDCG, Success, Rprec, NumRet, NumRel, NumRelRet, NumNonRelJudgedRet, INSQ, SDCG' || '); use ties := ''first''')
        WHEN s._family = 'AP' AND s._p_norm = 'hits' AND s._k IS NOT NULL
            THEN error('measure ''' || s._name || ''': with ties=''average'' the norm=hits'
                       || ' denominator (relevant items in the top k) depends on the order of'
                       || ' a tie group across position k; use norm=R or norm=min, no cutoff,'
                       || ' or ties := ''first''')
        ELSE s._family END AS _family)
    FROM rankeval_measure_specs(measures, conventions := conventions, rel := rel) AS s
),
    _levels AS (SELECT DISTINCT _level FROM _specs),
    _qq AS (
        SELECT h._q, h._maxrel, h._nj,
            len(list_filter(range(1, h._nj), lambda __rk_i: h._hashes[__rk_i] = h._hashes[__rk_i + 1]))
                AS _hdup
        FROM (
            SELECT q._q, MAX(CASE WHEN q._rel >= 0 THEN q._rel END) AS _maxrel, COUNT(*) AS _nj,
                list_sort(list(hash(q._item))) AS _hashes
            FROM _qrels AS q
            GROUP BY q._q
        ) AS h
    ),
    _qfp AS (SELECT COALESCE(SUM(x._hdup), 0) AS _h FROM _qq AS x),
    _qdup AS (
        SELECT q._q, COUNT(*) - COUNT(DISTINCT q._item) AS _dup,
            MAX(CASE WHEN q._rel >= 0 THEN q._rel END) AS _maxrel
        FROM _qrels AS q
        CROSS JOIN (SELECT 1 AS _one FROM _qfp AS f WHERE f._h > 0) AS f
        GROUP BY q._q
    ),
    _rq AS (
        SELECT h._g, h._q, h._n, h._keys, h._kmin, h._jitems, h._jkeys, h._jrels,
            len(list_filter(range(1, h._n), lambda __rk_i: h._hashes[__rk_i] = h._hashes[__rk_i + 1]))
                AS _hdup
        FROM (
            SELECT r._g, r._q, COUNT(*) AS _n,
                CASE WHEN (duplicates = 'first') THEN NULL
                     ELSE list_sort(list(CAST(r._key AS REAL)), 'DESC') END AS _keys,
                CASE WHEN rank IS NULL THEN NULL ELSE MIN(r._key) END AS _kmin,
                list_sort(list(CAST(hash(r._item) >> 32 AS UINTEGER))) AS _hashes,
                list(r._item) FILTER (WHERE q._rel IS NOT NULL) AS _jitems, list(r._key) FILTER (WHERE q._rel IS NOT NULL) AS _jkeys,
                list(q._rel) FILTER (WHERE q._rel IS NOT NULL) AS _jrels
            FROM _run AS r
            LEFT JOIN (SELECT q._q, q._item, q._rel FROM _qrels AS q
                       CROSS JOIN _runcheck AS k WHERE k._ok = 0 AND (SELECT COALESCE(SUM(y._nj * y._nj), 0) <= 32 * COALESCE(SUM(y._nj), 0) FROM _qq AS y)) AS q
                ON NOT (duplicates = 'first') AND r._q = q._q AND r._item = q._item
            GROUP BY r._g, r._q
        ) AS h
    ),
    _rdup AS (
        SELECT r._g, r._q, COUNT(*) AS _n, COUNT(*) - COUNT(DISTINCT r._item) AS _dup
        FROM _run_again AS r
        JOIN (SELECT f._g, f._q FROM _rq AS f WHERE f._hdup > 0) AS f
            ON f._g IS NOT DISTINCT FROM r._g AND f._q = r._q
        GROUP BY r._g, r._q
    ),
    _lists AS (
        SELECT NOT (duplicates = 'first')
            AND (NOT rankeval_may_ask_every_row(given_measures)
                 OR NOT EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN ('Compat', 'alpha_DCG', 'alpha_nDCG', 'ERR_IA', 'nERR_IA', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA', 'StRecall')))
            AND COALESCE((SELECT SUM(LEAST(y._nj, x._n) * x._n) FROM _rq AS x
                          JOIN _qq AS y ON y._q = x._q), 0)
                <= 32 * COALESCE((SELECT SUM(x._n) FROM _rq AS x), 0)
            AND COALESCE((SELECT MIN(x._kmin) FROM _rq AS x), 0) >= -16777216
            AND (SELECT COALESCE(SUM(y._nj * y._nj), 0) <= 32 * COALESCE(SUM(y._nj), 0) FROM _qq AS y) AS _on
    ),
    _jkeys AS (
        SELECT j._g, j._q, j._item, j._key, j._rel, j._first - 1 AS _above,
            COALESCE(j._keys[j._first + 1] = CAST(j._key AS REAL), false) AS _tied
        FROM (
            SELECT j._g, j._q, j._item, j._key, j._rel, j._keys,
                list_position(j._keys, CAST(j._key AS REAL)) AS _first
            FROM (
                SELECT k._g, k._q, unnest(k._jitems) AS _item, unnest(k._jkeys) AS _key,
                    unnest(k._jrels) AS _rel, k._keys
                FROM _rq AS k
                CROSS JOIN _lists AS lf WHERE lf._on
            ) AS j
        ) AS j
    ),
    _jties AS (
        SELECT j._g, j._q, j._item, COUNT(*) AS _above
        FROM (
            SELECT u._t._g, u._t._q AS _q, u._t._item AS _item, u._t._key AS _key
            FROM (SELECT unnest(list(struct_pack(_g := t._g, _q := t._q, _item := t._item,
                                                 _key := t._key))) AS _t
                  FROM _jkeys AS t WHERE t._tied) AS u
        ) AS j
        JOIN (
            SELECT r._g, r._q, r._item, r._key
            FROM _run_again AS r
            JOIN (SELECT unnest(list(DISTINCT t._q)) AS _q FROM _jkeys AS t WHERE t._tied) AS tq
                ON r._q = tq._q
        ) AS r ON r._g IS NOT DISTINCT FROM j._g AND r._q = j._q AND r._key = j._key
            AND CAST(r._item AS VARCHAR) > CAST(j._item AS VARCHAR)
        GROUP BY j._g, j._q, j._item
    ),
    _ranked AS (
        SELECT r._g, r._q, r._item,
            ROW_NUMBER() OVER (PARTITION BY r._q ORDER BY r._key DESC, CAST(r._item AS VARCHAR) DESC) AS _pos
        FROM _run_again AS r
        CROSS JOIN _lists AS lf WHERE NOT lf._on AND len("by") = 0
        UNION ALL
        SELECT r._g, r._q, r._item,
            ROW_NUMBER() OVER (PARTITION BY r._g, r._q ORDER BY r._key DESC, CAST(r._item AS VARCHAR) DESC) AS _pos
        FROM _run_again AS r
        CROSS JOIN _lists AS lf WHERE NOT lf._on AND NOT (len("by") = 0)
    ),
    -- the judged retrieved rows: all that is read of the ranked run
    _rows AS (
        SELECT r._g, r._q, r._item, r._pos, q._rel
        FROM _ranked AS r
        JOIN _qrels AS q ON r._q = q._q AND r._item = q._item
        UNION ALL
        SELECT j._g, j._q, j._item, 1 + j._above + COALESCE(t._above, 0) AS _pos, j._rel
        FROM _jkeys AS j
        LEFT JOIN _jties AS t ON t._g IS NOT DISTINCT FROM j._g AND t._q = j._q AND t._item = j._item
    ),
    _check AS (
        SELECT COALESCE((SELECT SUM(x._n) FROM _rq AS x), 0) AS _run_rows,
            COALESCE((SELECT SUM(x._dup) FROM _rdup AS x), 0) AS _run_dup,
            (SELECT MIN(x._q) FROM _rdup AS x WHERE x._dup > 0) AS _run_dup_q,
            COALESCE((SELECT SUM(x._dup) FROM _qdup AS x), 0) AS _qrels_dup,
            (SELECT MIN(x._q) FROM _qdup AS x WHERE x._dup > 0) AS _qrels_dup_q,
            (SELECT COUNT(*) FROM _rq AS x JOIN _qq AS y ON x._q = y._q) AS _shared
    ),

    _dropped AS (SELECT * FROM (
        SELECT x._g, x._q, x._pos,
            -- 1: below the last kept row (all rows under it dropped too)
            CASE WHEN COUNT(*) OVER (
                PARTITION BY x._g, x._q ORDER BY x._pos DESC
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) = x._nall - x._pos + 1 THEN 1 ELSE 0 END AS _tail
        FROM (
            SELECT r._g, r._q, r._pos, r._nall,
                ROW_NUMBER() OVER (PARTITION BY r._g, r._q, r._item ORDER BY r._pos) AS _nth
            FROM (
                SELECT r0._g, r0._q, r0._item,
                    CASE WHEN rankeval_top(top) IS NULL THEN y._n ELSE LEAST(y._n, rankeval_top(top)) END AS _nall,
                    ROW_NUMBER() OVER (
                        PARTITION BY r0._g, r0._q
                        ORDER BY r0._key DESC, CAST(r0._item AS VARCHAR) DESC
                    ) AS _pos
                FROM _run AS r0
                JOIN _rdup AS y ON y._g IS NOT DISTINCT FROM r0._g AND y._q = r0._q
                WHERE (duplicates = 'first') AND y._dup > 0
            ) AS r
            WHERE rankeval_top(top) IS NULL OR r._pos <= rankeval_top(top)
        ) AS x
        WHERE x._nth > 1
    ) AS __rk_guarded WHERE (duplicates = 'first')),

    _ideal AS (
        SELECT q._q, q._rel,
            ROW_NUMBER() OVER (PARTITION BY q._q ORDER BY q._rel DESC) AS _ipos
        FROM _qrels AS q
        WHERE q._rel > 0
    ),
    _gideal AS (SELECT * FROM (
        SELECT e.*,
            SUM(CASE WHEN e._ipos = e._level_end THEN 1.0 / e._idcg_at ELSE 0 END) OVER (
                PARTITION BY e._q ORDER BY e._ipos DESC
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) AS _lends
        FROM (
            SELECT i._q, i._rel, i._ipos,
                MAX(i._ipos) OVER (PARTITION BY i._q, i._rel) AS _level_end,
                SUM(CASE WHEN i._rel >= 1 THEN i._rel ELSE 1 END) OVER (
                    PARTITION BY i._q ORDER BY i._ipos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
                ) AS _icost,
                SUM(CAST(i._rel AS DOUBLE) / (LN(CAST(i._ipos AS DOUBLE) + 1) / LN(2.0))) OVER (
                    PARTITION BY i._q ORDER BY i._ipos
                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
                ) AS _idcg_at
            FROM _ideal AS i
            -- only for the families that read it
            WHERE EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN ('G', 'nDCG_rel', 'RnDCG'))
        ) AS e
    ) AS __rk_guarded WHERE rankeval_may_ask_gain(given_measures)),
    _gq AS (
        SELECT e._q, CAST(COUNT(*) AS DOUBLE) AS _num_pos, SUM(e._rel ORDER BY e._ipos) AS _ideal_gain,
            MAX(e._icost) AS _ideal_cost, MAX(e._idcg_at) AS _idcg_lin,
            CAST(COUNT(DISTINCT e._rel) AS DOUBLE) AS _gain_levels
        FROM _gideal AS e
        GROUP BY e._q
    ),
    _qstat AS (
        SELECT c.*, gq._num_pos, gq._ideal_gain, gq._ideal_cost, gq._idcg_lin, gq._gain_levels,
            x._maxrel
        FROM (
            SELECT q._q, l._level,
                CAST(SUM(CASE WHEN q._rel >= l._level THEN 1 ELSE 0 END) AS DOUBLE) AS _R,
                CAST(SUM(CASE WHEN q._rel >= 0 AND q._rel < l._level THEN 1 ELSE 0 END)
                     AS DOUBLE) AS _N
            FROM _qrels AS q CROSS JOIN _levels AS l
            GROUP BY q._q, l._level
        ) AS c
        JOIN _qq AS x ON x._q = c._q
        LEFT JOIN _gq AS gq ON gq._q = c._q
    ),
    _idcg AS (
        SELECT s._idx, i._q,
            SUM(CAST(CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, i._rel) - 1 ELSE i._rel END AS DOUBLE) / (LN(CAST(i._ipos AS DOUBLE) + 1) / LN(2.0)) ORDER BY i._ipos) AS _idcg
        FROM _ideal AS i
        JOIN _specs AS s ON s._family = 'nDCG' AND (s._k IS NULL OR i._ipos <= s._k)
        GROUP BY s._idx, i._q
    ),

    -- the judged retrieved rows, once per relevance level, with every running sum in one
    -- window (one sort); the per-query stats are joined after it
    _judged AS (
        SELECT r._g, r._q, r._pos, r._rel, l._level,
            ROW_NUMBER() OVER (PARTITION BY l._level, r._g, r._q ORDER BY r._pos) AS _jrank,
            SUM(CASE WHEN r._rel >= l._level THEN 1 ELSE 0 END) OVER (PARTITION BY l._level, r._g, r._q ORDER BY r._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _hits,
            SUM(CASE WHEN r._rel >= 0 AND r._rel < l._level THEN 1 ELSE 0 END) OVER (
                PARTITION BY l._level, r._g, r._q ORDER BY r._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _nonrel,
            SUM(CASE WHEN r._rel > 0 THEN r._rel ELSE 0 END) OVER (PARTITION BY l._level, r._g, r._q ORDER BY r._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _cg,
            SUM(CASE WHEN r._rel > 0 THEN r._rel / (LN(CAST(r._pos AS DOUBLE) + 1) / LN(2.0)) ELSE 0 END) OVER (PARTITION BY l._level, r._g, r._q ORDER BY r._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _rdcg,
            EXP(COALESCE(SUM(LN(1 - (POWER(2.0, CASE WHEN r._rel > 4 THEN 4 WHEN r._rel > 0 THEN r._rel ELSE 0 END) - 1) / 16.0)) OVER (
                PARTITION BY l._level, r._g, r._q ORDER BY r._pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ), 0)) AS _decay
        FROM (
            SELECT r0._g, r0._q, r0._pos, r0._rel
            FROM _rows AS r0
            LEFT JOIN _dropped AS dr ON dr._g IS NOT DISTINCT FROM r0._g AND dr._q = r0._q AND dr._pos = r0._pos
            WHERE r0._rel IS NOT NULL AND (rankeval_top(top) IS NULL OR r0._pos <= rankeval_top(top))
                AND dr._pos IS NULL
        ) AS r
        CROSS JOIN _levels AS l
    ),
    _jl AS (
        SELECT j.*, st._R, st._N, st._num_pos, st._ideal_cost, st._idcg_lin, st._maxrel,
            gi._icost, gi._idcg_at, gi._lends
        FROM _judged AS j
        JOIN _qstat AS st ON st._q = j._q AND st._level = j._level
        LEFT JOIN _gideal AS gi ON gi._q = j._q AND gi._ipos = j._pos
    ),
    _agg_usual AS (
        SELECT s._idx, jl._g, jl._q,
            SUM(CASE WHEN jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k) THEN 1 ELSE 0 END) AS _hits_k,
            SUM(CAST(jl._hits AS DOUBLE) / jl._pos ORDER BY jl._pos) FILTER (WHERE s._family IN ('AP', 'GMAP', 'YAAP') AND jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k)) AS _prec_k,
            MIN(CASE WHEN jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k) THEN jl._pos END) AS _min_pos,
            CAST(NULL AS BIGINT) AS _acc_above,
            SUM(CAST(CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, jl._rel) - 1 ELSE jl._rel END AS DOUBLE) / (LN(CAST(jl._pos AS DOUBLE) + 1) / LN(2.0)) ORDER BY jl._pos) FILTER (WHERE s._family IN ('nDCG', 'nDCG_rel', 'RnDCG') AND (s._k IS NULL OR jl._pos <= s._k) AND jl._rel > 0) AS _dcg,
            CAST(NULL AS DOUBLE) AS _bpref,
            CAST(NULL AS DOUBLE) AS _infap,
            SUM(CASE WHEN s._family = 'Rprec' AND jl._rel >= s._level AND jl._pos <= jl._R THEN 1 ELSE 0 END) AS _rprec,
            CAST(NULL AS BIGINT) AS _rprec_mult,
            CAST(NULL AS DOUBLE) AS _iprec,
            CAST(NULL AS DOUBLE) AS _ip11,
            CAST(NULL AS DOUBLE) AS _err,
            CAST(NULL AS BIGINT) AS _judged_k,
            CAST(NULL AS BIGINT) AS _judged_all,
            CAST(NULL AS DOUBLE) AS _judged_pw,
            CAST(NULL AS DOUBLE) AS _rbp,
            CAST(NULL AS DOUBLE) AS _bing,
            CAST(NULL AS BIGINT) AS _nonrel_judged,
            CAST(NULL AS DOUBLE) AS _gsum,
            CAST(NULL AS DOUBLE) AS _ndr,
            CAST(NULL AS BIGINT) AS _found,
            CAST(NULL AS DOUBLE) AS _rnd,
            CAST(NULL AS DOUBLE) AS _cwl
        FROM _jl AS jl
        -- a family with a cutoff reads only the rows within it (the others have no _k)
        JOIN _specs AS s ON s._level = jl._level AND (s._k IS NULL OR jl._pos <= s._k)
            AND s._family IN ('AP', 'GMAP', 'YAAP', 'nDCG', 'P', 'R', 'RR', 'Success', 'NumRet', 'NumRel', 'NumRelRet', 'NumQ', 'Rprec', 'F1')
        GROUP BY s._idx, jl._g, jl._q
    ),
    _agg AS (
        SELECT * FROM _agg_usual
        UNION ALL
        SELECT s._idx, jl._g, jl._q,
            SUM(CASE WHEN jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k) THEN 1 ELSE 0 END) AS _hits_k,
            SUM(CAST(jl._hits AS DOUBLE) / jl._pos ORDER BY jl._pos) FILTER (WHERE s._family IN ('AP', 'GMAP', 'YAAP') AND jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k)) AS _prec_k,
            MIN(CASE WHEN jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k) THEN jl._pos END) AS _min_pos,
            SUM(CASE WHEN s._family = 'Accuracy' AND jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k) THEN jl._pos - jl._hits END) AS _acc_above,
            SUM(CAST(CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, jl._rel) - 1 ELSE jl._rel END AS DOUBLE) / (LN(CAST(jl._pos AS DOUBLE) + 1) / LN(2.0)) ORDER BY jl._pos) FILTER (WHERE s._family IN ('nDCG', 'nDCG_rel', 'RnDCG') AND (s._k IS NULL OR jl._pos <= s._k) AND jl._rel > 0) AS _dcg,
            SUM(CASE WHEN jl._nonrel > 0 THEN 1 - CAST(LEAST(jl._nonrel, jl._R) AS DOUBLE) / LEAST(jl._N, jl._R) ELSE 1.0 END ORDER BY jl._pos) FILTER (WHERE s._family IN ('Bpref', 'GMBpref') AND jl._rel >= s._level) AS _bpref,
            SUM(CASE WHEN jl._pos = 1 THEN 1.0 ELSE 1.0 / jl._pos + (CAST(jl._pos - 1 AS DOUBLE) / jl._pos) * (CAST(jl._jrank - 1 AS DOUBLE) / (jl._pos - 1)) * ((jl._hits - 1 + 0.00001) / (jl._hits - 1 + jl._nonrel + 2 * 0.00001)) END ORDER BY jl._pos) FILTER (WHERE s._family = 'infAP' AND jl._rel >= s._level) AS _infap,
            SUM(CASE WHEN s._family = 'Rprec' AND jl._rel >= s._level AND jl._pos <= jl._R THEN 1 ELSE 0 END) AS _rprec,
            SUM(CASE WHEN s._family = 'Rprec_mult' AND jl._rel >= s._level AND jl._pos <= FLOOR(s._p_mult * jl._R + 0.9) THEN 1 ELSE 0 END) AS _rprec_mult,
            MAX(CASE WHEN s._family = 'IPrec' AND jl._rel >= s._level AND jl._hits >= FLOOR(s._p_recall * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END) AS _iprec,
            COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.0 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.1 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.2 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.3 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.4 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.5 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.6 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.7 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.8 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(0.9 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) + COALESCE(MAX(CASE WHEN s._family = 'IPrec11pt' AND jl._rel >= s._level AND jl._hits >= FLOOR(CAST(1.0 AS DOUBLE) * jl._R + CASE WHEN s._p_rounding = 'v9' THEN 0.9 ELSE 0.5 END) THEN CAST(jl._hits AS DOUBLE) / jl._pos END), 0) AS _ip11,
            SUM((POWER(2.0, CASE WHEN jl._rel > 4 THEN 4 WHEN jl._rel > 0 THEN jl._rel ELSE 0 END) - 1) / 16.0 * jl._decay / jl._pos ORDER BY jl._pos) FILTER (WHERE s._family = 'ERR' AND (s._k IS NULL OR jl._pos <= s._k)) AS _err,
            SUM(CASE WHEN s._family IN ('Judged', 'Unjudged') AND jl._rel >= 0 AND (s._k IS NULL OR jl._pos <= s._k) THEN 1 ELSE 0 END) AS _judged_k,
            SUM(CASE WHEN s._family = 'RBP_resid' AND jl._rel >= 0 THEN 1 ELSE 0 END) AS _judged_all,
            SUM(POWER(s._p_p, CAST(jl._pos - 1 AS DOUBLE)) ORDER BY jl._pos) FILTER (WHERE s._family = 'RBP_resid' AND jl._rel >= 0) AS _judged_pw,
            SUM((CASE WHEN s._p_gain = 'binary' THEN CASE WHEN jl._rel >= s._level THEN 1.0 ELSE 0 END WHEN jl._rel > 0 THEN jl._rel / GREATEST(COALESCE(jl._maxrel, 1), 1) ELSE 0 END) * POWER(s._p_p, CAST(jl._pos - 1 AS DOUBLE)) ORDER BY jl._pos) FILTER (WHERE s._family = 'RBP' AND (s._k IS NULL OR jl._pos <= s._k)) AS _rbp,
            SUM(1.0 / (LN(CAST(2 + jl._pos - jl._hits AS DOUBLE)) / LN(2.0)) ORDER BY jl._pos) FILTER (WHERE s._family = 'binG' AND jl._rel >= s._level AND (s._k IS NULL OR jl._pos <= s._k)) AS _bing,
            SUM(CASE WHEN s._family = 'NumNonRelJudgedRet' AND jl._rel >= 0 AND jl._rel < s._level THEN 1 ELSE 0 END) AS _nonrel_judged,
            SUM(CAST(jl._rel AS DOUBLE) / (LN(2 + CASE WHEN jl._pos <= jl._num_pos THEN jl._icost ELSE jl._ideal_cost + jl._pos - jl._num_pos END - jl._cg) / LN(2.0)) ORDER BY jl._pos) FILTER (WHERE s._family = 'G' AND jl._rel > 0 AND (s._k IS NULL OR jl._pos <= s._k)) AS _gsum,
            SUM(jl._rdcg / (CASE WHEN jl._pos <= jl._num_pos THEN jl._idcg_at ELSE jl._idcg_lin END) ORDER BY jl._pos) FILTER (WHERE s._family = 'nDCG_rel' AND jl._rel > 0 AND (s._k IS NULL OR jl._pos <= s._k)) AS _ndr,
            SUM(CASE WHEN s._family = 'nDCG_rel' AND jl._rel > 0 AND (s._k IS NULL OR jl._pos <= s._k) THEN 1 ELSE 0 END) AS _found,
            SUM(CAST(jl._rel AS DOUBLE) / (LN(CAST(jl._pos AS DOUBLE) + 1) / LN(2.0)) * jl._lends ORDER BY jl._pos) FILTER (WHERE s._family = 'RnDCG' AND jl._rel > 0 AND (s._k IS NULL OR jl._pos <= s._k) AND jl._pos <= jl._num_pos) AS _rnd,
            SUM((LEAST(GREATEST(GREATEST(CAST(jl._rel AS DOUBLE), 0), s._p_min_rel), s._p_max_rel) - s._p_min_rel) / NULLIF(s._p_max_rel - s._p_min_rel, 0) * CASE s._family WHEN 'INSQ' THEN 1 / POWER(CAST(jl._pos AS DOUBLE) - 1 + 2 * s._p_T, 2) WHEN 'SDCG' THEN 1 / (LN(CAST(jl._pos AS DOUBLE) + 1) / LN(2.0)) END ORDER BY jl._pos) FILTER (WHERE s._family IN ('INSQ', 'SDCG') AND jl._pos <= 1000) AS _cwl
        FROM _jl AS jl
        -- a family with a cutoff reads only the rows within it (the others have no _k)
        JOIN _specs AS s ON s._level = jl._level AND (s._k IS NULL OR jl._pos <= s._k)
            AND NOT (s._family IN ('AP', 'GMAP', 'YAAP', 'nDCG', 'P', 'R', 'RR', 'Success', 'NumRet', 'NumRel', 'NumRelRet', 'NumQ', 'Rprec', 'F1')) AND rankeval_may_ask_rare(given_measures)
        GROUP BY s._idx, jl._g, jl._q
    ),

    -- ties='average' only: every retrieved row (judged or not) with its tie group
    _tpos AS (
        SELECT r._g, r._q, r._key, q._rel,
            ROW_NUMBER() OVER (
                PARTITION BY r._g, r._q ORDER BY r._key DESC, CAST(r._item AS VARCHAR) DESC
            ) AS _pos
        FROM _run AS r
        LEFT JOIN _qrels AS q ON r._q = q._q AND r._item = q._item
        WHERE (ties = 'average')
    ),
    _tgroup AS (
        SELECT t.*, l._level,
            CAST(COUNT(*) OVER (PARTITION BY l._level, t._g, t._q, t._key) AS DOUBLE) AS _tn,
            CAST(MIN(t._pos) OVER (PARTITION BY l._level, t._g, t._q, t._key) - 1 AS DOUBLE) AS _ts,
            CAST(SUM(CASE WHEN t._rel >= l._level THEN 1 ELSE 0 END) OVER (PARTITION BY l._level, t._g, t._q, t._key) AS DOUBLE) AS _tr,
            -- relevant rows strictly above the row (h: at the group's top row)
            SUM(CASE WHEN t._rel >= l._level THEN 1 ELSE 0 END) OVER (
                PARTITION BY l._level, t._g, t._q ORDER BY t._pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) - CASE WHEN t._rel >= l._level THEN 1 ELSE 0 END AS _tc,
            AVG(CASE WHEN t._rel > 0 THEN t._rel ELSE 0 END) OVER (PARTITION BY l._level, t._g, t._q, t._key) AS _tgl,
            AVG(CASE WHEN t._rel > 0 THEN POWER(2.0, t._rel) - 1 ELSE 0 END) OVER (PARTITION BY l._level, t._g, t._q, t._key) AS _tge
        FROM _tpos AS t
        CROSS JOIN _levels AS l
    ),
    _tied AS (
        SELECT t.*, st._R, CAST(t._pos AS DOUBLE) - t._ts AS _tj,
            CAST(MIN(t._tc) OVER (PARTITION BY t._level, t._g, t._q, t._key) AS DOUBLE) AS _th
        FROM _tgroup AS t
        LEFT JOIN _qstat AS st ON st._q = t._q AND st._level = t._level
    ),
    _tagg AS (SELECT * FROM (
        SELECT x._idx, x._g, x._q,
            SUM(x._tr / x._tn ORDER BY x._pos) AS _e_hits,
            SUM(((x._th + 1) * x._tr / x._tn + CASE WHEN x._tn > 1 THEN (x._tj - 1) * x._tr * (x._tr - 1) / (x._tn * (x._tn - 1)) ELSE 0 END) / x._pos ORDER BY x._pos) AS _e_prec,
            SUM(CASE WHEN x._pos <= x._R THEN x._tr / x._tn ELSE 0 END ORDER BY x._pos) AS _e_rprec,
            SUM(CASE WHEN x._th = 0 THEN (CASE WHEN x._tj - 1 > x._tn - x._tr THEN 0 ELSE EXP(LGAMMA(x._tn - x._tr + 1) - LGAMMA(x._tn - x._tr - x._tj + 2) - LGAMMA(x._tn + 1) + LGAMMA(x._tn - x._tj + 2)) END) * x._tr / ((x._tn - x._tj + 1) * x._pos) ELSE 0 END ORDER BY x._pos)
                AS _e_rr,
            MIN(CASE WHEN x._th > 0 THEN 0 ELSE (CASE WHEN x._tj - 1 > x._tn - x._tr THEN 0 ELSE EXP(LGAMMA(x._tn - x._tr + 1) - LGAMMA(x._tn - x._tr - x._tj + 2) - LGAMMA(x._tn + 1) + LGAMMA(x._tn - x._tj + 2)) END) * (x._tn - x._tr - x._tj + 1) / (x._tn - x._tj + 1) END)
                AS _e_none,
            SUM(CASE WHEN x._p_gain = 'exp' THEN x._tge ELSE x._tgl END / (LN(CAST(x._pos AS DOUBLE) + 1) / LN(2.0)) ORDER BY x._pos) AS _e_dcg,
            SUM(COALESCE(x._tcg * x._tb, 0) ORDER BY x._pos) AS _e_cwl
        FROM (
            SELECT t.*, s._idx, s._k, s._p_gain,
                CASE WHEN s._family IN ('INSQ', 'SDCG') AND t._pos <= CASE WHEN s._k IS NULL OR s._k > 1000 THEN 1000 ELSE s._k END
                     THEN CASE s._family WHEN 'INSQ' THEN 1 / POWER(CAST(t._pos AS DOUBLE) - 1 + 2 * s._p_T, 2) WHEN 'SDCG' THEN 1 / (LN(CAST(t._pos AS DOUBLE) + 1) / LN(2.0)) END END AS _tb,
                AVG(CASE WHEN s._family IN ('INSQ', 'SDCG') THEN CASE WHEN t._rel IS NULL THEN 0 ELSE COALESCE((LEAST(GREATEST(GREATEST(CAST(t._rel AS DOUBLE), 0), s._p_min_rel), s._p_max_rel) - s._p_min_rel) / NULLIF(s._p_max_rel - s._p_min_rel, 0), 0) END END) OVER (
                    PARTITION BY s._idx, t._g, t._q, t._key) AS _tcg
            FROM _tied AS t
            JOIN _specs AS s ON s._level = t._level
        ) AS x
        WHERE x._k IS NULL OR x._pos <= x._k
        GROUP BY x._idx, x._g, x._q
    ) AS __rk_guarded WHERE (ties = 'average')),

    -- nDCG(ideal=run): the ideal DCG of the run's own judged rows (only when asked)
    _irun AS (SELECT * FROM (
        SELECT s._idx, i._g, i._q,
            SUM(CASE WHEN s._k IS NULL OR i._ipos <= s._k THEN CAST(CASE WHEN s._p_gain = 'exp' THEN POWER(2.0, i._rel) - 1 ELSE i._rel END AS DOUBLE) / (LN(CAST(i._ipos AS DOUBLE) + 1) / LN(2.0)) END ORDER BY i._ipos) AS _idcg_run
        FROM (
            SELECT j._g, j._q, j._rel, j._level,
                ROW_NUMBER() OVER (
                    PARTITION BY j._level, j._g, j._q ORDER BY j._rel DESC, j._pos
                ) AS _ipos
            FROM _judged AS j
            WHERE j._rel > 0 AND EXISTS (
                SELECT 1 FROM _specs AS s0 WHERE s0._family = 'nDCG' AND s0._p_ideal = 'run')
        ) AS i
        JOIN _specs AS s
            ON s._family = 'nDCG' AND s._p_ideal = 'run' AND s._level = i._level
        GROUP BY s._idx, i._g, i._q
    ) AS __rk_guarded WHERE rankeval_may_ask_irun(given_measures)),

    _cwltab AS (
        SELECT s._idx, p._i, CASE s._family WHEN 'INSQ' THEN 1 / POWER(CAST(p._i AS DOUBLE) - 1 + 2 * s._p_T, 2) WHEN 'SDCG' THEN 1 / (LN(CAST(p._i AS DOUBLE) + 1) / LN(2.0)) WHEN 'NERR8' THEN 1.0 WHEN 'NERR9' THEN 1 / CAST(p._i AS DOUBLE) WHEN 'NERR10' THEN POWER(s._p_p, CAST(p._i AS DOUBLE) - 1) WHEN 'NERR11' THEN 1 / POWER(CAST(p._i AS DOUBLE) - 1 + 2 * s._p_T, 2) END AS _b
        FROM _specs AS s
        JOIN (SELECT d1._d + 10 * d2._d + 100 * d3._d + 1 AS _i
            FROM (SELECT 0 AS _d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) AS d1
            CROSS JOIN (SELECT 0 AS _d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) AS d2
            CROSS JOIN (SELECT 0 AS _d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) AS d3) AS p ON p._i <= CASE WHEN s._k IS NULL OR s._k > 1000 THEN 1000 ELSE s._k END
        WHERE s._family IN ('INSQ', 'SDCG', 'NERR8', 'NERR9', 'NERR10', 'NERR11')
    ),
    _cwlnorm AS (SELECT * FROM (
        SELECT t._idx, SUM(t._b ORDER BY t._i) AS _norm
        FROM _cwltab AS t
        GROUP BY t._idx
    ) AS __rk_guarded WHERE rankeval_may_ask_cwl(given_measures)),
    _cwlcum AS (
        SELECT t._idx, t._i, t._b,
            SUM(t._b) OVER (PARTITION BY t._idx ORDER BY t._i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _cb
        FROM _cwltab AS t
        JOIN _specs AS s ON s._idx = t._idx AND s._family IN ('NERR8', 'NERR9', 'NERR10', 'NERR11')
    ),
    _cwlrows AS (
        SELECT x._idx, x._g, x._q, x._pos, x._gn,
            SUM(x._gn) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _cg,
            SUM(CASE WHEN x._gn >= 1 THEN 1 ELSE 0 END) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _z,
            SUM(CASE WHEN x._gn < 1 THEN LN(1 - x._gn) ELSE 0 END) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _ln,
            LEAD(x._pos) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos) AS _next
        FROM (
            SELECT s._idx, j._g, j._q, j._pos, (LEAST(GREATEST(GREATEST(CAST(j._rel AS DOUBLE), 0), s._p_min_rel), s._p_max_rel) - s._p_min_rel) / NULLIF(s._p_max_rel - s._p_min_rel, 0) AS _gn
            FROM _judged AS j
            JOIN _specs AS s ON s._level = j._level AND j._pos <= CASE WHEN s._k IS NULL OR s._k > 1000 THEN 1000 ELSE s._k END
                AND s._family IN ('NERR8', 'NERR9', 'NERR10', 'NERR11', 'BPM', 'INST')
        ) AS x
        WHERE x._gn > 0
    ),
    _cwlagg AS (SELECT * FROM (
        SELECT r._idx, r._g, r._q,
            SUM((CASE WHEN r._z - CASE WHEN r._gn >= 1 THEN 1 ELSE 0 END > 0 OR r._ln - CASE WHEN r._gn < 1 THEN LN(1 - r._gn) ELSE 0 END < -700 THEN 0 ELSE EXP(r._ln - CASE WHEN r._gn < 1 THEN LN(1 - r._gn) ELSE 0 END) END) * r._gn * c._b ORDER BY r._pos) AS _num,
            MIN(c._cb) AS _bfirst,
            SUM((CASE WHEN r._z > 0 OR r._ln < -700 THEN 0 ELSE EXP(r._ln) END) * (COALESCE(n._cb, nm._norm) - c._cb) ORDER BY r._pos) AS _rest,
            MIN(CASE WHEN r._cg >= s._p_T THEN r._pos END) AS _reach,
            MIN(CASE WHEN r._cg >= s._p_T THEN r._cg END) AS _greach,
            MAX(r._cg) AS _gall
        FROM _cwlrows AS r
        JOIN _specs AS s ON s._idx = r._idx
        LEFT JOIN _cwlcum AS c ON c._idx = r._idx AND c._i = r._pos
        LEFT JOIN _cwlcum AS n ON n._idx = r._idx AND n._i = r._next
        LEFT JOIN _cwlnorm AS nm ON nm._idx = r._idx
        WHERE s._family <> 'INST'
        GROUP BY r._idx, r._g, r._q
        UNION ALL
        SELECT y._idx, y._g, y._q,
            SUM((4 * y._t * y._t * CASE WHEN y._zr - CASE WHEN y._ratio > 0 THEN 0 ELSE 1 END > 0 OR y._lr - CASE WHEN y._ratio > 0 THEN LN(y._ratio) ELSE 0 END < -700 THEN 0 ELSE EXP(y._lr - CASE WHEN y._ratio > 0 THEN LN(y._ratio) ELSE 0 END) END) * y._gn / POWER(CAST(y._pos AS DOUBLE) - 1 + y._ca + y._gn, 2) ORDER BY y._pos) AS _num,
            2 * MAX(y._t) * 2 * MAX(y._t) * ((1 / POWER(2 * MAX(y._t) + 0, 2) + 1 / POWER(2 * MAX(y._t) + 1, 2) + 1 / POWER(2 * MAX(y._t) + 2, 2) + 1 / POWER(2 * MAX(y._t) + 3, 2) + 1 / POWER(2 * MAX(y._t) + 4, 2) + 1 / POWER(2 * MAX(y._t) + 5, 2) + 1 / POWER(2 * MAX(y._t) + 6, 2) + 1 / POWER(2 * MAX(y._t) + 7, 2) + 1 / POWER(2 * MAX(y._t) + 8, 2) + 1 / POWER(2 * MAX(y._t) + 9, 2) + 1 / (2 * MAX(y._t) + 10) + 1 / (2 * POWER((2 * MAX(y._t) + 10), 2)) + 1 / (6 * POWER((2 * MAX(y._t) + 10), 3)) - 1 / (30 * POWER((2 * MAX(y._t) + 10), 5)) + 1 / (42 * POWER((2 * MAX(y._t) + 10), 7)) - 1 / (30 * POWER((2 * MAX(y._t) + 10), 9)) + 5 / (66 * POWER((2 * MAX(y._t) + 10), 11))) - (1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 0, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 1, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 2, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 3, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 4, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 5, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 6, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 7, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 8, 2) + 1 / POWER(CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 9, 2) + 1 / (CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10) + 1 / (2 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 2)) + 1 / (6 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 3)) - 1 / (30 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 5)) + 1 / (42 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 7)) - 1 / (30 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 9)) + 5 / (66 * POWER((CAST(MIN(y._pos) AS DOUBLE) + 2 * MAX(y._t) + 10), 11)))) AS _bfirst,
            SUM((4 * y._t * y._t * CASE WHEN y._zr > 0 OR y._lr < -700 THEN 0 ELSE EXP(y._lr) END) * ((1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 0, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 1, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 2, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 3, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 4, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 5, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 6, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 7, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 8, 2) + 1 / POWER(CAST(y._pos AS DOUBLE) + y._ca + 9, 2) + 1 / (CAST(y._pos AS DOUBLE) + y._ca + 10) + 1 / (2 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 2)) + 1 / (6 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 3)) - 1 / (30 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 5)) + 1 / (42 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 7)) - 1 / (30 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 9)) + 5 / (66 * POWER((CAST(y._pos AS DOUBLE) + y._ca + 10), 11))) - (1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 0, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 1, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 2, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 3, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 4, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 5, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 6, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 7, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 8, 2) + 1 / POWER(CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 9, 2) + 1 / (CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10) + 1 / (2 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 2)) + 1 / (6 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 3)) - 1 / (30 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 5)) + 1 / (42 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 7)) - 1 / (30 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 9)) + 5 / (66 * POWER((CAST(COALESCE(y._next, 1000) AS DOUBLE) + y._ca + 10), 11)))) ORDER BY y._pos) AS _rest,
            NULL AS _reach, NULL AS _greach, NULL AS _gall
        FROM (
            SELECT x.*,
                SUM(CASE WHEN x._ratio > 0 THEN LN(x._ratio) ELSE 0 END) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _lr,
                SUM(CASE WHEN x._ratio > 0 THEN 0 ELSE 1 END) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _zr
            FROM (
                SELECT r.*, s._p_T AS _t, 2 * s._p_T - r._cg AS _ca,
                    POWER((r._pos - 1 + 2 * s._p_T - r._cg)
                          / (r._pos - 1 + 2 * s._p_T - r._cg + r._gn), 2) AS _ratio
                FROM _cwlrows AS r
                JOIN _specs AS s ON s._idx = r._idx AND s._family = 'INST'
            ) AS x
        ) AS y
        GROUP BY y._idx, y._g, y._q
    ) AS __rk_guarded WHERE rankeval_may_ask_cwl(given_measures)),

    _interprows AS (
        SELECT s._idx, j._g, j._q, j._pos, j._hits, j._R, s._p_interp AS _interp,
            MAX(CAST(j._hits AS DOUBLE) / j._pos) OVER (PARTITION BY s._idx, j._g, j._q ORDER BY j._pos DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _env
        FROM _jl AS j
        JOIN _specs AS s ON s._family = 'InterpAP' AND s._level = j._level
            AND (s._k IS NULL OR j._pos <= s._k)
        WHERE j._rel >= j._level
    ),
    _interpvals AS (
        SELECT x._idx, x._g, x._q, CASE WHEN MIN(x._interp) = 'all' THEN SUM(x._env * CASE x._interp WHEN 'all' THEN 1 WHEN 'voc11' THEN ((CASE WHEN (FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 1) * CAST(0.1 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 2 WHEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) * CAST(0.1 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 1 ELSE FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) END) - CASE WHEN x._hits = 1 THEN 0 ELSE (CASE WHEN (FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 1) * CAST(0.1 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 2 WHEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) * CAST(0.1 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 1 ELSE FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) END) END) / CAST(11 AS DOUBLE) WHEN 'coco101' THEN ((CASE WHEN (FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 1) * CAST(0.01 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 2 WHEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) * CAST(0.01 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 1 ELSE FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) END) - CASE WHEN x._hits = 1 THEN 0 ELSE (CASE WHEN (FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 1) * CAST(0.01 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 2 WHEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) * CAST(0.01 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 1 ELSE FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) END) END) / CAST(101 AS DOUBLE) END ORDER BY x._pos) / MAX(x._R) ELSE SUM(x._env * CASE x._interp WHEN 'all' THEN 1 WHEN 'voc11' THEN ((CASE WHEN (FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 1) * CAST(0.1 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 2 WHEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) * CAST(0.1 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) + 1 ELSE FLOOR(CAST(x._hits AS DOUBLE) / x._R * 10) END) - CASE WHEN x._hits = 1 THEN 0 ELSE (CASE WHEN (FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 1) * CAST(0.1 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 2 WHEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) * CAST(0.1 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) + 1 ELSE FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 10) END) END) / CAST(11 AS DOUBLE) WHEN 'coco101' THEN ((CASE WHEN (FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 1) * CAST(0.01 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 2 WHEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) * CAST(0.01 AS DOUBLE) <= CAST(x._hits AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) + 1 ELSE FLOOR(CAST(x._hits AS DOUBLE) / x._R * 100) END) - CASE WHEN x._hits = 1 THEN 0 ELSE (CASE WHEN (FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 1) * CAST(0.01 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 2 WHEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) * CAST(0.01 AS DOUBLE) <= CAST(x._hits - 1 AS DOUBLE) / x._R THEN FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) + 1 ELSE FLOOR(CAST(x._hits - 1 AS DOUBLE) / x._R * 100) END) END) / CAST(101 AS DOUBLE) END ORDER BY x._pos) END AS _v
        FROM _interprows AS x
        GROUP BY x._idx, x._g, x._q
    ),
    _compatdepth AS (
        SELECT s._idx, x._g, x._q, i._npos,
            CASE WHEN rankeval_top(top) IS NULL THEN x._n ELSE LEAST(x._n, rankeval_top(top)) END - COALESCE(t._ntail, 0) AS _last
        FROM _rq AS x
        JOIN (SELECT q._q, MAX(q._ipos) AS _npos FROM _ideal AS q GROUP BY q._q) AS i
            ON i._q = x._q
        JOIN _specs AS s ON s._family = 'Compat'
        LEFT JOIN (
            SELECT y._g, y._q, SUM(y._tail) AS _ntail FROM _dropped AS y
            GROUP BY y._g, y._q
        ) AS t ON t._g IS NOT DISTINCT FROM x._g AND t._q = x._q
    ),
    _compatpos AS (
        SELECT c._idx, c._g, c._q, c._npos, r._pos AS _i
        FROM _compatdepth AS c
        JOIN _ranked AS r ON r._g IS NOT DISTINCT FROM c._g AND r._q = c._q AND r._pos <= c._last
        UNION ALL
        SELECT c._idx, c._g, c._q, c._npos, i._ipos AS _i
        FROM _compatdepth AS c
        JOIN _ideal AS i ON i._q = c._q AND i._ipos > c._last
    ),
    _compatw AS (
        SELECT x.*, SUM(x._pw / x._i) OVER (PARTITION BY x._idx, x._g, x._q ORDER BY x._i DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS _tail
        FROM (
            SELECT p._idx, p._g, p._q, p._npos, CAST(p._i AS DOUBLE) AS _i,
                POWER(s._p_p, CAST(p._i - 1 AS DOUBLE)) AS _pw
            FROM _compatpos AS p
            JOIN _specs AS s ON s._idx = p._idx
        ) AS x
    ),
    _compatnorm AS (
        SELECT w._idx, w._g, w._q,
            SUM(CASE WHEN w._i <= w._npos THEN w._tail ELSE 0 END ORDER BY w._i) AS _best,
            SUM(w._pw ORDER BY w._i) AS _wsum
        FROM _compatw AS w
        GROUP BY w._idx, w._g, w._q
    ),
    _compatrows AS (
        SELECT s._idx, j._g, j._q,
            GREATEST(j._pos, a._above + ROW_NUMBER() OVER (PARTITION BY s._idx, j._g, j._q, j._rel ORDER BY j._pos)) AS _m
        FROM _judged AS j
        JOIN _specs AS s ON s._family = 'Compat' AND s._level = j._level
        JOIN (
            SELECT i._q, i._rel, MIN(i._ipos) - 1 AS _above FROM _ideal AS i
            GROUP BY i._q, i._rel
        ) AS a ON a._q = j._q AND a._rel = j._rel
        WHERE j._rel > 0
    ),
    _compatvals AS (
        SELECT r._idx, r._g, r._q, CAST(CASE WHEN MIN(s._p_normalize) = 'false' THEN SUM(w._tail ORDER BY r._m) / MAX(n._wsum) WHEN MAX(n._best) > 0 THEN SUM(w._tail ORDER BY r._m) / MAX(n._best) ELSE 0 END AS DOUBLE) AS _v
        FROM _compatrows AS r
        JOIN _specs AS s ON s._idx = r._idx
        JOIN _compatw AS w ON w._idx = r._idx AND w._g IS NOT DISTINCT FROM r._g AND w._q = r._q AND w._i = r._m
        JOIN _compatnorm AS n ON n._idx = r._idx AND n._g IS NOT DISTINCT FROM r._g AND n._q = r._q
        GROUP BY r._idx, r._g, r._q
    ),
    _divpairs AS (
        SELECT s._idx, q._q, q._item, q._sub,
            CAST(CASE WHEN s._family IN ('ERR_IA', 'nERR_IA', 'P_IA', 'AP_IA') THEN q._w ELSE 1 END AS DOUBLE) AS _w
        FROM _subq AS q
        JOIN _specs AS s ON s._family IN ('alpha_DCG', 'alpha_nDCG', 'ERR_IA', 'nERR_IA', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA', 'StRecall') AND q._rel >= s._level
    ),
    _divsubs AS (
        SELECT p._idx, p._q, p._sub, COUNT(*) AS _nrel, MAX(p._w) AS _w
        FROM _divpairs AS p GROUP BY p._idx, p._q, p._sub
    ),
    _divn AS (
        SELECT x._idx, x._q, COUNT(*) AS _n,
            SUM(x._w ORDER BY x._sub) AS _wsum
        FROM _divsubs AS x GROUP BY x._idx, x._q
    ),
    _divkept AS (
        SELECT r._g, r._q, r._item, r._pos
        FROM _ranked AS r
        LEFT JOIN _dropped AS dr ON dr._g IS NOT DISTINCT FROM r._g AND dr._q = r._q AND dr._pos = r._pos
        WHERE (rankeval_top(top) IS NULL OR r._pos <= rankeval_top(top)) AND dr._pos IS NULL
            AND EXISTS (SELECT 1 FROM _specs AS s0 WHERE s0._family IN ('alpha_DCG', 'alpha_nDCG', 'ERR_IA', 'nERR_IA', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA', 'StRecall'))
    ),
    _divrun AS (
        SELECT p._idx, k._g, k._q, k._pos, p._sub, p._w, x._nrel,
            ROW_NUMBER() OVER (
                PARTITION BY p._idx, k._g, k._q, p._sub ORDER BY k._pos
            ) - 1 AS _c
        FROM _divkept AS k
        JOIN _divpairs AS p ON p._q = k._q AND p._item = k._item
        JOIN _divsubs AS x ON x._idx = p._idx AND x._q = p._q AND x._sub = p._sub
    ),
    _divraw AS (
        SELECT r._idx, r._g, r._q,
            SUM(CASE WHEN (s._k IS NULL OR r._pos <= s._k) THEN r._w * POWER(1 - COALESCE(s._p_alpha, 0.5), r._c) * (CASE WHEN s._family IN ('alpha_DCG', 'alpha_nDCG') THEN LN(2.0) / LN(CAST(r._pos AS DOUBLE) + 1) WHEN s._family IN ('ERR_IA', 'nERR_IA') THEN 1.0 / CAST(r._pos AS DOUBLE) ELSE POWER(s._p_beta, CAST(r._pos AS DOUBLE) - 1) END) ELSE 0 END ORDER BY r._pos, r._sub) AS _sum,
            SUM(CASE WHEN (s._k IS NULL OR r._pos <= s._k) THEN r._w ELSE 0 END ORDER BY r._pos, r._sub) AS _pw,
            COUNT(DISTINCT CASE WHEN (s._k IS NULL OR r._pos <= s._k) THEN r._sub END) AS _cover,
            SUM(CAST(r._c + 1 AS DOUBLE) / r._pos * r._w / r._nrel ORDER BY r._pos, r._sub) AS _ap
        FROM _divrun AS r
        JOIN _specs AS s ON s._idx = r._idx
        GROUP BY r._idx, r._g, r._q
    ),
    _divret AS (
        SELECT k._g, k._q, COUNT(*) AS _nret FROM _divkept AS k GROUP BY k._g, k._q
    ),
    _divii(_idx, _i) AS (
        SELECT s._idx, 1 FROM _specs AS s
        WHERE s._family IN ('alpha_DCG', 'ERR_IA') AND s._k >= 1
        UNION ALL
        SELECT x._idx, x._i + 1 FROM _divii AS x
        JOIN _specs AS s ON s._idx = x._idx
        WHERE x._i < s._k
    ),
    _diviisum AS (
        SELECT x._idx, SUM(POWER(1 - COALESCE(s._p_alpha, 0.5), x._i - 1) * (CASE WHEN s._family IN ('alpha_DCG', 'alpha_nDCG') THEN LN(2.0) / LN(CAST(x._i AS DOUBLE) + 1) WHEN s._family IN ('ERR_IA', 'nERR_IA') THEN 1.0 / CAST(x._i AS DOUBLE) ELSE POWER(s._p_beta, CAST(x._i AS DOUBLE) - 1) END) ORDER BY x._i) AS _ii
        FROM _divii AS x JOIN _specs AS s ON s._idx = x._idx
        GROUP BY x._idx
    ),
    _divgreedy(_idx, _q, _item, _sub, _w, _a, _depth, _phase, _step, _c, _placed, _gi, _best,
               _bgain, _full, _ipos, _igain) AS (
        SELECT p._idx, p._q, p._item, p._sub, p._w, CAST(1 - COALESCE(s._p_alpha, 0.5) AS DOUBLE),
            CAST(CASE WHEN s._family <> 'nNRBP' THEN s._k WHEN s._p_beta >= 1 THEN NULL WHEN s._p_beta > 0 THEN CEIL(-41.58883083359672 / LN(s._p_beta)) + 1 ELSE 1 END AS DOUBLE), CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT),
            CAST(0 AS BIGINT), CAST(NULL AS DOUBLE), CAST(NULL AS VARCHAR), CAST(NULL AS DOUBLE),
            CAST(0 AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS DOUBLE)
        FROM _divpairs AS p
        JOIN _specs AS s ON s._idx = p._idx AND s._family IN ('alpha_nDCG', 'nERR_IA', 'nNRBP')
        UNION ALL
        SELECT w._idx, w._q, w._item, w._sub, w._w, w._a, w._depth,
            CAST(CASE WHEN w._phase = 2 THEN 0 ELSE w._phase + 1 END AS BIGINT),
            CAST(CASE WHEN w._phase = 2 THEN w._step + 1 ELSE w._step END AS BIGINT),
            CAST(CASE WHEN w._phase = 2 THEN w._c + MAX(CASE WHEN CAST(w._item AS VARCHAR) = w._best THEN 1 ELSE 0 END) OVER (PARTITION BY w._idx, w._q, w._sub) ELSE w._c END AS BIGINT),
            CAST(CASE WHEN w._phase = 2 AND CAST(w._item AS VARCHAR) = w._best THEN 1 ELSE w._placed END AS BIGINT),
            CAST(CASE WHEN w._phase = 0 THEN SUM(w._w * POWER(w._a, w._c)) OVER (
                PARTITION BY w._idx, w._q, w._item) ELSE w._gi END AS DOUBLE),
            CAST(CASE WHEN w._phase = 1 THEN FIRST_VALUE(CAST(w._item AS VARCHAR)) OVER (PARTITION BY w._idx, w._q ORDER BY w._placed, w._gi DESC, CAST(w._item AS VARCHAR) DESC)
                 ELSE w._best END AS VARCHAR),
            CAST(CASE WHEN w._phase = 1 THEN FIRST_VALUE(w._gi) OVER (PARTITION BY w._idx, w._q ORDER BY w._placed, w._gi DESC, CAST(w._item AS VARCHAR) DESC)
                 ELSE w._bgain END AS DOUBLE),
            CAST(CASE WHEN w._phase = 1 THEN MIN(w._placed) OVER (PARTITION BY w._idx, w._q)
                 ELSE w._full END AS BIGINT),
            CAST(CASE WHEN w._phase = 2 AND CAST(w._item AS VARCHAR) = w._best THEN w._step + 1 ELSE w._ipos END AS BIGINT),
            CAST(CASE WHEN w._phase = 2 AND CAST(w._item AS VARCHAR) = w._best THEN w._bgain ELSE w._igain END AS DOUBLE)
        FROM _divgreedy AS w
        -- phase 1 stops at the depth, phase 2 once every item is placed
        WHERE (w._phase <> 1 OR w._depth IS NULL OR w._step < w._depth)
            AND (w._phase <> 2 OR w._full = 0)
    ),
    _divideal AS (
        SELECT i._idx, i._q, SUM(i._igain * (CASE WHEN s._family IN ('alpha_DCG', 'alpha_nDCG') THEN LN(2.0) / LN(CAST(i._ipos AS DOUBLE) + 1) WHEN s._family IN ('ERR_IA', 'nERR_IA') THEN 1.0 / CAST(i._ipos AS DOUBLE) ELSE POWER(s._p_beta, CAST(i._ipos AS DOUBLE) - 1) END) ORDER BY i._ipos) AS _ideal
        FROM (
            SELECT DISTINCT x._idx, x._q, x._ipos, x._igain FROM _divgreedy AS x
            WHERE x._ipos IS NOT NULL
        ) AS i
        JOIN _specs AS s ON s._idx = i._idx
        WHERE s._k IS NULL OR i._ipos <= s._k
        GROUP BY i._idx, i._q
    ),
    _divvals AS (
        SELECT r._idx, r._g, r._q, CAST(CASE
            WHEN s._family IN ('alpha_nDCG', 'nERR_IA', 'nNRBP') THEN
                CASE WHEN r._sum > 0 AND di._ideal > 0 THEN r._sum / di._ideal ELSE 0 END
            WHEN s._family IN ('alpha_DCG', 'ERR_IA') THEN
                CASE WHEN n._wsum * ii._ii > 0 THEN r._sum / (n._wsum * ii._ii) ELSE 0 END
            WHEN s._family = 'NRBP' THEN CASE WHEN n._wsum > 0 THEN r._sum * (1.0 - (1.0 - s._p_alpha) * s._p_beta) / n._wsum ELSE 0 END
            WHEN n._wsum <= 0 THEN 0
            WHEN s._family = 'P_IA' THEN r._pw / CAST(CASE WHEN s._k IS NULL THEN c._nret ELSE s._k END AS DOUBLE) / n._wsum
            WHEN s._family = 'StRecall' THEN CAST(r._cover AS DOUBLE) / n._wsum
            ELSE r._ap / n._wsum END AS DOUBLE) AS _v
        FROM _divraw AS r
        JOIN _specs AS s ON s._idx = r._idx
        JOIN _divn AS n ON n._idx = r._idx AND n._q = r._q
        JOIN _divret AS c ON c._g IS NOT DISTINCT FROM r._g AND c._q = r._q
        LEFT JOIN _diviisum AS ii ON ii._idx = r._idx
        LEFT JOIN _divideal AS di ON di._idx = r._idx AND di._q = r._q
    ),
    _windowed AS (SELECT * FROM (
        SELECT x._idx, x._g, x._q, x._v FROM _interpvals AS x
        UNION ALL
        SELECT x._idx, x._g, x._q, x._v FROM _compatvals AS x
        UNION ALL
        SELECT x._idx, x._g, x._q, x._v FROM _divvals AS x
    ) AS __rk_guarded WHERE (rankeval_may_ask_windowed(given_measures) OR subtopic IS NOT NULL)),
    _groups AS (SELECT DISTINCT x._g, 1 AS _one FROM _rq AS x),
    _universe AS (
        SELECT x._g, x._q, x._n FROM _rq AS x JOIN _qq AS y ON x._q = y._q
        WHERE NOT rankeval_complete(complete)
        UNION ALL
        SELECT gr._g, y._q, x._n FROM _groups AS gr CROSS JOIN _qq AS y
        LEFT JOIN _rq AS x ON x._g IS NOT DISTINCT FROM gr._g AND x._q = y._q
        WHERE rankeval_complete(complete)
    ),
    _dropk AS (
        SELECT s._idx, x._g, x._q, COUNT(*) AS _nk,
            SUM(CASE WHEN s._family = 'RBP_resid' AND x._tail = 0 THEN POWER(s._p_p, CAST(x._pos - 1 AS DOUBLE)) END ORDER BY x._pos) AS _dropw
        FROM _dropped AS x JOIN _specs AS s ON s._k IS NULL OR x._pos <= s._k
        GROUP BY s._idx, x._g, x._q
    ),
    -- the rarely present extras in one table (one join below): nDCG(ideal=run)'s ideal
    -- DCG, the dropped duplicates
    _extra AS (
        SELECT e._idx, e._g, e._q, MAX(e._idcg_run) AS _idcg_run, MAX(e._nk) AS _nk,
            MAX(e._dropw) AS _dropw
        FROM (
            SELECT x._idx, x._g, x._q, x._idcg_run, CAST(NULL AS DOUBLE) AS _nk,
                CAST(NULL AS DOUBLE) AS _dropw
            FROM _irun AS x
            UNION ALL
            SELECT x._idx, x._g, x._q, CAST(NULL AS DOUBLE), CAST(x._nk AS DOUBLE), x._dropw
            FROM _dropk AS x
        ) AS e
        GROUP BY e._idx, e._g, e._q
    ),
    _values_usual AS (
        SELECT u._g, u._q, s._idx, s._name, s._agg,
            CASE WHEN c._ok <> 0 THEN NULL ELSE CASE s._family
                WHEN 'AP' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) > 0 THEN CAST(COALESCE(ta._e_prec, 0) AS DOUBLE) / (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) ELSE 0 END ELSE CASE WHEN (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) > 0 THEN CAST(COALESCE(a._prec_k, 0) AS DOUBLE) / (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) ELSE 0 END END AS DOUBLE)
                WHEN 'GMAP' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._prec_k, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'YAAP' THEN CAST(LN((1 + COALESCE(a._prec_k, 0)) / (1 + st._R - COALESCE(a._prec_k, 0))) AS DOUBLE)
                WHEN 'P' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN s._k IS NULL THEN CASE WHEN (u._nret) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / (u._nret) ELSE 0 END WHEN s._p_norm = 'ret' THEN CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) ELSE 0 END ELSE CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / s._k END ELSE CASE WHEN s._k IS NULL THEN CASE WHEN (u._nret) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / (u._nret) ELSE 0 END WHEN s._p_norm = 'ret' THEN CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) ELSE 0 END ELSE CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / s._k END END AS DOUBLE)
                WHEN 'R' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) ELSE 0 END ELSE CASE WHEN (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) ELSE 0 END END AS DOUBLE)
                WHEN 'RR' THEN CAST(CASE WHEN (ties = 'average') THEN COALESCE(ta._e_rr, 0) ELSE CASE WHEN COALESCE(a._min_pos, 0) > 0 THEN 1.0 / COALESCE(a._min_pos, 0) ELSE 0 END END AS DOUBLE)
                WHEN 'Success' THEN CAST(CASE WHEN (ties = 'average') THEN 1 - COALESCE(ta._e_none, 1) ELSE CASE WHEN COALESCE(a._min_pos, 0) > 0 THEN 1.0 ELSE 0 END END AS DOUBLE)
                WHEN 'NumRet' THEN CAST((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) AS DOUBLE)
                WHEN 'NumRel' THEN CAST(st._R AS DOUBLE)
                WHEN 'NumRelRet' THEN CAST(CASE WHEN (ties = 'average') THEN COALESCE(ta._e_hits, 0) ELSE COALESCE(a._hits_k, 0) END AS DOUBLE)
                WHEN 'NumQ' THEN CAST(1 AS DOUBLE)
                WHEN 'nDCG' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) > 0 THEN CAST(COALESCE(ta._e_dcg, 0) AS DOUBLE) / (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) ELSE 0 END ELSE CASE WHEN (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) > 0 THEN CAST(COALESCE(a._dcg, 0) AS DOUBLE) / (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) ELSE 0 END END AS DOUBLE)
                WHEN 'Rprec' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (st._R) > 0 THEN CAST(COALESCE(ta._e_rprec, 0) AS DOUBLE) / (st._R) ELSE 0 END ELSE CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._rprec, 0) AS DOUBLE) / (st._R) ELSE 0 END END AS DOUBLE)
                WHEN 'F1' THEN CAST(CASE WHEN (s._p_beta * st._R + CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END) > 0 THEN CAST((s._p_beta + 1) * COALESCE(a._hits_k, 0) AS DOUBLE) / (s._p_beta * st._R + CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END) ELSE 0 END AS DOUBLE)
                ELSE NULL
            END END AS _value
        FROM (
            SELECT u1._g, u1._q, u1._nall, u1._nall - COALESCE(dq._n, 0) AS _nret
            FROM (
                SELECT u0._g, u0._q,
                    CASE WHEN u0._n IS NULL THEN 0 WHEN rankeval_top(top) IS NULL THEN u0._n
                         ELSE LEAST(u0._n, rankeval_top(top)) END AS _nall
                FROM _universe AS u0
            ) AS u1
            LEFT JOIN (
                SELECT x._g, x._q, COUNT(*) AS _n FROM _dropped AS x GROUP BY x._g, x._q
            ) AS dq ON dq._g IS NOT DISTINCT FROM u1._g AND dq._q = u1._q
        ) AS u
        CROSS JOIN _specs AS s
        CROSS JOIN (SELECT CASE WHEN c._run_rows = 0 THEN error('the run has no rows (' || CAST(c._run_rows AS VARCHAR) || '): there is nothing to evaluate') WHEN c._run_dup > 0 AND NOT (duplicates = 'first') THEN error('run: duplicate (query, item) rows: ' || CAST(c._run_dup AS VARCHAR) || ' extra row(s); example query: ' || CAST(c._run_dup_q AS VARCHAR)) WHEN c._qrels_dup > 0 THEN error('qrels: duplicate (query, item) judgments: ' || CAST(c._qrels_dup AS VARCHAR) || ' extra row(s); example query: ' || CAST(c._qrels_dup_q AS VARCHAR)) WHEN c._shared = 0 AND NOT rankeval_complete(complete) THEN error('run and qrels share no query (' || CAST(c._shared AS VARCHAR) || ' in common): check the query column and its type') ELSE 0 END AS _ok FROM _check AS c) AS c
        LEFT JOIN _qstat AS st ON st._q = u._q AND st._level = s._level
        LEFT JOIN _idcg AS ic ON ic._idx = s._idx AND ic._q = u._q
        LEFT JOIN _agg_usual AS a ON a._idx = s._idx AND a._g IS NOT DISTINCT FROM u._g AND a._q = u._q
        LEFT JOIN _extra AS dk ON dk._idx = s._idx AND dk._g IS NOT DISTINCT FROM u._g AND dk._q = u._q
        LEFT JOIN _tagg AS ta ON ta._idx = s._idx AND ta._g IS NOT DISTINCT FROM u._g AND ta._q = u._q
    ),
    _values AS (
        SELECT u._g, u._q, s._idx, s._name, s._agg,
            CASE WHEN c._ok <> 0 THEN NULL ELSE CASE s._family
                WHEN 'AP' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) > 0 THEN CAST(COALESCE(ta._e_prec, 0) AS DOUBLE) / (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) ELSE 0 END ELSE CASE WHEN (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) > 0 THEN CAST(COALESCE(a._prec_k, 0) AS DOUBLE) / (CASE s._p_norm WHEN 'hits' THEN COALESCE(a._hits_k, 0) WHEN 'min' THEN CASE WHEN s._k IS NULL THEN st._R ELSE LEAST(st._R, s._k) END ELSE st._R END) ELSE 0 END END AS DOUBLE)
                WHEN 'GMAP' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._prec_k, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'YAAP' THEN CAST(LN((1 + COALESCE(a._prec_k, 0)) / (1 + st._R - COALESCE(a._prec_k, 0))) AS DOUBLE)
                WHEN 'P' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN s._k IS NULL THEN CASE WHEN (u._nret) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / (u._nret) ELSE 0 END WHEN s._p_norm = 'ret' THEN CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) ELSE 0 END ELSE CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / s._k END ELSE CASE WHEN s._k IS NULL THEN CASE WHEN (u._nret) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / (u._nret) ELSE 0 END WHEN s._p_norm = 'ret' THEN CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) ELSE 0 END ELSE CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / s._k END END AS DOUBLE)
                WHEN 'R' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) ELSE 0 END ELSE CASE WHEN (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / (CASE WHEN s._p_norm = 'min' AND s._k IS NOT NULL THEN LEAST(st._R, s._k) ELSE st._R END) ELSE 0 END END AS DOUBLE)
                WHEN 'RR' THEN CAST(CASE WHEN (ties = 'average') THEN COALESCE(ta._e_rr, 0) ELSE CASE WHEN COALESCE(a._min_pos, 0) > 0 THEN 1.0 / COALESCE(a._min_pos, 0) ELSE 0 END END AS DOUBLE)
                WHEN 'Success' THEN CAST(CASE WHEN (ties = 'average') THEN 1 - COALESCE(ta._e_none, 1) ELSE CASE WHEN COALESCE(a._min_pos, 0) > 0 THEN 1.0 ELSE 0 END END AS DOUBLE)
                WHEN 'NumRet' THEN CAST((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) AS DOUBLE)
                WHEN 'NumRel' THEN CAST(st._R AS DOUBLE)
                WHEN 'NumRelRet' THEN CAST(CASE WHEN (ties = 'average') THEN COALESCE(ta._e_hits, 0) ELSE COALESCE(a._hits_k, 0) END AS DOUBLE)
                WHEN 'NumQ' THEN CAST(1 AS DOUBLE)
                WHEN 'nDCG' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) > 0 THEN CAST(COALESCE(ta._e_dcg, 0) AS DOUBLE) / (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) ELSE 0 END ELSE CASE WHEN (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) > 0 THEN CAST(COALESCE(a._dcg, 0) AS DOUBLE) / (CASE WHEN s._p_ideal = 'run' THEN COALESCE(dk._idcg_run, 0) ELSE COALESCE(ic._idcg, 0) END) ELSE 0 END END AS DOUBLE)
                WHEN 'Rprec' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (st._R) > 0 THEN CAST(COALESCE(ta._e_rprec, 0) AS DOUBLE) / (st._R) ELSE 0 END ELSE CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._rprec, 0) AS DOUBLE) / (st._R) ELSE 0 END END AS DOUBLE)
                WHEN 'Rprec_mult' THEN CAST(CASE WHEN (FLOOR(s._p_mult * st._R + 0.9)) > 0 THEN CAST(COALESCE(a._rprec_mult, 0) AS DOUBLE) / (FLOOR(s._p_mult * st._R + 0.9)) ELSE 0 END AS DOUBLE)
                WHEN 'F1' THEN CAST(CASE WHEN (s._p_beta * st._R + CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END) > 0 THEN CAST((s._p_beta + 1) * COALESCE(a._hits_k, 0) AS DOUBLE) / (s._p_beta * st._R + CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END) ELSE 0 END AS DOUBLE)
                WHEN 'IPrec' THEN CAST(COALESCE(a._iprec, 0) AS DOUBLE)
                WHEN 'IPrec11pt' THEN CAST(COALESCE(a._ip11, 0) / 11.0 AS DOUBLE)
                WHEN 'ERR' THEN CAST(COALESCE(a._err, 0) AS DOUBLE)
                WHEN 'Bpref' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._bpref, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'GMBpref' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._bpref, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'infAP' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._infap, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'Judged' THEN CAST(CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) > 0 THEN CAST(COALESCE(a._judged_k, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END)) ELSE 0 END AS DOUBLE)
                WHEN 'Unjudged' THEN CAST(CASE WHEN s._k IS NOT NULL THEN CAST((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - COALESCE(a._judged_k, 0) AS DOUBLE) / s._k ELSE CASE WHEN (u._nret) > 0 THEN CAST((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - COALESCE(a._judged_k, 0) AS DOUBLE) / (u._nret) ELSE 0 END END AS DOUBLE)
                WHEN 'RBP' THEN CAST((1 - s._p_p) * COALESCE(a._rbp, 0) AS DOUBLE)
                WHEN 'RBP_resid' THEN CAST(CASE WHEN COALESCE(a._judged_all, 0) < u._nret THEN 1 - (1 - s._p_p) * (COALESCE(a._judged_pw, 0) + COALESCE(dk._dropw, 0)) ELSE 0 END AS DOUBLE)
                WHEN 'SetAP' THEN CAST(CASE WHEN ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) * st._R) > 0 THEN CAST(COALESCE(a._hits_k, 0) * COALESCE(a._hits_k, 0) AS DOUBLE) / ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) * st._R) ELSE 0 END AS DOUBLE)
                WHEN 'RelP' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN (LEAST(CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END, st._R)) > 0 THEN CAST(COALESCE(ta._e_hits, 0) AS DOUBLE) / (LEAST(CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END, st._R)) ELSE 0 END ELSE CASE WHEN (LEAST(CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END, st._R)) > 0 THEN CAST(COALESCE(a._hits_k, 0) AS DOUBLE) / (LEAST(CASE WHEN s._k IS NULL THEN u._nret ELSE s._k END, st._R)) ELSE 0 END END AS DOUBLE)
                WHEN 'Utility' THEN CAST(CASE WHEN u._nret > 0 THEN s._p_a * COALESCE(a._hits_k, 0) + s._p_b * ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - COALESCE(a._hits_k, 0)) + s._p_c * (st._R - COALESCE(a._hits_k, 0)) + s._p_d * (s._p_docs + COALESCE(a._hits_k, 0) - (CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - st._R) ELSE 0 END AS DOUBLE)
                WHEN 'binG' THEN CAST(CASE WHEN (st._R) > 0 THEN CAST(COALESCE(a._bing, 0) AS DOUBLE) / (st._R) ELSE 0 END AS DOUBLE)
                WHEN 'NumNonRelJudgedRet' THEN CAST(COALESCE(a._nonrel_judged, 0) AS DOUBLE)
                WHEN 'Accuracy' THEN CAST(CASE WHEN COALESCE(a._hits_k, 0) = 0 THEN 0 WHEN (CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - COALESCE(a._hits_k, 0) <= 0 THEN 1 ELSE 1 - CAST(COALESCE(a._acc_above, 0) AS DOUBLE) / (COALESCE(a._hits_k, 0) * ((CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) - COALESCE(a._hits_k, 0))) END AS DOUBLE)
                WHEN 'G' THEN CAST(CASE WHEN (COALESCE(st._ideal_gain, 0)) > 0 THEN CAST(COALESCE(a._gsum, 0) AS DOUBLE) / (COALESCE(st._ideal_gain, 0)) ELSE 0 END AS DOUBLE)
                WHEN 'nDCG_rel' THEN CAST(CASE WHEN (COALESCE(a._ndr, 0) + (COALESCE(st._num_pos, 0) - COALESCE(a._found, 0)) * CASE WHEN (COALESCE(st._idcg_lin, 0)) > 0 THEN CAST(COALESCE(a._dcg, 0) AS DOUBLE) / (COALESCE(st._idcg_lin, 0)) ELSE 0 END) > 0 THEN (COALESCE(a._ndr, 0) + (COALESCE(st._num_pos, 0) - COALESCE(a._found, 0)) * CASE WHEN (COALESCE(st._idcg_lin, 0)) > 0 THEN CAST(COALESCE(a._dcg, 0) AS DOUBLE) / (COALESCE(st._idcg_lin, 0)) ELSE 0 END) / COALESCE(st._num_pos, 0) ELSE 0 END AS DOUBLE)
                WHEN 'RnDCG' THEN CAST(CASE WHEN st._R > 0 THEN CASE WHEN (COALESCE(st._gain_levels, 0) + (CASE WHEN COALESCE(st._num_pos, 0) >= 1 AND (CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) >= COALESCE(st._num_pos, 0) + 2 THEN 1 ELSE 0 END)) > 0 THEN CAST(COALESCE(a._rnd, 0) + (CASE WHEN COALESCE(st._num_pos, 0) >= 1 AND (CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) >= COALESCE(st._num_pos, 0) + 2 THEN 1 ELSE 0 END) * CASE WHEN (COALESCE(st._idcg_lin, 0)) > 0 THEN CAST(COALESCE(a._dcg, 0) AS DOUBLE) / (COALESCE(st._idcg_lin, 0)) ELSE 0 END AS DOUBLE) / (COALESCE(st._gain_levels, 0) + (CASE WHEN COALESCE(st._num_pos, 0) >= 1 AND (CASE WHEN s._k IS NULL THEN u._nret ELSE LEAST(u._nall, s._k) - COALESCE(dk._nk, 0) END) >= COALESCE(st._num_pos, 0) + 2 THEN 1 ELSE 0 END)) ELSE 0 END ELSE 0 END AS DOUBLE)
                WHEN 'INSQ' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') ELSE COALESCE(ta._e_cwl, 0) / cn._norm END ELSE CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') ELSE COALESCE(a._cwl, 0) / cn._norm END END AS DOUBLE)
                WHEN 'SDCG' THEN CAST(CASE WHEN (ties = 'average') THEN CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') ELSE COALESCE(ta._e_cwl, 0) / cn._norm END ELSE CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') ELSE COALESCE(a._cwl, 0) / cn._norm END END AS DOUBLE)
                WHEN 'NERR8' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._num IS NULL THEN 0 ELSE cw._num / (cw._bfirst + cw._rest) END AS DOUBLE)
                WHEN 'NERR9' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._num IS NULL THEN 0 ELSE cw._num / (cw._bfirst + cw._rest) END AS DOUBLE)
                WHEN 'NERR10' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._num IS NULL THEN 0 ELSE cw._num / (cw._bfirst + cw._rest) END AS DOUBLE)
                WHEN 'NERR11' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._num IS NULL THEN 0 ELSE cw._num / (cw._bfirst + cw._rest) END AS DOUBLE)
                WHEN 'INST' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._num IS NULL THEN 0 ELSE cw._num / (cw._bfirst + cw._rest) END AS DOUBLE)
                WHEN 'BPM' THEN CAST(CASE WHEN s._p_max_rel <= s._p_min_rel THEN error(s._name || ': min_rel must be below max_rel') WHEN cw._reach IS NOT NULL THEN cw._greach / cw._reach ELSE COALESCE(cw._gall, 0) / CAST(CASE WHEN s._k IS NULL OR s._k > 1000 THEN 1000 ELSE s._k END AS DOUBLE) END AS DOUBLE)
                WHEN 'InterpAP' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'Compat' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'alpha_DCG' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'alpha_nDCG' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'ERR_IA' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'nERR_IA' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'NRBP' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'nNRBP' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'AP_IA' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'P_IA' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                WHEN 'StRecall' THEN CAST(COALESCE(wv._v, 0) AS DOUBLE)
                ELSE error(s._name || ' is not available in SQL yet; use rk.evaluate')
            END END AS _value
        FROM (
            SELECT u1._g, u1._q, u1._nall, u1._nall - COALESCE(dq._n, 0) AS _nret
            FROM (
                SELECT u0._g, u0._q,
                    CASE WHEN u0._n IS NULL THEN 0 WHEN rankeval_top(top) IS NULL THEN u0._n
                         ELSE LEAST(u0._n, rankeval_top(top)) END AS _nall
                FROM _universe AS u0
            ) AS u1
            LEFT JOIN (
                SELECT x._g, x._q, COUNT(*) AS _n FROM _dropped AS x GROUP BY x._g, x._q
            ) AS dq ON dq._g IS NOT DISTINCT FROM u1._g AND dq._q = u1._q
        ) AS u
        CROSS JOIN _specs AS s
        CROSS JOIN (SELECT CASE WHEN c._run_rows = 0 THEN error('the run has no rows (' || CAST(c._run_rows AS VARCHAR) || '): there is nothing to evaluate') WHEN c._run_dup > 0 AND NOT (duplicates = 'first') THEN error('run: duplicate (query, item) rows: ' || CAST(c._run_dup AS VARCHAR) || ' extra row(s); example query: ' || CAST(c._run_dup_q AS VARCHAR)) WHEN c._qrels_dup > 0 THEN error('qrels: duplicate (query, item) judgments: ' || CAST(c._qrels_dup AS VARCHAR) || ' extra row(s); example query: ' || CAST(c._qrels_dup_q AS VARCHAR)) WHEN c._shared = 0 AND NOT rankeval_complete(complete) THEN error('run and qrels share no query (' || CAST(c._shared AS VARCHAR) || ' in common): check the query column and its type') ELSE 0 END AS _ok FROM _check AS c) AS c
        LEFT JOIN _qstat AS st ON st._q = u._q AND st._level = s._level
        LEFT JOIN _idcg AS ic ON ic._idx = s._idx AND ic._q = u._q
        LEFT JOIN _agg AS a ON a._idx = s._idx AND a._g IS NOT DISTINCT FROM u._g AND a._q = u._q
        LEFT JOIN _extra AS dk ON dk._idx = s._idx AND dk._g IS NOT DISTINCT FROM u._g AND dk._q = u._q
        LEFT JOIN _cwlnorm AS cn ON cn._idx = s._idx
        LEFT JOIN _cwlagg AS cw ON cw._idx = s._idx AND cw._g IS NOT DISTINCT FROM u._g AND cw._q = u._q
        LEFT JOIN _windowed AS wv ON wv._idx = s._idx AND wv._g IS NOT DISTINCT FROM u._g AND wv._q = u._q
        LEFT JOIN _tagg AS ta ON ta._idx = s._idx AND ta._g IS NOT DISTINCT FROM u._g AND ta._q = u._q
    )
SELECT v._g, n._qs, v._q, v._idx, v._name AS measure, v._agg, v._value AS value
-- the values of the usual families' CTEs alone where the call asks for no other
-- (_sqlentry._values_sql): the CTE named here is the only one bound, with what it reads
FROM query_table(CASE WHEN NOT (rankeval_may_ask_gain(given_measures) OR rankeval_may_ask_cwl(given_measures) OR (rankeval_may_ask_windowed(given_measures) OR subtopic IS NOT NULL) OR rankeval_may_ask_interp(given_measures) OR rankeval_may_ask_compat(given_measures) OR rankeval_may_ask_diversity(given_measures) OR rankeval_may_ask_every_row(given_measures) OR rankeval_may_ask_rare(given_measures)) THEN '_values_usual' ELSE '_values' END) AS v
-- every query of the values is judged: the LEFT JOIN drops none
LEFT JOIN _qnames AS n ON n._q = v._q;

-- The measures of a call that names none: trec_eval's default families with their
-- cutoffs at k (10 by default), named as the polars engine prints them (P(rel=2)@10 with
-- rel := 2).  k := sets those cutoffs only: with named measures, name the cutoffs in them.
CREATE OR REPLACE MACRO rankeval_default_measure(family, cut, k, rel) AS
    family
    || CASE WHEN TRY_CAST(rel AS DOUBLE) = 1 THEN ''
            -- TRY_CAST: a text rel raises in _args's check, whichever runs first
            WHEN TRY_CAST(rel AS DOUBLE) = FLOOR(TRY_CAST(rel AS DOUBLE))
                THEN '(rel=' || CAST(TRY_CAST(rel AS BIGINT) AS VARCHAR) || ')'
            ELSE '(rel=' || CAST(TRY_CAST(rel AS DOUBLE) AS VARCHAR) || ')' END
    || CASE WHEN cut THEN '@' || CAST(COALESCE(k, 10) AS VARCHAR) ELSE '' END;

CREATE OR REPLACE MACRO rankeval_measures_or_default(measures, k, rel) AS CASE
    WHEN measures IS NULL THEN [
        rankeval_default_measure('AP', false, k, rel), rankeval_default_measure('AP', true, k, rel),
        rankeval_default_measure('nDCG', false, k, rel), rankeval_default_measure('nDCG', true, k, rel),
        rankeval_default_measure('P', true, k, rel), rankeval_default_measure('R', true, k, rel),
        rankeval_default_measure('RR', false, k, rel), rankeval_default_measure('Rprec', false, k, rel),
        rankeval_default_measure('Bpref', false, k, rel),
        rankeval_default_measure('Success', true, k, rel),
        rankeval_default_measure('NumRet', false, k, rel),
        rankeval_default_measure('NumRel', false, k, rel),
        rankeval_default_measure('NumRelRet', false, k, rel)]
    WHEN k IS NOT NULL THEN error('k := ' || CAST(k AS VARCHAR) || ' sets the cutoffs of the '
        || 'default measures only: with named measures, give each its cutoff (''P@10'')')
    ELSE measures END;

-- rankeval_per_query's rows in no order, with its order keys (__rk_og, __rk_oq,
-- __rk_oi): engine="duckdb" reshapes them itself and skips the sort of every row.
CREATE OR REPLACE MACRO rankeval_per_query_rows(
    run_table, qrels_table, measures := NULL, "by" := []::VARCHAR[], query := 'query',
    item := 'item', score := 'score', rank := NULL, relevance := 'relevance', rel := 1,
    complete := false, conventions := 'trec_eval', ties := 'first', top := NULL,
    duplicates := 'error', subtopic := NULL, intent_weight := NULL, k := NULL
) AS TABLE
SELECT unnest(x._g), unnest(x._qs), x.measure, x.value,
    x._g AS __rk_og, x._q AS __rk_oq, x._idx AS __rk_oi
FROM rankeval_rows(run_table, qrels_table, rankeval_measures_or_default(measures, k, rel), "by" := "by", query := query,
    item := item, score := score, rank := rank, relevance := relevance, rel := rel,
    complete := complete, conventions := conventions, ties := ties, top := top,
        duplicates := duplicates, subtopic := subtopic,
        intent_weight := intent_weight, given_measures := measures) AS x;

-- One row per (by..., query, measure): <by columns>, <query column>, measure, value.
CREATE OR REPLACE MACRO rankeval_per_query(
    run_table, qrels_table, measures := NULL, "by" := []::VARCHAR[], query := 'query',
    item := 'item', score := 'score', rank := NULL, relevance := 'relevance', rel := 1,
    complete := false, conventions := 'trec_eval', ties := 'first', top := NULL,
    duplicates := 'error', subtopic := NULL, intent_weight := NULL, k := NULL
) AS TABLE
SELECT * EXCLUDE (__rk_g, __rk_q, __rk_og, __rk_oq, __rk_oi)
FROM rankeval_per_query_rows(run_table, qrels_table, measures := measures, "by" := "by",
    query := query, item := item, score := score, rank := rank, relevance := relevance,
    rel := rel, complete := complete, conventions := conventions, ties := ties, top := top,
    duplicates := duplicates, subtopic := subtopic, intent_weight := intent_weight, k := k)
ORDER BY __rk_og, __rk_oq, __rk_oi;

-- One row per (by..., measure): <by columns>, measure, value.  The mean over the
-- evaluated queries; the sum for the counts; exp(mean(ln(max(x, 1e-5)))) for GMAP and
-- GMBpref.
CREATE OR REPLACE MACRO rankeval_summary(
    run_table, qrels_table, measures := NULL, "by" := []::VARCHAR[], query := 'query',
    item := 'item', score := 'score', rank := NULL, relevance := 'relevance', rel := 1,
    complete := false, conventions := 'trec_eval', ties := 'first', top := NULL,
    duplicates := 'error', subtopic := NULL, intent_weight := NULL, k := NULL
) AS TABLE
SELECT * EXCLUDE (__rk_g, __rk_og, __rk_oi)
FROM (
    SELECT unnest(s._g), s.measure, s.value, s._g AS __rk_og, s._idx AS __rk_oi
    FROM (
        -- the values added one after the other in trec_eval's query order (the query
        -- as text, byte order), as the polars engine adds them: the same bits on every
        -- call, where a parallel AVG's last bits depend on the threads
        -- (_sqlentry.summary_sql, shared with sql.render and the dbt package)
        SELECT x._g, x._idx, x.measure,
            CASE MIN(x._agg) WHEN 'sum' THEN SUM(x.value ORDER BY CAST(x._q AS VARCHAR)) WHEN 'gmean' THEN EXP(SUM(LN(CASE WHEN x.value > 0.00001 THEN x.value ELSE 0.00001 END) ORDER BY CAST(x._q AS VARCHAR)) / COUNT(x.value)) ELSE SUM(x.value ORDER BY CAST(x._q AS VARCHAR)) / COUNT(x.value) END AS value
        FROM rankeval_rows(run_table, qrels_table, rankeval_measures_or_default(measures, k, rel), "by" := "by", query := query,
            item := item, score := score, rank := rank, relevance := relevance, rel := rel,
            complete := complete, conventions := conventions, ties := ties, top := top,
            duplicates := duplicates, subtopic := subtopic,
            intent_weight := intent_weight, given_measures := measures) AS x
        GROUP BY x._g, x._idx, x.measure
    ) AS s
)
ORDER BY __rk_og, __rk_oi;

-- ---- _evaluate.sql
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

-- =====================================================================
-- The low-level layer: one table macro per measure family (rankeval_AP,
-- rankeval_nDCG, ...) over columns named query, item, score, relevance.
-- =====================================================================
-- ---- _shared.sql
-- polars_rankeval SQL twin: shared macros (ranking, qrels join, per-query stats).
--
-- Tables are read through query_table(name): pass a table or view name, or a file path
-- such as 'run.parquet'.  Columns, by name:
--   run   : query, item, score      (higher score = better; rank it yourself otherwise)
--   qrels : query, item, relevance  (graded; relevance >= rel means relevant)
-- query and item must have the same type in both tables (both text or both integers).
--
-- trec_eval conventions (polars_rankeval/_judge.py is the polars twin):
--   * rank = score descending, ties broken by item descending in byte order; scores
--     are compared as REAL (single precision), as trec_eval keeps them in a C float;
--   * run rows join the qrels on (query, item); a row not in the qrels is unjudged;
--   * R (relevant items) and N (judged non-relevant items) are per-query constants of
--     the qrels; a negative judgment is "judged but unjudged" (trec_eval m_bpref.c);
--   * queries of the run that are not in the qrels are not evaluated.
-- Written in a portable subset (ROW_NUMBER with a total order, explicit ROWS frames,
-- SUM/MIN/COUNT over CASE, LN(x)/LN(2), CAST(.. AS DOUBLE) numerators, NULLIF
-- denominators) so that polars_rankeval.sql.render() can transpile it with sqlglot.

-- Number of relevant judgments (relevance >= rel): an aggregate.
CREATE OR REPLACE MACRO rankeval_num_rel(rel_value, rel) AS
    CAST(SUM(CASE WHEN rel_value >= rel THEN 1 ELSE 0 END) AS DOUBLE);

-- Number of judged non-relevant judgments (0 <= relevance < rel): an aggregate.
CREATE OR REPLACE MACRO rankeval_num_nonrel(rel_value, rel) AS
    CAST(SUM(CASE WHEN rel_value >= 0 AND rel_value < rel THEN 1 ELSE 0 END) AS DOUBLE);

-- Discounted cumulative gain of rows at 1-based positions pos, cut at k (NULL: no
-- cutoff): an aggregate.  gain 'linear' = relevance, 'exp' = 2^relevance - 1; relevance
-- <= 0 or NULL (unjudged) gains 0; discount log2(pos + 1).
CREATE OR REPLACE MACRO rankeval_dcg(rel_value, pos, k, gain) AS
    SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
             THEN CAST(CASE WHEN gain = 'exp' THEN POWER(2.0, rel_value) - 1 ELSE rel_value END
                       AS DOUBLE)
                  / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
             ELSE 0 END);

-- A measure's canonical name, as polars_rankeval prints it: AP, AP(norm=min)@10, ...
CREATE OR REPLACE MACRO rankeval_number(x) AS
    CASE WHEN isfinite(CAST(x AS DOUBLE)) AND CAST(x AS DOUBLE) = FLOOR(CAST(x AS DOUBLE))
              AND ABS(CAST(x AS DOUBLE)) < 1e18
         THEN CAST(CAST(x AS BIGINT) AS VARCHAR) ELSE CAST(CAST(x AS DOUBLE) AS VARCHAR) END;

CREATE OR REPLACE MACRO rankeval_param(name, value, default_value) AS
    CASE WHEN value = default_value THEN NULL ELSE name || '=' || value END;

CREATE OR REPLACE MACRO rankeval_name(family, params, k) AS
    family
    || CASE WHEN params IS NULL OR params = '' THEN '' ELSE '(' || params || ')' END
    || CASE WHEN k IS NULL THEN '' ELSE '@' || CAST(k AS VARCHAR) END;

-- The run, one row per run row plus _pos, its 1-based position in trec_eval order.
-- duplicates := 'first' keeps only the best-ranked row of a repeated (query, item); the
-- positions of the dropped rows stay empty (what the user saw).  With 'error' (default)
-- every row is kept: check for duplicates first, as trec_eval refuses them.
CREATE OR REPLACE MACRO rankeval_ranked(run_table, duplicates := 'error') AS TABLE
    SELECT d.*
    FROM (
        SELECT p.*,
            ROW_NUMBER() OVER (PARTITION BY p.query, p.item ORDER BY p._pos) AS _copy
        FROM (
            SELECT r.*,
                ROW_NUMBER() OVER (
                    PARTITION BY r.query ORDER BY CAST(r.score AS REAL) DESC, CAST(r.item AS VARCHAR) DESC
                ) AS _pos
            FROM query_table(run_table) AS r
        ) AS p
    ) AS d
    WHERE duplicates <> 'first' OR d._copy = 1;

-- Per-query constants of the qrels at relevance level rel: R and N.
CREATE OR REPLACE MACRO rankeval_qstats(qrels_table, rel := 1) AS TABLE
    SELECT q.query,
        rankeval_num_rel(q.relevance, rel) AS _num_rel,
        rankeval_num_nonrel(q.relevance, rel) AS _num_nonrel
    FROM query_table(qrels_table) AS q
    GROUP BY q.query;

-- The qrels with _ideal_pos, each judgment's position in the ideal ranking (gain
-- descending; ties by item descending, which does not change any sum).
CREATE OR REPLACE MACRO rankeval_ideal(qrels_table) AS TABLE
    SELECT q.query, q.item, CAST(q.relevance AS DOUBLE) AS _rel,
        ROW_NUMBER() OVER (
            PARTITION BY q.query
            ORDER BY CASE WHEN q.relevance > 0 THEN q.relevance ELSE 0 END DESC,
                CAST(q.item AS VARCHAR) DESC
        ) AS _ideal_pos
    FROM query_table(qrels_table) AS q;

-- Ideal DCG of each qrels query, cut at k.
CREATE OR REPLACE MACRO rankeval_idcg(qrels_table, k := NULL, gain := 'linear') AS TABLE
    SELECT i.query, CAST(rankeval_dcg(i._rel, i._ideal_pos, k, gain) AS DOUBLE) AS _idcg
    FROM rankeval_ideal(qrels_table) AS i
    GROUP BY i.query;

-- The ideal ranking's gains (trec_eval's G, ndcg_rel, Rndcg): gain = relevance of the
-- judged items with relevance > 0 (Npos of them), g*_1 >= g*_2 >= ...  Aggregates over
-- one query's judgments: Npos, the sum of the gains, the sum of max(gain, 1) (m_G.c's
-- cost, min_cost 1) and the number of distinct gains (the ideal ranking's levels).
CREATE OR REPLACE MACRO rankeval_num_pos(rel_value) AS
    CAST(SUM(CASE WHEN rel_value > 0 THEN 1 ELSE 0 END) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_ideal_gain(rel_value) AS
    CAST(SUM(CASE WHEN rel_value > 0 THEN rel_value ELSE 0 END) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_ideal_cost(rel_value) AS
    CAST(SUM(CASE WHEN rel_value >= 1 THEN rel_value WHEN rel_value > 0 THEN 1 ELSE 0 END)
         AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_gain_levels(rel_value) AS
    CAST(COUNT(DISTINCT CASE WHEN rel_value > 0 THEN rel_value END) AS DOUBLE);

-- Those per-query constants of the qrels, with the ideal DCG (_idcg).
CREATE OR REPLACE MACRO rankeval_gain_stats(qrels_table) AS TABLE
    SELECT q.query,
        rankeval_num_pos(q.relevance) AS _num_pos,
        rankeval_ideal_gain(q.relevance) AS _ideal_gain,
        rankeval_ideal_cost(q.relevance) AS _ideal_cost,
        rankeval_gain_levels(q.relevance) AS _gain_levels
    FROM query_table(qrels_table) AS q
    GROUP BY q.query;

-- The ideal ranking position by position (twin of ideal_rows in polars_rankeval/_stats.py):
-- one row per judged item with relevance > 0, by gain descending, _ideal_pos 1 .. Npos
-- (a gain level ends at its last position);
--   _ideal_cost         sum over q <= _ideal_pos of max(g*_q, 1)
--   _ideal_dcg          sum over q <= _ideal_pos of g*_q / log2(q + 1)
--   _ideal_level_ends   sum over the ends b >= _ideal_pos of a gain level (g*_b differs
--                       from g*_{b+1}, 0 after Npos) of 1 / (_ideal_dcg at b)
CREATE OR REPLACE MACRO rankeval_ideal_gains(qrels_table) AS TABLE
    SELECT e.query, e._ideal_pos, e._ideal_cost, e._ideal_dcg,
        SUM(CASE WHEN e._ideal_pos = e._level_end
                 THEN CAST(1 AS DOUBLE) / NULLIF(e._ideal_dcg, 0) ELSE 0 END) OVER (
            PARTITION BY e.query ORDER BY e._ideal_pos DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _ideal_level_ends
    FROM (
        SELECT d.query, d._ideal_pos, d._g,
            MAX(d._ideal_pos) OVER (PARTITION BY d.query, d._g) AS _level_end,
            SUM(CASE WHEN d._g >= 1 THEN d._g ELSE 1 END) OVER (
                PARTITION BY d.query ORDER BY d._ideal_pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) AS _ideal_cost,
            SUM(CAST(d._g AS DOUBLE) / NULLIF(LN(CAST(d._ideal_pos AS DOUBLE) + 1) / LN(2.0), 0)) OVER (
                PARTITION BY d.query ORDER BY d._ideal_pos
                ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            ) AS _ideal_dcg
        FROM (
            SELECT q.query, CAST(q.relevance AS DOUBLE) AS _g,
                ROW_NUMBER() OVER (
                    PARTITION BY q.query ORDER BY q.relevance DESC, CAST(q.item AS VARCHAR) DESC
                ) AS _ideal_pos
            FROM query_table(qrels_table) AS q
            WHERE q.relevance > 0
        ) AS d
    ) AS e;

-- The ranked run joined with the qrels at relevance level rel: one row per kept run row
--   query, item, _pos
--   _rel        relevance from the qrels (NULL: not judged)
--   _hits       relevant rows (relevance >= rel) at positions <= _pos
--   _nonrel     judged non-relevant rows (0 <= relevance < rel) at positions <= _pos
--   _ideal_pos  position of this row in the ideal ordering of the retrieved rows
--   _num_rel, _num_nonrel   R and N of the query (NULL: query not in the qrels)
--   _pooled     rows in the qrels (any judgment, also negative) at positions <= _pos
--   _err_decay  ERR's probability that the user reaches this row: the product over the
--               rows above of (1 - R), R = (2^g - 1) / 2^4, g = relevance clipped to 0..4
--   _score      the score the rows were ranked by (equal scores: a tie group)
CREATE OR REPLACE MACRO rankeval_joined(run_table, qrels_table, rel := 1, duplicates := 'error')
AS TABLE
    SELECT h.*,
        SUM(CASE WHEN h._rel >= rel THEN 1 ELSE 0 END) OVER (
            PARTITION BY h.query ORDER BY h._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _hits,
        SUM(CASE WHEN h._rel >= 0 AND h._rel < rel THEN 1 ELSE 0 END) OVER (
            PARTITION BY h.query ORDER BY h._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _nonrel,
        ROW_NUMBER() OVER (
            PARTITION BY h.query ORDER BY CASE WHEN h._rel > 0 THEN h._rel ELSE 0 END DESC, h._pos
        ) AS _ideal_pos,
        SUM(CASE WHEN h._rel IS NOT NULL THEN 1 ELSE 0 END) OVER (
            PARTITION BY h.query ORDER BY h._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _pooled,
        EXP(COALESCE(SUM(LN(1 - (POWER(2.0, CASE WHEN h._rel > 4 THEN 4 WHEN h._rel > 0
                                                 THEN h._rel ELSE 0 END) - 1) * 0.0625)) OVER (
            PARTITION BY h.query ORDER BY h._pos ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
        ), 0)) AS _err_decay
    FROM (
        SELECT r.query, r.item, r._pos, CAST(r.score AS REAL) AS _score, CAST(q.relevance AS DOUBLE) AS _rel,
            s._num_rel, s._num_nonrel
        FROM rankeval_ranked(run_table, duplicates := duplicates) AS r
        LEFT JOIN query_table(qrels_table) AS q ON r.query = q.query AND r.item = q.item
        LEFT JOIN rankeval_qstats(qrels_table, rel := rel) AS s ON r.query = s.query
    ) AS h;

-- rankeval_joined plus the tie-group columns that the rankeval_<family>_expected macros
-- read (the expected value over every ordering of tied rows, evaluate(ties='average');
-- twin of _with_ties in polars_rankeval/_judge.py).  A tie group is the rows of a query
-- with equal score: its n rows, with s rows above, hold positions s+1 .. s+n in any
-- order; the row at _pos is its j-th, j = _pos - s.
--   _tie_n, _tie_s     n and s
--   _tie_r, _tie_h     relevant rows (relevance >= rel) in the group, and above it
--   _tie_q             Q(j) = C(n-r, j-1) / C(n, j-1): the probability that none of the
--                      group's first j-1 positions is relevant (a product over the rows
--                      above in the group, as EXP(SUM(LN)); 0 once j-1 > n-r)
--   _tie_gain_linear, _tie_gain_exp   mean gain of the group's rows
CREATE OR REPLACE MACRO rankeval_tied(run_table, qrels_table, rel := 1, duplicates := 'error')
AS TABLE
    SELECT g.*,
        MIN(g._hits - CASE WHEN g._rel >= rel THEN 1 ELSE 0 END) OVER (
            PARTITION BY g.query, g._score
        ) AS _tie_h,
        CASE WHEN g._pos - g._tie_s > g._tie_n - g._tie_r + 1 THEN CAST(0 AS DOUBLE)
             ELSE EXP(COALESCE(SUM(
                 CASE WHEN g._tie_n - g._tie_r - (g._pos - g._tie_s) + 1 > 0
                      THEN LN(CAST(g._tie_n - g._tie_r - (g._pos - g._tie_s) + 1 AS DOUBLE))
                           - LN(CAST(g._tie_n - (g._pos - g._tie_s) + 1 AS DOUBLE))
                      ELSE 0 END) OVER (
                 PARTITION BY g.query, g._score ORDER BY g._pos
                 ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
             ), 0)) END AS _tie_q
    FROM (
        SELECT j.*,
            COUNT(*) OVER (PARTITION BY j.query, j._score) AS _tie_n,
            MIN(j._pos) OVER (PARTITION BY j.query, j._score) - 1 AS _tie_s,
            SUM(CASE WHEN j._rel >= rel THEN 1 ELSE 0 END) OVER (
                PARTITION BY j.query, j._score
            ) AS _tie_r,
            AVG(CASE WHEN j._rel > 0 THEN j._rel ELSE 0 END) OVER (
                PARTITION BY j.query, j._score
            ) AS _tie_gain_linear,
            AVG(CASE WHEN j._rel > 0 THEN POWER(2.0, j._rel) - 1 ELSE 0 END) OVER (
                PARTITION BY j.query, j._score
            ) AS _tie_gain_exp
        FROM rankeval_joined(run_table, qrels_table, rel := rel, duplicates := duplicates) AS j
    ) AS g;

-- Parameter checks of the table macros, with the rules of polars_rankeval's Param (k a
-- positive integer or NULL, string parameters in their choices, numbers finite and in
-- their range): TRUE, or DuckDB's error() naming the macro, the parameter, its value and
-- what is allowed.  Only the table macros call them (a WHERE on constants): the engine
-- and polars_rankeval.sql.render() use the value macros, with parameters checked in Python.
CREATE OR REPLACE MACRO rankeval_text(x) AS COALESCE(CAST(x AS VARCHAR), 'NULL');

CREATE OR REPLACE MACRO rankeval_check(ok, message) AS
    CASE WHEN ok THEN TRUE ELSE error(message) END;

CREATE OR REPLACE MACRO rankeval_check_k(family, k) AS
    rankeval_check(
        k IS NULL OR (isfinite(CAST(k AS DOUBLE)) AND CAST(k AS DOUBLE) >= 1
                      AND CAST(k AS DOUBLE) = FLOOR(CAST(k AS DOUBLE))),
        'rankeval_' || family || ': k := ' || rankeval_text(k)
        || ' is not a positive integer: give a cutoff such as k := 10 (NULL: no cutoff)');

CREATE OR REPLACE MACRO rankeval_check_no_k(family, k) AS
    rankeval_check(k IS NULL,
        'rankeval_' || family || ': k := ' || rankeval_text(k) || ': ' || family
        || ' takes no rank cutoff, leave k NULL');

CREATE OR REPLACE MACRO rankeval_check_choice(family, name, value, ok, choices) AS
    rankeval_check(ok,
        'rankeval_' || family || ': ' || name || ' := ' || rankeval_text(value)
        || ' is not allowed, choose one of ' || choices);

CREATE OR REPLACE MACRO rankeval_check_number(family, name, value, ok, rule) AS
    rankeval_check(isfinite(CAST(value AS DOUBLE)) AND ok,
        'rankeval_' || family || ': ' || name || ' := ' || rankeval_text(value) || ': '
        || name || ' must be a finite number' || rule);

-- rankeval_joined plus what the gain measures (G, nDCG_rel, RnDCG) read, at each row:
--   _run_cg, _run_dcg   the run's gain (relevance > 0) and DCG at positions <= _pos
--   _ideal_cost, _ideal_dcg, _ideal_level_ends   rankeval_ideal_gains at _ideal_pos =
--                       _pos (NULL past the ideal ranking, position Npos)
CREATE OR REPLACE MACRO rankeval_gains(run_table, qrels_table, rel := 1, duplicates := 'error')
AS TABLE
    SELECT j.*,
        SUM(CASE WHEN j._rel > 0 THEN j._rel ELSE 0 END) OVER (
            PARTITION BY j.query ORDER BY j._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _run_cg,
        SUM(CASE WHEN j._rel > 0
                 THEN CAST(j._rel AS DOUBLE) / NULLIF(LN(CAST(j._pos AS DOUBLE) + 1) / LN(2.0), 0)
                 ELSE 0 END) OVER (
            PARTITION BY j.query ORDER BY j._pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _run_dcg,
        i._ideal_cost, i._ideal_dcg, i._ideal_level_ends
    FROM rankeval_joined(run_table, qrels_table, rel := rel, duplicates := duplicates) AS j
    LEFT JOIN rankeval_ideal_gains(qrels_table) AS i
        ON j.query = i.query AND j._pos = i._ideal_pos;

-- The C/W/L measures' gain (polars_rankeval/measures/cwl.py, cwl-eval and ir_measures'
-- cwl_eval provider): relevance clipped at 0, then to [min_rel, max_rel], scaled to
-- (rel - min_rel) / (max_rel - min_rel); an unjudged row (NULL) gains 0.
CREATE OR REPLACE MACRO rankeval_cwl_gain(rel_value, min_rel, max_rel) AS
    CASE WHEN rel_value IS NULL THEN 0
         ELSE CAST(LEAST(GREATEST(GREATEST(rel_value, 0), min_rel), max_rel) - min_rel AS DOUBLE)
              / NULLIF(max_rel - min_rel, 0) END;

-- A C/W/L measure's base weights b(i) summed over the positions lo < i <= hi (both
-- clipped to the depth of 1000 positions): 'square' b(i) = 1 / (i - 1 + 2T)^2 (INSQ, value
-- T), 'log' b(i) = 1 / log2(i + 1) (SDCG).  A scalar subquery over the positions.
CREATE OR REPLACE MACRO rankeval_cwl_weights(kind, value, lo, hi) AS
    (SELECT COALESCE(SUM(CASE WHEN kind = 'square'
                              THEN CAST(1 AS DOUBLE) / NULLIF(POWER(w.i - 1 + 2 * value, 2), 0)
                              ELSE CAST(1 AS DOUBLE) / NULLIF(LN(CAST(w.i AS DOUBLE) + 1) / LN(2.0), 0)
                         END), 0)
     FROM generate_series(1, 1000) AS w(i)
     WHERE w.i > lo AND w.i <= hi);

-- ---- AP.sql
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

-- ---- Accuracy.sql
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

-- ---- Bpref.sql
-- Bpref: binary preference, exactly trec_eval's m_bpref.c, twin of
-- polars_rankeval/measures/bpref.py.  (1/R) * sum over retrieved relevant r of
-- (1 - min(judged non-relevant above r, R) / min(N, R)); judged non-relevant = levels
-- 0 .. rel-1; unjudged items and negative judgments are skipped.  No cutoff: k is
-- ignored.
CREATE OR REPLACE MACRO rankeval_Bpref_value(pos, rel_value, nonrel, num_rel, num_nonrel, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel
                      THEN CASE WHEN nonrel > 0
                                THEN 1 - CAST(CASE WHEN nonrel < num_rel THEN nonrel
                                                   ELSE num_rel END AS DOUBLE)
                                         / NULLIF(CASE WHEN num_nonrel < num_rel THEN num_nonrel
                                                       ELSE num_rel END, 0)
                                ELSE 1 END
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Bpref(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Bpref', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_Bpref_value(j._pos, j._rel, j._nonrel, j._num_rel, j._num_nonrel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Bpref', k)
        AND rankeval_check_number('Bpref', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- ERR.sql
-- ERR: expected reciprocal rank (Chapelle et al. 2009), twin of
-- polars_rankeval/measures/err.py, as gdeval (ir_measures' ERR): sum over the top k of
-- R / position * (the probability of reaching the row, rankeval_joined's _err_decay:
-- the product of 1 - R over the rows above), R = (2^grade - 1) / 2^4, grade = relevance
-- clipped to 0..4 (unjudged and negative judgments: 0).  rel does not change it.
CREATE OR REPLACE MACRO rankeval_ERR_value(pos, rel_value, err_decay, k) AS
    COALESCE(
        SUM(CASE WHEN k IS NULL OR pos <= k
                 THEN CAST((POWER(2.0, CASE WHEN rel_value > 4 THEN 4 WHEN rel_value > 0
                                            THEN rel_value ELSE 0 END) - 1) * 0.0625
                           * err_decay AS DOUBLE)
                      / NULLIF(pos, 0)
                 ELSE 0 END),
        0);

CREATE OR REPLACE MACRO rankeval_ERR(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('ERR', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_ERR_value(j._pos, j._rel, j._err_decay, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('ERR', k)
        AND rankeval_check_number('ERR', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- F1.sql
-- F1: F measure, the weighted harmonic mean (beta + 1) P R / (beta P + R) of precision
-- and recall, twin of polars_rankeval/measures/f1.py (trec_eval set_F without a cutoff).
-- P = hits / d, d = k (P@k) or, without a cutoff, the number retrieved; R = hits / R;
-- so F = (beta + 1) hits / (beta R + d), 0 when nothing relevant is found.  beta is
-- trec_eval set_F's parameter (beta 1: F1).
CREATE OR REPLACE MACRO rankeval_F1_value(pos, rel_value, num_rel, k, rel, beta) AS
    COALESCE(
        CAST((beta + 1) * SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                   THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(beta * MAX(num_rel) + CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, 0),
        0);

CREATE OR REPLACE MACRO rankeval_F1(run_table, qrels_table, k := NULL, rel := 1, beta := 1)
AS TABLE
    SELECT j.query,
        rankeval_name('F1', CONCAT_WS(',',
            rankeval_param('beta', rankeval_number(beta), '1'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_F1_value(j._pos, j._rel, j._num_rel, k, rel, beta) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('F1', k)
        AND rankeval_check_number('F1', 'beta', beta, beta > 0, ' > 0')
        AND rankeval_check_number('F1', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- G.sql
-- G: normalised gain, twin of polars_rankeval/measures/g.py (trec_eval G, m_G.c):
-- sum over rows at position p <= k with gain g > 0 (gain = relevance) of
-- g / log2(2 + C(p) - CG(p)), divided by the sum of the judged gains; CG(p) = the run's
-- gain at positions <= p (run_cg), C(p) = the ideal ranking's cost at p (ideal_cost:
-- the sum of max(g*, 1) over ideal positions <= p), past Npos the whole cost (cost_sum)
-- plus 1 per position.
CREATE OR REPLACE MACRO rankeval_G_value(
    pos, rel_value, run_cg, ideal_cost, num_pos, gain_sum, cost_sum, k
) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                      THEN CAST(rel_value AS DOUBLE)
                           / NULLIF(LN(2 + CASE WHEN pos <= num_pos THEN ideal_cost
                                                ELSE cost_sum + pos - num_pos END
                                       - run_cg) / LN(2.0), 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(gain_sum), 0),
        0);

CREATE OR REPLACE MACRO rankeval_G(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('G', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_G_value(j._pos, j._rel, j._run_cg, j._ideal_cost, s._num_pos, s._ideal_gain,
                         s._ideal_cost, k) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- GMAP.sql
-- GMAP: geometric mean average precision, twin of polars_rankeval/measures/gmap.py
-- (trec_eval gm_map).  Per query: AP (sum over relevant items at position i <= k of
-- relevant in top i / i, divided by R); over queries the engines take the geometric
-- mean EXP(AVG(LN(max(AP, 0.00001)))).
CREATE OR REPLACE MACRO rankeval_GMAP_value(pos, rel_value, hits, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                      THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_GMAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('GMAP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_GMAP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('GMAP', k)
        AND rankeval_check_number('GMAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- GMBpref.sql
-- GMBpref: geometric mean of bpref, twin of polars_rankeval/measures/gmbpref.py
-- (trec_eval gm_bpref).  Per query: bpref, exactly rankeval_Bpref_value (sql/Bpref.sql);
-- over queries the engines take the geometric mean EXP(AVG(LN(max(bpref, 0.00001)))).
-- No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_GMBpref_value(pos, rel_value, nonrel, num_rel, num_nonrel, rel)
AS
    rankeval_Bpref_value(pos, rel_value, nonrel, num_rel, num_nonrel, rel);

CREATE OR REPLACE MACRO rankeval_GMBpref(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('GMBpref', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_GMBpref_value(j._pos, j._rel, j._nonrel, j._num_rel, j._num_nonrel, rel)
            AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('GMBpref', k)
        AND rankeval_check_number('GMBpref', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- INSQ.sql
-- INSQ (Moffat et al. 2012), twin of polars_rankeval/measures/cwl.py (cwl-eval): the
-- expected gain per item, sum over positions i <= 1000 of g_i / (i + 2T - 1)^2 divided
-- by the same sum with every gain 1; g = rankeval_cwl_gain (0 unjudged and past the
-- run).  No cutoff; rel does not change it.
CREATE OR REPLACE MACRO rankeval_INSQ_value(pos, rel_value, T, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CASE WHEN pos <= 1000
                           THEN CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel) AS DOUBLE)
                                / NULLIF(POWER(pos - 1 + 2 * T, 2), 0)
                           ELSE 0 END), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('square', T, 0, 1000), 0);

-- rankeval_INSQ_expected: the expected INSQ over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: INSQ is linear in the gains, so each row's
-- gain is spread evenly over its tie group's positions _tie_s + 1 .. _tie_s + _tie_n.
CREATE OR REPLACE MACRO rankeval_INSQ_expected(rel_value, tie_n, tie_s, T, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel)
                           * rankeval_cwl_weights('square', T, tie_s, tie_s + tie_n) AS DOUBLE)
                      / NULLIF(tie_n, 0)), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('square', T, 0, 1000), 0);

CREATE OR REPLACE MACRO rankeval_INSQ(
    run_table, qrels_table, k := NULL, rel := 1, T := 1, max_rel := 1, min_rel := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('INSQ', CONCAT_WS(',', rankeval_param('T', rankeval_number(T), '1'),
            rankeval_param('max_rel', rankeval_number(max_rel), '1'),
            rankeval_param('min_rel', rankeval_number(min_rel), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_INSQ_value(j._pos, j._rel, T, min_rel, max_rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('INSQ', k)
        AND rankeval_check_number('INSQ', 'T', T, T > 0, ' above 0')
        AND rankeval_check_number('INSQ', 'min_rel', min_rel, min_rel < max_rel,
            ' below max_rel')
        AND rankeval_check_number('INSQ', 'max_rel', max_rel, TRUE, '')
        AND rankeval_check_number('INSQ', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- IPrec.sql
-- IPrec: interpolated precision at a recall level, twin of
-- polars_rankeval/measures/iprec.py (trec_eval iprec_at_recall_0.00 ... 1.00).  The
-- best precision (relevant in top i / i) at a relevant row whose count of relevant
-- rows so far (hits) reaches c = FLOOR(recall * R + 0.5) (rounding 'v10', trec_eval
-- 10.0) or FLOOR(recall * R + 0.9) (rounding 'v9', trec_eval 9.x); 0 if fewer than c
-- are found.  No rank cutoff: k is ignored; the name prints the level after @.
CREATE OR REPLACE MACRO rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, recall, rounding)
AS
    COALESCE(
        MAX(CASE WHEN rel_value >= rel
                      AND hits >= FLOOR(recall * num_rel
                                        + CASE WHEN rounding = 'v9' THEN CAST(0.9 AS DOUBLE)
                                               ELSE CAST(0.5 AS DOUBLE) END)
                 THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) END),
        0);

CREATE OR REPLACE MACRO rankeval_IPrec(
    run_table, qrels_table, k := NULL, rel := 1, recall := 0, rounding := 'v10'
) AS TABLE
    SELECT j.query,
        rankeval_name('IPrec', CONCAT_WS(',', rankeval_param('rel', rankeval_number(rel), '1'),
            rankeval_param('rounding', rounding, 'v10')), NULL)
            || '@' || rankeval_number(recall) AS measure,
        rankeval_IPrec_value(j._pos, j._rel, j._hits, j._num_rel, rel, recall, rounding) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('IPrec', k)
        AND rankeval_check_number('IPrec', 'recall', recall, recall >= 0 AND recall <= 1, ' in [0, 1]')
        AND rankeval_check_choice('IPrec', 'rounding', rounding,
            CAST(rounding AS VARCHAR) IN ('v10', 'v9'), 'v10, v9')
        AND rankeval_check_number('IPrec', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- IPrec11pt.sql
-- IPrec11pt: 11-point interpolated average precision, twin of
-- polars_rankeval/measures/iprec11pt.py (trec_eval 11pt_avg): the mean of IPrec (see
-- IPrec.sql) at the recall levels 0.0, 0.1, ..., 1.0, with the same rounding.  No
-- cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_IPrec11pt_value(pos, rel_value, hits, num_rel, rel, rounding) AS
    CAST(
        rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.0 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.1 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.2 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.3 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.4 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.5 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.6 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.7 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.8 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(0.9 AS DOUBLE), rounding)
        + rankeval_IPrec_value(pos, rel_value, hits, num_rel, rel, CAST(1.0 AS DOUBLE), rounding)
        AS DOUBLE) / NULLIF(11, 0);

CREATE OR REPLACE MACRO rankeval_IPrec11pt(
    run_table, qrels_table, k := NULL, rel := 1, rounding := 'v10'
) AS TABLE
    SELECT j.query,
        rankeval_name('IPrec11pt', CONCAT_WS(',', rankeval_param('rel', rankeval_number(rel), '1'),
            rankeval_param('rounding', rounding, 'v10')), NULL) AS measure,
        rankeval_IPrec11pt_value(j._pos, j._rel, j._hits, j._num_rel, rel, rounding) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('IPrec11pt', k)
        AND rankeval_check_choice('IPrec11pt', 'rounding', rounding,
            CAST(rounding AS VARCHAR) IN ('v10', 'v9'), 'v10, v9')
        AND rankeval_check_number('IPrec11pt', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- Judged.sql
-- Judged: judged rows in the top k / rows retrieved in the top k (ir_measures Judged),
-- twin of polars_rankeval/measures/judged.py.  Judged = in the qrels with relevance
-- >= 0 (a negative judgment is "pooled but unjudged", as for trec_eval).  rel does not
-- change it.
CREATE OR REPLACE MACRO rankeval_Judged_value(pos, rel_value, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= 0 AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Judged(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Judged', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Judged_value(j._pos, j._rel, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Judged', k)
        AND rankeval_check_number('Judged', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- NumNonRelJudgedRet.sql
-- NumNonRelJudgedRet: judged non-relevant items retrieved (0 <= relevance < rel), twin of
-- polars_rankeval/measures/num_nonrel_judged_ret.py (trec_eval num_nonrel_judged_ret).
-- Aggregates as a sum.
CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet_value(rel_value, rel) AS
    CAST(SUM(CASE WHEN rel_value >= 0 AND rel_value < rel THEN 1 ELSE 0 END) AS DOUBLE);

-- With ties 'average' (over rows of rankeval_tied): the same, the order does not matter.
CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet_expected(rel_value, rel) AS
    rankeval_NumNonRelJudgedRet_value(rel_value, rel);

CREATE OR REPLACE MACRO rankeval_NumNonRelJudgedRet(
    run_table, qrels_table, k := NULL, rel := 1
) AS TABLE
    SELECT j.query,
        rankeval_name('NumNonRelJudgedRet', rankeval_param('rel', rankeval_number(rel), '1'),
                      NULL) AS measure,
        rankeval_NumNonRelJudgedRet_value(j._rel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('NumNonRelJudgedRet', k)
        AND rankeval_check_number('NumNonRelJudgedRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- NumQ.sql
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

-- ---- NumRel.sql
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

-- ---- NumRelRet.sql
-- NumRelRet: number of relevant items retrieved (within the top k), twin of
-- polars_rankeval/measures/counts.py (trec_eval num_rel_ret).  Aggregates as a sum.
CREATE OR REPLACE MACRO rankeval_NumRelRet_value(pos, rel_value, k, rel) AS
    CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END) AS DOUBLE);

-- rankeval_NumRelRet_expected: the expected count over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_NumRelRet_expected(pos, tie_n, tie_r, k) AS
    CAST(SUM(CASE WHEN k IS NULL OR pos <= k THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0)
                  ELSE 0 END) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_NumRelRet(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumRelRet', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_NumRelRet_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('NumRelRet', k)
        AND rankeval_check_number('NumRelRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- NumRet.sql
-- NumRet: number of items retrieved (within the top k), twin of
-- polars_rankeval/measures/counts.py (trec_eval num_ret).  Aggregates as a sum over
-- queries; rel does not change it.
CREATE OR REPLACE MACRO rankeval_NumRet_value(pos, k) AS
    CAST(SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END) AS DOUBLE);

-- With ties 'average' (over rows of rankeval_tied): the same, the order does not matter.
CREATE OR REPLACE MACRO rankeval_NumRet_expected(pos, k) AS
    rankeval_NumRet_value(pos, k);

CREATE OR REPLACE MACRO rankeval_NumRet(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('NumRet', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_NumRet_value(j._pos, k) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('NumRet', k)
        AND rankeval_check_number('NumRet', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- P.sql
-- P: precision at k, twin of polars_rankeval/measures/precision.py.
-- Relevant in the top k divided by k even when fewer were retrieved (norm 'k',
-- trec_eval P_k) or by the number retrieved within the cutoff (norm 'ret'); without a
-- cutoff, relevant retrieved / retrieved (trec_eval set_P).
CREATE OR REPLACE MACRO rankeval_P_value(pos, rel_value, k, rel, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(
            CASE WHEN k IS NULL THEN COUNT(pos)
                 WHEN norm = 'ret' THEN SUM(CASE WHEN pos <= k THEN 1 ELSE 0 END)
                 ELSE k END,
            0),
        0);

-- rankeval_P_expected: the expected P over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_P_expected(pos, tie_n, tie_r, k, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN k IS NULL THEN COUNT(pos)
                 WHEN norm = 'ret' THEN SUM(CASE WHEN pos <= k THEN 1 ELSE 0 END)
                 ELSE k END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_P(
    run_table, qrels_table, k := NULL, rel := 1, norm := 'k'
) AS TABLE
    SELECT j.query,
        rankeval_name('P', CONCAT_WS(',', rankeval_param('norm', norm, 'k'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_P_value(j._pos, j._rel, k, rel, norm) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('P', k)
        AND rankeval_check_choice('P', 'norm', norm,
            CAST(norm AS VARCHAR) IN ('k', 'ret'), 'k, ret')
        AND rankeval_check_number('P', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- R.sql
-- R: recall at k, twin of polars_rankeval/measures/recall.py.
-- Relevant in the top k divided by R (norm 'R', trec_eval recall_k) or min(R, k)
-- (norm 'min'); 0 for a query without relevant items.
CREATE OR REPLACE MACRO rankeval_R_value(pos, rel_value, num_rel, k, rel, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

-- rankeval_R_expected: the expected R over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_R_expected(pos, tie_n, tie_r, num_rel, k, norm) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN norm = 'min' AND k IS NOT NULL AND k < MAX(num_rel) THEN k
                 ELSE MAX(num_rel) END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_R(
    run_table, qrels_table, k := NULL, rel := 1, norm := 'R'
) AS TABLE
    SELECT j.query,
        rankeval_name('R', CONCAT_WS(',', rankeval_param('norm', norm, 'R'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_R_value(j._pos, j._rel, j._num_rel, k, rel, norm) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('R', k)
        AND rankeval_check_choice('R', 'norm', norm,
            CAST(norm AS VARCHAR) IN ('R', 'min'), 'R, min')
        AND rankeval_check_number('R', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- RBP.sql
-- RBP: rank-biased precision, twin of polars_rankeval/measures/rbp.py (trec_eval 10 rbp).
-- (1 - p) * sum over the top k of gain * p^(position - 1); gain 'graded' = relevance /
-- max(1, the query's highest judged level max_rel) (trec_eval; unjudged and negative
-- judgments gain 0; rel is ignored), 'binary' = 1 when relevance >= rel.
CREATE OR REPLACE MACRO rankeval_RBP_value(pos, rel_value, max_rel, k, rel, p, gain) AS
    (1 - p) * COALESCE(
        SUM(CASE WHEN k IS NULL OR pos <= k
                 THEN CASE WHEN gain = 'binary'
                           THEN CASE WHEN rel_value >= rel THEN 1 ELSE 0 END
                           WHEN rel_value > 0
                           THEN CAST(rel_value AS DOUBLE)
                                / NULLIF(CASE WHEN max_rel > 1 THEN max_rel ELSE 1 END, 0)
                           ELSE 0 END
                      * POWER(p, pos - 1)
                 ELSE 0 END),
        0);

CREATE OR REPLACE MACRO rankeval_RBP(
    run_table, qrels_table, k := NULL, rel := 1, p := 0.9, gain := 'graded'
) AS TABLE
    SELECT j.query,
        rankeval_name('RBP', CONCAT_WS(',', rankeval_param('gain', gain, 'graded'),
            rankeval_param('p', rankeval_number(p), '0.9'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_RBP_value(j._pos, j._rel, s._max_rel, k, rel, p, gain) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN (
        SELECT q.query, MAX(CASE WHEN q.relevance >= 0 THEN q.relevance END) AS _max_rel
        FROM query_table(qrels_table) AS q
        GROUP BY q.query
    ) AS s ON j.query = s.query
    WHERE rankeval_check_k('RBP', k)
        AND rankeval_check_number('RBP', 'p', p, p > 0 AND p < 1, ' in (0, 1)')
        AND rankeval_check_choice('RBP', 'gain', gain,
            CAST(gain AS VARCHAR) IN ('graded', 'binary'), 'graded, binary')
        AND rankeval_check_number('RBP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- RBP_resid.sql
-- RBP_resid: the residual of RBP, twin of polars_rankeval/measures/rbp_resid.py
-- (trec_eval 10 rbp_resid): p^n + (1 - p) * sum over the unjudged retrieved rows (not
-- in the qrels, or a negative judgment) of p^(position - 1), n = the last position;
-- 0 when every retrieved row is judged.  No cutoff: k is ignored; rel does not change it.
CREATE OR REPLACE MACRO rankeval_RBP_resid_value(pos, rel_value, p) AS
    CASE WHEN SUM(CASE WHEN rel_value IS NULL OR rel_value < 0 THEN 1 ELSE 0 END) > 0
         THEN POWER(p, MAX(pos))
              + (1 - p) * SUM(CASE WHEN rel_value IS NULL OR rel_value < 0
                                   THEN POWER(p, pos - 1) ELSE 0 END)
         ELSE 0 END;

CREATE OR REPLACE MACRO rankeval_RBP_resid(run_table, qrels_table, k := NULL, rel := 1, p := 0.9)
AS TABLE
    SELECT j.query,
        rankeval_name('RBP_resid', CONCAT_WS(',', rankeval_param('p', rankeval_number(p), '0.9'),
            rankeval_param('rel', rankeval_number(rel), '1')), NULL) AS measure,
        rankeval_RBP_resid_value(j._pos, j._rel, p) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('RBP_resid', k)
        AND rankeval_check_number('RBP_resid', 'p', p, p > 0 AND p < 1, ' in (0, 1)')
        AND rankeval_check_number('RBP_resid', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- RR.sql
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

-- ---- RelP.sql
-- RelP: relative precision, twin of polars_rankeval/measures/relp.py (trec_eval
-- relative_P_k, set_relative_P): relevant in the top k / min(k, R), k even when fewer
-- were retrieved; without a cutoff relevant retrieved / min(retrieved, R); 0 when R = 0.
CREATE OR REPLACE MACRO rankeval_RelP_value(pos, rel_value, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
             AS DOUBLE)
        / NULLIF(LEAST(CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, MAX(num_rel)), 0),
        0);

-- rankeval_RelP_expected: over rows of rankeval_tied (ties 'average'): relevant replaced
-- by r / n of the row's tie group; the denominator does not depend on the order.
CREATE OR REPLACE MACRO rankeval_RelP_expected(pos, tie_n, tie_r, num_rel, k) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0) ELSE 0 END) AS DOUBLE)
        / NULLIF(LEAST(CASE WHEN k IS NULL THEN COUNT(pos) ELSE k END, MAX(num_rel)), 0),
        0);

CREATE OR REPLACE MACRO rankeval_RelP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RelP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_RelP_value(j._pos, j._rel, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('RelP', k)
        AND rankeval_check_number('RelP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- RnDCG.sql
-- RnDCG: nDCG averaged over the ends of the ideal ranking's gain levels, twin of
-- polars_rankeval/measures/rndcg.py (trec_eval Rndcg, m_Rndcg.c): the mean of
-- DCG(min(b, n)) / IDCG(b) over the ends b (b <= Npos, next ideal gain lower), plus
-- DCG(n) / IDCG(Npos) when n >= Npos + 2 (n = rows in the top k); 0 when R = 0.  The sum
-- over ends is taken per row: each row's DCG share times ideal_level_ends, the sum over
-- the ends at or below its position of 1 / IDCG(b).
CREATE OR REPLACE MACRO rankeval_RnDCG_value(
    pos, rel_value, ideal_level_ends, num_rel, num_pos, idcg, gain_levels, k, rel
) AS
    CASE WHEN MAX(num_rel) > 0 THEN COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k) AND pos <= num_pos
                      THEN CAST(rel_value AS DOUBLE)
                           / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
                           * ideal_level_ends
                      ELSE 0 END)
             + CASE WHEN MAX(num_pos) >= 1
                         AND SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END)
                             >= MAX(num_pos) + 2
                    THEN COALESCE(CAST(rankeval_dcg(rel_value, pos, k, 'linear') AS DOUBLE)
                                  / NULLIF(MAX(idcg), 0), 0)
                    ELSE 0 END
             AS DOUBLE)
        / NULLIF(MAX(gain_levels)
                 + CASE WHEN MAX(num_pos) >= 1
                             AND SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END)
                                 >= MAX(num_pos) + 2
                        THEN 1 ELSE 0 END, 0),
        0) ELSE 0 END;

CREATE OR REPLACE MACRO rankeval_RnDCG(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('RnDCG', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_RnDCG_value(j._pos, j._rel, j._ideal_level_ends, j._num_rel, s._num_pos,
                             i._idcg, s._gain_levels, k, rel) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    LEFT JOIN rankeval_idcg(qrels_table) AS i ON j.query = i.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- Rprec.sql
-- Rprec: precision at position R (relevant in the top R / R), twin of
-- polars_rankeval/measures/rprec.py (trec_eval Rprec).  No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_Rprec_value(pos, rel_value, num_rel, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND pos <= num_rel THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

-- rankeval_Rprec_expected: the expected Rprec over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: relevant replaced by r / n of the row's tie
-- group (n rows, r relevant).
CREATE OR REPLACE MACRO rankeval_Rprec_expected(pos, tie_n, tie_r, num_rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN pos <= num_rel THEN CAST(tie_r AS DOUBLE) / NULLIF(tie_n, 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Rprec(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Rprec', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_Rprec_value(j._pos, j._rel, j._num_rel, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Rprec', k)
        AND rankeval_check_number('Rprec', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- Rprec_mult.sql
-- Rprec_mult: precision at position c = floor(mult * R + 0.9) (trec_eval's rounding),
-- twin of polars_rankeval/measures/rprec_mult.py (trec_eval Rprec_mult_0.20 ...
-- Rprec_mult_2.00): relevant in the top c / c, 0 when c = 0.  No cutoff: k is ignored.
CREATE OR REPLACE MACRO rankeval_Rprec_mult_value(pos, rel_value, num_rel, rel, mult) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel
                           AND pos <= FLOOR(mult * num_rel + CAST(0.9 AS DOUBLE))
                      THEN 1 ELSE 0 END) AS DOUBLE)
        / NULLIF(FLOOR(mult * MAX(num_rel) + CAST(0.9 AS DOUBLE)), 0),
        0);

CREATE OR REPLACE MACRO rankeval_Rprec_mult(
    run_table, qrels_table, k := NULL, rel := 1, mult := 1
) AS TABLE
    SELECT j.query,
        rankeval_name('Rprec_mult', CONCAT_WS(',',
            rankeval_param('mult', rankeval_number(mult), '1'),
            rankeval_param('rel', rankeval_number(rel), '1')), NULL) AS measure,
        rankeval_Rprec_mult_value(j._pos, j._rel, j._num_rel, rel, mult) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('Rprec_mult', k)
        AND rankeval_check_number('Rprec_mult', 'mult', mult, mult > 0, ' > 0')
        AND rankeval_check_number('Rprec_mult', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- SDCG.sql
-- SDCG (cwl-eval's NDCG-k), twin of polars_rankeval/measures/cwl.py: DCG of the top k
-- (k <= 1000, 1000 without a cutoff) divided by the DCG of k items of gain 1, sum over
-- i <= k of g_i / log2(i + 1) / sum over i <= k of 1 / log2(i + 1); g =
-- rankeval_cwl_gain (0 unjudged).  rel does not change it.
CREATE OR REPLACE MACRO rankeval_SDCG_value(pos, rel_value, k, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CASE WHEN pos <= LEAST(COALESCE(k, 1000), 1000)
                           THEN CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel) AS DOUBLE)
                                / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
                           ELSE 0 END), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('log', 0, 0, LEAST(COALESCE(k, 1000), 1000)), 0);

-- rankeval_SDCG_expected: the expected SDCG over every ordering of tied rows (ties
-- 'average'), over rows of rankeval_tied: each row's gain spread evenly over its tie
-- group's positions _tie_s + 1 .. _tie_s + _tie_n (those within k weigh).
CREATE OR REPLACE MACRO rankeval_SDCG_expected(rel_value, tie_n, tie_s, k, min_rel, max_rel) AS
    CAST(COALESCE(SUM(CAST(rankeval_cwl_gain(rel_value, min_rel, max_rel)
                           * rankeval_cwl_weights('log', 0, tie_s,
                                                  LEAST(tie_s + tie_n, COALESCE(k, 1000))) AS DOUBLE)
                      / NULLIF(tie_n, 0)), 0) AS DOUBLE)
    / NULLIF(rankeval_cwl_weights('log', 0, 0, LEAST(COALESCE(k, 1000), 1000)), 0);

CREATE OR REPLACE MACRO rankeval_SDCG(
    run_table, qrels_table, k := NULL, rel := 1, max_rel := 1, min_rel := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('SDCG', CONCAT_WS(',', rankeval_param('max_rel', rankeval_number(max_rel), '1'),
            rankeval_param('min_rel', rankeval_number(min_rel), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_SDCG_value(j._pos, j._rel, k, min_rel, max_rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('SDCG', k)
        AND rankeval_check_number('SDCG', 'min_rel', min_rel, min_rel < max_rel,
            ' below max_rel')
        AND rankeval_check_number('SDCG', 'max_rel', max_rel, TRUE, '')
        AND rankeval_check_number('SDCG', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- SetAP.sql
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

-- ---- Success.sql
-- Success: 1 if a relevant item is in the top k, else 0 (hit rate), twin of
-- polars_rankeval/measures/success.py (trec_eval success_k).
CREATE OR REPLACE MACRO rankeval_Success_value(pos, rel_value, k, rel) AS
    CAST(MAX(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END)
         AS DOUBLE);

-- rankeval_Success_expected: the probability of a relevant item in the top k over every
-- ordering of tied rows (ties 'average'), over rows of rankeval_tied: 1 - P(none at
-- positions <= the last row within k); at the j-th position of a tie group of n rows,
-- r relevant, none above: P(none through j) = Q(j) (n - r - j + 1) / (n - j + 1).
CREATE OR REPLACE MACRO rankeval_Success_expected(pos, tie_n, tie_s, tie_r, tie_h, tie_q, k) AS
    CAST(1 AS DOUBLE)
    - COALESCE(
        MIN(CASE WHEN k IS NULL OR pos <= k
                 THEN CASE WHEN tie_h > 0 THEN CAST(0 AS DOUBLE)
                           ELSE CAST(tie_q * (tie_n - tie_r - (pos - tie_s) + 1) AS DOUBLE)
                                / NULLIF(tie_n - (pos - tie_s) + 1, 0) END
                 END),
        1);

CREATE OR REPLACE MACRO rankeval_Success(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('Success', rankeval_param('rel', rankeval_number(rel), '1'), k)
            AS measure,
        rankeval_Success_value(j._pos, j._rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Success', k)
        AND rankeval_check_number('Success', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- Unjudged.sql
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

-- ---- Utility.sql
-- Utility: set utility, twin of polars_rankeval/measures/utility.py (trec_eval utility,
-- m_utility.c).  With h = relevant retrieved, n = retrieved (in the top k), R = relevant:
-- a h + b (n - h) + c (R - h) + d (docs + h - n - R); trec_eval's defaults a, b, c, d =
-- 1, -1, 0, 0 and docs (its -N) = 0.  Retrieved items that are not relevant, unjudged
-- ones included, are n - h.
CREATE OR REPLACE MACRO rankeval_Utility_util(hits, n, num_rel, a, b, c, d, docs) AS
    a * hits + b * (n - hits) + c * (num_rel - hits) + d * (docs + hits - n - num_rel);

CREATE OR REPLACE MACRO rankeval_Utility_value(pos, rel_value, num_rel, k, rel, a, b, c, d, docs)
AS
    CAST(rankeval_Utility_util(
        SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k) THEN 1 ELSE 0 END),
        SUM(CASE WHEN k IS NULL OR pos <= k THEN 1 ELSE 0 END),
        MAX(num_rel), a, b, c, d, docs) AS DOUBLE);

CREATE OR REPLACE MACRO rankeval_Utility(
    run_table, qrels_table, k := NULL, rel := 1, a := 1, b := -1, c := 0, d := 0, docs := 0
) AS TABLE
    SELECT j.query,
        rankeval_name('Utility', CONCAT_WS(',',
            rankeval_param('a', rankeval_number(a), '1'),
            rankeval_param('b', rankeval_number(b), '-1'),
            rankeval_param('c', rankeval_number(c), '0'),
            rankeval_param('d', rankeval_number(d), '0'),
            rankeval_param('docs', rankeval_number(docs), '0'),
            rankeval_param('rel', rankeval_number(rel), '1')), k) AS measure,
        rankeval_Utility_value(j._pos, j._rel, j._num_rel, k, rel, a, b, c, d, docs) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('Utility', k)
        AND rankeval_check_number('Utility', 'a', a, TRUE, '')
        AND rankeval_check_number('Utility', 'b', b, TRUE, '')
        AND rankeval_check_number('Utility', 'c', c, TRUE, '')
        AND rankeval_check_number('Utility', 'd', d, TRUE, '')
        AND rankeval_check_number('Utility', 'docs', docs, docs >= 0, ' >= 0')
        AND rankeval_check_number('Utility', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- YAAP.sql
-- YAAP: yet another average precision, twin of polars_rankeval/measures/yaap.py
-- (trec_eval yaap, m_yaap.c): log((1 + S) / (1 + R - S)), S = sum over relevant items at
-- position i <= k of (relevant in top i / i); log(1 / (1 + R)) when none is retrieved.
-- rankeval_YAAP_value is an aggregate over the rows of one query of rankeval_joined.
CREATE OR REPLACE MACRO rankeval_YAAP_value(pos, rel_value, hits, num_rel, k, rel) AS
    LN(CAST(1 + COALESCE(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                              THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END), 0)
            AS DOUBLE)
       -- S <= relevant retrieved <= R: the denominator is at least 1
       / NULLIF(1 + MAX(num_rel)
            - COALESCE(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                                THEN CAST(hits AS DOUBLE) / NULLIF(pos, 0) ELSE 0 END), 0),
                0));

CREATE OR REPLACE MACRO rankeval_YAAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('YAAP', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_YAAP_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('YAAP', k)
        AND rankeval_check_number('YAAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- binG.sql
-- binG: binary G, twin of polars_rankeval/measures/bing.py (trec_eval binG, m_binG.c):
-- (1/R) * sum over relevant rows at position p <= k of 1 / log2(2 + p - hits), hits =
-- relevant rows at positions <= p (so p - hits: the non-relevant rows above).
CREATE OR REPLACE MACRO rankeval_binG_value(pos, rel_value, hits, num_rel, k, rel) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND (k IS NULL OR pos <= k)
                      THEN CAST(1 AS DOUBLE)
                           / NULLIF(LN(CAST(2 + pos - hits AS DOUBLE)) / LN(2.0), 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_binG(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('binG', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_binG_value(j._pos, j._rel, j._hits, j._num_rel, k, rel) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_k('binG', k)
        AND rankeval_check_number('binG', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- infAP.sql
-- infAP: inferred average precision, exactly trec_eval's m_infap.c, twin of
-- polars_rankeval/measures/infap.py.  (1/R) * sum over retrieved relevant rows at
-- position p of: 1 at p = 1, else 1/p + (p-1)/p * (pooled above / (p-1))
-- * (relevant above + 0.00001) / (relevant above + judged non-relevant above + 0.00002),
-- pooled = in the qrels (also a negative judgment: pooled but not judged).  No cutoff:
-- k is ignored.
CREATE OR REPLACE MACRO rankeval_infAP_value(pos, rel_value, hits, nonrel, pooled, num_rel, rel)
AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value >= rel AND pos = 1 THEN 1
                      WHEN rel_value >= rel
                      THEN CAST(1 AS DOUBLE) / NULLIF(pos, 0)
                           + CAST(pos - 1 AS DOUBLE) / NULLIF(pos, 0)
                             * (CAST(pooled - 1 AS DOUBLE) / NULLIF(pos - 1, 0))
                             * (CAST(hits - 1 + CAST(0.00001 AS DOUBLE) AS DOUBLE)
                                / NULLIF(hits - 1 + nonrel + CAST(0.00002 AS DOUBLE), 0))
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(MAX(num_rel), 0),
        0);

CREATE OR REPLACE MACRO rankeval_infAP(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('infAP', rankeval_param('rel', rankeval_number(rel), '1'), NULL)
            AS measure,
        rankeval_infAP_value(j._pos, j._rel, j._hits, j._nonrel, j._pooled, j._num_rel, rel)
            AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    WHERE rankeval_check_no_k('infAP', k)
        AND rankeval_check_number('infAP', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- nDCG.sql
-- nDCG: normalised discounted cumulative gain, twin of polars_rankeval/measures/ndcg.py.
-- DCG of the top k (gain / log2(position + 1)) divided by the DCG of the ideal ranking
-- of all judged items of the query, cut at k (ideal 'qrels', trec_eval ndcg_cut_k), or
-- of the retrieved rows only (ideal 'run').  gain 'linear' = relevance (trec_eval),
-- 'exp' = 2^relevance - 1.  rel does not change the gains (as trec_eval).
-- idcg is the query's ideal DCG (rankeval_idcg), used with ideal 'qrels'.
CREATE OR REPLACE MACRO rankeval_nDCG_value(pos, rel_value, ideal_pos, idcg, k, rel, gain, ideal)
AS
    COALESCE(
        CAST(rankeval_dcg(rel_value, pos, k, gain) AS DOUBLE)
        / NULLIF(
            CASE WHEN ideal = 'run' THEN rankeval_dcg(rel_value, ideal_pos, k, gain)
                 ELSE MAX(idcg) END,
            0),
        0);

-- rankeval_nDCG_expected: the expected nDCG over every ordering of tied rows (ties
-- 'average'; sklearn's and torchmetrics' nDCG), over rows of rankeval_tied: each gain
-- replaced by the mean gain of the row's tie group; the ideal does not depend on the order.
CREATE OR REPLACE MACRO rankeval_nDCG_expected(
    pos, rel_value, ideal_pos, tie_gain_linear, tie_gain_exp, idcg, k, gain, ideal
) AS
    COALESCE(
        CAST(SUM(CASE WHEN k IS NULL OR pos <= k
                      THEN CAST(CASE WHEN gain = 'exp' THEN tie_gain_exp ELSE tie_gain_linear END
                                AS DOUBLE)
                           / NULLIF(LN(CAST(pos AS DOUBLE) + 1) / LN(2.0), 0)
                      ELSE 0 END) AS DOUBLE)
        / NULLIF(
            CASE WHEN ideal = 'run' THEN rankeval_dcg(rel_value, ideal_pos, k, gain)
                 ELSE MAX(idcg) END,
            0),
        0);

CREATE OR REPLACE MACRO rankeval_nDCG(
    run_table, qrels_table, k := NULL, rel := 1, gain := 'linear', ideal := 'qrels'
) AS TABLE
    SELECT j.query,
        rankeval_name('nDCG', CONCAT_WS(',', rankeval_param('gain', gain, 'linear'),
            rankeval_param('ideal', ideal, 'qrels'),
            rankeval_param('rel', rankeval_number(rel), '1')),
            k) AS measure,
        rankeval_nDCG_value(j._pos, j._rel, j._ideal_pos, s._idcg, k, rel, gain, ideal) AS value
    FROM rankeval_joined(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_idcg(qrels_table, k := k, gain := gain) AS s ON j.query = s.query
    WHERE rankeval_check_k('nDCG', k)
        AND rankeval_check_choice('nDCG', 'gain', gain,
            CAST(gain AS VARCHAR) IN ('linear', 'exp'), 'linear, exp')
        AND rankeval_check_choice('nDCG', 'ideal', ideal,
            CAST(ideal AS VARCHAR) IN ('qrels', 'run'), 'qrels, run')
        AND rankeval_check_number('nDCG', 'rel', rel, TRUE, '')
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;

-- ---- nDCG_rel.sql
-- nDCG_rel: nDCG averaged over the items with a positive gain, twin of
-- polars_rankeval/measures/ndcg_rel.py (trec_eval ndcg_rel, m_ndcg_rel.c):
-- (1/Npos) * (sum over rows at p <= k with gain > 0 of DCG(p) / IDCG(min(p, Npos))
-- + (Npos - those rows) * DCG(n) / IDCG(Npos)), gain = relevance; run_dcg is DCG(p),
-- ideal_dcg IDCG(p) up to Npos, idcg the whole ideal DCG.
CREATE OR REPLACE MACRO rankeval_nDCG_rel_value(
    pos, rel_value, run_dcg, ideal_dcg, num_pos, idcg, k
) AS
    COALESCE(
        CAST(SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                      THEN CAST(run_dcg AS DOUBLE)
                           / NULLIF(CASE WHEN pos <= num_pos THEN ideal_dcg ELSE idcg END, 0)
                      ELSE 0 END)
             + (MAX(num_pos) - SUM(CASE WHEN rel_value > 0 AND (k IS NULL OR pos <= k)
                                        THEN 1 ELSE 0 END))
               * COALESCE(CAST(rankeval_dcg(rel_value, pos, k, 'linear') AS DOUBLE)
                          / NULLIF(MAX(idcg), 0), 0)
             AS DOUBLE)
        / NULLIF(MAX(num_pos), 0),
        0);

CREATE OR REPLACE MACRO rankeval_nDCG_rel(run_table, qrels_table, k := NULL, rel := 1) AS TABLE
    SELECT j.query,
        rankeval_name('nDCG_rel', rankeval_param('rel', rankeval_number(rel), '1'), k) AS measure,
        rankeval_nDCG_rel_value(j._pos, j._rel, j._run_dcg, j._ideal_dcg, s._num_pos, i._idcg,
                                k) AS value
    FROM rankeval_gains(run_table, qrels_table, rel := rel) AS j
    LEFT JOIN rankeval_gain_stats(qrels_table) AS s ON j.query = s.query
    LEFT JOIN rankeval_idcg(qrels_table) AS i ON j.query = i.query
    GROUP BY j.query
    HAVING MAX(j._num_rel) IS NOT NULL;
