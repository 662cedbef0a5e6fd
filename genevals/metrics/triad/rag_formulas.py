"""What both variants (LLM judge and offline) of answer_relevance, context_relevance, context_recall and
answer_correctness share: their outputs, their statuses, and their arithmetic as pure functions of verdicts and
counts, so the two variants can differ only in their verdicts. Neither the judge nor a model is imported here.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import types
from genevals.metrics.base import Output, Unscored  # noqa: F401 (raised here and by both variants)
from genevals.text import detect_refusal
from genevals.types import MetricResult, Sample

#: statuses these metrics add to :mod:`genevals.types`' own
NO_QUESTION = "no_question"
NO_PAIR = "no_pair"


def check_answer(sample: Sample, refused: str = "") -> None:
    """:class:`Unscored` for an empty answer, or one that abstains (``refused``: what is then not done with it,
    in the reason): neither has anything to measure."""
    if not sample.answer.strip():
        raise Unscored(types.EMPTY_ANSWER, "the answer is empty")
    refusal = detect_refusal(sample.answer)
    if refusal:
        raise Unscored(types.REFUSAL, f"the answer abstains ('{refusal}')" + (f"; {refused}" if refused else ""))


def first_reference(sample: Sample) -> tuple[int, str] | None:
    """(index, text) of the sample's first non-empty reference answer (the one both variants score
    against, as ragas takes one ``reference``), or None."""
    for i, ref in enumerate(sample.references):
        if ref.strip():
            return i, ref
    return None


def share(flags: Sequence[bool]) -> float:
    r"""Share of true flags: :math:`\frac{1}{n}\sum_i b_i` (n >= 1)."""
    if not flags:
        raise ValueError("share of an empty list")
    return sum(1 for f in flags if f) / len(flags)


def context_precision(relevant: Sequence[bool], k: int | None = None) -> float:
    r"""Rank-aware context precision@K, as ragas defines it.

    .. math::
        \mathrm{CP@K} = \frac{\sum_{k=1}^{K} \mathrm{precision@}k \cdot v_k}{\sum_{k=1}^{K} v_k},
        \qquad \mathrm{precision@}k = \frac{1}{k}\sum_{j=1}^{k} v_j

    with :math:`v_k \in \{0, 1\}` the relevance of the chunk at rank k and K = min(k, number of chunks)
    (all chunks when ``k`` is None). 0 when no chunk in the top K is relevant (ragas: the same, via its
    epsilon denominator). Example: v = 1, 0, 1, 1, 0 gives (1/1 + 2/3 + 3/4) / 3 = 0.80556.

    Reference: ragas ``LLMContextPrecisionWithoutReference`` / ``_calculate_average_precision``.
    """
    if not relevant:
        raise ValueError("context precision of an empty ranking")
    top = list(relevant[: len(relevant) if k is None else max(1, int(k))])
    hits, total = 0, 0.0
    for rank, v in enumerate(top, start=1):
        if v:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


def claim_scores(tp: int, fp: int, found: int, fn: int) -> dict[str, float | None]:
    r"""Claim-level precision, recall and F1, each side counted on its own claims.

    .. math::
        P = \frac{TP}{TP + FP}, \quad R = \frac{F}{F + FN}, \quad F_1 = \frac{2PR}{P + R}

    TP / FP: the answer's claims that the reference states / does not; F / FN: the reference's claims that the
    answer states / misses. (ragas' ``FactualCorrectness`` takes R = TP / (TP + FN), mixing the answer's TP
    with the reference's FN; when two answer claims restate one reference claim, or one answer claim covers
    two, that R is not a share of anything and can be undefined with claims on both sides.) P is None without
    answer claims, R without reference claims, F1 when either is None; F1 = 0 when P + R = 0.
    """
    precision = tp / (tp + fp) if tp + fp else None
    recall = found / (found + fn) if found + fn else None
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


# -- the outputs, declared once for both variants ------------------------------------------------------
ANSWER_RELEVANCE_OUTPUTS = (
    Output("answer_relevance", "coverage of the question's parts x (1 - off-topic share of the answer)"),)
CONTEXT_RELEVANCE_OUTPUTS = (
    Output("context_relevance", "share of the retrieved chunks judged relevant to the question"),
    Output("context_precision", "rank-aware precision of the chunks judged relevant (ragas context precision@k)"),
)
CONTEXT_RECALL_OUTPUTS = (
    Output("context_recall", "share of the reference answer's facts found in the retrieved chunks"),)
ANSWER_CORRECTNESS_OUTPUTS = (
    Output("answer_correctness", "claim-level F1 of the answer against the reference: 2PR / (P + R)"),
    Output("answer_correctness_precision", "share of the answer's claims that the reference states: TP / (TP + FP)"),
    Output("answer_correctness_recall", "share of the reference's claims the answer states: F / (F + FN)"),
)


def chunk_scores(chunks: list[dict[str, Any]], k: int | None, details: dict[str, Any]) -> dict[str, MetricResult]:
    """Both outputs from per-chunk records carrying a boolean ``relevant`` (shared with the offline variant)."""
    flags = [c["relevant"] for c in chunks]
    details.update({"chunks": chunks, "relevant_chunks": sum(flags), "n_chunks": len(flags), "k": k})
    return {"context_relevance": MetricResult("context_relevance", share(flags), details=details),
            "context_precision": MetricResult("context_precision", context_precision(flags, k),
                                              details={"k": k, "relevant_in_top_k": sum(flags[:k] if k else flags)})}


LABEL_KEY = "context_relevance_labels:"


def chunk_label(sample: Sample, index: int) -> float | None:
    """The ``relevant`` label of the sample's chunk ``index`` (0 when labels exist but name another chunk), or
    None when the sample has no labels."""
    if sample.relevant is None:
        return None
    return float(sample.relevant.get(sample.contexts[index].key, 0))


def label_statistics(result: MetricResult | None) -> dict[str, float]:
    """Sufficient statistics of the verdicts' agreement with the ``relevant`` labels, summed per system: chunk
    counts by (score, label > 0) for the AUC, and the binary verdict's confusion counts for P / R / F1."""
    stats: dict[str, float] = {}
    if result is None or result.status != types.OK:
        return stats
    for chunk in (result.details or {}).get("chunks", []):
        label, score = chunk.get("label"), chunk.get("score")
        if label is None or score is None:
            continue
        gold = "pos" if label > 0 else "neg"
        key = f"{LABEL_KEY}score={score:.2f}:{gold}"
        stats[key] = stats.get(key, 0) + 1
        cell = LABEL_KEY + ("tp" if chunk["relevant"] and gold == "pos" else "fp" if chunk["relevant"] else
                            "fn" if gold == "pos" else "tn")
        stats[cell] = stats.get(cell, 0) + 1
    return stats


