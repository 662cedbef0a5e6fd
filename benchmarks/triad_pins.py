"""The shipped triad model through the real metrics (what bench_triad.py adds to the card with ``--write``): the
pins the tests reproduce (mean probability and chunks called relevant on the first questions of each file), each
evaluation's coverage (the share of rows the metric scores), and the CPU time per sample.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from genevals.grounding import checker
from genevals.metrics.triad.local_relevance import AnswerCorrectnessLocal, AnswerRelevanceLocal, ContextRelevanceLocal
from genevals.types import Sample
from triad_data import PIN_QUESTIONS, context_samples, nq_samples, rows


def pin_samples(data: Path) -> dict[str, list[Sample]]:
    wiki = context_samples(rows(data, "wikiqa"), False)[:PIN_QUESTIONS["wikiqa"]]
    cran = context_samples(rows(data, "cranfield"), True)[:PIN_QUESTIONS["cranfield"]]
    nq, _, qid = nq_samples(rows(data, "nq301"))
    keep = set(list(dict.fromkeys(qid))[:PIN_QUESTIONS["nq301"]])
    return {"wikiqa": wiki, "cranfield": cran, "wikiqa_answers": [Sample(c.key, c.text, s.question) for s in wiki
                                                                 for c in s.contexts],
            "nq301": [s for s, q in zip(nq, qid) if q in keep]}


def pins(data: Path) -> dict:
    """What the shipped model gives through the real metrics on the first questions of each file: the mean
    probability and the number of chunks called relevant, pinned by the tests."""
    ps = pin_samples(data)
    ctx = ContextRelevanceLocal()
    out = {}
    for name in ("wikiqa", "cranfield"):
        chunks = [c for r in ctx.score(ps[name]) for c in r["context_relevance"].details["chunks"]]
        out[name] = {"questions": len(ps[name]), "mean_probability": round(float(np.mean([c["score"] for c in chunks])), 4),
                     "called_relevant": sum(c["relevant"] for c in chunks)}
    values = [r["answer_relevance"].value for r in AnswerRelevanceLocal().score(ps["wikiqa_answers"])]
    out["wikiqa_answers"] = {"answers": len(values), "mean_probability": round(float(np.mean(values)), 4)}
    values = [r["answer_correctness"].value for r in AnswerCorrectnessLocal().score(ps["nq301"])]
    out["nq301"] = {"answers": len(values), "mean_probability": round(float(np.mean(values)), 4)}
    return out


def measure_coverage(data: Path, doc: dict) -> None:
    """Each evaluation's coverage: the share of its rows the real metric scores (status ok)."""
    def share(results, name):
        return round(float(np.mean([r[name].status == "ok" for r in results])), 4)

    wiki, cran = (context_samples(rows(data, n), n == "cranfield") for n in ("wikiqa", "cranfield"))
    ctx = doc["judges"]["context_relevance"]["card"]["evaluations"]
    ctx[0]["coverage"] = share(ContextRelevanceLocal().score(wiki), "context_relevance")
    ctx[1]["coverage"] = share(ContextRelevanceLocal().score(cran), "context_relevance")
    answers = [Sample(c.key, c.text, s.question) for s in wiki for c in s.contexts]
    doc["judges"]["answer_relevance"]["card"]["evaluations"][0]["coverage"] = share(
        AnswerRelevanceLocal().score(answers), "answer_relevance")
    doc["judges"]["answer_correctness"]["card"]["evaluations"][0]["coverage"] = share(
        AnswerCorrectnessLocal().score(nq_samples(rows(data, "nq301"))[0]), "answer_correctness")


def cost(data: Path, n: int = 20) -> dict[str, float]:
    """CPU milliseconds per sample (process time, all threads) through each metric, embeddings not cached."""
    import torch

    ps = pin_samples(data)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # CPU time of the work itself, not of idle threads spinning on a loaded machine
    checker.embed(["the model loaded", "and warmed up"])
    out = {}
    for name, metric, samples in (("context_relevance (one question, its chunks)", ContextRelevanceLocal(),
                                   context_samples(rows(data, "wikiqa"), False)[-n:]),
                                  ("context_relevance (Cranfield: one query, 10 abstracts)", ContextRelevanceLocal(),
                                   context_samples(rows(data, "cranfield"), True)[-n // 4:]),
                                  ("answer_relevance", AnswerRelevanceLocal(), ps["wikiqa_answers"][-n:]),
                                  ("answer_correctness", AnswerCorrectnessLocal(), nq_samples(rows(data, "nq301"))[0][-n:])):
        checker._CACHE.clear()
        start = time.process_time()
        metric.score(samples)
        out[name] = round(1000 * (time.process_time() - start) / len(samples), 1)
        if name.startswith("context_relevance"):
            chunks = sum(len(s.contexts) for s in samples)
            out[name.replace("(", "per chunk (")] = round(1000 * (time.process_time() - start) / chunks, 1)
    torch.set_num_threads(threads)
    return out
