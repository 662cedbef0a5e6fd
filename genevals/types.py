"""Core typed records that flow through genevals.

The results file is the contract between scoring and display: everything the report needs is in
``SampleResult.to_dict()``, so the report never imports scoring code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

# Statuses. "ok" is the only status that carries a value; every other status carries a reason.
OK = "ok"
EMPTY_ANSWER = "empty_answer"
EMPTY_REFERENCE = "no_reference"
NO_CONTEXT = "empty_context"
NO_RELEVANCE_LABELS = "no_relevance_labels"
NOT_FOUND = "not_found"
NO_CLAIMS = "no_claims"
REFUSAL = "refusal"
JUDGE_ERROR = "judge_error"
PARSE_ERROR = "parse_error"
DRY_RUN = "dry_run"
ERROR = "error"
UNSUPPORTED_LANGUAGE = "unsupported_language"
#: a conversation metric's status on every turn but the conversation's last, which carries its one value
#: (:mod:`genevals.metrics.conversation`): not a sample left unscored, so it is in no coverage's total
NOT_LAST_TURN = "not_last_turn"
#: the statuses counted beside a mean but not in its total (coverage is scored / the rest)
NOT_COUNTED = frozenset({NOT_LAST_TURN})


_set = object.__setattr__


def no_context_reason(sample: "Sample", reason: str) -> str:
    """The reason of a :data:`NO_CONTEXT` status: ``reason`` for a sample without retrieved chunks, and for one
    whose chunks carry ids but no text (a mapping gave it only ``contexts[].doc_id``), a reason that says so."""
    if not any(c.id is not None or c.doc_id is not None for c in sample.contexts):
        return reason
    return (f"the sample's {len(sample.contexts)} retrieved chunk(s) carry ids but no text: the retrieval metrics "
            "read the ids, this metric needs the text (--map contexts[].text=COLUMN)")


@dataclass(frozen=True)
class Context:
    """One retrieved chunk. ``rank`` is 1-based in retrieval order."""

    text: str
    rank: int
    id: str | None = None
    doc_id: str | None = None
    score: float | None = None

    @property
    def key(self) -> str:
        """The id used for chunk-level relevance: the explicit id, else the rank."""
        return self.id if self.id is not None else str(self.rank)

    @classmethod
    def checked(cls, text: str, rank: int, id: str | None = None, doc_id: str | None = None,
                score: float | None = None) -> "Context":
        """``Context(text, rank, id, doc_id, score)`` from values the reader has already checked, in half the
        time: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``, and the reader
        makes one context per retrieved chunk (200,000 for 10,000 rows of 20)."""
        self = object.__new__(cls)
        _set(self, "__dict__", {"text": text, "rank": rank, "id": id, "doc_id": doc_id, "score": score})
        return self

    def to_dict(self) -> dict[str, Any]:
        """The fields in declaration order, as ``dataclasses.asdict`` gives them (which deep-copies each value
        and costs ~30 us a context: most of writing a 20-context row)."""
        return {"text": self.text, "rank": self.rank, "id": self.id, "doc_id": self.doc_id, "score": self.score}


@dataclass(frozen=True)
class Sample:
    id: str
    answer: str
    question: str = ""
    contexts: tuple[Context, ...] = ()
    references: tuple[str, ...] = ()
    # id -> graded relevance (binary labels become 1). None means "no labels given", which differs from {}.
    relevant: Mapping[str, float] | None = None
    system: str = "default"
    # "file:line" of the row, so later errors can still point at the input.
    origin: str = ""
    #: the answer's citations given as data (the ``citations`` field), not as markers in its text: one
    #: (sentence text or None, context references) pair per sentence or claim; None: not given
    citations: tuple[tuple[str | None, tuple[str, ...]], ...] | None = None
    #: the row's ``language`` field (an ISO 639-1 code), which overrides the run's ``--language``; None: not given
    language: str | None = None
    #: the trace a trace import read the row from: (trace id, the evaluated span's id or None), hex, so results
    #: sent to an OpenTelemetry backend link back to it; None for any other input
    trace: tuple[str, str | None] | None = None
    #: a conversation turn's earlier turns, (role, content) oldest first, within the run's history budget
    #: (:mod:`genevals.conversations`); () for a sample that is no conversation turn
    history: tuple[tuple[str, str], ...] = ()
    #: how many earlier turns the history budget left out (the oldest)
    history_dropped: int = 0
    #: the conversation this sample is a turn of (statistics resample conversations, not turns); None: none
    conversation_id: str | None = None
    #: the turn's number in its conversation
    turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "system": self.system,
            "question": self.question,
            "answer": self.answer,
            "contexts": [c.to_dict() for c in self.contexts],
            "references": list(self.references),
            "relevant": dict(self.relevant) if self.relevant is not None else None,
            "origin": self.origin,
            # written only when given: results lines of answers without them stay as they were
            **({"citations": [{"text": t, "contexts": list(refs)} for t, refs in self.citations]}
               if self.citations is not None else {}),
            **({"language": self.language} if self.language is not None else {}),
            **({"trace": {"trace_id": self.trace[0], "span_id": self.trace[1]}} if self.trace is not None else {}),
            **self._conversation_dict(),
        }

    def _conversation_dict(self) -> dict[str, Any]:
        """The conversation fields, written only for a conversation's turns: other results lines stay as they
        were."""
        d: dict[str, Any] = {}
        if self.conversation_id is not None:
            d["conversation_id"], d["turn"] = self.conversation_id, self.turn
        if self.history:
            d["history"] = [{"role": role, "content": content} for role, content in self.history]
        if self.history_dropped:
            d["history_dropped"] = self.history_dropped
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Sample":
        return cls(
            id=d["id"],
            answer=d["answer"],
            question=d.get("question", ""),
            contexts=tuple(Context(**c) for c in d.get("contexts", ())),
            references=tuple(d.get("references", ())),
            relevant=d.get("relevant"),
            system=d.get("system", "default"),
            origin=d.get("origin", ""),
            citations=(tuple((c.get("text"), tuple(c.get("contexts", ()))) for c in d["citations"])
                       if d.get("citations") is not None else None),
            language=d.get("language"),
            trace=(d["trace"]["trace_id"], d["trace"].get("span_id")) if isinstance(d.get("trace"), Mapping) else None,
            history=tuple((m["role"], m["content"]) for m in d.get("history") or ()),
            history_dropped=d.get("history_dropped", 0),
            conversation_id=d.get("conversation_id"),
            turn=d.get("turn"),
        )


@dataclass(frozen=True)
class MetricResult:
    """One metric value for one sample. ``value`` is None unless ``status == "ok"``."""

    name: str
    value: float | None
    status: str = OK
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status == OK and self.value is None:
            raise ValueError(f"metric {self.name}: status ok needs a value")
        if self.status != OK and self.value is not None:
            raise ValueError(f"metric {self.name}: status {self.status} must not carry a value")
        if self.status != OK and not self.reason:
            raise ValueError(f"metric {self.name}: status {self.status} needs a reason")

    @classmethod
    def unscored(cls, name: str, status: str, reason: str, **details: Any) -> "MetricResult":
        return cls(name=name, value=None, status=status, reason=reason, details=details)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"value": self.value, "status": self.status}
        if self.reason:
            d["reason"] = self.reason
        if self.details:
            d["details"] = dict(self.details)
        return d

    @classmethod
    def from_dict(cls, name: str, d: Mapping[str, Any]) -> "MetricResult":
        return cls(name=name, value=d.get("value"), status=d.get("status", OK),
                   reason=d.get("reason"), details=d.get("details", {}))


# Judge records. Spans are [start, end) character offsets into the answer.
SUPPORTED = "supported"
CONTRADICTED = "contradicted"
UNVERIFIABLE = "unverifiable"
VERDICT_LABELS = (SUPPORTED, CONTRADICTED, UNVERIFIABLE)
#: a conversation turn's claim that only repeats what the user said in an earlier turn: neither supported by the
#: contexts nor a hallucination (:mod:`genevals.conversations`); given only to turns with history
FROM_HISTORY = "from_history"
#: every label a verdict may carry
ALL_VERDICT_LABELS = VERDICT_LABELS + (FROM_HISTORY,)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what}: expected an integer, got {value!r}")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what}: expected a string, got {type(value).__name__}")
    return value


def _span(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{what}: expected [start, end], got {value!r}")
    return _int(value[0], what), _int(value[1], what)


@dataclass(frozen=True)
class Claim:
    index: int
    text: str
    spans: tuple[tuple[int, int], ...] = ()
    # False when the claim could not be found in the answer: it is then flagged, never scored as the answer's.
    located: bool = True
    #: why the claim is not located (None when it is)
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"index": self.index, "text": self.text, "spans": [list(s) for s in self.spans],
                             "located": self.located}
        if not self.located:  # not the answer's: never counted against it (issue 52)
            d["status"] = "invented"
        if self.note:
            d["note"] = self.note
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Claim":
        """The claim a :meth:`to_dict` wrote; ValueError naming the field when ``d`` is not one."""
        if not isinstance(d, Mapping):
            raise ValueError(f"claim: expected an object, got {type(d).__name__}")
        spans = d.get("spans") or []
        if not isinstance(spans, list):
            raise ValueError(f"claim spans: expected a list, got {type(spans).__name__}")
        note = d.get("note")
        return cls(index=_int(d.get("index"), "claim index"), text=_text(d.get("text"), "claim text"),
                   spans=tuple(_span(s, "claim span") for s in spans), located=bool(d.get("located", True)),
                   note=_text(note, "claim note") if note is not None else None)


@dataclass(frozen=True)
class Verdict:
    claim_index: int
    label: str
    context_index: int | None = None
    quote: str = ""
    quote_found: bool = False
    quote_span: tuple[int, int] | None = None
    reason: str = ""
    # Set when no verdict came back for the claim; it then counts as unverifiable, never supported.
    missing: bool = False
    #: numeric evidence a judge adds (the local checker's confidence, support and similarity), written after
    #: the fixed fields
    scores: Mapping[str, float] = field(default_factory=dict)
    #: the answer's characters the verdict is about, when narrower than its claim (the local detector's
    #: unsupported phrase, e.g. "four return sailings"); written only when set
    answer_span: tuple[int, int] | None = None
    #: with judge repeats: each repeat's label (None where that repeat failed), of which ``label`` is the
    #: majority, and ``agreement``, the share of the answering repeats that gave it; written only when set
    repeats: tuple[str | None, ...] = ()
    agreement: float | None = None
    #: with a jury: each judge's label (its majority over its repeats; None where it failed), of which ``label``
    #: is the weighted majority and ``agreement`` the share of the answering judges' weight that gave it;
    #: written only when set
    jury: Mapping[str, str | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"claim_index": self.claim_index, "label": self.label, "context_index": self.context_index,
             "quote": self.quote, "quote_found": self.quote_found,
             "quote_span": list(self.quote_span) if self.quote_span is not None else None,
             "reason": self.reason, "missing": self.missing, **dict(self.scores)}
        if self.answer_span is not None:
            d["answer_span"] = list(self.answer_span)
        if self.repeats:
            d["repeats"], d["agreement"] = list(self.repeats), self.agreement
        if self.jury:
            d["jury"], d["agreement"] = dict(self.jury), self.agreement
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Verdict":
        """The verdict a :meth:`to_dict` wrote; ValueError naming the field when ``d`` is not one."""
        if not isinstance(d, Mapping):
            raise ValueError(f"verdict: expected an object, got {type(d).__name__}")
        label = d.get("label")
        if label not in ALL_VERDICT_LABELS:
            raise ValueError(f"verdict label: expected one of {', '.join(ALL_VERDICT_LABELS)}, got {label!r}")
        context_index = d.get("context_index")
        span = d.get("quote_span")
        scores = {k: float(v) for k, v in d.items() if k not in _VERDICT_FIELDS
                  and isinstance(v, (int, float)) and not isinstance(v, bool)}
        return cls(claim_index=_int(d.get("claim_index"), "verdict claim_index"), label=label,
                   context_index=_int(context_index, "verdict context_index") if context_index is not None else None,
                   quote=_text(d.get("quote", ""), "verdict quote"), quote_found=bool(d.get("quote_found", False)),
                   quote_span=_span(span, "verdict quote_span") if span is not None else None,
                   reason=_text(d.get("reason", ""), "verdict reason"), missing=bool(d.get("missing", False)),
                   scores=scores, answer_span=(_span(d["answer_span"], "verdict answer_span")
                                               if d.get("answer_span") is not None else None),
                   repeats=_repeat_labels(d.get("repeats")), jury=_jury_labels(d.get("jury")),
                   agreement=float(d["agreement"]) if isinstance(d.get("agreement"), (int, float))
                   and not isinstance(d.get("agreement"), bool) else None)


def _jury_labels(value: Any) -> dict[str, str | None]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or any(not isinstance(k, str) or (v is not None and v not in ALL_VERDICT_LABELS)
                                             for k, v in value.items()):
        raise ValueError(f"verdict jury: expected judge names mapped to labels or nulls, got {value!r}")
    return dict(value)


def _repeat_labels(value: Any) -> tuple[str | None, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or any(v is not None and v not in ALL_VERDICT_LABELS for v in value):
        raise ValueError(f"verdict repeats: expected a list of labels or nulls, got {value!r}")
    return tuple(value)


_VERDICT_FIELDS = frozenset(Verdict.__dataclass_fields__)


@dataclass(frozen=True)
class SkippedRow:
    """An input row left out with ``on_error="skip"``: where it was, which field, and why."""

    origin: str
    field: str | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"origin": self.origin, "field": self.field, "reason": self.reason}


@dataclass
class SampleResult:
    sample: Sample
    metrics: dict[str, MetricResult] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        return (self.sample.system, self.sample.id)

    def to_dict(self) -> dict[str, Any]:
        d = self.sample.to_dict()
        d["metrics"] = {name: m.to_dict() for name, m in self.metrics.items()}
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "SampleResult":
        metrics = {name: MetricResult.from_dict(name, m) for name, m in d.get("metrics", {}).items()}
        return cls(sample=Sample.from_dict(d), metrics=metrics)
