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
