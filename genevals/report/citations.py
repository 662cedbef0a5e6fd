"""The citation check's drill-down for the page: each answer sentence with its citations, their verdicts and the
supporting quote in each cited chunk. Read from ``citation_recall``'s details in the results only (never from
the scoring code), every field checked, spans kept only inside their text and converted to UTF-16 offsets."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from genevals.report.clean import text, utf16_offsets, whole

VERDICTS = ("supported", "miscited", "unsupported", "uncited", "not_checked")


def _span(raw: Any, content: str, to16: Callable[[int], int]) -> list[int] | None:
    """``raw`` as UTF-16 offsets by ``to16`` (``content``'s, made once: per span, 20k sentences were quadratic)."""
    if not isinstance(raw, list) or len(raw) != 2:
        return None
    s, e = whole(raw[0]), whole(raw[1])
    if s is None or e is None or not 0 <= s < e <= len(content):
        return None
    return [to16(s), to16(e)]


def page_citations(metrics: Any, answer: str, contexts: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """``{"st": status, "why": reason, "s": [sentence]}`` of one sample's citation check, or None without one.
    A sentence: ``t`` text, ``sp`` its span in the answer, ``v`` verdict (None when the answer is unscored),
    ``why`` the checker's reason, ``c`` its citations (``k`` context index, ``ok`` relevant or None, ``q`` the
    quote's span in the chunk), ``oor`` the references that name no context."""
    result = metrics.get("citation_recall") if isinstance(metrics, Mapping) else None
    details = result.get("details") if isinstance(result, Mapping) else None
    raw = details.get("sentences") if isinstance(details, Mapping) else None
    if not isinstance(raw, list):
        return None
    sentences = []
    answer16 = utf16_offsets(answer)
    chunks16: dict[int, Callable[[int], int]] = {}
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        verdict = item.get("verdict")
        checks = {whole(c.get("context")): c for c in item.get("citations") or [] if isinstance(c, Mapping)}
        cited = []
        for k in item.get("cited") or []:
            k = whole(k)
            if k is None or not 0 <= k < len(contexts):
                continue
            check = checks.get(k)
            chip: dict[str, Any] = {"k": k, "ok": bool(check.get("relevant")) if check is not None else None}
            if k not in chunks16:
                chunks16[k] = utf16_offsets(contexts[k]["text"])
            quote = _span(check.get("quote_span"), contexts[k]["text"], chunks16[k]) if check is not None else None
            if quote:
                chip["q"] = quote
            cited.append(chip)
        sentences.append({"t": text(item.get("text")), "sp": _span(item.get("span"), answer, answer16),
                          "v": verdict if verdict in VERDICTS else None, "why": text(item.get("reason")),
                          "c": cited, "oor": [text(r) for r in item.get("out_of_range") or []]})
    out: dict[str, Any] = {"st": text(result.get("status", "ok")), "s": sentences}
    if result.get("reason"):
        out["why"] = text(result.get("reason"))
    return out
