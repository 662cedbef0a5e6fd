"""The development halves bench_triad.py fits and cards the offline triad judges on, read as genevals samples:
WikiQA and Cranfield (a question with its ranked chunks and their relevance), NQ301 (an answer with its gold
references and whether a person accepted it), and RAGTruth QA responses paired with a faithful reference. The
files are under ``DATA/`` (``../shared/datasets``); ``DATA/triad/README`` describes their fields.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from genevals.types import Context, Sample

FILES = {"wikiqa": "triad/wikiqa_context_relevance_dev.jsonl",
         "cranfield": "triad/cranfield_context_relevance_dev.jsonl",
         "nq301": "triad/nq301_answer_correctness_dev.jsonl"}
#: questions per file whose figures the shipped model must reproduce in the tests (first in file order)
PIN_QUESTIONS = {"wikiqa": 4, "cranfield": 1, "nq301": 6}


def rows(data: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (data / FILES[name]).read_text(encoding="utf-8").splitlines() if line]


def context_samples(records: list[dict], graded: bool) -> list[Sample]:
    out = []
    for r in records:
        relevant = {k: (1.0 if (v > 0 if graded else v) else 0.0) for k, v in r["relevant"].items()}
        out.append(Sample(r["id"], "", r["question"],
                          tuple(Context(c["text"], i + 1, c["id"], c.get("doc_id"), c.get("score"))
                                for i, c in enumerate(r["contexts"])), relevant=relevant))
    return out


def nq_samples(records: list[dict]) -> tuple[list[Sample], np.ndarray, np.ndarray]:
    samples = [Sample(r["id"], r["answer"], r["question"], references=tuple(r["references"])) for r in records]
    return samples, np.array([r["acceptable"] for r in records]), np.array([str(r["qid"]) for r in records])


def ragtruth_pairs(data: Path) -> tuple[list[Sample], np.ndarray, np.ndarray]:
    """RAGTruth QA: for each question with a faithful response, the others scored against the first faithful."""
    by_source: dict[str, list[dict]] = {}
    for line in (data / "ragtruth_dev.jsonl").read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if r["task_type"] == "QA":
            by_source.setdefault(r["source_id"], []).append(r)
    samples, labels, groups = [], [], []
    for source, items in sorted(by_source.items()):
        faithful = [r for r in items if str(r["hallucinated"]) == "False"]
        if not faithful:
            continue
        for r in items:
            if r is not faithful[0]:
                samples.append(Sample(r["id"], r["response"], r["question"], references=(faithful[0]["response"],)))
                labels.append(str(r["hallucinated"]) == "False")
                groups.append(source)
    return samples, np.array(labels), np.array(groups)


def digest(data: Path, name: str) -> str:
    return hashlib.sha256((data / FILES[name]).read_bytes()).hexdigest()
