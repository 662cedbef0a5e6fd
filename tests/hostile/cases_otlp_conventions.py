"""Cases: otlp_conventions (issue 50, point 1): hostile values of the semantic conventions the OTLP reader knows
besides OpenInference (genevals.input.traces.conventions: Langfuse over OpenTelemetry, OpenTelemetry GenAI,
OpenLLMetry), read by ``genevals run --from openinference`` and by a real ``genevals watch --from``.

* **Import** (:data:`VALUES`, :data:`SESSIONS`, :data:`CONFLICTS`): an OTLP JSON file whose line 2 is a GenAI RAG
  trace (an app span, a retrieval span with ``gen_ai.retrieval.documents``, a chat span with
  ``gen_ai.input.messages`` / ``gen_ai.output.messages``), or a Langfuse or OpenLLMetry one, with one value made
  hostile: messages that are not JSON, JSON of the wrong type, nested 100,000 deep, nested wrongly (parts that are
  no list, parts that are no object, a text part of no text), huge (2 MB), given as a structured OTLP array;
  documents that are not JSON, not a list, without text or id, with ids and scores of every type; session and
  conversation ids of every OTLP type; conflicting conventions on one span, and markers of the wrong type. Lines
  1 and 3 are good OpenInference traces, so a refusal must name ``in.jsonl:2`` and the attribute (or what was
  looked for), never with a traceback.
* **The watch** (:data:`EXPORTS`): ``genevals watch --from`` on an export mixing good Langfuse and GenAI traces
  with hostile ones: each trace gets exactly one decision, the good ones ``scored``, the hostile ones ``failed``
  with a reason naming the attribute or the conventions looked for.
"""
from __future__ import annotations

import json

from hostile.cases import CHEAP, OK, REFUSED, Case, jsonl
from hostile.cases_traces import good

CLS = "otlp_conventions"
TRACE = "7a3b0c1d2e3f40516273849506a7b8c9"
QUESTION, ANSWER, DOC = "What is the capital of France?", "Paris is the capital of France.", \
    "Paris is the capital and largest city of France."


def _value(value) -> dict:
    """An OTLP JSON AnyValue of a Python value; ``("raw", dict)`` passes an AnyValue as it is."""
    if isinstance(value, tuple) and value[0] == "raw":
        return value[1]
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _value(v)} for k, v in value.items()]}}
    return {"stringValue": value}


def _span(sid: str, parent: str | None, name: str, attrs: dict, start: int, trace: str = TRACE) -> dict:
    span = {"traceId": trace, "spanId": sid, "name": name, "startTimeUnixNano": str(1_700_000_000_000_000_000 + start),
            "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items() if v is not None]}
    if parent:
        span["parentSpanId"] = parent
    return span


def _export(*spans: dict) -> str:
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [{"key": "service.name",
                                                                        "value": {"stringValue": "rag"}}]},
                                          "scopeSpans": [{"spans": list(spans)}]}]})


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def genai(trace: str = TRACE, root: dict | None = None, retrieval: dict | None = None, chat: dict | None = None,
          n: int = 0) -> list[dict]:
    """A GenAI RAG trace's spans, each span's attributes overridden by ``root`` / ``retrieval`` / ``chat`` (a value
    None leaves the attribute out)."""
    ids = [f"{n:08x}0000000{i}" for i in (1, 2, 3)]
    return [
        _span(ids[0], None, "POST /ask", {**(root or {})}, 0, trace),
        _span(ids[1], ids[0], "retrieval", {"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": QUESTION,
                                             "gen_ai.retrieval.documents": json.dumps([{"id": "d1", "content": DOC}]),
                                             **(retrieval or {})}, 1, trace),
        _span(ids[2], ids[0], "chat m", {"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                                          "gen_ai.input.messages": _messages("user", QUESTION),
                                          "gen_ai.output.messages": _messages("assistant", ANSWER),
                                          **(chat or {})}, 2, trace)]


def langfuse(trace: str = TRACE, root: dict | None = None, retriever: dict | None = None, n: int = 0) -> list[dict]:
    """A Langfuse-OTel RAG trace: a span observation (question, answer) and a retriever (documents)."""
    ids = [f"{n:08x}0000000{i}" for i in (1, 2)]
    return [_span(ids[0], None, "rag", {"langfuse.observation.type": "span",
                                        "langfuse.observation.input": json.dumps({"question": QUESTION}),
                                        "langfuse.observation.output": ANSWER, **(root or {})}, 0, trace),
            _span(ids[1], ids[0], "search", {"langfuse.observation.type": "retriever",
                                             "langfuse.observation.output": json.dumps([{"page_content": DOC}]),
                                             **(retriever or {})}, 1, trace)]


def _parts(*parts) -> str:
    return json.dumps([{"role": "user", "parts": list(parts)}])


