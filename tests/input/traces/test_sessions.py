"""Trace exports with sessions read as conversations: the traces of one OpenInference ``session.id``, Langfuse
``sessionId`` or LangSmith thread are one conversation's turns in start order, and give the same per-turn
samples (and, in a real ``genevals run``, the same per-turn results) as the same conversations as ``turns`` rows."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from genevals.input.readers import InputError, iter_samples
from genevals.input.traces import TraceSource
from genevals.output import runfolder

ROOT = Path(__file__).resolve().parents[3]
#: two conversations, each exchange (question, answer, contexts); the user tells a fact the last answer repeats
CONVERSATIONS = {
    "bridge": [("Where is the Varnholt Bridge? I live in Grabow.", "It spans the river Elde near Grabow.",
                ["The Varnholt Bridge spans the river Elde near Grabow."]),
               ("How long does it take to cross it on foot?", "About ten minutes.",
                ["Crossing the Varnholt Bridge on foot takes ten minutes."]),
               ("When was it built?", "It was built in 1892. You live in Grabow.",
                ["The Varnholt Bridge was built in 1892 from red brick."])],
    "lynx": [("What is a lynx?", "A wild cat with tufted ears.", ["The lynx is a wild cat with tufted ears."]),
             ("Where does it live?", "In the forests of Europe and Asia.",
              ["Lynxes live in the forests of Europe and Asia."])],
}
#: the order the traces are written in: sessions interleaved, and each session's turns out of start order
WRITTEN = [("lynx", 1), ("bridge", 2), ("bridge", 0), ("lynx", 0), ("bridge", 1)]


def _start(session: str, turn: int) -> int:
    return 1_700_000_000_000_000_000 + (0 if session == "bridge" else 5) * 10**9 + turn * 60 * 10**9


def _iso(session: str, turn: int) -> str:
    return f"2024-01-01T00:{(0 if session == 'bridge' else 5) + turn:02d}:00Z"


def _attr(key, value):
    return {"key": key, "value": {"stringValue": value}}


def write_openinference(path: Path) -> Path:
    lines = []
    for n, (session, turn) in enumerate(WRITTEN, 1):
        question, answer, docs = CONVERSATIONS[session][turn]
        trace, root = f"{n:032x}", f"{n:016x}"
        spans = [{"traceId": trace, "spanId": root, "name": "chat", "startTimeUnixNano": str(_start(session, turn)),
                  "attributes": [_attr("openinference.span.kind", "CHAIN"), _attr("input.value", question),
                                 _attr("output.value", answer), _attr("session.id", session)]},
                 {"traceId": trace, "spanId": f"{n + 100:016x}", "parentSpanId": root, "name": "retrieve",
                  "startTimeUnixNano": str(_start(session, turn) + 1),
                  "attributes": [_attr("openinference.span.kind", "RETRIEVER"),
                                 *[_attr(f"retrieval.documents.{j}.document.content", d) for j, d in enumerate(docs)]]}]
        lines.append({"resourceSpans": [{"resource": {"attributes": []},
                                         "scopeSpans": [{"scope": {"name": "t"}, "spans": spans}]}]})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def write_langfuse(path: Path) -> Path:
    traces = []
    for n, (session, turn) in enumerate(WRITTEN, 1):
        question, answer, docs = CONVERSATIONS[session][turn]
        traces.append({"id": f"lf-{n}", "sessionId": session, "timestamp": _iso(session, turn), "input": question,
                       "output": answer, "observations": [
                           {"id": f"o-{n}", "type": "RETRIEVER", "startTime": _iso(session, turn), "output": docs}]})
    path.write_text(json.dumps(traces))
    return path


def write_langsmith(path: Path) -> Path:
    runs = []
    for n, (session, turn) in enumerate(WRITTEN, 1):
        question, answer, docs = CONVERSATIONS[session][turn]
        runs.append({"id": f"ls-{n}", "run_type": "chain", "trace_id": f"ls-{n}", "start_time": _iso(session, turn),
                     "inputs": {"question": question}, "outputs": {"answer": answer},
                     "extra": {"metadata": {"thread_id": session}},
                     "child_runs": [{"id": f"ls-{n}-r", "run_type": "retriever", "trace_id": f"ls-{n}",
                                     "parent_run_id": f"ls-{n}", "start_time": _iso(session, turn),
                                     "outputs": {"documents": docs}}]})
    path.write_text(json.dumps(runs))
    return path


def write_turns(path: Path) -> Path:
    rows = []
    for session, exchanges in CONVERSATIONS.items():
        turns = []
        for question, answer, docs in exchanges:
            turns += [{"role": "user", "content": question},
                      {"role": "assistant", "content": answer, "contexts": docs}]
        rows.append({"conversation_id": session, "turns": turns})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _turns_of(samples) -> dict:
    return {s.id: (s.conversation_id, s.turn, s.question, s.answer, s.history, [c.text for c in s.contexts])
            for s in samples}


def test_each_format_gives_the_samples_of_the_turns_rows(tmp_path):
    expected = _turns_of(iter_samples(write_turns(tmp_path / "turns.jsonl")))
    assert expected["bridge:3"][4][0] == ("user", CONVERSATIONS["bridge"][0][0])  # the first user turn is history
    for fmt, write in (("openinference", write_openinference), ("langfuse", write_langfuse),
                       ("langsmith", write_langsmith)):
        samples = list(iter_samples(TraceSource(write(tmp_path / f"{fmt}.json"), fmt)))
        assert not [s for s in samples if isinstance(s, InputError)], fmt
        assert _turns_of(samples) == expected, fmt


def test_traces_without_a_session_stay_single_answers(tmp_path):
    path = write_langfuse(tmp_path / "lf.json")
    traces = json.loads(path.read_text())
    for t in traces:
        del t["sessionId"]
    path.write_text(json.dumps(traces))
    samples = list(iter_samples(TraceSource(path, "langfuse")))
    assert [s.id for s in samples] == [f"lf-{n}" for n in range(1, 6)]
    assert all(s.conversation_id is None and s.history == () for s in samples)


def test_a_session_id_that_is_not_text_is_located(tmp_path):
    path = write_langfuse(tmp_path / "lf.json")
    traces = json.loads(path.read_text())
    traces[2]["sessionId"] = {"id": "bridge"}
    path.write_text(json.dumps(traces))
    errors = [s for s in iter_samples(TraceSource(path, "langfuse")) if isinstance(s, InputError)]
    assert len(errors) == 1 and errors[0].field == "session" and "got an object" in str(errors[0])


def _run(tmp_path: Path, name: str, *args) -> dict:
    out = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "genevals", "run", *map(str, args), "-m", "grounding", "-o", str(out),
                           "--no-history", "-q"], capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, done.stderr
    results = {}
    for _, r in runfolder.iter_rows(out):  # one line per conversation, read per turn
        results[r["id"]] = (r.get("conversation_id"), r.get("turn"), r.get("history"),
                            {k: (v["value"], v["status"], [x["label"] for x in (v.get("details") or {}).get("verdicts", [])])
                             for k, v in r["metrics"].items()})
    return results


def test_a_run_on_an_openinference_export_with_sessions_equals_the_run_on_turns_rows(tmp_path):
    from_turns = _run(tmp_path, "turns", write_turns(tmp_path / "turns.jsonl"))
    from_traces = _run(tmp_path, "traces", "--from", "openinference", write_openinference(tmp_path / "spans.jsonl"))
    assert set(from_turns) == {"bridge:1", "bridge:2", "bridge:3", "lynx:1", "lynx:2"}
    assert from_traces == from_turns
    # the third turn repeats what the user said in the first: from_history, in the trace import too
    assert "from_history" in from_traces["bridge:3"][3]["faithfulness"][2]
