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
