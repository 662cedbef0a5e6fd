"""A real ``genevals watch`` process receiving Langfuse-OTel and OpenTelemetry GenAI traces over OTLP/HTTP:
protobuf sent by the OpenTelemetry SDK's own OTLP exporter, JSON posted as the OTLP spec writes it; each trace
scored (faithfulness, judged by the project's honest judge server on 127.0.0.1, so the values are known by hand)
and a Langfuse session and a GenAI conversation each scored as one conversation once quiet."""
import json

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from support.fault_server import FaultServer
from support.watch_process import Watch, wait_for
from support.watch_traces import json_body, post

from genevals.watch import decisions

pytest.importorskip("genevals.watch.sampling")  # W2's module: the loop's triage needs it
pytestmark = pytest.mark.slow  # a real watch process and a judge server

DOC = "Paris is the capital of France."
HALF = f"{DOC} It has nine million people."  # one of two claims in the context: faithfulness 0.5


def _langfuse_turn(tracer, question, answer):
    """A RAG request as the Langfuse SDK records it (observation types, JSON input and output), in session lf-1."""
    with tracer.start_as_current_span("rag") as root:
        root.set_attributes({"langfuse.observation.type": "span", "langfuse.session.id": "lf-1",
                             "langfuse.observation.input": json.dumps({"question": question}),
                             "langfuse.observation.output": answer})
        with tracer.start_as_current_span("search") as retriever:
            retriever.set_attributes({"langfuse.observation.type": "retriever", "langfuse.observation.input": question,
                                      "langfuse.observation.output": json.dumps([{"page_content": DOC,
                                                                                  "metadata": {"id": "d1"}}])})
        return format(root.get_span_context().trace_id, "032x")


def _genai_turn(tracer, question, answer, conversation=None):
    """A RAG request under the GenAI conventions: a retrieval span and a chat span under an app span."""
    with tracer.start_as_current_span("POST /ask") as app:
        if conversation is not None:
            app.set_attribute("gen_ai.conversation.id", conversation)
        with tracer.start_as_current_span("retrieval") as retrieval:
            retrieval.set_attributes({"gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": question,
                                      "gen_ai.retrieval.documents": json.dumps([{"id": "d1", "content": DOC}])})
        with tracer.start_as_current_span("chat m") as chat:
            chat.set_attributes({
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text",
                                                                                 "content": question}]}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [{"type": "text",
                                                                                       "content": answer}]}])})
        return format(app.get_span_context().trace_id, "032x")


def _rows(out):
    """Every window's rows, a conversation's turns each a row: id -> (conversation, question, faithfulness)."""
    rows = {}
    for path in sorted((out / "windows").glob("*/results.jsonl")):
        for row in map(json.loads, path.read_text().splitlines()):
            for turn in row.get("turns", [row]):
                metric = turn["metrics"]["faithfulness"]
                rows[turn["id"]] = (turn.get("conversation_id", row.get("conversation_id")), turn["question"],
                                    metric.get("value"), metric["status"])
    return rows


def test_langfuse_and_genai_traces_over_protobuf_and_json_are_scored_and_sessions_grouped(tmp_path):
    out = tmp_path / "w"
    with FaultServer() as judge:
        watch = Watch(out, "-m", "faithfulness", "--window", "5", "--grace", "0s", "--session-idle", "1s",
                      "--judge-backend", "openai", "--judge-base-url", judge.base_url, "--judge-model", "judge",
                      "--no-judge-cache")
        try:
            # protobuf: the SDK's own OTLP/HTTP exporter, pointed at the watch
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider = TracerProvider(resource=Resource.create({"service.name": "rag-app"}))
            provider.add_span_processor(SimpleSpanProcessor(
                OTLPSpanExporter(endpoint=f"http://127.0.0.1:{watch.port}/v1/traces", timeout=30)))
            tracer = provider.get_tracer("rag-app")
            sent = [_langfuse_turn(tracer, "Where is Paris?", DOC), _langfuse_turn(tracer, "Is it big?", HALF),
                    _genai_turn(tracer, "What is Paris?", HALF)]
            provider.shutdown()
            # JSON: the same SDK's spans, encoded by the OTLP encoder, posted as the OTLP JSON spec writes them
            memory = InMemorySpanExporter()
            provider = TracerProvider(resource=Resource.create({"service.name": "rag-app"}))
            provider.add_span_processor(SimpleSpanProcessor(memory))
            tracer = provider.get_tracer("rag-app")
            sent += [_genai_turn(tracer, "Where is Paris?", DOC, "chat-1"),
                     _genai_turn(tracer, "And Lyon?", HALF, "chat-1")]
            status, _, body = post(watch.port, json_body(encode_spans(memory.get_finished_spans())),
                                   "application/json")
            assert (status, json.loads(body)) == (200, {})
            wait_for(lambda: len(decisions.read(out)) == 5, limit=120, step=0.1)
            code, _, err = watch.stop()
        finally:
            if watch.proc.poll() is None:
                watch.kill()
    assert code == 0 and "Traceback" not in err, err
    assert {line["trace_id"]: line["decision"] for line in decisions.read(out)} == {t: "scored" for t in sent}
    assert _rows(out) == {
        "lf-1:1": ("lf-1", "Where is Paris?", 1.0, "ok"), "lf-1:2": ("lf-1", "Is it big?", 0.5, "ok"),
        sent[2]: (None, "What is Paris?", 0.5, "ok"),
        "chat-1:1": ("chat-1", "Where is Paris?", 1.0, "ok"), "chat-1:2": ("chat-1", "And Lyon?", 0.5, "ok")}
