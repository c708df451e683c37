"""The SQL twin: the ``sql/`` files' macros (:mod:`.build`: one evaluation query over
them, executed by the DuckDB engine) and their rendering for warehouses
(:mod:`.render`: inlined and transpiled with sqlglot)."""
