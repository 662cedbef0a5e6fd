"""The OTLP reader under each semantic convention (genevals.input.traces.conventions): spans made by the real
OpenTelemetry SDK with Langfuse-OTel, OpenTelemetry GenAI and OpenLLMetry attributes, spans made by the real
Langfuse SDK and by the real OpenLLMetry OpenAI instrumentation around a real ``openai`` client (calling the
project's OpenAI-compatible server on 127.0.0.1), all written as OTLP JSON and read as samples; a mixed trace
follows the stated order; a trace of no known convention, and a malformed convention value, get named refusals."""
from __future__ import annotations

import json
from contextlib import contextmanager

import pytest
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from support.fault_server import FaultServer
from support.otlp_spans import OtlpJsonFileExporter

from genevals.input.readers import InputError, iter_samples
from genevals.input.traces import TraceSource

QUESTION, ANSWER = "What is the capital of France?", "Paris is the capital of France."
DOCS = [("doc-7", "Paris is the capital and largest city of France.", 0.91),
        ("doc-3", "Lyon is a city in France.", 0.42)]
CONTEXTS = [{"text": text, "id": doc, "score": score} for doc, text, score in DOCS]


@contextmanager
def _tracer(path):
    """A tracer of the real SDK whose spans land in ``path`` as OTLP JSON lines (one export per span)."""
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-app"}))
    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonFileExporter(path, hex_ids=True)))
    try:
        yield provider.get_tracer("rag-app")
    finally:
        provider.shutdown()


def _read(path):
    """(samples as plain dicts: question, answer, contexts, conversation, turn), located errors as text."""
    samples, errors = [], []
    for item in iter_samples(TraceSource(path, "openinference")):
        if isinstance(item, InputError):
            errors.append(str(item))
            continue
        samples.append({"question": item.question, "answer": item.answer,
                        "contexts": [{k: v for k, v in (("text", c.text), ("id", c.id), ("score", c.score))
                                      if v is not None} for c in item.contexts],
                        "conversation": item.conversation_id, "turn": item.turn})
    return samples, errors


def _only(path):
    samples, errors = _read(path)
    assert errors == [] and len(samples) == 1, (samples, errors)
    return samples[0]


def test_langfuse_otel_attributes_give_question_answer_contexts_and_session(tmp_path):
    path = tmp_path / "langfuse.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("rag") as root:
            root.set_attributes({"langfuse.observation.type": "span", "langfuse.session.id": "conv-9",
                                 "langfuse.observation.input": json.dumps({"question": QUESTION}),
                                 "langfuse.observation.output": ANSWER})
            with tracer.start_as_current_span("retrieve") as retriever:
                retriever.set_attributes({"langfuse.observation.type": "retriever",
                                          "langfuse.observation.input": QUESTION,
                                          "langfuse.observation.output": json.dumps(
                                              [{"page_content": t, "metadata": {"id": d, "score": s}}
                                               for d, t, s in DOCS])})
            with tracer.start_as_current_span("generate") as llm:
                llm.set_attributes({"langfuse.observation.type": "generation",
                                    "langfuse.observation.input": json.dumps([{"role": "user", "content": "ctx"}]),
                                    "langfuse.observation.output": json.dumps({"role": "assistant",
                                                                               "content": "other"})})
    assert _only(path) == {"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS, "conversation": "conv-9",
                           "turn": 1}


def test_langfuse_trace_level_input_and_output_come_before_the_root_observation(tmp_path):
    path = tmp_path / "langfuse.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("rag") as root:
            root.set_attributes({"langfuse.observation.type": "span", "langfuse.observation.input": "raw input",
                                 "langfuse.observation.output": "raw output"})
            with tracer.start_as_current_span("step") as step:  # update_trace called inside a child
                step.set_attributes({"langfuse.observation.type": "span",
                                     "langfuse.trace.input": json.dumps({"query": QUESTION}),
                                     "langfuse.trace.output": json.dumps({"answer": ANSWER})})
    sample = _only(path)
    assert (sample["question"], sample["answer"]) == (QUESTION, ANSWER)


