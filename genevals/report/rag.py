"""The RAG judges' drill-down for the page: which chunks were judged relevant (and by which sentence), which
reference facts the chunks or the answer missed, the answer's facts against the reference, the off-topic
excerpts, and pairwise duels. Read from the results' details only (never from the scoring code), every field
checked, spans kept only when they fall inside their text and converted to UTF-16 offsets for JavaScript.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals.report.clean import num, text, utf16_offsets, whole


def _spans(raw: Any, content: str) -> list[list[int]]:
    to16 = utf16_offsets(content)
    out = []
    for span in raw if isinstance(raw, list) else []:
        if isinstance(span, list) and len(span) == 2:
            s, e = whole(span[0]), whole(span[1])
            if s is not None and e is not None and 0 <= s < e <= len(content):
                out.append([to16(s), to16(e)])
    return out


def _details(metrics: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    metric = metrics.get(name)
    details = metric.get("details") if isinstance(metric, Mapping) else None
    return details if isinstance(details, Mapping) else None


def _items(details: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    raw = details.get(key)
    return [x for x in raw if isinstance(x, Mapping)] if isinstance(raw, list) else []


def _reference(details: Mapping[str, Any], references: Sequence[str]) -> tuple[int, str] | None:
    index = whole(details.get("reference_index"))
    return (index, references[index]) if index is not None and 0 <= index < len(references) else None


def _facts(items: list[Mapping[str, Any]], content: str, flag: str) -> list[dict[str, Any]]:
    out = []
    for item in items:
        fact: dict[str, Any] = {"t": text(item.get("text")), "s": _spans(item.get("spans"), content),
                                "ok": bool(item.get(flag)), "loc": bool(item.get("located", True))}
        ci = whole(item.get("context_index"))
        if ci is not None:
            fact["c"] = ci
        if item.get("label") is not None:
            fact["l"] = text(item.get("label"))
        out.append(fact)
    return out


def page_rag(metrics: Any, answer: str, contexts: Sequence[Mapping[str, Any]], references: Sequence[str]
             ) -> dict[str, Any] | None:
    """The drill-down of one sample's RAG judge results, or None when it has none."""
    if not isinstance(metrics, Mapping):
        return None
    out: dict[str, Any] = {}
    d = _details(metrics, "context_relevance")
    if d is not None and _items(d, "chunks"):
        chunks = []
        for c in _items(d, "chunks"):
            i = whole(c.get("index"))
            if i is None or not 0 <= i < len(contexts):
                continue
            span = _spans([c.get("sentence_span")], contexts[i]["text"])
            chunk: dict[str, Any] = {"i": i, "v": text(c.get("verdict")) if c.get("verdict") else None,
                                     "r": bool(c.get("relevant")), "why": text(c.get("reason"))}
            if span:
                chunk["s"] = span[0]
            if num(c.get("similarity")) is not None:
                chunk["sim"] = num(c.get("similarity"), 4)
            chunks.append(chunk)
        out["cr"] = chunks
    d = _details(metrics, "context_recall")
    if d is not None and _items(d, "claims"):
        ref = _reference(d, references)
        out["rc"] = {"ref": ref[0] if ref else None,
                     "facts": _facts(_items(d, "claims"), ref[1] if ref else "", "found")}
    d = _details(metrics, "answer_correctness")
    if d is not None and (_items(d, "answer_claims") or _items(d, "reference_claims")):
        ref = _reference(d, references)
        out["ac"] = {"ref": ref[0] if ref else None, "a": _facts(_items(d, "answer_claims"), answer, "match"),
                     "r": _facts(_items(d, "reference_claims"), ref[1] if ref else "", "match")}
    d = _details(metrics, "answer_relevance")
    if d is not None and ("off_topic" in d or "parts" in d):
        out["ar"] = {"off": [{"t": text(o.get("text")), "s": _spans(o.get("spans"), answer)}
                             for o in _items(d, "off_topic")],
                     "parts": [{"t": text(p.get("part")), "ok": bool(p.get("answered"))} for p in _items(d, "parts")],
                     "why": text(d.get("reason") or "")}
    d = _details(metrics, "pairwise")
    if d is not None and _items(d, "duels"):
        out["pw"] = [{"o": text(x.get("opponent")), "out": text(x.get("outcome") or x.get("status") or ""),
                      "agreed": bool(x.get("agreed")),
                      "orders": [{"order": [text(s) for s in o.get("order", [])] if isinstance(o.get("order"), list)
                                  else [], "said": text(o.get("said")), "why": text(o.get("reason"))}
                                 for o in _items(x, "orders")]}
                     for x in _items(d, "duels")]
    return out or None
