"""Langfuse trace exports and LangSmith run exports (tests/data/traces/, shaped as their documentation says)
read as samples, and the located errors of exports that are not those shapes."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.input.readers import InputError, iter_samples
from genevals.input.traces import TraceSource

DATA = Path(__file__).resolve().parents[2] / "data" / "traces"
LANGFUSE, LANGSMITH = DATA / "langfuse_traces.json", DATA / "langsmith_runs.jsonl"
PARIS = [("doc-7", "Paris is the capital and largest city of France.", 0.91), ("doc-3", "Lyon is a city in France.", 0.42)]


def _read(path, fmt, system_from=None):
    return list(iter_samples(TraceSource(path, fmt, system_from)))


def _view(samples):
    return [(s.system, s.question, s.answer, [(c.id, c.text, c.score) for c in s.contexts]) for s in samples]


EXPECTED = [("dense", "What is the capital of France?", "Paris is the capital of France.", PARIS),
            ("sparse", "Who wrote Hamlet?", "Shakespeare wrote Hamlet.",
             [("doc-11", "Hamlet is a tragedy by William Shakespeare.", 12.5)])]


def test_a_langfuse_export_becomes_one_sample_per_trace():
    samples = _read(LANGFUSE, "langfuse", "metadata.system")
    assert _view(samples) == EXPECTED
    assert [s.id for s in samples] == ["lf-trace-1", "lf-trace-2"]
    assert [s.origin for s in samples] == [f"{LANGFUSE}:2", f"{LANGFUSE}:35"]  # the line each trace starts on
    assert [s.system for s in _read(LANGFUSE, "langfuse", "release")] == ["dense-v2", "sparse-v1"]


def test_a_langfuse_download_and_an_api_page_read_the_same(tmp_path):
    traces = json.loads(LANGFUSE.read_text())
    download = tmp_path / "trace-lf-trace-1.json"
    first = dict(traces[0])
    download.write_text(json.dumps({"trace": {k: v for k, v in first.items() if k != "observations"},
                                    "observations": first["observations"]}, indent=2))
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": traces, "meta": {"page": 1, "limit": 50, "totalItems": 2, "totalPages": 1}}))
    assert _view(_read(download, "langfuse", "metadata.system")) == EXPECTED[:1]
    assert _view(_read(page, "langfuse", "metadata.system")) == EXPECTED


def test_a_langsmith_export_groups_runs_by_trace():
    samples = _read(LANGSMITH, "langsmith", "system")
    assert _view(samples) == EXPECTED
    assert [s.id for s in samples] == ["6f1c0a52-0000-4000-8000-000000000001", "7a2d1b63-0000-4000-8000-000000000011"]
    assert [s.system for s in _read(LANGSMITH, "langsmith", "metadata.system")] == ["dense", "sparse"]


def test_a_langsmith_run_tree_with_nested_child_runs_reads_as_the_flat_export(tmp_path):
    runs = [json.loads(line) for line in LANGSMITH.read_text().splitlines()]
    root = {**runs[0], "child_runs": [{k: v for k, v in r.items() if k != "trace_id"} for r in runs[1:3]]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(root, indent=1))
    assert _view(_read(path, "langsmith", "system")) == EXPECTED[:1]


@pytest.mark.parametrize("fmt, record, where, expected", [
    ("langfuse", {"name": "x", "spans": []}, None, "expected a Langfuse trace (an object with 'id', 'input', "
                                                   "'output' and 'observations'), got an object with 'name', 'spans'"),
    ("langfuse", {"id": "t", "input": "q", "output": {"score": 1}, "observations": []}, "output",
     "trace t: no answer: expected the trace's 'output'"),
    ("langfuse", {"id": "t", "input": "q", "output": "a", "observations": [
        {"id": "o", "type": "RETRIEVER", "output": {"hits": []}}]}, "observations[0].output",
     "expected a list of documents, or an object holding one under 'documents' or"),
    ("langfuse", {"id": "t", "input": "q", "output": "a", "observations": [
        {"id": "o", "type": "RETRIEVER", "output": [{"metadata": {}}]}]}, "observations[0].output[0]",
     "expected the document's text under page_content or pageContent or content or text"),
    ("langsmith", {"id": "r", "inputs": {}}, None, "expected a LangSmith run (an object with 'id', 'run_type',"),
    ("langsmith", {"id": "r", "run_type": "chain", "trace_id": "r", "parent_run_id": None, "inputs": {"q": "x"},
                   "outputs": {"a": 1, "b": 2}}, "outputs", "trace r: no answer: expected the root run's 'outputs'"),
])
def test_a_malformed_export_gets_a_located_error(tmp_path, fmt, record, where, expected):
    path = tmp_path / "export.jsonl"
    path.write_text("\n" + json.dumps(record) + "\n")
    [error] = _read(path, fmt)
    assert isinstance(error, InputError)
    assert (error.source, error.line, error.field) == (str(path), 2, where)
    assert expected in error.message


def test_the_cli_refuses_a_malformed_langsmith_export_with_exit_2_and_no_traceback(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text(LANGSMITH.read_text() + '{"id": "x", "name": "orphan"}\n')
    done = subprocess.run([sys.executable, "-m", "genevals", "run", "--from", "langsmith", str(path), "-o",
                           str(tmp_path / "out"), "-m", "token_f1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"{path}:6: expected a LangSmith run" in done.stderr and "Traceback" not in done.stderr
