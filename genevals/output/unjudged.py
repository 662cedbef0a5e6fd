"""Each output at cutoff k marked with the share of unjudged documents in its top k, where the run has one.

A retrieval run on qrels pooled to a depth shallower than k (:mod:`genevals.metrics.retrieval.unjudged`) gives, per
system, corpus details ``unjudged@k`` (the share u_k of the top-k documents nobody judged). Every output at that
cutoff (``recall@k``, ``ndcg@k``, ...) is then shown with it: its summary entry gains ``unjudged`` = u_k, the
terminal table marks its cell ``~`` with a line saying what the mark means, and the run's warning names the counts.
"""
from __future__ import annotations

from typing import Any, Mapping

PREFIX = "unjudged@"
MARK = "~"


def mark(systems: Mapping[str, Mapping[str, Any]], corpus: Mapping[str, Mapping[str, Any]]) -> None:
    """Put u_k in the summary entry of each of a system's outputs at cutoff k (``unjudged``)."""
    for system, metrics in systems.items():
        for name, share in (corpus.get(system) or {}).items():
            if not str(name).startswith(PREFIX) or isinstance(share, bool) or not isinstance(share, (int, float)):
                continue
            k = str(name)[len(PREFIX):]
            for output, entry in metrics.items():
                if isinstance(entry, dict) and str(output).endswith(f"@{k}"):
                    entry["unjudged"] = round(float(share), 4)


def marked(entry: Mapping[str, Any]) -> bool:
    value = entry.get("unjudged")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


FOOTNOTE = (f"{MARK} its cutoff is deeper than the qrels' pool depth: part of its top k was never judged and counts "
            "as not relevant (summary.json: unjudged; see the warning)")
