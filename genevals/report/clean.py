"""Raw results rows and summaries, read as hostile input, turned into the page's data.

Nothing read from a run folder is trusted: every field may be missing, of the wrong type, or hold markup. Each
function here returns plain strings, finite numbers and lists the page can show as text (the page itself
only ever sets ``textContent``). A malformed part is dropped or given its default, never an error:

* claims and verdicts are parsed by :meth:`Claim.from_dict` / :meth:`Verdict.from_dict`; a verdict with an
  unknown label counts as unverifiable (``from_history``, a conversation turn repeating the user, is its own
  label), a verdict or claim whose evidence fields (context, quote, spans) do not parse keeps its claim and
  label without them, and one that still does not parse is left out;
* spans are kept only when they lie inside their text, and are converted from Python (code point) offsets to
  the UTF-16 offsets JavaScript slices by;
* a claim's text or a verdict's quote that is exactly the slice its span points at is left out (the page
  reads it back from the answer or context): no second copy of the text.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping  # not typing's: its isinstance is several times slower
from typing import Any, Callable, Sequence

from genevals.finite import num
from genevals.types import ALL_VERDICT_LABELS, UNVERIFIABLE, Claim, Verdict

#: The metric whose details carry the judge's claims and verdicts (judge-backed families write its outputs).
CLAIMS_METRIC = "faithfulness"


def rounded(values: Any, digits: Any) -> list[float | None]:
    """:func:`num` of each value of a float array, with ``digits`` one number or one per value (an int array),
    for whole columns at once: the same floats.

    ``round(x, d)`` gives the double nearest to x rounded to d decimals. numpy's ``rint(x * 10^d) / 10^d`` gives
    the same wherever ``rint`` picks the same whole number m (the division of m by 10^d is correctly rounded): so
    wherever ``x * 10^d`` is below 2^40 (its rounding error under 2^-13) and further than 10^-3 from a half. The
    others (and NaN, infinities) go through :func:`num` itself."""
    import numpy as np

    x = np.asarray(values, dtype=np.float64)
    scale = np.power(10.0, np.asarray(digits, dtype=np.float64))
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = x * scale
        whole = np.rint(scaled)
        sure = (np.abs(scaled) < 2.0 ** 40) & (np.abs(np.abs(scaled - whole) - 0.5) > 1e-3)
        out = (whole / scale).tolist()
    if not sure.all():
        each = np.broadcast_to(np.asarray(digits), x.shape)
        for i in np.flatnonzero(~sure).tolist():
            out[i] = num(float(x[i]), int(each[i]))
    return out


def text(value: Any) -> str:
    """Any value as text ("" for None)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def whole(value: Any) -> int | None:
    """An int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_NON_BMP = re.compile("[\U00010000-\U0010FFFF]")


def utf16_offsets(content: str) -> Callable[[int], int]:
    """A function mapping Python (code point) offsets to JavaScript (UTF-16) offsets in ``content``."""
    if not _NON_BMP.search(content):
        return lambda i: i
    table = [0]
    for ch in content:
        table.append(table[-1] + (2 if ord(ch) >= 0x10000 else 1))
    return lambda i: table[i]


def _inside(span: tuple[int, int] | None, length: int) -> tuple[int, int] | None:
    return span if span is not None and 0 <= span[0] < span[1] <= length else None


# ----------------------------------------------------------------------------------------------- claims

def _parse(parse: Callable[[Any], Any], raw: Any, required: Sequence[str]) -> Any:
    """``parse(raw)``; when that fails, ``parse`` of just the ``required`` fields; None when both fail."""
    if not isinstance(raw, Mapping):
        return None
    for attempt in (raw, {key: raw[key] for key in required if key in raw}):
        try:
            return parse(attempt)
        except ValueError:
            continue
    return None


def claims_of(details: Mapping[str, Any]) -> tuple[list[Claim], list[Verdict]] | None:
    """The parsed claims and verdicts of a metric's details; None when the details carry neither list."""
    claims_in, verdicts_in = details.get("claims"), details.get("verdicts")
    if not isinstance(claims_in, list) and not isinstance(verdicts_in, list):
        return None
    claims = [_parse(Claim.from_dict, raw, ("index", "text", "located"))
              for raw in (claims_in if isinstance(claims_in, list) else [])]
    verdicts = []
    for raw in verdicts_in if isinstance(verdicts_in, list) else []:
        # from_history (a conversation turn repeating the user) is kept: the page shows it as its own label
        if isinstance(raw, Mapping) and raw.get("label") not in ALL_VERDICT_LABELS:
            raw = {**raw, "label": UNVERIFIABLE}
        verdicts.append(_parse(Verdict.from_dict, raw, ("claim_index", "label", "missing")))
    # A claim not located in the answer is not the answer's (run folders written before invented_claims
    # existed kept such claims in the list, marked located=False): see invented_of.
    return [c for c in claims if c is not None and c.located], [v for v in verdicts if v is not None]


