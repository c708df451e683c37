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
