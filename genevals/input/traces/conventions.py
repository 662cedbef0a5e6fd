"""What one OTLP span says of its trace's sample, under each semantic convention the OTLP reader knows.

:mod:`~genevals.input.traces.openinference` owns the OTLP JSON format and the per-trace assembly; it asks
:func:`read` for a span's role (LLM, RETRIEVER or another), its question, answer, contexts and the trace-level
input and output, and :func:`session_of` for its session. Texts held as JSON are read with
:func:`~genevals.input.traces.records.text_in` (an object's ``question``/``query``/``input``/``user_input`` for a
question, ``answer``/``output``/``response``/``content``/``text`` for an answer, a chat message's ``content``, a
list of messages' last one) and documents with :func:`~genevals.input.traces.records.documents`.

Which convention reads a span (a span carrying several is read by the first of this order only; the others'
attributes on it are not read)::

    1. OpenInference       marker: openinference.span.kind
    2. Langfuse (OTel)     marker: langfuse.observation.type
    3. OpenTelemetry GenAI marker: gen_ai.operation.name, gen_ai.provider.name, gen_ai.system,
                           gen_ai.input.messages, gen_ai.output.messages, gen_ai.retrieval.documents,
                           gen_ai.prompt.N.*, gen_ai.completion.N.*
    4. OpenLLMetry         marker: traceloop.span.kind, traceloop.entity.input, traceloop.entity.output,
                           llm.request.type

Per convention (role; question; answer; contexts):

- OpenInference (https://github.com/Arize-ai/openinference/blob/main/spec/semantic_conventions.md): role the kind
  (CHAIN, RETRIEVER, LLM, ...); question ``input.value``; answer ``output.value``; an LLM span's question the last
  ``llm.input_messages.N.message.content`` of role ``user``, its answer ``llm.output_messages.0.message.content``
  (else ``output.value``); a RETRIEVER span's contexts ``retrieval.documents.N.document.content`` / ``.id`` /
  ``.score`` in index order.
- Langfuse over OpenTelemetry (the Python SDK v3+, ``LangfuseOtelSpanAttributes``): role LLM for observation type
  ``generation``, RETRIEVER for ``retriever``, else the type; question the text in ``langfuse.observation.input``,
  answer the text in ``langfuse.observation.output`` (JSON text, or plain text as the SDK writes a string); a
  retriever's contexts the documents in its output; the trace-level ``langfuse.trace.input`` /
  ``langfuse.trace.output`` (on any span) are the trace's question and answer before any span's.
- OpenTelemetry GenAI (https://opentelemetry.io/docs/specs/semconv/gen-ai/): role RETRIEVER for operation
  ``retrieval`` (or a span with ``gen_ai.retrieval.documents``), LLM for ``chat``, ``text_completion``,
  ``generate_content`` (or no operation but messages), else the operation; question the last ``user`` message of
  ``gen_ai.input.messages`` (JSON text or a structured list of ``{"role", "parts": [{"type": "text",
  "content"}]}``, text parts joined by a line break; a message's plain ``content`` is read too), else the last
  ``gen_ai.prompt.N.content`` of role ``user`` (the conventions before 1.37), else
  ``gen_ai.retrieval.query.text``; answer the first output message's text in ``gen_ai.output.messages``, else
  ``gen_ai.completion.0.content``; contexts the documents of ``gen_ai.retrieval.documents`` (a JSON list of
  ``{"id", "score", "content"}``).
- OpenLLMetry / Traceloop (``opentelemetry-semantic-conventions-ai``): its LLM spans carry the GenAI attributes and
  are read as GenAI; a span with only Traceloop's own gives role LLM for ``llm.request.type`` chat or completion,
  else ``traceloop.span.kind`` (workflow, task, agent, tool); question the text in ``traceloop.entity.input``
  (the SDK's ``{"args": [...], "kwargs": {...}}``: the first text argument, else a question key of ``kwargs``);
  answer the text in ``traceloop.entity.output``; no contexts.

Session: the first of :data:`SESSION_KEYS` a span carries, whatever convention reads it: ``session.id``
(OpenInference, and Langfuse's SDK since v3), ``langfuse.session.id`` (Langfuse's own name), then
``gen_ai.conversation.id``.

A value a convention reads that is not of its form (GenAI messages that are not JSON, a part that is not an
object, a document without text or id) raises :class:`~genevals.input.traces.records.Located` naming the
attribute; Langfuse's and Traceloop's texts are free text, so text that is not JSON is read as the text itself.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, NamedTuple

from genevals.input.traces.langfuse import ANSWER_KEYS, QUESTION_KEYS
from genevals.input.traces.records import Located, documents, expect, kind, text_in

OPENINFERENCE, LANGFUSE, GENAI, TRACELOOP = "OpenInference", "Langfuse", "OpenTelemetry GenAI", "OpenLLMetry"
LLM, RETRIEVER = "LLM", "RETRIEVER"
#: the session's attribute, in the order tried (the watch groups sessions by the same keys)
SESSION_KEYS = ("session.id", "langfuse.session.id", "gen_ai.conversation.id")

_OI_KIND = "openinference.span.kind"
_LF_TYPE = "langfuse.observation.type"
_GENAI_KEYS = ("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.system", "gen_ai.input.messages",
               "gen_ai.output.messages", "gen_ai.retrieval.documents")
_TRACELOOP_KEYS = ("traceloop.span.kind", "traceloop.entity.input", "traceloop.entity.output", "llm.request.type")
#: what a refusal names as looked for: every marker, with its convention
LOOKED_FOR = (f"'{_OI_KIND}' ({OPENINFERENCE}), '{_LF_TYPE}' ({LANGFUSE}), "
              + ", ".join(f"'{k}'" for k in _GENAI_KEYS) + f", 'gen_ai.prompt.N.*' or 'gen_ai.completion.N.*' ({GENAI}), "
              + ", ".join(f"'{k}'" for k in _TRACELOOP_KEYS) + f" ({TRACELOOP})")
# indexes in ASCII digits, short enough to convert (a longer one is no document or message genevals reads)
_DOC = re.compile(r"retrieval\.documents\.([0-9]{1,9})\.document\.(content|id|score)\Z")
_MESSAGE = re.compile(r"llm\.(input|output)_messages\.([0-9]{1,9})\.message\.(role|content)\Z")
_GENAI_FLAT = re.compile(r"gen_ai\.(prompt|completion)\.([0-9]{1,9})\.(role|content)\Z")
_GENAI_LLM_OPS = ("chat", "text_completion", "generate_content")


class Reading(NamedTuple):
    """What a span says of its trace's sample; ``convention`` "" when it carries none of them."""

    convention: str
    role: str  # LLM, RETRIEVER, or the convention's own name for another kind of step
    question: Any  # the span's input (OpenInference: input.value as given, of whatever type)
    answer: Any  # the span's output
    user: Any  # an LLM span's last user message
    llm_answer: Any  # an LLM span's first output message
    contexts: list  # a RETRIEVER span's documents, as genevals contexts
    trace_question: Any = None  # Langfuse's trace-level input, set on any span of the trace
    trace_answer: Any = None


