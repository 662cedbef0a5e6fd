"""The output room: what a run writes and how it is read back.

    runfolder.py   the run folder: file names, the results writer and every reader (the results schema)
    results.py     Results (table, JSON, DataFrame) and the streaming summary
    table.py       the terminal table
    thresholds.py  --fail-under/--fail-over gates: parsed, recorded and checked
"""