def _genai_rag(tracer, question=QUESTION, answer=ANSWER, conversation=None):
    """A RAG request as a GenAI-instrumented app records it: an app span (no convention), a retrieval span, and
    a chat span whose prompt holds the documents."""
    with tracer.start_as_current_span("POST /ask") as app:
        if conversation is not None:
            app.set_attribute("gen_ai.conversation.id", conversation)
        with tracer.start_as_current_span("retrieval") as retrieval:
            retrieval.set_attributes({"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": question,
                                      "gen_ai.retrieval.documents": json.dumps(
                                          [{"id": d, "score": s, "content": t} for d, t, s in DOCS])})
        with tracer.start_as_current_span("chat gpt-4o") as chat:
            chat.set_attributes({
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                "gen_ai.input.messages": json.dumps([
                    {"role": "system", "parts": [{"type": "text", "content": "Answer from the documents."}]},
                    {"role": "user", "parts": [{"type": "text", "content": question}]}]),
                "gen_ai.output.messages": json.dumps([
                    {"role": "assistant", "parts": [{"type": "text", "content": answer}], "finish_reason": "stop"}])})


def test_genai_messages_and_retrieval_documents(tmp_path):
    path = tmp_path / "genai.jsonl"
    with _tracer(path) as tracer:
        _genai_rag(tracer, conversation="thread-1")
    assert _only(path) == {"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS, "conversation": "thread-1",
                           "turn": 1}


def test_genai_before_1_37_prompt_and_completion_attributes_and_openllmetry_workflow(tmp_path):
    path = tmp_path / "old.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("openai.chat") as chat:  # OpenLLMetry before gen_ai.input.messages
            chat.set_attributes({"gen_ai.system": "openai", "llm.request.type": "chat",
                                 "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "Be brief.",
                                 "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": QUESTION,
                                 "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": ANSWER})
        with tracer.start_as_current_span("answer.workflow") as workflow:  # Traceloop's @workflow around it
            workflow.set_attributes({"traceloop.span.kind": "workflow",
                                     "traceloop.entity.input": json.dumps({"args": ["Who wrote Hamlet?"],
                                                                           "kwargs": {}}),
                                     "traceloop.entity.output": json.dumps("Shakespeare wrote Hamlet.")})
            with tracer.start_as_current_span("openai.chat") as chat:
                chat.set_attributes({"gen_ai.system": "openai", "llm.request.type": "chat",
                                     "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "prompt",
                                     "gen_ai.completion.0.content": "not the workflow's answer"})
    samples, errors = _read(path)
    assert errors == []
    assert [(s["question"], s["answer"], s["contexts"]) for s in samples] == [
        (QUESTION, ANSWER, []), ("Who wrote Hamlet?", "Shakespeare wrote Hamlet.", [])]


def test_a_mixed_trace_follows_the_stated_order(tmp_path):
    path = tmp_path / "mixed.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("rag") as root:
            # OpenInference and GenAI on one span: OpenInference reads it, the GenAI messages are not read
            root.set_attributes({"openinference.span.kind": "CHAIN", "input.value": QUESTION,
                                 "gen_ai.operation.name": "invoke_agent",
                                 "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [
                                     {"type": "text", "content": "the GenAI question"}]}]),
                                 "session.id": "s-oi", "gen_ai.conversation.id": "s-genai"})
            with tracer.start_as_current_span("search") as retriever:  # Langfuse's retriever: its documents
                retriever.set_attributes({"langfuse.observation.type": "retriever",
                                          "langfuse.observation.output": json.dumps(
                                              {"documents": [{"text": t, "id": d, "score": s} for d, t, s in DOCS]})})
            _genai_rag(tracer, question="unused", answer=ANSWER)  # no root output: the last LLM span's answer
    sample = _only(path)
    assert sample == {"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS + CONTEXTS,
                      "conversation": "s-oi", "turn": 1}


def test_a_trace_of_no_known_convention_is_refused_naming_what_was_looked_for(tmp_path):
    path = tmp_path / "plain.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("GET /") as span:
            span.set_attributes({"http.method": "GET", "input": QUESTION})
    samples, [error] = _read(path)
    assert samples == []
    assert "no span carries 'openinference.span.kind' (OpenInference), 'langfuse.observation.type' (Langfuse), " \
           "'gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.system', 'gen_ai.input.messages', " \
           "'gen_ai.output.messages', 'gen_ai.retrieval.documents', 'gen_ai.prompt.N.*' or 'gen_ai.completion.N.*' " \
           "(OpenTelemetry GenAI), 'traceloop.span.kind', 'traceloop.entity.input', 'traceloop.entity.output', " \
           "'llm.request.type' (OpenLLMetry): expected spans following one of these semantic conventions" in error