_DEEP = "[" * 100_000 + "]" * 100_000
_HUGE = "x " * 1_000_000  # 2 MB
#: (slug: span, attribute, value, expect, what a refusal names besides in.jsonl:2)
VALUES = {
    "input-not-json": ("chat", "gen_ai.input.messages", "[{not json", REFUSED, ("gen_ai.input.messages", "not JSON")),
    "input-json-number": ("chat", "gen_ai.input.messages", "42", REFUSED, ("gen_ai.input.messages", "a list")),
    "input-json-object": ("chat", "gen_ai.input.messages", '{"role": "user", "content": "hi"}', REFUSED,
                          ("gen_ai.input.messages", "a list")),
    "input-json-null": ("chat", "gen_ai.input.messages", "null", REFUSED, ("gen_ai.input.messages",)),
    "input-list-of-numbers": ("chat", "gen_ai.input.messages", "[1, 2]", REFUSED,
                              ("[gen_ai.input.messages][0]", "a message object")),
    "input-nested-in-a-list": ("chat", "gen_ai.input.messages", json.dumps([[{"role": "user"}]]), REFUSED,
                               ("[gen_ai.input.messages][0]",)),
    "input-parts-text": ("chat", "gen_ai.input.messages", '[{"role": "user", "parts": "hi"}]', REFUSED,
                         ("[gen_ai.input.messages][0].parts", "a list of parts")),
    "input-parts-missing": ("chat", "gen_ai.input.messages", '[{"role": "user"}]', REFUSED,
                            ("[gen_ai.input.messages][0].parts",)),
    "input-part-number": ("chat", "gen_ai.input.messages", _parts(1), REFUSED, ("parts[0]", "a part object")),
    "input-text-part-number": ("chat", "gen_ai.input.messages", _parts({"type": "text", "content": 5}), REFUSED,
                               ("parts[0].content", "text")),
    "input-text-part-null": ("chat", "gen_ai.input.messages", _parts({"type": "text", "content": None}), REFUSED,
                             ("parts[0].content",)),
    "input-nested-100000": ("chat", "gen_ai.input.messages", _DEEP, REFUSED, ("gen_ai.input.messages", "deep")),
    "input-int-value": ("chat", "gen_ai.input.messages", 7, REFUSED, ("gen_ai.input.messages", "got a number")),
    "input-bool-value": ("chat", "gen_ai.input.messages", True, REFUSED, ("gen_ai.input.messages",)),
    "input-kvlist-value": ("chat", "gen_ai.input.messages", {"role": "user"}, REFUSED, ("gen_ai.input.messages",)),
    # the structured form (an OTLP array of kvlists) is the spec's own
    "input-structured": ("chat", "gen_ai.input.messages",
                         [{"role": "user", "parts": [{"type": "text", "content": QUESTION}]}], OK, ()),
    "input-huge": ("chat", "gen_ai.input.messages", _parts({"type": "text", "content": _HUGE}), OK, ()),
    "input-empty-list": ("chat", "gen_ai.input.messages", "[]", OK, ()),  # the retrieval's query is the question
    "input-no-user": ("chat", "gen_ai.input.messages", _messages("system", "Be brief."), OK, ()),
    "input-tool-parts-only": ("chat", "gen_ai.input.messages", _parts({"type": "tool_call", "id": 1}), OK, ()),
    "input-lone-surrogate": ("chat", "gen_ai.input.messages", '[{"role": "user", "parts": [{"type": "text", '
                             '"content": "caf\\ud800"}]}]', OK, ()),
    "output-not-json": ("chat", "gen_ai.output.messages", "{", REFUSED, ("gen_ai.output.messages", "not JSON")),
    "output-empty-list": ("chat", "gen_ai.output.messages", "[]", REFUSED, ("no answer",)),
    "output-no-text-parts": ("chat", "gen_ai.output.messages",
                             json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "x"}]}]),
                             REFUSED, ("no answer",)),
    "output-string-list": ("chat", "gen_ai.output.messages", '["Paris"]', REFUSED, ("[gen_ai.output.messages][0]",)),
    "output-huge": ("chat", "gen_ai.output.messages", _messages("assistant", _HUGE), OK, ()),
    "output-plain-content": ("chat", "gen_ai.output.messages", json.dumps([{"role": "assistant", "content": ANSWER}]),
                             OK, ()),
    "docs-not-json": ("retrieval", "gen_ai.retrieval.documents", "[{", REFUSED, ("gen_ai.retrieval.documents",)),
    "docs-object": ("retrieval", "gen_ai.retrieval.documents", '{"a": 1}', REFUSED,
                    ("gen_ai.retrieval.documents", "a list of documents")),
    "docs-numbers": ("retrieval", "gen_ai.retrieval.documents", "[1, 2]", REFUSED, ("[gen_ai.retrieval.documents][0]",)),
    "docs-no-text-no-id": ("retrieval", "gen_ai.retrieval.documents", '[{"score": 0.5}]', REFUSED,
                           ("[gen_ai.retrieval.documents][0]", "text")),
    "docs-nested-100000": ("retrieval", "gen_ai.retrieval.documents", _DEEP, REFUSED,
                           ("gen_ai.retrieval.documents", "deep")),
    "docs-strings": ("retrieval", "gen_ai.retrieval.documents", json.dumps([DOC, "Lyon is in France."]), OK, ()),
    "docs-ids-of-every-type": ("retrieval", "gen_ai.retrieval.documents", json.dumps(
        [{"id": i, "content": DOC} for i in (1, 1.5, True, [1], {"a": 1}, None, "", "x" * 5000)]), OK, ()),
    "docs-scores-of-every-type": ("retrieval", "gen_ai.retrieval.documents", '[{"content": "a", "score": "high"}, '
                                  '{"content": "b", "score": null}, {"content": "c", "score": [1]}]', REFUSED,
                                  ("contexts[0].score", "expected a number")),
    "docs-structured": ("retrieval", "gen_ai.retrieval.documents", [{"id": "d1", "content": DOC}], OK, ()),
    "query-number": ("retrieval", "gen_ai.retrieval.query.text", 5, REFUSED, ("gen_ai.retrieval.query.text",)),
    "query-empty": ("retrieval", "gen_ai.retrieval.query.text", "", OK, ()),  # the root's question is the chat's
    "operation-number": ("chat", "gen_ai.operation.name", 5, OK, ()),
    "operation-list": ("chat", "gen_ai.operation.name", ["chat"], OK, ()),
    "old-prompt-content-number": ("chat", "gen_ai.prompt.0.content", 5, OK, ()),  # after the messages: not read
}
#: session and conversation ids of every OTLP type, on the root span: (value, expect)
IDS = {"text": ("conv-1", OK), "int": (42, OK), "empty": ("", REFUSED), "blank": ("   ", REFUSED),
       "double": (1.5, REFUSED), "bool": (True, REFUSED), "array": (["a"], REFUSED), "kvlist": ({"a": "b"}, REFUSED),
       "long": ("s" * 5000, OK), "unicode": ("会話-١", OK), "bytes": (("raw", {"bytesValue": "AAE="}), OK)}
