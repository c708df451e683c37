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
        WHEN s._family IN ({{DIVERSITY_FAMILIES}}) AND subtopic IS NULL
            THEN error('measure ''' || s._name || ''' is a diversity measure: it needs subtopic'
                       || ' qrels (query, subtopic, item, relevance); pass subtopic := '
                       || '''subtopic'' (the qrels column naming the subtopic)')
        WHEN s._family IN ('alpha_DCG', 'ERR_IA') AND s._k IS NULL
            THEN error('measure ''' || s._name || ''' needs a cutoff, e.g. ' || s._family
                       || '@20 (ndeval''s 5, 10, 20)')
        WHEN ties <> 'average' THEN s._family
        WHEN s._family NOT IN ({{AVERAGE_FAMILIES}})
            THEN error('measure ''' || s._name || ''' does not support ties=''average'''
                       || ' (measures that do: ' || {{AVERAGE_LIST}} || '); use ties := ''first''')
        WHEN s._family = 'AP' AND s._p_norm = 'hits' AND s._k IS NOT NULL
            THEN error('measure ''' || s._name || ''': with ties=''average'' the norm=hits'
                       || ' denominator (relevant items in the top k) depends on the order of'
                       || ' a tie group across position k; use norm=R or norm=min, no cutoff,'
                       || ' or ties := ''first''')
        ELSE s._family END AS _family)
    FROM rankeval_measure_specs(measures, conventions := conventions, rel := rel) AS s
),
{{COMPUTE}}
SELECT v._g, n._qs, v._q, v._idx, v._name AS measure, v._agg, v._value AS value
-- the values of the usual families' CTEs alone where the call asks for no other
-- (_sqlentry._values_sql): the CTE named here is the only one bound, with what it reads
FROM query_table(CASE WHEN {{USUAL_ONLY}} THEN '_values_usual' ELSE '_values' END) AS v
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
            {{SUMMARY}} AS value
        FROM rankeval_rows(run_table, qrels_table, rankeval_measures_or_default(measures, k, rel), "by" := "by", query := query,
            item := item, score := score, rank := rank, relevance := relevance, rel := rel,
            complete := complete, conventions := conventions, ties := ties, top := top,
            duplicates := duplicates, subtopic := subtopic,
            intent_weight := intent_weight, given_measures := measures) AS x
        GROUP BY x._g, x._idx, x.measure
    ) AS s
)
ORDER BY __rk_og, __rk_oi;
