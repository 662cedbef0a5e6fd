"""Large RAG trace exports written straight as their JSON (no SDK: fast enough for hundreds of megabytes), in each
format genevals reads, and the same rows as genevals JSONL, to compare what importing them costs.

    python tests/input/traces/exports.py FOLDER TRACES   # FOLDER/{openinference.jsonl, langfuse.json, ...}
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

DOCS = 5


def _text(i: int, j: int, words: int) -> str:
    return " ".join(f"w{(i * 31 + j * 7 + k) % 997}" for k in range(words))


def _trace(i: int) -> dict:
    return {"id": f"{i:032x}", "question": f"Question {i}: {_text(i, 0, 12)}?", "answer": _text(i, 1, 40),
            "docs": [(f"doc-{i}-{j}", _text(i, j + 2, 150), round(1 / (j + 1), 3)) for j in range(DOCS)]}


def _attr(key: str, value) -> dict:
    kind = "stringValue" if isinstance(value, str) else "doubleValue"
    return {"key": key, "value": {kind: value}}


def _openinference(t: dict, n: int) -> dict:
    """One export per trace, as the Collector's file exporter writes a batch: root, retriever, LLM spans."""
    def span(sid, parent, name, kind, attrs, start):
        return {"traceId": t["id"], "spanId": f"{n:08x}{sid:08x}", "parentSpanId": parent, "name": name,
                "startTimeUnixNano": str(1_700_000_000_000_000_000 + n * 10 + start),
                "attributes": [_attr("openinference.span.kind", kind), *attrs]}
    root = f"{n:08x}{1:08x}"
    docs = [a for j, (i, text, score) in enumerate(t["docs"]) for a in (
        _attr(f"retrieval.documents.{j}.document.id", i), _attr(f"retrieval.documents.{j}.document.content", text),
        _attr(f"retrieval.documents.{j}.document.score", score))]
    prompt = "Answer from the context.\n" + "\n".join(text for _, text, _ in t["docs"]) + "\n" + t["question"]
    spans = [span(1, "", "rag", "CHAIN", [_attr("input.value", t["question"]), _attr("output.value", t["answer"]),
                                          _attr("metadata.system", "dense")], 0),
             span(2, root, "retrieve", "RETRIEVER", [_attr("input.value", t["question"]), *docs], 1),
             span(3, root, "generate", "LLM", [_attr("llm.input_messages.0.message.role", "user"),
                                              _attr("llm.input_messages.0.message.content", prompt),
                                              _attr("llm.output_messages.0.message.content", t["answer"])], 2)]
    return {"resourceSpans": [{"resource": {"attributes": [_attr("service.name", "rag")]},
                               "scopeSpans": [{"scope": {"name": "openinference"}, "spans": spans}]}]}


def _documents(t: dict) -> list[dict]:
    return [{"page_content": text, "metadata": {"id": i, "score": score}} for i, text, score in t["docs"]]


def _langfuse(t: dict) -> dict:
    return {"id": t["id"], "name": "rag", "input": {"question": t["question"]}, "output": t["answer"],
            "metadata": {"system": "dense"}, "observations": [
                {"id": t["id"] + "-r", "type": "RETRIEVER", "name": "retrieve", "startTime": "2024-01-01T00:00:01Z",
                 "parentObservationId": None, "input": t["question"], "output": _documents(t)},
                {"id": t["id"] + "-g", "type": "GENERATION", "name": "generate", "startTime": "2024-01-01T00:00:02Z",
                 "input": [{"role": "user", "content": t["question"]}], "output": t["answer"]}]}


def _langsmith(t: dict) -> list[dict]:
    root = {"id": t["id"], "name": "rag", "run_type": "chain", "trace_id": t["id"], "parent_run_id": None,
            "dotted_order": f"{t['id']}.0", "inputs": {"question": t["question"]}, "outputs": {"answer": t["answer"]},
            "extra": {"metadata": {"system": "dense"}}}
    retriever = {"id": t["id"] + "-r", "name": "retrieve", "run_type": "retriever", "trace_id": t["id"],
                 "parent_run_id": t["id"], "dotted_order": f"{t['id']}.1", "inputs": {"query": t["question"]},
                 "outputs": {"documents": _documents(t)}}
    return [root, retriever]


def write(folder: Path, traces: int) -> dict[str, Path]:
    """The exports of ``traces`` traces: OpenInference JSON Lines, Langfuse as a JSON array and as JSON Lines,
    LangSmith as a JSON array and as JSON Lines, and the rows as genevals JSONL."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {name: folder / name for name in ("openinference.jsonl", "langfuse.json", "langfuse.jsonl",
                                              "langsmith.json", "langsmith.jsonl", "rows.jsonl")}
    handles = {name: path.open("w", encoding="utf-8") for name, path in paths.items()}
    try:
        for name in ("langfuse.json", "langsmith.json"):
            handles[name].write("[\n")
        for n in range(traces):
            t = _trace(n)
            sep = ",\n" if n else ""
            handles["openinference.jsonl"].write(json.dumps(_openinference(t, n)) + "\n")
            handles["langfuse.jsonl"].write(json.dumps(_langfuse(t)) + "\n")
            handles["langfuse.json"].write(sep + json.dumps(_langfuse(t), indent=1))
            runs = _langsmith(t)
            handles["langsmith.jsonl"].writelines(json.dumps(r) + "\n" for r in runs)
            handles["langsmith.json"].write(sep + ",\n".join(json.dumps(r, indent=1) for r in runs))
            handles["rows.jsonl"].write(json.dumps({
                "id": t["id"], "question": t["question"], "answer": t["answer"],
                "contexts": [{"id": i, "text": text, "score": score} for i, text, score in t["docs"]]}) + "\n")
        for name in ("langfuse.json", "langsmith.json"):
            handles[name].write("\n]\n")
    finally:
        for handle in handles.values():
            handle.close()
    return paths


if __name__ == "__main__":
    for name, path in write(Path(sys.argv[1]), int(sys.argv[2])).items():
        print(f"{path.stat().st_size / 1e6:8.1f} MB  {path}")
