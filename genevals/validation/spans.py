"""Character spans: merging, overlap, and span-level precision/recall/F1 against labelled spans."""
from __future__ import annotations

from typing import Any, Iterable, Sequence


def merge_spans(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for s, e in sorted((int(a), int(b)) for a, b in spans if b > a):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


def span_length(spans: Iterable[tuple[int, int]]) -> int:
    return sum(e - s for s, e in merge_spans(spans))


def span_intersection(a: Iterable[tuple[int, int]], b: Iterable[tuple[int, int]]) -> int:
    a, b = merge_spans(a), merge_spans(b)
    i = j = total = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def span_scores(pairs: Iterable[tuple[Sequence[tuple[int, int]], Sequence[tuple[int, int]]]]) -> dict[str, Any]:
    """Character-level micro precision/recall/F1 over (predicted spans, gold spans) pairs."""
    inter = pred_chars = gold_chars = 0
    for pred, gold in pairs:
        inter += span_intersection(pred, gold)
        pred_chars += span_length(pred)
        gold_chars += span_length(gold)
    precision = inter / pred_chars if pred_chars else 0.0
    recall = inter / gold_chars if gold_chars else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "overlap_chars": inter,
            "predicted_chars": pred_chars, "gold_chars": gold_chars}
