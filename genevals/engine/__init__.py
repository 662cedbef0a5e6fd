"""Engines: plan a run (read, validate and prepare in one pass), score it here or on Ray, record it.

    plan.py      the pass over the input before scoring, and the start of a run (resume included)
    recorder.py  where scored samples go: results.jsonl, the summary, corpus statistics
    local.py     the local engine (this process, worker processes for cheap metrics)
    ray.py       the Ray engine (a cluster, or a local Ray)
"""