def label_agreement(totals: Mapping[str, float]) -> dict[str, float]:
    r"""Agreement of the chunk verdicts with the ``relevant`` labels (label > 0 is relevant), as ``genevals
    validate`` reports a judge's: ROC AUC of the chunk scores (ties count one half:
    :math:`\mathrm{AUC} = P(s_+ > s_-) + \tfrac12 P(s_+ = s_-)`; the LLM's scores are 1 / 0.5 / 0 for relevant /
    partly / not relevant, the offline variant's its similarity rounded to 0.01), and precision, recall and F1 of
    the binary verdict. Keys are ``context_relevance_label_*``; none without labelled chunks or with one class."""
    pos: dict[float, float] = {}
    neg: dict[float, float] = {}
    for key, count in totals.items():
        if key.startswith(LABEL_KEY + "score="):
            score, gold = key[len(LABEL_KEY) + 6:].rsplit(":", 1)
            (pos if gold == "pos" else neg)[float(score)] = count
    n_pos, n_neg = sum(pos.values()), sum(neg.values())
    if not n_pos or not n_neg:
        return {}
    wins = sum(cp * cn * (1.0 if sp > sn else 0.5 if sp == sn else 0.0)
               for sp, cp in pos.items() for sn, cn in neg.items())
    tp, fp, fn = (totals.get(LABEL_KEY + k, 0) for k in ("tp", "fp", "fn"))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"context_relevance_label_auc": wins / (n_pos * n_neg), "context_relevance_label_precision": precision,
            "context_relevance_label_recall": recall, "context_relevance_label_f1": f1,
            "context_relevance_label_chunks": n_pos + n_neg, "context_relevance_label_relevant": n_pos}


def recall_result(claims: list[dict[str, Any]], ref_index: int, details: dict[str, Any]) -> MetricResult:
    """The output from fact records with ``located`` and ``found`` (shared with the offline variant)."""
    located = [c for c in claims if c["located"]]
    found = sum(1 for c in located if c["found"])
    details.update({"claims": claims, "reference_index": ref_index, "found": found, "n_claims": len(located),
                    "missed": [c["text"] for c in located if not c["found"]],
                    "unlocated_claims": len(claims) - len(located)})
    if not located:
        raise Unscored(types.NO_CLAIMS, "no fact of the reference could be located in it" if claims else
                       "no fact was found in the reference", **details)
    return MetricResult("context_recall", found / len(located), details=details)


def correctness_results(answer_claims: list[dict[str, Any]], reference_claims: list[dict[str, Any]],
                        ref_index: int, details: dict[str, Any]) -> dict[str, MetricResult]:
    """The three outputs from claim records (``located``; ``match`` True/False) on both sides; shared with the
    offline variant."""
    a = [c for c in answer_claims if c["located"]]
    r = [c for c in reference_claims if c["located"]]
    tp = sum(1 for c in a if c["match"])
    found = sum(1 for c in r if c["match"])
    fp, fn = len(a) - tp, len(r) - found
    for c in answer_claims:
        c["label"] = ("tp" if c["match"] else "fp") if c["located"] else None
    for c in reference_claims:
        c["label"] = ("found" if c["match"] else "fn") if c["located"] else None
    details.update({"answer_claims": answer_claims, "reference_claims": reference_claims,
                    "reference_index": ref_index, "counts": {"tp": tp, "fp": fp, "found": found, "fn": fn},
                    "missed": [c["text"] for c in r if not c["match"]],
                    "unlocated_claims": len(answer_claims) + len(reference_claims) - len(a) - len(r)})
    if not a or not r:
        side = "the answer" if not a else "the reference"
        raise Unscored(types.NO_CLAIMS, f"no located claim in {side}", **details)
    s = claim_scores(tp, fp, found, fn)
    counts = {"tp": tp, "fp": fp, "found": found, "fn": fn}
    return {"answer_correctness": MetricResult("answer_correctness", s["f1"], details=details),
            "answer_correctness_precision": MetricResult("answer_correctness_precision", s["precision"],
                                                         details=counts),
            "answer_correctness_recall": MetricResult("answer_correctness_recall", s["recall"], details=counts)}