def test_malformed_genai_messages_refuse_their_trace_only(tmp_path):
    path = tmp_path / "bad.jsonl"
    with _tracer(path) as tracer:
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attributes({"gen_ai.operation.name": "chat", "gen_ai.input.messages": "[{not json",
                                 "gen_ai.output.messages": "[]"})
        _genai_rag(tracer)
    samples, [error] = _read(path)
    assert [s["answer"] for s in samples] == [ANSWER]
    assert f"{path}:1: field 'resourceSpans[0].scopeSpans[0].spans[0].attributes[gen_ai.input.messages]': " \
           "trace " in error and "expected a list of messages as JSON text, got text that is not JSON" in error


def test_sessions_of_langfuse_and_genai_are_conversations(tmp_path):
    path = tmp_path / "sessions.jsonl"
    with _tracer(path) as tracer:
        for turn, (q, a) in enumerate([("Where is Paris?", "In France."), ("How big is it?", "Quite big.")]):
            _genai_rag(tracer, question=q, answer=a, conversation="chat-42")
            with tracer.start_as_current_span("rag") as root:
                root.set_attributes({"langfuse.observation.type": "span", "langfuse.session.id": "lf-7",
                                     "langfuse.observation.input": f"lf {q}", "langfuse.observation.output": a})
    samples, errors = _read(path)
    assert errors == []
    assert sorted((s["conversation"], s["turn"], s["question"]) for s in samples) == [
        ("chat-42", 1, "Where is Paris?"), ("chat-42", 2, "How big is it?"),
        ("lf-7", 1, "lf Where is Paris?"), ("lf-7", 2, "lf How big is it?")]


@pytest.mark.slow  # the Langfuse SDK imported and started: about a second
def test_spans_of_the_real_langfuse_sdk(tmp_path, monkeypatch):
    import langfuse  # the test extra's: no skip, a missing package fails here

    for name in ("LANGFUSE_PUBLIC_KEY", "LANGFUSE_SECRET_KEY", "LANGFUSE_HOST", "LANGFUSE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGFUSE_MEDIA_UPLOAD_ENABLED", "false")
    path = tmp_path / "langfuse-sdk.jsonl"
    # its own provider and exporter (the file): nothing is sent; its host a closed port on 127.0.0.1 regardless
    client = langfuse.Langfuse(public_key=f"pk-lf-{tmp_path.name}", secret_key="sk-lf-test",
                               host="http://127.0.0.1:9", tracer_provider=TracerProvider(),
                               span_exporter=OtlpJsonFileExporter(path, hex_ids=True), flush_at=1)
    try:
        with langfuse.propagate_attributes(session_id="conv-1", user_id="u1"):
            with client.start_as_current_observation(as_type="span", name="rag",
                                                     input={"question": QUESTION}) as root:
                with client.start_as_current_observation(as_type="retriever", name="search", input=QUESTION) as r:
                    r.update(output=[{"page_content": t, "metadata": {"id": d, "score": s}} for d, t, s in DOCS])
                with client.start_as_current_observation(as_type="generation", name="llm", model="m",
                                                         input=[{"role": "user", "content": QUESTION}]) as g:
                    g.update(output={"role": "assistant", "content": ANSWER})
                root.update(output=ANSWER)
        client.flush()
    finally:
        client.shutdown()
    assert _only(path) == {"question": QUESTION, "answer": ANSWER, "contexts": CONTEXTS, "conversation": "conv-1",
                           "turn": 1}


@pytest.mark.slow  # openai and its instrumentation imported, a server started: seconds
def test_spans_of_the_real_openllmetry_openai_instrumentation(tmp_path, monkeypatch):
    import openai
    from opentelemetry.instrumentation import openai as instrumentation  # OpenLLMetry's, in the test extra

    monkeypatch.setenv("TRACELOOP_TELEMETRY", "false")
    path = tmp_path / "openai.jsonl"
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonFileExporter(path, hex_ids=True)))
    instrumentor = instrumentation.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with FaultServer(replies=lambda content: ANSWER) as server:
            client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
            reply = client.chat.completions.create(model="m", messages=[
                {"role": "system", "content": "Answer briefly."}, {"role": "user", "content": QUESTION}])
        assert reply.choices[0].message.content == ANSWER
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    assert _only(path) == {"question": QUESTION, "answer": ANSWER, "contexts": [], "conversation": None, "turn": None}