def invented_of(details: Mapping[str, Any]) -> list[dict[str, str]]:
    """The claims the judge returned that are not in the answer: text and why, from ``invented_claims`` (and
    from claims marked ``located: false`` in older run folders)."""
    raws = [raw for key in ("invented_claims", "claims") if isinstance(details.get(key), list)
            for raw in details[key] if isinstance(raw, Mapping) and (key == "invented_claims" or
                                                                     raw.get("located") is False)]
    return [{"text": text(raw.get("text")), "note": text(raw.get("note") or "not found in the answer")}
            for raw in raws]


#: characters of each judge reply the page shows beside invented claims
TRANSCRIPT_CHARS = 4000


def page_transcript(details: Mapping[str, Any]) -> list[dict[str, str]]:
    """The judge's replies (or errors) by stage, each cut at :data:`TRANSCRIPT_CHARS`."""
    out = []
    for call in details.get("transcript") if isinstance(details.get("transcript"), list) else []:
        if isinstance(call, Mapping):
            said = text(call.get("reply") if call.get("reply") is not None else call.get("error"))
            out.append({"stage": text(call.get("stage")), "reply": said[:TRANSCRIPT_CHARS]})
    return out


def claim_labels(details: Mapping[str, Any]) -> list[str] | None:
    """Each claim's verdict label, as the page reads them (the first verdict for a claim counts; a claim with
    none is unverifiable); None when the details carry no claims or verdicts."""
    parsed = claims_of(details)
    if parsed is None:
        return None
    claims, verdicts = parsed
    by_claim: dict[int, str] = {}
    for verdict in verdicts:
        by_claim.setdefault(verdict.claim_index, verdict.label)
    return [by_claim.get(claim.index, UNVERIFIABLE) for claim in claims]


def _page_claim(claim: Claim, answer: str, to16: Callable[[int], int]) -> dict[str, Any]:
    found = [span for span in (_inside(s, len(answer)) for s in claim.spans) if span]
    out: dict[str, Any] = {"index": claim.index, "spans": [[to16(s), to16(e)] for s, e in found],
                           "located": claim.located and bool(found)}
    if not (len(found) == 1 and answer[found[0][0]:found[0][1]] == claim.text):
        out["text"] = claim.text  # else the page reads it from the answer
    return out


