"""Which imported samples link to an OpenTelemetry trace (genevals.input.traces.grouping.link): those whose ids
are OpenTelemetry's (32 and 16 hex digits), as Langfuse keeps them for traces it received over OTLP; a Langfuse or
LangSmith id of its own links to nothing, and the events of such samples carry no trace context."""
import json
from pathlib import Path

from genevals.input.readers import iter_samples
from genevals.input.traces import TraceSource
from genevals.input.traces.grouping import link

DATA = Path(__file__).parents[1] / "data"
TRACE, ROOT = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"


def test_only_opentelemetry_shaped_ids_link():
    assert link(TRACE.upper(), ROOT) == (TRACE, ROOT)
    assert link(TRACE, "obs-gen-1") == (TRACE, None)  # the trace still links; the span is not one
    assert link("lf-trace-1", ROOT) is None
    assert link("0" * 32, ROOT) is None and link(TRACE, "0" * 16) == (TRACE, None)  # all zero: "invalid"
    assert link(123, None) is None


def test_a_langfuse_export_of_otlp_traces_links_each_sample_to_its_first_root_observation(tmp_path):
    traces = json.loads((DATA / "traces" / "langfuse_traces.json").read_text())
    own = [s.trace for s in iter_samples(TraceSource(DATA / "traces" / "langfuse_traces.json", "langfuse"))]
    assert own == [None] * len(traces)  # Langfuse's own ids: no OpenTelemetry trace to link to
    traces[0]["id"] = TRACE
    for n, obs in enumerate(traces[0]["observations"]):  # the retriever starts first
        obs["id"] = ROOT if obs["type"] == "RETRIEVER" else f"{n + 1:016x}"
    path = tmp_path / "otlp_ids.json"
    path.write_text(json.dumps(traces))
    samples = list(iter_samples(TraceSource(path, "langfuse")))
    assert [s.trace for s in samples] == [(TRACE, ROOT), None]
    assert samples[0].to_dict()["trace"] == {"trace_id": TRACE, "span_id": ROOT}
    assert "trace" not in samples[1].to_dict()  # results lines of other inputs stay as they were


def test_langsmith_runs_link_to_nothing():
    samples = list(iter_samples(TraceSource(DATA / "traces" / "langsmith_runs.jsonl", "langsmith")))
    assert samples and all(s.trace is None for s in samples)
