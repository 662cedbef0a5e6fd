"""Judge replies -> claims, verdicts and rubric scores. Strict about meaning, lenient about packaging.

``extract_json`` accepts a bare JSON object, one inside a ```json fence, or one with chatter around it. A
reply cut off mid-object (``finish_reason == "length"``, a dropped connection) is salvaged: everything up to
the last complete array element is kept and the open brackets are closed; the result says ``salvaged``.
Anything else raises :class:`ParseError` with a reason; the caller keeps the raw reply in the transcript.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping

from genevals.types import CONTRADICTED, FROM_HISTORY, SUPPORTED, UNVERIFIABLE

# the whitespace after the opening fence is taken atomically (a lookahead and its group): an unclosed fence followed
# by a long run of whitespace is read once, not once per character of the run
_FENCE = re.compile(r"```(?:json)?(?=(\s*))\1(.*?)```", re.S | re.I)

LABEL_SYNONYMS = {
    SUPPORTED: SUPPORTED, "support": SUPPORTED, "supports": SUPPORTED, "entailed": SUPPORTED,
    "entailment": SUPPORTED, "true": SUPPORTED, "yes": SUPPORTED, "correct": SUPPORTED,
    CONTRADICTED: CONTRADICTED, "contradiction": CONTRADICTED, "contradicts": CONTRADICTED,
    "refuted": CONTRADICTED, "false": CONTRADICTED, "incorrect": CONTRADICTED,
    UNVERIFIABLE: UNVERIFIABLE, "unverified": UNVERIFIABLE, "not enough information": UNVERIFIABLE,
    "not enough info": UNVERIFIABLE, "nei": UNVERIFIABLE, "neutral": UNVERIFIABLE, "unknown": UNVERIFIABLE,
    "unsupported": UNVERIFIABLE, "not supported": UNVERIFIABLE, "not_supported": UNVERIFIABLE,
    "cannot verify": UNVERIFIABLE, "no": UNVERIFIABLE,
    FROM_HISTORY: FROM_HISTORY, "from history": FROM_HISTORY,
}


class ParseError(ValueError):
    pass


def _typed(func):
    """Any failure while reading a reply is a ParseError (with its cause), never a crash of the metric."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ParseError:
            raise
        except (ValueError, TypeError, AttributeError, KeyError, RecursionError) as exc:
            raise ParseError(f"unreadable reply ({type(exc).__name__}: {exc})") from exc

    return wrapper


def _loads(text: str) -> Any:
    # strict=False: raw newlines and tabs inside strings are common in model output and harmless
    return json.loads(text, strict=False)


def _salvage(text: str) -> Any:
    """Close a truncated JSON object after its last complete value inside an array or object."""
    stack: list[str] = []
    in_string = escape = False
    cut_points: list[tuple[int, str]] = []  # (index after a closed value, closers needed then)
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack:
                break
            stack.pop()
            if stack:
                cut_points.append((i + 1, "".join(reversed(stack))))
            else:
                try:
                    return _loads(text[: i + 1])
                except json.JSONDecodeError:
                    break
    for end, closers in reversed(cut_points):
        try:
            return _loads(text[:end] + closers)
        except json.JSONDecodeError:
            continue
    raise ParseError("reply is not JSON and no complete part of it could be recovered")


def extract_json(text: str) -> tuple[Any, bool]:
    """(object, salvaged). Raises ParseError."""
    if text is None or not text.strip():
        raise ParseError("empty reply")
    candidates = [m.group(2) for m in _FENCE.finditer(text)] + [text]
    for cand in candidates:
        cand = cand.strip()
        try:
            return _loads(cand), False
        except json.JSONDecodeError:
            pass
        start = cand.find("{")
        if start < 0:
            continue
        try:
            obj, _ = json.JSONDecoder(strict=False).raw_decode(cand[start:])
            return obj, False
        except json.JSONDecodeError:
            pass
    start = text.find("{")
    if start < 0:
        raise ParseError("reply contains no JSON object")
    return _salvage(text[start:]), True


def _as_list(obj: Any, key: str, aliases: tuple[str, ...] = ()) -> list:
    if isinstance(obj, list):
        return obj
    if isinstance(obj, Mapping):
        for k in (key, *aliases):
            if isinstance(obj.get(k), list):
                return obj[k]
        lists = [v for v in obj.values() if isinstance(v, list)]
        if len(lists) == 1:
            return lists[0]
    raise ParseError(f"reply has no '{key}' list")


