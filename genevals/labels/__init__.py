"""Relevance labels from a judge (``genevals label``): TREC pooling of the runs' top documents per topic
(:mod:`~genevals.labels.pooling`), a graded relevance 0-3 per pooled pair from an LLM judge with UMBRELA's
prompt (:mod:`~genevals.labels.umbrela`) or from the packaged offline MiniLM model
(:mod:`~genevals.labels.offline`, coarse), and a TREC qrels file that carries its provenance
(:mod:`~genevals.labels.qrels_file`, :mod:`~genevals.labels.provenance`).

    runs = {"bm25": {"q1": ["d3", "d9", ...]}, "dense": {...}}
    labelled = label(pool(runs, depth=10), topics, documents, judge=JudgeConfig(base_url=...))
    write_qrels("judged.qrels", labelled)   # and judged.qrels.json
"""
from __future__ import annotations

from typing import Any

__all__ = ["OFFLINE", "Labelled", "Pool", "judged_by", "label", "pool", "write_qrels"]

#: where each name lives, imported when first asked for (PEP 562): a retrieval run reads only the provenance of
#: its qrels (:mod:`~genevals.labels.provenance`), not the labelling machinery and the judge it imports
_HOMES = {"OFFLINE": "labelling", "Labelled": "labelling", "label": "labelling", "Pool": "pooling", "pool": "pooling",
          "judged_by": "provenance", "write_qrels": "qrels_file"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