def _page_verdict(verdict: Verdict, contexts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    # Defaults are left out (the page fills them in): no context, no span, empty quote/reason, not missing.
    out: dict[str, Any] = {"claim_index": verdict.claim_index, "label": verdict.label}
    ci = verdict.context_index
    quote = verdict.quote
    if ci is not None and 0 <= ci < len(contexts):
        out["context_index"] = ci
        context = contexts[ci]["text"]
        found = _inside(verdict.quote_span, len(context))
        if found:
            to16 = utf16_offsets(context)
            out["quote_span"] = [to16(found[0]), to16(found[1])]
            if context[found[0]:found[1]] == quote:
                quote = ""  # the page reads it from the context
    if quote:
        out["quote"] = quote
    if verdict.reason:
        out["reason"] = verdict.reason
    if verdict.missing:
        out["missing"] = True
    if verdict.repeats:  # --judge-repeats: each repeat's label (null: that repeat failed) and the agreement
        out["rep"] = list(verdict.repeats)
        out["agr"] = num(verdict.agreement, 4)
    if verdict.jury:  # a jury: each judge's label (null: that judge failed) and the weighted agreement
        out["jy"] = {text(name): label for name, label in verdict.jury.items()}
        out["agr"] = num(verdict.agreement, 4)
    return out


def interval(ci: Any) -> list[float | None] | None:
    """A stored 95% interval ``[low, high]``, cleaned; None unless it is a list of two."""
    return [num(ci[0]), num(ci[1])] if isinstance(ci, list) and len(ci) == 2 else None


def per_output(value: Any, clean: Callable[[Mapping[str, Any]], dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
    """A summary meta entry of output -> figures (``judge_repeats``, ``jury``), each output's figures cleaned by
    ``clean``; None when it is not an object or holds none."""
    if not isinstance(value, Mapping):
        return None
    return {text(name): clean(figures) for name, figures in value.items() if isinstance(figures, Mapping)} or None


def page_repeats(value: Any) -> dict[str, dict[str, Any]] | None:
    """A system's ``meta.judge_repeats`` entry (output -> flip rate, spread, intervals), cleaned; None when
    the run was not judged repeatedly."""
    return per_output(value, lambda r: {
        "n": whole(r.get("repeats")), "unit": text(r.get("unit")), "flip": num(r.get("flip_rate")),
        "unstable": whole(r.get("unstable")), "units": whole(r.get("units")), "spread": num(r.get("mean_spread")),
        "mean": num(r.get("mean_over_repeats")), "ci": interval(r.get("ci95_judge")),
        "failed": whole(r.get("failed_repeats")) or 0, "policy": text(r.get("policy"))})


def page_judge(details: Mapping[str, Any], answer: str, contexts: Sequence[Mapping[str, Any]]) -> dict | None:
    """Claims and verdicts for the page, spans checked against the texts and in UTF-16 offsets."""
    parsed = claims_of(details)
    if parsed is None:
        return None
    claims, verdicts = parsed
    to16 = utf16_offsets(answer)
    out = {"claims": [_page_claim(c, answer, to16) for c in claims],
           "verdicts": [_page_verdict(v, contexts) for v in verdicts]}
    repeats = details.get("repeats")
    if isinstance(repeats, Mapping) and isinstance(repeats.get("values"), list):  # each repeat's score, status
        out["rp"] = {"values": [num(v, 4) for v in repeats["values"]],
                     "statuses": [text(v) for v in repeats.get("statuses") or []]}
    jury = details.get("jury")
    if isinstance(jury, Mapping):  # a jury: each judge's score of this sample
        out["jv"] = {text(name): num(v, 4) for name, v in jury.items()}
    invented = invented_of(details)
    if invented:  # a judge-quality warning in the drill-down, with what the judge said
        out["inv"] = invented
        out["tr"] = page_transcript(details)
    return out


def judge_info(value: Any) -> dict[str, str] | None:
    """A judge description (backend, model, ...) as flat strings; None when it is not an object."""
    if not isinstance(value, Mapping):
        return None
    return {text(k): text(v) for k, v in value.items() if not isinstance(v, (dict, list))}


# ----------------------------------------------------------------------------------------------- samples

def page_contexts(raw: Any) -> list[dict[str, Any]]:
    out = []
    for pos, ctx in enumerate(raw if isinstance(raw, list) else []):
        # a dict (what json gives) without the abstract class's isinstance: 40,000 contexts a large report
        if type(ctx) is not dict and not isinstance(ctx, Mapping):
            continue
        get = ctx.get
        rank, body, cid, doc = get("rank"), get("text"), get("id"), get("doc_id")
        rank = rank if type(rank) is int else whole(rank)
        out.append({"text": body if type(body) is str else text(body), "rank": pos + 1 if rank is None else rank,
                    "id": None if cid is None else (cid if type(cid) is str else text(cid)),
                    "doc_id": None if doc is None else (doc if type(doc) is str else text(doc)),
                    "score": num(get("score"))})
    return out


def sample_texts(row: Mapping[str, Any]) -> dict[str, Any]:
    """The texts of one results row for the page: question, answer, contexts, references, relevance labels
    and the judge's claims."""
    answer = text(row.get("answer"))
    contexts = page_contexts(row.get("contexts"))
    relevant = row.get("relevant")
    references = row.get("references")
    out: dict[str, Any] = {
        "q": text(row.get("question")), "a": answer, "ctx": contexts,
        "refs": [text(x) for x in references if x is not None] if isinstance(references, list) else [],
        "rel": ({text(k): num(v) for k, v in relevant.items()} if isinstance(relevant, Mapping) else None),
    }
    metrics = row.get("metrics")
    metric = metrics.get(CLAIMS_METRIC) if isinstance(metrics, Mapping) else None
    details = metric.get("details") if isinstance(metric, Mapping) else None
    if isinstance(details, Mapping):
        judge = page_judge(details, answer, contexts)
        if judge is not None:
            out["j"] = judge
    return out


# ----------------------------------------------------------------------------------------------- summaries

def page_summary(metrics: Any) -> dict[str, Any]:
    """A system's summary.json entry (metric -> mean, ci95, scored, unscored, statuses), cleaned."""
    out = {}
    for name, m in (metrics.items() if isinstance(metrics, Mapping) else ()):
        if not isinstance(m, Mapping):
            continue
        statuses = m.get("statuses")
        out[text(name)] = {
            "mean": num(m.get("mean")),
            "ci95": interval(m.get("ci95")),
            "scored": whole(m.get("scored")) or 0,
            "unscored": whole(m.get("unscored")) or 0,
            "statuses": ({text(k): v for k, v in statuses.items() if whole(v) is not None}
                         if isinstance(statuses, Mapping) else {}),
        }
    return out


def flat_meta(meta: Any) -> dict[str, str]:
    """Run metadata as short strings, for display."""
    out = {}
    for key, value in (meta.items() if isinstance(meta, Mapping) else ()):
        if isinstance(value, Mapping) and isinstance(value.get("line"), str):  # an entry with its own summary line
            value = value["line"]
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        out[text(key)] = shown if len(shown) <= 300 else shown[:297] + "..."
    return out
