-- A retrieval dashboard in the DuckDB CLI: one row per (system, day, measure).
-- Run from the repository root:   duckdb < examples/duckdb_dashboard.sql
-- (the duckdb-cli package on PyPI provides the CLI; DuckDB 1.5 or later).
.read sql/rankeval.sql

-- An analytics engineer's tables: runs(system, day, qid, doc_id, sim) and
-- judgments(qid, doc_id, grade); here three TREC run files of one day.
CREATE OR REPLACE VIEW runs AS
SELECT t.tag AS system, DATE '2026-11-23' AS day, t.qid, t.doc_id, t.sim
FROM read_csv('examples/data/compare/*.run', delim = ' ', header = false,
              columns = {'qid': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR',
                         'rank': 'INTEGER', 'sim': 'DOUBLE', 'tag': 'VARCHAR'}) AS t;
CREATE OR REPLACE VIEW judgments AS
SELECT qid, doc_id, grade
FROM read_csv('examples/data/compare/qrels.txt', delim = ' ', header = false,
              columns = {'qid': 'VARCHAR', 'iter': 'VARCHAR', 'doc_id': 'VARCHAR',
                         'grade': 'INTEGER'});

-- The dashboard: one statement.
SELECT *
FROM rankeval_summary('runs', 'judgments',
    ['MAP', 'nDCG@10', 'nDCG@20', 'P@5', 'P@10', 'Recall@100', 'MRR'],
    by := ['system', 'day'], query := 'qid', item := 'doc_id', score := 'sim',
    relevance := 'grade');
