{#- The few places where SQL dialects differ, dispatched per adapter (the default is
    portable SQL: PostgreSQL and most warehouses). -#}
{% macro double() %}{{ return(adapter.dispatch('double', 'rankeval')()) }}{% endmacro %}
{% macro default__double() %}DOUBLE PRECISION{% endmacro %}
{% macro duckdb__double() %}DOUBLE{% endmacro %}
{% macro spark__double() %}DOUBLE{% endmacro %}
{% macro bigquery__double() %}FLOAT64{% endmacro %}
{% macro snowflake__double() %}DOUBLE{% endmacro %}

{% macro text() %}{{ return(adapter.dispatch('text', 'rankeval')()) }}{% endmacro %}
{% macro default__text() %}VARCHAR{% endmacro %}
{% macro spark__text() %}STRING{% endmacro %}
{% macro bigquery__text() %}STRING{% endmacro %}

{#- raise the message (a SQL string expression) at run time, from inside a CASE -#}
{% macro fail(message) %}{{ return(adapter.dispatch('fail', 'rankeval')(message)) }}{% endmacro %}
{% macro default__fail(message) %}CAST(({{ message }}) AS INTEGER){% endmacro %}
{% macro duckdb__fail(message) %}error({{ message }}){% endmacro %}
{% macro spark__fail(message) %}raise_error({{ message }}){% endmacro %}
{% macro bigquery__fail(message) %}ERROR({{ message }}){% endmacro %}

{#- the score as trec_eval compares it: single precision (where the warehouse has it) -#}
{% macro real(x) %}{{ return(adapter.dispatch('real', 'rankeval')(x)) }}{% endmacro %}
{% macro default__real(x) %}CAST(CAST({{ x }} AS REAL) AS {{ rankeval.double() }}){% endmacro %}
{% macro spark__real(x) %}CAST(CAST({{ x }} AS FLOAT) AS DOUBLE){% endmacro %}
{% macro bigquery__real(x) %}CAST({{ x }} AS FLOAT64){% endmacro %}
{% macro snowflake__real(x) %}CAST({{ x }} AS DOUBLE){% endmacro %}

{#- is x a finite number (not NaN or infinite)? -#}
{% macro finite(x) %}{{ return(adapter.dispatch('finite', 'rankeval')(x)) }}{% endmacro %}
{% macro default__finite(x) %}({{ x }} IS NOT NULL){% endmacro %}
{% macro duckdb__finite(x) %}isfinite({{ x }}){% endmacro %}
{% macro postgres__finite(x) %}({{ x }} IS NOT NULL AND {{ x }} NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)){% endmacro %}
{% macro spark__finite(x) %}({{ x }} IS NOT NULL AND NOT isnan({{ x }}) AND abs({{ x }}) <> double('infinity')){% endmacro %}
{% macro bigquery__finite(x) %}({{ x }} IS NOT NULL AND NOT IS_NAN({{ x }}) AND NOT IS_INF({{ x }})){% endmacro %}

{#- the same as fail(), around a message written in between (it may hold Jinja) -#}
{% macro fail_open() %}{{ return(adapter.dispatch('fail_open', 'rankeval')()) }}{% endmacro %}
{% macro default__fail_open() %}CAST(({% endmacro %}
{% macro duckdb__fail_open() %}error({% endmacro %}
{% macro spark__fail_open() %}raise_error({% endmacro %}
{% macro bigquery__fail_open() %}ERROR({% endmacro %}
{% macro fail_close() %}{{ return(adapter.dispatch('fail_close', 'rankeval')()) }}{% endmacro %}
{% macro default__fail_close() %}) AS INTEGER){% endmacro %}
{% macro duckdb__fail_close() %}){% endmacro %}
{% macro spark__fail_close() %}){% endmacro %}
{% macro bigquery__fail_close() %}){% endmacro %}

{#- an id as text that sorts in byte order (trec_eval's tie break), whatever the
    database's default collation -#}
{% macro bytes_order(x) %}{{ return(adapter.dispatch('bytes_order', 'rankeval')(x)) }}{% endmacro %}
{% macro default__bytes_order(x) %}CAST({{ x }} AS {{ rankeval.text() }}){% endmacro %}
{% macro postgres__bytes_order(x) %}CAST({{ x }} AS TEXT) COLLATE "C"{% endmacro %}