SESSIONS = ("gen_ai.conversation.id", "langfuse.session.id", "session.id")


def _conflicts() -> dict[str, tuple[list[dict], str, tuple[str, ...]]]:
    """slug: (the spans of line 2's trace, expect, what a refusal names)."""
    lf_docs = json.dumps([{"page_content": "Lyon is in France."}])
    return {
        # OpenInference first: a chat span that also says LLM in OpenInference gives no answer of its own
        "openinference-over-genai": (genai(chat={"openinference.span.kind": "LLM"}), REFUSED, ("no answer",)),
        "openinference-kind-empty": (genai(chat={"openinference.span.kind": ""}), OK, ()),
        "openinference-kind-number": (genai(chat={"openinference.span.kind": 3}), OK, ()),
        "langfuse-over-genai-documents": (genai(retrieval={"langfuse.observation.type": "retriever",
                                                           "langfuse.observation.output": lf_docs}), OK, ()),
        "langfuse-type-list": (genai(root={"langfuse.observation.type": ["span"]}), OK, ()),
        "every-session-key-differs": (genai(root={"session.id": "a", "langfuse.session.id": "b",
                                                  "gen_ai.conversation.id": "c"}), OK, ()),
        "only-markers-of-wrong-types": ([_span("0000000000000001", None, "x", {
            "openinference.span.kind": 3, "langfuse.observation.type": ["span"], "input.value": QUESTION,
            "output.value": ANSWER}, 0)], REFUSED, ("no span carries", "langfuse.observation.type", "gen_ai.")),
        "no-convention": ([_span("0000000000000001", None, "GET /", {"http.method": "GET"}, 0)], REFUSED,
                          ("no span carries", "traceloop.span.kind")),
        "langfuse-retriever-output-text": (langfuse(retriever={"langfuse.observation.output": "just text"}), REFUSED,
                                           ("langfuse.observation.output", "a list of documents")),
        "langfuse-output-nested-100000": (langfuse(root={"langfuse.observation.output": _DEEP}), OK, ()),
        "langfuse-input-huge": (langfuse(root={"langfuse.observation.input": _HUGE}), OK, ()),
        "langfuse-output-not-text": (langfuse(root={"langfuse.observation.output": 5}), REFUSED, ("no answer",)),
        "langfuse-trace-output-number": (langfuse(root={"langfuse.trace.output": 5}), OK, ()),
        "langfuse-generation-openai-response": (langfuse(root={"langfuse.observation.type": "generation",
                                                               "langfuse.observation.output": json.dumps(
                                                                   {"choices": [{"message": {"content": ANSWER}}]})}),
                                                OK, ()),
        "traceloop-input-not-json": ([_span("0000000000000001", None, "wf", {
            "traceloop.span.kind": "workflow", "traceloop.entity.input": "{broken",
            "traceloop.entity.output": json.dumps(ANSWER)}, 0)], OK, ()),
        "traceloop-output-no-text": ([_span("0000000000000001", None, "wf", {
            "traceloop.span.kind": "workflow", "traceloop.entity.input": json.dumps({"args": [QUESTION]}),
            "traceloop.entity.output": json.dumps({"x": 1})}, 0)], REFUSED, ("no answer",)),
        "traceloop-args-of-every-type": ([_span("0000000000000001", None, "wf", {
            "traceloop.span.kind": "workflow",
            "traceloop.entity.input": json.dumps({"args": [1, None, [QUESTION], QUESTION], "kwargs": 5}),
            "traceloop.entity.output": json.dumps(ANSWER)}, 0)], OK, ()),
    }