@_typed
def parse_claims(text: str, max_claims: int) -> tuple[list[dict[str, str]], list[str]]:
    """Claims as [{"claim", "source"}] and a list of issues. Raises ParseError."""
    obj, salvaged = extract_json(text)
    items = _as_list(obj, "claims", ("statements", "facts"))
    issues = ["reply was truncated; kept the complete claims"] if salvaged else []
    claims: list[dict[str, str]] = []
    seen: set[str] = set()
    for item in items:
        if isinstance(item, str):
            claim, source = item, item
        elif isinstance(item, Mapping):
            claim = item.get("claim") or item.get("text") or item.get("statement") or ""
            source = item.get("source") or item.get("excerpt") or item.get("span") or ""
            if not isinstance(claim, str) or not isinstance(source, str):
                issues.append("a claim item has non-text fields; dropped")
                continue
        else:
            issues.append(f"a claim item is a {type(item).__name__}; dropped")
            continue
        claim, source = claim.strip(), source.strip()
        if not claim:
            continue
        if claim.lower() in seen:
            issues.append("duplicate claim dropped")
            continue
        seen.add(claim.lower())
        claims.append({"claim": claim, "source": source})
    if len(claims) > max_claims:
        issues.append(f"{len(claims)} claims returned; kept the first {max_claims}")
        claims = claims[:max_claims]
    return claims, issues


def normalize_label(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return LABEL_SYNONYMS.get(value.strip().lower().replace("_", " ").strip(".")) or \
        LABEL_SYNONYMS.get(value.strip().lower())


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*\[?(?:claim\s*)?#?(\d+)\]?\s*", value, re.I)
        if m:
            return int(m.group(1))
    return None


@_typed
def parse_verdicts(text: str, wanted_ids: set[int], history: bool = False
                   ) -> tuple[dict[int, dict[str, Any]], list[str]]:
    """{claim id: {"label", "context", "quote", "reason"}} for the ids asked for, and issues.

    ``from_history`` is a label only for a conversation's turn that has earlier turns (``history``); elsewhere
    it is an unknown label like any other.

    Verdicts for ids not asked for, duplicates (the first is kept) and unknown labels are dropped with an
    issue each. Raises ParseError when no verdict list can be read at all.
    """
    obj, salvaged = extract_json(text)
    items = _as_list(obj, "verdicts", ("results", "claims"))
    issues = ["reply was truncated; kept the complete verdicts"] if salvaged else []
    out: dict[int, dict[str, Any]] = {}
    for item in items:
        if not isinstance(item, Mapping):
            issues.append(f"a verdict item is a {type(item).__name__}; dropped")
            continue
        cid = _as_int(item.get("id", item.get("claim_id", item.get("claim"))))
        if cid is None or cid not in wanted_ids:
            issues.append(f"verdict for unknown claim id {item.get('id', item.get('claim_id'))!r} ignored")
            continue
        if cid in out:
            issues.append(f"second verdict for claim {cid} ignored")
            continue
        label = normalize_label(item.get("label", item.get("verdict")))
        if label == FROM_HISTORY and not history:
            label = None
        if label is None:
            issues.append(f"claim {cid}: unknown label {item.get('label', item.get('verdict'))!r}")
            continue
        quote = item.get("quote", item.get("evidence", ""))
        reason = item.get("reason", "")
        out[cid] = {"label": label, "context": _as_int(item.get("context", item.get("context_index"))),
                    "quote": quote if isinstance(quote, str) else "",
                    "reason": reason if isinstance(reason, str) else ""}
    return out, issues


@_typed
def parse_rubric(text: str, criteria: list[str]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """{criterion: {"score": 1..5, "reason"}} for the criteria that came back valid, and issues."""
    obj, salvaged = extract_json(text)
    issues = ["reply was truncated"] if salvaged else []
    scores = obj.get("scores", obj) if isinstance(obj, Mapping) else None
    if not isinstance(scores, Mapping):
        raise ParseError("reply has no 'scores' object")
    out: dict[str, dict[str, Any]] = {}
    for name in criteria:
        entry = scores.get(name)
        if isinstance(entry, Mapping):
            score, reason = _as_int(entry.get("score")), entry.get("reason", "")
        else:
            score, reason = _as_int(entry), ""
        if score is None or not 1 <= score <= 5:
            issues.append(f"{name}: missing or out-of-range score {entry!r}"[:200])
            continue
        out[name] = {"score": score, "reason": reason if isinstance(reason, str) else ""}
    return out, issues
