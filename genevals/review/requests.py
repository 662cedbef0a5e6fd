"""A review request's body as a decision: each field checked for its type before it is used (a list where an
index belongs is a 400 naming the field, never a TypeError and a 500), then against the run (no such sample,
claim or citation is a 404)."""
from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from genevals.review.citations import decision_from_request as citation_decision
from genevals.review.claims import ReviewSample, digest, utf16_to_code_points
from genevals.review.store import CLAIM_DECISIONS, CitationDecision, Decision, StoreError, decision_from_request


class RequestError(Exception):
    """A request answered with ``status`` and a JSON ``{"error": message}``."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status


def decision_of(body: Any, samples: Mapping[tuple[str, str], ReviewSample]) -> Decision | CitationDecision:
    """The decision a request body makes on one of ``samples`` (checked against the run, not stored yet):
    StoreError (a 400) for a field that is missing or of the wrong type, naming it; RequestError 404 for a sample,
    claim or citation the run lacks."""
    if not isinstance(body, dict):
        raise RequestError(HTTPStatus.BAD_REQUEST, "expected a JSON object")
    for name in ("system", "sample_id"):
        if not isinstance(body.get(name), str):
            raise StoreError(f"{name}: expected text, not {_kind(body.get(name))}")
    sample = samples.get((body["system"], body["sample_id"]))
    if sample is None:
        raise RequestError(HTTPStatus.NOT_FOUND, "system, sample_id: no such sample in this run")
    claim_index, span = body.get("claim"), body.get("span")
    if body.get("citation") is not None:  # a decision on a citation verdict
        try:
            return citation_decision(body, sample)
        except LookupError as exc:
            raise RequestError(HTTPStatus.NOT_FOUND, str(exc)) from None
    if claim_index is not None:
        if isinstance(claim_index, bool) or not isinstance(claim_index, int):
            raise StoreError(f"claim: a claim index (an integer), not {_kind(claim_index)}")
        claim = sample.claim(claim_index)
        if claim is None:
            raise RequestError(HTTPStatus.NOT_FOUND, "claim: no such claim in this sample")
        if body.get("decision") not in (*CLAIM_DECISIONS, "withdrawn"):
            raise StoreError(f"decision: {', '.join(CLAIM_DECISIONS)} or withdrawn for a claim")
        return decision_from_request(body, digest(claim.text), claim.index, None)
    if not (isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span)):
        raise StoreError("span: give a claim index or span [start, end] (UTF-16 offsets into the answer)")
    to_cp = utf16_to_code_points(sample.answer)
    start, end = to_cp(span[0]), to_cp(span[1])
    if start is None or end is None or not start < end:
        raise StoreError("span: not inside the answer")
    if body.get("decision") not in ("missed", "withdrawn"):
        raise StoreError("decision: missed or withdrawn for marked text")
    return decision_from_request(body, digest(sample.answer[start:end]), None, (start, end))


def _kind(value: Any) -> str:
    """What a JSON value is, for a message (never the value itself: it may be huge)."""
    return {type(None): "null", bool: "true/false", int: "a number", float: "a number", str: "text",
            list: "a list", dict: "an object"}.get(type(value), type(value).__name__)