NONE = Reading("", "", None, None, None, None, [])


def session_of(attributes: Mapping[str, Any]) -> Any:
    """The first of :data:`SESSION_KEYS` the attributes hold (not null), as given; None when none."""
    return next((attributes[k] for k in SESSION_KEYS if attributes.get(k) is not None), None)


def read(attributes: Mapping[str, Any], source: str, line: int, field: str) -> Reading:
    """The span's reading by the first convention (in the module's order) it carries; ``field`` the span's path,
    for errors."""
    where = f"{field}.attributes"
    oi_kind = attributes.get(_OI_KIND)
    if isinstance(oi_kind, str) and oi_kind:
        return _openinference(attributes, oi_kind.upper())
    if isinstance(attributes.get(_LF_TYPE), str) and attributes[_LF_TYPE]:
        return _langfuse(attributes, source, line, where)
    if any(attributes.get(k) is not None for k in _GENAI_KEYS) or any(_GENAI_FLAT.match(k) for k in attributes
                                                                       if k.startswith("gen_ai.")):
        return _genai(attributes, source, line, where)
    if any(attributes.get(k) is not None for k in _TRACELOOP_KEYS):
        return _traceloop(attributes)
    return NONE


def _openinference(attributes: Mapping[str, Any], role: str) -> Reading:
    user = llm_answer = None
    if role == LLM:
        users = [m.get("content") for m in _flat_messages(attributes, _MESSAGE, "input") if m.get("role") == "user"]
        user = users[-1] if users else None
        out = _flat_messages(attributes, _MESSAGE, "output")
        llm_answer = out[0].get("content") if out else attributes.get("output.value")
    contexts = _oi_documents(attributes) if role == RETRIEVER else []
    return Reading(OPENINFERENCE, role, attributes.get("input.value"), attributes.get("output.value"), user,
                   llm_answer, contexts)


