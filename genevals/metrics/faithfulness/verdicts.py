"""The faithfulness outputs, computed from claims and verdicts: shared by every faithfulness judge (the LLM
judge, the local grounding checker and the cascade), none of which this module imports."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from genevals import types
from genevals.claims.locate import grounded_fraction
from genevals.metrics.base import Output
from genevals.types import Claim, MetricResult, Verdict

#: The outputs every faithfulness judge writes (the LLM judge, the local grounding checker, the cascade).
FAITHFULNESS_OUTPUTS = (
    Output("faithfulness", "share of the answer's claims supported by the contexts (supported / claims)"),
    Output("contradiction_rate", "share of the answer's claims contradicted by the contexts", direction="lower"),
    Output("unverifiable_rate", "share of the answer's claims the contexts neither support nor contradict "
                                "(missing verdicts count here)", direction="lower"),
)
OUTPUTS = tuple(o.name for o in FAITHFULNESS_OUTPUTS)


def restate(*definitions: str) -> tuple[Output, ...]:
    """:data:`FAITHFULNESS_OUTPUTS` with another judge's own definitions, in the same order."""
    return tuple(replace(o, definition=d) for o, d in zip(FAITHFULNESS_OUTPUTS, definitions, strict=True))
#: which verdict of a claim judged in several context windows wins: support first; a repetition of the user's
#: earlier words before a contradiction or nothing
LABEL_ORDER = {types.SUPPORTED: 0, types.FROM_HISTORY: 1, types.CONTRADICTED: 2, types.UNVERIFIABLE: 3}
_COUNTED = (types.SUPPORTED, types.CONTRADICTED, types.UNVERIFIABLE)


#: the share of an unsupported claim's content words that the user's earlier turns must hold for the claim to
#: count as repeating them (``from_history``) in the offline checker
FROM_HISTORY_MIN = 0.8


def from_history(verdicts: Sequence[Verdict], claims: Sequence[Claim], sample: types.Sample) -> list[Verdict]:
    """The offline checker's verdicts with every claim the contexts do not support (``unverifiable``; a
    contradiction stays one) relabelled ``from_history`` when at least :data:`FROM_HISTORY_MIN` of its content
    words occur in what the user said in earlier turns of the conversation."""
    said = [content for role, content in sample.history if role == "user"]
    if not said:
        return list(verdicts)
    texts = {c.index: c.text for c in claims}
    out = []
    for v in verdicts:
        if v.label == types.UNVERIFIABLE and not v.missing and v.claim_index in texts \
                and grounded_fraction(texts[v.claim_index], *said) >= FROM_HISTORY_MIN:
            v = replace(v, label=types.FROM_HISTORY, reason=f"repeats what the user said earlier ({v.reason})")
        out.append(v)
    return out


def unscored_outputs(status: str, reason: str, details: Mapping[str, Any]) -> dict[str, MetricResult]:
    """The three outputs of an answer that could not be scored; ``details`` go on ``faithfulness``."""
    return {"faithfulness": MetricResult.unscored("faithfulness", status, reason, **details),
            "contradiction_rate": MetricResult.unscored("contradiction_rate", status, reason),
            "unverifiable_rate": MetricResult.unscored("unverifiable_rate", status, reason)}


def scored_outputs(claims: Sequence[Claim], verdicts: Sequence[Verdict], details: Mapping[str, Any]
                   ) -> dict[str, MetricResult]:
    r"""The three outputs from the verdicts on the located claims. With :math:`h` of the :math:`n` claims
    labelled ``from_history`` (a conversation's turn repeating what the user said earlier: neither supported
    nor a hallucination, so in no share) and :math:`m = n - h`: faithfulness :math:`= supported / m`,
    contradiction_rate :math:`= contradicted / m`, unverifiable_rate :math:`= (unverifiable + missing) / m`.
    With :math:`h = 0` (every single answer) these are the shares of all n claims; with :math:`m = 0` the answer
    only repeats the user, and has status ``no_claims``. ``details`` (with the claims, verdicts and counts added)
    go on ``faithfulness``."""
    located = [c for c in claims if c.located]  # a claim not found in the answer is never the answer's
    counts = {label: sum(1 for v in verdicts if v.label == label and not v.missing) for label in _COUNTED}
    missing = sum(1 for v in verdicts if v.missing)
    counts["missing"] = missing
    repeated = sum(1 for v in verdicts if v.label == types.FROM_HISTORY and not v.missing)
    if repeated:  # written only when there are some: single answers' counts stay as they were
        counts[types.FROM_HISTORY] = repeated
    n = len(located) - repeated
    details = {"claims": [c.to_dict() for c in located], "verdicts": [v.to_dict() for v in verdicts],
               "counts": counts, **details}
    if repeated and n <= 0:
        return unscored_outputs(types.NO_CLAIMS, f"all {repeated} claim(s) only repeat what the user said in "
                                "earlier turns (from_history): nothing of the answer's own to check", details)
    return {
        "faithfulness": MetricResult("faithfulness", counts[types.SUPPORTED] / n, details=details),
        "contradiction_rate": MetricResult("contradiction_rate", counts[types.CONTRADICTED] / n,
                                           details={"contradicted": counts[types.CONTRADICTED], "claims": n}),
        "unverifiable_rate": MetricResult("unverifiable_rate", (counts[types.UNVERIFIABLE] + missing) / n,
                                          details={"unverifiable": counts[types.UNVERIFIABLE],
                                                   "missing": missing, "claims": n}),
    }