def _around(line2: str) -> bytes:
    """A good OpenInference trace, ``line2``, a good OpenInference trace."""
    return jsonl(json.dumps(good("openinference", 1)), line2, json.dumps(good("openinference", 3)))


def _case(slug: str, expect: str, line2: str, names=(), limit: float = 30.0) -> Case:
    where = ("in.jsonl:2", *names) if expect == REFUSED else tuple(names)
    return Case(id=f"{CLS}-{slug}", cls=CLS, expect=expect, where=where, files=(("in.jsonl", _around(line2)),),
                argv=("run", "--from", "openinference", "{in}", "--out", "{out}", "--metrics", CHEAP), limit=limit)


# ------------------------------------------------------------------ the watch: decisions and their reasons

def _watch_export() -> tuple[bytes, dict[str, tuple[str, str]]]:
    """One trace a line: good Langfuse, good GenAI, and hostile ones; trace -> (decision, words of its reason)."""
    tids = [f"{n:032x}" for n in range(0x51, 0x58)]
    lines = [
        (langfuse(tids[0], n=1), ("scored", "")),
        (genai(tids[1], n=2, root={"gen_ai.conversation.id": 7}), ("scored", "")),
        (genai(tids[2], n=3, chat={"gen_ai.input.messages": "[{not json"}), ("failed", "gen_ai.input.messages")),
        (genai(tids[3], n=4, chat={"gen_ai.output.messages": "[]"}), ("failed", "no answer")),
        (genai(tids[4], n=5, retrieval={"gen_ai.retrieval.documents": _DEEP}), ("failed", "nested too deeply")),
        ([_span("0000000600000001", None, "GET /", {"http.method": "GET"}, 0, tids[5])],
         ("failed", "no span carries")),
        (langfuse(tids[6], n=7, root={"langfuse.session.id": True}), ("failed", "session")),
    ]
    content = jsonl(*(_export(*spans) for spans, _ in lines))
    return content, {spans[0]["traceId"]: want for spans, want in lines}


def backfill() -> dict:
    """``genevals watch --from`` (a real process) on :func:`_watch_export`: one decision a trace, as expected."""
    from hostile.watch_real import run_backfill

    content, wanted = _watch_export()
    _, lines = run_backfill(content, "--session-idle", "0s")
    got = {line["trace_id"]: (line["decision"], line["reason"]) for line in lines}
    wrong = {t: got.get(t) for t, (decision, words) in wanted.items()
             if t not in got or got[t][0] != decision or words not in got[t][1]}
    if wrong or len(lines) != len(wanted):
        raise RuntimeError(f"decisions {wrong} (of {len(lines)} lines), expected {wanted}")
    return {"decisions": got}


def cases() -> list[Case]:
    found = []
    for slug, (where, key, value, expect, names) in VALUES.items():
        spans = genai(**{where: {key: value}})
        found.append(_case(f"genai-{slug}", expect, _export(*spans), names))
    for key in SESSIONS:
        short = key.split(".")[0]
        for slug, (value, expect) in IDS.items():
            found.append(_case(f"{short}-session-{slug}", expect, _export(*genai(root={key: value})),
                               ("session",) if expect != OK else ()))
    for slug, (spans, expect, names) in _conflicts().items():
        found.append(_case(slug, expect, _export(*spans), names))
    found.append(Case(id=f"{CLS}-watch-backfill", cls=CLS, expect=OK, limit=40.0,
                      api='__import__("hostile.cases_otlp_conventions", fromlist=["_"]).backfill()'))
    return found