def _flat_messages(attributes: Mapping[str, Any], pattern: re.Pattern, direction: str) -> list[dict[str, Any]]:
    """Messages flattened into attributes (``llm.input_messages.N.message.role``), in index order."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        m = pattern.match(key)
        if m and m.group(1) == direction:
            found.setdefault(int(m.group(2)), {})[m.group(3)] = value
    return [found[i] for i in sorted(found)]


def _oi_documents(attributes: Mapping[str, Any]) -> list[dict[str, Any]]:
    docs: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        m = _DOC.match(key)
        if m:
            docs.setdefault(int(m.group(1)), {})[{"content": "text"}.get(m.group(2), m.group(2))] = value
    return [docs[i] for i in sorted(docs)]


def _free(value: Any) -> Any:
    """A free-text attribute (Langfuse's input, Traceloop's entity input): the JSON it holds, else the text itself
    (the SDKs write a string as it is, so text that does not parse is no error)."""
    if isinstance(value, str) and value[:1] in ("{", "[", '"'):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _langfuse(attributes: Mapping[str, Any], source: str, line: int, where: str) -> Reading:
    kind_ = attributes[_LF_TYPE].lower()
    role = {"generation": LLM, "retriever": RETRIEVER}.get(kind_, kind_.upper())
    given, out = _free(attributes.get("langfuse.observation.input")), _free(attributes.get("langfuse.observation.output"))
    question, answer = text_in(given, QUESTION_KEYS), text_in(out, ANSWER_KEYS)
    user = llm_answer = None
    if role == LLM:
        users = [m for m in given if isinstance(m, Mapping) and m.get("role") == "user"] \
            if isinstance(given, list) else []
        user = text_in(users[-1], ("content",)) if users else question
        choices = out.get("choices") if isinstance(out, Mapping) else None
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):  # an OpenAI response object
            out = choices[0].get("message", out)
        llm_answer = text_in(out, ANSWER_KEYS)
    contexts = []
    if role == RETRIEVER and out is not None:
        contexts = documents(out, source, line, f"{where}[langfuse.observation.output]")
    trace_in, trace_out = (_free(attributes.get(k)) for k in ("langfuse.trace.input", "langfuse.trace.output"))
    return Reading(LANGFUSE, role, question, answer, user, llm_answer, contexts, text_in(trace_in, QUESTION_KEYS),
                   text_in(trace_out, ANSWER_KEYS))


def _json(value: Any, source: str, line: int, field: str, what: str) -> Any:
    """A structured GenAI attribute: JSON text (as SDKs without structured attributes write it), or the structure."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except RecursionError:
        raise Located(source, line, field, f"expected {what} as JSON text: nested too deeply") from None
    except ValueError as exc:
        raise Located(source, line, field, f"expected {what} as JSON text, got text that is not JSON ({exc})") \
            from None


