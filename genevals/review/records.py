"""One reviewer's decision as a value, checked when it is made: on a claim or marked answer text
(:class:`Decision`), or on a citation verdict (:class:`CitationDecision`); and which decisions are current.
:mod:`genevals.review.store` keeps them in SQLite."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

#: What a reviewer can say about a claim; ``missed`` marks answer text the judge did not flag;
#: ``not_in_answer`` (since schema version 4) says the judge invented the claim: the answer does not say it, so it
#: is no hallucination of the answer's (as faithfulness treats a claim it finds ``invented``).
DECISIONS = ("confirmed", "false_alarm", "unsure", "missed", "withdrawn", "not_in_answer")
#: Verdict-like decisions (the rest are marks of text, or take a decision back).
CLAIM_DECISIONS = ("confirmed", "false_alarm", "unsure", "not_in_answer")
#: The claim decisions that say the claim is no hallucination of the answer: the judge flagged supported text, or
#: a claim the answer does not make.
NOT_HALLUCINATED = ("false_alarm", "not_in_answer")
#: A citation verdict: does the cited chunk support the sentence (the report's "relevant" / "not relevant")?
CITATION_VERDICTS = ("supported", "not_supported")
CITATION_DECISIONS = ("confirmed", "rejected", "withdrawn")
MAX_REVIEWER = 80
MAX_NOTE = 4000
#: What a reviewer can say about a generated test-set item (``genevals review SET_DIR``, since schema version 5),
#: and why an invalid one is invalid (``other`` needs a note).
ITEM_DECISIONS = ("valid", "invalid", "unsure", "withdrawn")
ITEM_REASONS = ("wrong_reference", "not_answerable", "not_self_contained", "wrong_type", "duplicate", "other")

class StoreError(ValueError):
    """A decision that cannot be stored, or a store this version cannot read."""


@dataclass(frozen=True)
class Decision:
    """One reviewer's decision on a claim (``claim_index``) or on marked answer text (``span``, code point
    offsets into the answer, for ``missed``); ``digest`` is :func:`genevals.review.claims.digest` of the claim's
    (or the marked) text when the decision was made."""
    reviewer: str
    system: str
    sample_id: str
    decision: str
    digest: str
    claim_index: int | None = None
    span: tuple[int, int] | None = None
    note: str = ""
    time: str = ""
    id: int | None = None
    #: made in ``genevals review --blind`` before the reviewer saw the judge's verdicts on the answer
    blind: bool = False

    def __post_init__(self) -> None:
        _check_reviewer_and_note(self.reviewer, self.note)
        if self.decision not in DECISIONS:
            raise StoreError(f"decision: one of {', '.join(DECISIONS)}, not {str(self.decision)[:40]!r}")
        if self.claim_index is None and self.span is None:
            raise StoreError("a decision names a claim or a span of the answer")
        if self.decision == "missed" and self.span is None:
            raise StoreError("a missed hallucination is marked by a span of the answer")
        if self.span is not None and not (0 <= self.span[0] < self.span[1]):
            raise StoreError("span: need 0 <= start < end")

    @property
    def key(self) -> tuple:
        """What the decision is about: one reviewer, one sample, one claim or one marked span."""
        target = ("claim", self.claim_index) if self.claim_index is not None else ("span", *self.span)
        return (self.reviewer, self.system, self.sample_id, target)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["span"] = list(self.span) if self.span else None
        return out


@dataclass(frozen=True)
class CitationDecision:
    """One reviewer's decision on the citation check's verdict for one citation: sentence ``sentence`` (0-based,
    as in ``citation_recall``'s details) cites context ``context`` (0-based); ``shown`` is the verdict the
    reviewer saw; ``rejected`` carries the verdict the reviewer gives instead (``corrected``). ``digest`` is
    :func:`genevals.review.citations.citation_digest` of the sentence and the chunk when the decision was made."""
    reviewer: str
    system: str
    sample_id: str
    sentence: int
    context: int
    shown: str
    decision: str
    digest: str
    corrected: str | None = None
    note: str = ""
    time: str = ""
    id: int | None = None

    def __post_init__(self) -> None:
        _check_reviewer_and_note(self.reviewer, self.note)
        for name in ("sentence", "context"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise StoreError(f"{name}: a 0-based index, not {str(value)[:40]!r}")
        if self.shown not in CITATION_VERDICTS:
            raise StoreError(f"shown: one of {', '.join(CITATION_VERDICTS)}, not {str(self.shown)[:40]!r}")
        if self.decision not in CITATION_DECISIONS:
            raise StoreError(f"decision: one of {', '.join(CITATION_DECISIONS)} for a citation, "
                             f"not {str(self.decision)[:40]!r}")
        wanted = ({v for v in CITATION_VERDICTS if v != self.shown} if self.decision == "rejected" else {None})
        if self.corrected not in wanted:
            raise StoreError("corrected: the other verdict when rejecting, none otherwise" if self.decision ==
                             "rejected" else f"corrected: only with a rejected verdict, not with {self.decision}")

    @property
    def key(self) -> tuple:
        return (self.reviewer, self.system, self.sample_id, ("citation", self.sentence, self.context))

    @property
    def label(self) -> str | None:
        """The reviewer's verdict on the citation: the one shown when confirmed, the corrected one when rejected."""
        return {"confirmed": self.shown, "rejected": self.corrected}.get(self.decision)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_reviewer_and_note(reviewer: Any, note: Any) -> None:
    if not isinstance(reviewer, str) or not reviewer.strip():
        raise StoreError("reviewer: a name is needed")
    if len(reviewer) > MAX_REVIEWER:
        raise StoreError(f"reviewer: at most {MAX_REVIEWER} characters")
    _check_text("reviewer", reviewer, allowed="")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise StoreError(f"note: text of at most {MAX_NOTE} characters")
    _check_text("note", note, allowed="\t\n\r")


def _check_text(field: str, text: str, allowed: str) -> None:
    """StoreError for text SQLite and UTF-8 cannot hold as given: a lone surrogate (not encodable) or a control
    character other than ``allowed`` (a NUL would end the text for SQLite's ``length`` and fail its CHECK)."""
    for i, ch in enumerate(text):
        if "\ud800" <= ch <= "\udfff":
            raise StoreError(f"{field}: character {i + 1} is a lone surrogate (U+{ord(ch):04X}), not text")
        if (ch < " " or "\x7f" <= ch <= "\x9f") and ch not in allowed:
            raise StoreError(f"{field}: character {i + 1} is a control character (U+{ord(ch):04X})")


def current(decisions: Iterable[Any]) -> list[Any]:
    """Each reviewer's latest decision per claim, marked span or citation (:class:`Decision` or
    :class:`CitationDecision`), in the order they were made; a ``withdrawn`` one takes the decision back."""
    latest: dict[tuple, Any] = {}
    for d in sorted(decisions, key=lambda d: d.id or 0):
        latest.pop(d.key, None)
        if d.decision != "withdrawn":
            latest[d.key] = d
    return sorted(latest.values(), key=lambda d: d.id or 0)


def decision_from_request(body: Mapping[str, Any], digest: str, claim_index: int | None,
                          span: tuple[int, int] | None) -> Decision:
    """A :class:`Decision` from a request's fields (already resolved against the run); StoreError when bad."""
    reviewer, note = body.get("reviewer"), body.get("note", "")
    if not isinstance(reviewer, str):
        raise StoreError("reviewer: a name is needed")
    if not isinstance(note, str):
        raise StoreError("note: expected text")
    return Decision(reviewer=reviewer.strip(), system=str(body.get("system")), sample_id=str(body.get("sample_id")),
                    decision=str(body.get("decision")), digest=digest, claim_index=claim_index, span=span,
                    note=note)
