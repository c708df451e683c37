-- One row per (system, day, query, measure).
{{ rankeval.evaluate(ref('runs'), ref('judgments'),
    ['MAP', 'nDCG@10', 'nDCG@20', 'P@5', 'P@10', 'Recall@100', 'MRR'],
    by=['system', 'day'], query='qid', item='doc_id', score='sim', relevance='grade',
    rel=1, per_query=true) }}
