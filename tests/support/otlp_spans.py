"""RAG traces made by the real OpenTelemetry SDK with OpenInference attributes, written as an OTLP JSON file the
way the OpenTelemetry Collector's file exporter writes one: one ``ExportTraceServiceRequest`` per line, encoded
by the OTLP exporter's own encoder (``opentelemetry-exporter-otlp-proto-common``) and protobuf's JSON mapping."""
from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Sequence

from google.protobuf import json_format
from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult


class OtlpJsonFileExporter(SpanExporter):
    """Appends each export (a batch of finished spans) to ``path`` as one OTLP JSON line."""

    def __init__(self, path: Path, hex_ids: bool = False) -> None:
        self.path, self.hex_ids = path, hex_ids

    def export(self, spans) -> SpanExportResult:
        message = json_format.MessageToDict(encode_spans(spans))
        if self.hex_ids:  # the OTLP/JSON spec's ids (hex) rather than protobuf JSON's base64
            for block in message["resourceSpans"]:
                for scope in block["scopeSpans"]:
                    for span in scope["spans"]:
                        for key in ("traceId", "spanId", "parentSpanId"):
                            if key in span:
                                span[key] = base64.b64decode(span[key]).hex()
        with open(self.path, "a", encoding="utf-8") as out:
            out.write(json.dumps(message) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


def write_rag_traces(path: Path, traces: Sequence[dict[str, Any]], hex_ids: bool = False) -> list[str]:
    """One trace per item of ``traces`` (question, answer, docs: [(id, content, score)], system), each a CHAIN
    root with a RETRIEVER child and an LLM child, as an instrumented RAG app records them; the trace ids (hex)."""
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-app"}))
    provider.add_span_processor(SimpleSpanProcessor(OtlpJsonFileExporter(path, hex_ids)))
    tracer = provider.get_tracer("rag-app")
    ids = []
    for item in traces:
        with tracer.start_as_current_span("rag") as root:
            ids.append(format(root.get_span_context().trace_id, "032x"))
            root.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKindValues.CHAIN.value)
            root.set_attribute(SpanAttributes.INPUT_VALUE, item["question"])
            if "system" in item:
                root.set_attribute(SpanAttributes.METADATA, json.dumps({"system": item["system"]}))
            with tracer.start_as_current_span("retrieve") as retriever:
                retriever.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND,
                                        OpenInferenceSpanKindValues.RETRIEVER.value)
                retriever.set_attribute(SpanAttributes.INPUT_VALUE, item["question"])
                for i, (doc_id, content, score) in enumerate(item["docs"]):
                    prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{i}"
                    retriever.set_attribute(f"{prefix}.{DocumentAttributes.DOCUMENT_ID}", doc_id)
                    retriever.set_attribute(f"{prefix}.{DocumentAttributes.DOCUMENT_CONTENT}", content)
                    retriever.set_attribute(f"{prefix}.{DocumentAttributes.DOCUMENT_SCORE}", score)
            with tracer.start_as_current_span("generate") as llm:
                llm.set_attribute(SpanAttributes.OPENINFERENCE_SPAN_KIND, OpenInferenceSpanKindValues.LLM.value)
                llm.set_attribute(f"{SpanAttributes.LLM_INPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_ROLE}", "user")
                llm.set_attribute(f"{SpanAttributes.LLM_INPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_CONTENT}",
                                  item["question"])
                llm.set_attribute(f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_ROLE}",
                                  "assistant")
                llm.set_attribute(f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.{MessageAttributes.MESSAGE_CONTENT}",
                                  item["answer"])
            if item.get("root_output", True):
                root.set_attribute(SpanAttributes.OUTPUT_VALUE, item["answer"])
    provider.shutdown()
    return ids
