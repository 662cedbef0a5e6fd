"""Relevance labels from a judge (``genevals label``): TREC pooling of the runs' top documents per topic
(:mod:`~genevals.labels.pooling`), a graded relevance 0-3 per pooled pair from an LLM judge with UMBRELA's
prompt (:mod:`~genevals.labels.umbrela`) or from the packaged offline MiniLM model
(:mod:`~genevals.labels.offline`, coarse), and a TREC qrels file that carries its provenance
(:mod:`~genevals.labels.qrels_file`, :mod:`~genevals.labels.provenance`).

    runs = {"bm25": {"q1": ["d3", "d9", ...]}, "dense": {...}}
    labelled = label(pool(runs, depth=10), topics, documents, judge=JudgeConfig(base_url=...))
    write_qrels("judged.qrels", labelled)   # and judged.qrels.json
"""
from genevals.labels.labelling import OFFLINE, Labelled, label
from genevals.labels.pooling import Pool, pool
from genevals.labels.provenance import judged_by
from genevals.labels.qrels_file import write_qrels

__all__ = ["OFFLINE", "Labelled", "Pool", "judged_by", "label", "pool", "write_qrels"]