def _genai_messages(value: Any, source: str, line: int, field: str) -> list[tuple[Any, str | None]]:
    """(role, text) of each message in a ``gen_ai.input.messages`` / ``gen_ai.output.messages`` value: the text
    parts' ``content`` joined by a line break (None when it has none); a message's plain ``content`` text too."""
    value = expect(_json(value, source, line, field, "a list of messages"), list, source, line, field,
                   "a list of messages ({\"role\", \"parts\"})")
    out = []
    for i, message in enumerate(value):
        at = f"{field}[{i}]"
        message = expect(message, dict, source, line, at, "a message object ({\"role\", \"parts\"})")
        if message.get("parts") is None and isinstance(message.get("content"), str):
            out.append((message.get("role"), message["content"]))
            continue
        parts = expect(message.get("parts"), list, source, line, f"{at}.parts", "a list of parts")
        texts = []
        for j, part in enumerate(parts):
            part = expect(part, dict, source, line, f"{at}.parts[{j}]", "a part object ({\"type\", \"content\"})")
            if part.get("type") == "text":
                texts.append(expect(part.get("content"), str, source, line, f"{at}.parts[{j}].content",
                                    "the text part's text"))
        out.append((message.get("role"), "\n".join(texts) if texts else None))
    return out


def _genai(attributes: Mapping[str, Any], source: str, line: int, where: str) -> Reading:
    operation = attributes.get("gen_ai.operation.name")
    operation = operation.lower() if isinstance(operation, str) else ""
    user = answer = None
    if attributes.get("gen_ai.input.messages") is not None:
        field = f"{where}[gen_ai.input.messages]"
        users = [text for role, text in _genai_messages(attributes["gen_ai.input.messages"], source, line, field)
                 if role == "user" and text is not None]
        user = users[-1] if users else None
    if attributes.get("gen_ai.output.messages") is not None:
        field = f"{where}[gen_ai.output.messages]"
        texts = [text for _, text in _genai_messages(attributes["gen_ai.output.messages"], source, line, field)
                 if text is not None]
        answer = texts[0] if texts else None
    prompts = _flat_messages(attributes, _GENAI_FLAT, "prompt")
    if user is None and prompts:
        users = [m.get("content") for m in prompts if m.get("role") == "user"]
        user = users[-1] if users else None
    completions = _flat_messages(attributes, _GENAI_FLAT, "completion")
    if answer is None and completions:
        answer = completions[0].get("content")
    contexts = []
    docs = attributes.get("gen_ai.retrieval.documents")
    if docs is not None:
        field = f"{where}[gen_ai.retrieval.documents]"
        contexts = documents(_json(docs, source, line, field, "a list of documents"), source, line, field)
    if operation == "retrieval" or docs is not None:
        role = RETRIEVER
    elif operation in _GENAI_LLM_OPS or not operation and (user is not None or answer is not None):
        role = LLM
    else:
        role = operation.upper()
    question = user
    if question is None and attributes.get("gen_ai.retrieval.query.text") is not None:
        question = expect(attributes["gen_ai.retrieval.query.text"], str, source, line,
                          f"{where}[gen_ai.retrieval.query.text]", "the query's text")
    for name, value in (("gen_ai.prompt.N.content", question), ("gen_ai.completion.0.content", answer)):
        if value is not None and not isinstance(value, str):  # the flat attributes of before 1.37
            raise Located(source, line, f"{where}[{name}]", f"expected text, got {kind(value)}")
    return Reading(GENAI, role, question, answer, question, answer, contexts)


def _traceloop(attributes: Mapping[str, Any]) -> Reading:
    request = attributes.get("llm.request.type")
    span_kind = attributes.get("traceloop.span.kind")
    role = LLM if request in ("chat", "completion") else span_kind.upper() if isinstance(span_kind, str) else ""
    given = _free(attributes.get("traceloop.entity.input"))
    if isinstance(given, Mapping) and set(given) <= {"args", "kwargs"}:  # the SDK's record of a call's arguments
        args = given.get("args") if isinstance(given.get("args"), list) else []
        given = next((a for a in args if isinstance(a, str)), None) or given.get("kwargs")
    question = text_in(given, QUESTION_KEYS)
    answer = text_in(_free(attributes.get("traceloop.entity.output")), ANSWER_KEYS)
    return Reading(TRACELOOP, role, question, answer, question, answer, [])
