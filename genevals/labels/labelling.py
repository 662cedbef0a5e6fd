"""``label``: the pooled (topic, document) pairs graded 0-3 by a judge, with the provenance that says how."""
from __future__ import annotations

import datetime as _dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from genevals.signature import make_signature

OFFLINE = "offline"
#: what makes two labellings of the same pool the same: the judge, its model, prompt and sampling, the offline
#: cut points
SIGNED = ("judge", "model", "base_url", "prompt_hash", "temperature", "seed", "repeats", "calibration", "cut_points")


@dataclass
class Labelled:
    """``qrels``: ``{topic: {doc: grade 0..3}}`` (pairs the judge gave no grade are absent); ``provenance``: the
    judge, model, prompt hash, pool depth, runs, counts per grade, date; ``dry_run``: the estimate when nothing
    was judged."""

    qrels: dict[str, dict[str, int]]
    provenance: dict[str, Any]
    dry_run: dict[str, Any] | None = None
    counts: dict[str, Any] = field(default_factory=dict)


def _missing(pool: Mapping[str, Sequence[str]], topics: Mapping[str, str], documents: Mapping[str, str]) -> None:
    for topic, docs in pool.items():
        if topic not in topics:
            raise KeyError(f"topic {topic!r} is in the pool but has no text in the topics")
        for doc in docs:
            if doc not in documents:
                raise KeyError(f"document {doc!r} (topic {topic!r}) is in the pool but not in the documents")


def label(pool: Mapping[str, Sequence[str]], topics: Mapping[str, str], documents: Mapping[str, str],
          judge: Any = OFFLINE, repeats: int = 1, cache: bool = True,
          progress: Callable[[int], None] | None = None) -> Labelled:
    """Grade every pooled pair 0-3.

    Args:
        pool: ``{topic: [doc ids]}``, e.g. from :func:`genevals.labels.pool` (whose depth and runs are recorded).
        topics: ``{topic: its text}``; documents: ``{doc id: its text}``. A pooled id missing from either is a
            KeyError naming it.
        judge: ``"offline"``, the packaged MiniLM ``context_relevance_local`` model (coarse:
            :mod:`genevals.labels.offline`), or a :class:`~genevals.judge.config.JudgeConfig` for an LLM judge
            with UMBRELA's prompt (:mod:`genevals.labels.umbrela`); its ``dry_run`` estimates and judges nothing.
        repeats: LLM judge only: asks per pair (the median grade is kept); above 1 it overrides the config's.
        cache: LLM judge only: False turns the judge cache off (by default the config says; a re-run then asks
            only for the pairs not yet cached).
        progress: called with the number of pairs done, as they are done.
    """
    _missing(pool, topics, documents)
    pairs = sum(len(docs) for docs in pool.values())
    base = {"tool": "genevals label", "depth": getattr(pool, "depth", None), "runs": list(getattr(pool, "runs", [])),
            "topics": len(pool), "pairs": pairs}
    if isinstance(judge, str) and judge == OFFLINE:
        from genevals.labels import offline

        info = offline.identity()
        qrels, counts = offline.grade(pool, topics, documents, progress)
    elif isinstance(judge, str):
        raise ValueError(f"judge: 'offline' or a JudgeConfig, got {judge!r}")
    else:
        from genevals.labels import umbrela

        runtime = umbrela.runtime_for(judge, repeats=repeats if repeats > 1 else None, cache=cache)
        info = umbrela.identity(runtime)
        if runtime.repeats_note:
            info["repeats_note"] = runtime.repeats_note
        if judge.dry_run:
            estimate = umbrela.estimate(runtime, pool, topics, documents)
            return Labelled({}, {**base, **info, "dry_run": estimate, "date": _now()}, dry_run=estimate)
        qrels, counts = umbrela.grade(runtime, pool, topics, documents, progress)
        if counts.get("answered"):
            info["answered"] = counts["answered"]
    info["signature"] = make_signature("label", **{k: info[k] for k in SIGNED if info.get(k) is not None},
                                       depth=base["depth"])
    graded = Counter(g for docs in qrels.values() for g in docs.values())
    provenance = {**base, **info, "graded": sum(graded.values()),
                  "grades": {str(g): graded.get(g, 0) for g in range(4)},
                  **{k: v for k, v in counts.items() if k != "answered"}, "date": _now()}
    return Labelled(qrels, provenance, counts=counts)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
