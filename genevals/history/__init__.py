"""The run history: every ``genevals run`` adds its summary to one SQLite file, so runs can be listed, followed
over time and compared with an earlier one.

    store.py     the SQLite file (WAL, schema version, one transaction per run; what is not a history refused)
    rows.py      RunRecord, and its rows read back, each column checked (a damaged row is named, not a crash)
    gitstate.py  the commit a run was made from, read without letting the folder's git configuration run anything
    record.py    a finished run as the history keeps it, from what the run holds when it ends
    trends.py    each headline metric across runs (``genevals history show``, the report's Trends tab)
    baseline.py  ``--baseline RUN``: paired comparisons on shared question ids, regressions of gated metrics

It reads run summaries and the report's per-sample values; it imports no scoring code (an import contract in
pyproject.toml).
"""
