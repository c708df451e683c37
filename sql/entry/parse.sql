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
        {{SPEC_COLUMNS}}
    FROM (SELECT x._idx, x.param, x._value AS value FROM resolved AS x) AS v
    GROUP BY v._idx
) AS s ON s._idx = r._idx;
