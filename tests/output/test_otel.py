"""Results sent to OpenTelemetry (genevals.output.otel, `genevals run --otel-endpoint`, `genevals export otel`):
a real OTLP/HTTP receiver on 127.0.0.1, started here, decodes each ExportLogsServiceRequest with
opentelemetry-proto; real `genevals` processes send to it. One gen_ai.evaluation.result event per sample and
metric, with the conventions' attributes, the signature, and the trace links of samples imported from traces; a
backend that is down, refuses or does not answer costs a warning and the events, never the run's files."""
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.otlp_receiver import Receiver
from support.otlp_spans import write_rag_traces

TRACES = [
    {"question": "What is the capital of France?", "answer": "Paris is the capital of France.", "system": "dense",
     "docs": [("doc-7", "Paris is the capital and largest city of France.", 0.91)]},
    {"question": "Who wrote Hamlet?", "answer": "Hamlet was written by William Shakespeare.", "system": "sparse",
     "docs": [("doc-11", "Hamlet is a tragedy written by William Shakespeare.", 12.5)]},
]
ROWS = [
    {"id": "q1", "question": "Capital of France?", "answer": "Paris", "references": ["Paris"]},
    {"id": "q2", "question": "Who wrote Hamlet?", "answer": "Marlowe"},  # no reference: no score, a label
]
SECRET = "s3cret-token-9d1"
#: real `genevals` processes, several seconds each (tests/conftest.py, SLOW)
pytestmark = pytest.mark.slow


def _closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def genevals(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})})


def _results(out):
    return [json.loads(line) for line in (Path(out) / "results.jsonl").read_text().splitlines()]


def _root_spans(path):
    """trace id -> the id of its span without a parent, both hex (the export holds hex ids)."""
    roots = {}
    for line in Path(path).read_text().splitlines():
        for block in json.loads(line)["resourceSpans"]:
            for scope in block["scopeSpans"]:
                for span in scope["spans"]:
                    if not span.get("parentSpanId"):
                        roots[span["traceId"]] = span["spanId"]
    return roots


def _jsonl(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def test_a_trace_imported_run_sends_one_linked_event_per_sample_and_metric(tmp_path):
    """The Done-when check: each sample's metric results arrive as gen_ai.evaluation.result events with the
    conventions' attributes and the run's signature, each put on the root span of the trace it was read from;
    the credentials header reaches the backend and no file."""
    spans = tmp_path / "spans.jsonl"
    trace_ids = write_rag_traces(spans, TRACES, hex_ids=True)
    roots = _root_spans(spans)
    out = tmp_path / "out"
    with Receiver() as receiver:
        done = genevals("run", "--from", "openinference", str(spans), "--system-from", "metadata.system",
                        "-m", "grounding", "-o", str(out), "--no-history",
                        "--otel-endpoint", receiver.url,
                        env={"OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer {SECRET}"})
    assert done.returncode == 0, done.stderr
    assert f"sent 6 gen_ai.evaluation.result events to {receiver.url}/v1/logs (6 linked" in done.stderr
    rows = _results(out)
    expected = {(r["id"], name): m for r in rows for name, m in r["metrics"].items()}
    systems = {r["id"]: r["system"] for r in rows}
    assert len(expected) == 6  # 2 samples x faithfulness, contradiction_rate, unverifiable_rate
    got = {(e["attributes"]["genevals.sample.id"], e["attributes"]["gen_ai.evaluation.name"]): e
           for e in receiver.records}
    assert len(receiver.records) == 6 and set(got) == set(expected)
    signature = json.loads((out / "summary.json").read_text())["signatures"]["grounding"]
    digest = json.loads((out / "manifest.json").read_text())["input_digest"]
    for (sample, name), event in got.items():
        result = expected[(sample, name)]
        assert event["event"] == "gen_ai.evaluation.result"
        assert (event["trace_id"], event["span_id"]) == (sample, roots[sample])  # the id is the trace's
        attributes = event["attributes"]
        assert attributes["gen_ai.evaluation.score.value"] == pytest.approx(result["value"])
        assert "gen_ai.evaluation.score.label" not in attributes
        assert attributes["genevals.signature"] == signature and attributes["genevals.metric.family"] == "grounding"
        assert attributes["genevals.run.input_digest"] == digest
        assert attributes["genevals.system"] == systems[sample]
    assert set(trace_ids) == {s for s, _ in got} and set(systems.values()) == {"dense", "sparse"}
    assert {e["resource"]["service.name"] for e in receiver.records} == {"genevals"}
    assert all({k.lower(): v for k, v in h.items()}["authorization"] == f"Bearer {SECRET}" for h in receiver.headers)
    assert set(receiver.paths) == {"/v1/logs"}
    record = json.loads((out / "otel.json").read_text())
    assert (record["events"], record["sent"], record["failed"], record["linked"]) == (6, 6, 0, 6)
    assert record["endpoint"] == f"{receiver.url}/v1/logs"
    for file in out.rglob("*"):
        assert not file.is_file() or SECRET.encode() not in file.read_bytes(), file


def test_a_result_without_a_score_sends_its_status_as_label_and_no_value(tmp_path):
    """A status that is not ok travels as the label with its reason, never as a number; rows that no trace
    import read carry no trace context."""
    out = tmp_path / "out"
    with Receiver() as receiver:
        done = genevals("run", str(_jsonl(tmp_path)), "-m", "token_f1,exact_match", "-o", str(out), "-q",
                        "--no-history", "--otel-endpoint", receiver.url + "/v1/logs")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # -q: a send that worked says nothing
    by_key = {(e["attributes"]["genevals.sample.id"], e["attributes"]["gen_ai.evaluation.name"]): e["attributes"]
              for e in receiver.records}
    assert len(receiver.records) == 4 and len(by_key) == 4
    assert by_key[("q1", "token_f1")]["gen_ai.evaluation.score.value"] == 1.0
    unscored = by_key[("q2", "token_f1")]
    assert "gen_ai.evaluation.score.value" not in unscored
    assert unscored["gen_ai.evaluation.score.label"] == "no_reference" == unscored["genevals.status"]
    assert unscored["gen_ai.evaluation.explanation"] == _results(out)[1]["metrics"]["token_f1"]["reason"]
    assert "error.type" not in unscored  # not a failure: the metric does not apply
    assert {(e["trace_id"], e["span_id"]) for e in receiver.records} == {("", "")}


def test_a_backend_that_is_down_costs_a_warning_not_the_run_and_export_sends_again(tmp_path):
    out = tmp_path / "out"
    port = _closed_port()
    down = f"http://user:pw0rd@127.0.0.1:{port}/?token=tok3n"  # credentials in the URL are shown nowhere
    done = genevals("run", str(_jsonl(tmp_path)), "-m", "token_f1,exact_match", "-o", str(out), "-q",
                    "--no-history", "--otel-endpoint", down)
    assert done.returncode == 0, done.stderr  # the run's exit code: the scores were written
    assert "genevals: warning: could not send 4 of 4 gen_ai.evaluation.result events" in done.stderr
    assert "Connection refused" in done.stderr and "genevals export otel RUN_DIR" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1  # said once, not at each retry
    assert f"to http://127.0.0.1:{port}/v1/logs:" in done.stderr and "pw0rd" not in done.stderr
    assert [r["id"] for r in _results(out)] == ["q1", "q2"]
    assert all((out / name).is_file() for name in ("summary.json", "report.html", "manifest.json"))
    record = json.loads((out / "otel.json").read_text())
    assert (record["sent"], record["failed"] + record["unsent"]) == (0, 4)
    assert "Connection refused" in record["error"]
    assert not any(b"pw0rd" in f.read_bytes() or b"tok3n" in f.read_bytes() for f in out.rglob("*") if f.is_file())
    with Receiver() as receiver:
        again = genevals("export", "otel", str(out), "--otel-endpoint", receiver.url)
    assert again.returncode == 0, again.stderr
    assert len(receiver.records) == 4 and again.stdout.startswith("sent 4 gen_ai.evaluation.result events")
    assert json.loads((out / "otel.json").read_text())["sent"] == 4


@pytest.mark.parametrize("status, delay, said", [(400, 0.0, "code: 400"), (200, 4.0, "")],
                         ids=["refused-4xx", "timeout"])
def test_a_backend_that_refuses_or_does_not_answer_fails_the_export_with_exit_1(tmp_path, status, delay, said):
    out = tmp_path / "out"
    assert genevals("run", str(_jsonl(tmp_path)), "-m", "exact_match", "-o", str(out), "-q",
                    "--no-history").returncode == 0
    before = (out / "results.jsonl").read_bytes()
    started = time.monotonic()
    with Receiver(status=status, delay=delay) as receiver:
        done = genevals("export", "otel", str(out), "--otel-endpoint", receiver.url,
                        env={"OTEL_EXPORTER_OTLP_TIMEOUT": "1"})
    assert done.returncode == 1, done.stderr
    assert time.monotonic() - started < 60
    assert done.stderr.startswith("genevals: error: could not send 2 of 2 gen_ai.evaluation.result events")
    assert said in done.stderr and "Traceback" not in done.stderr
    assert (out / "results.jsonl").read_bytes() == before
    assert json.loads((out / "otel.json").read_text())["sent"] == 0


#: an install without the otel extra: the OTLP/HTTP exporter cannot be imported (the SDK may be there)
_WITHOUT_OTEL = """
import sys
class _NoExporter:
    def find_spec(self, name, path=None, target=None):
        if name == "opentelemetry.exporter.otlp.proto.http" or name.startswith("opentelemetry.exporter.otlp.proto.http."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, _NoExporter())
"""


def test_without_the_extra_the_run_stops_before_scoring_naming_what_to_install(tmp_path):
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(_WITHOUT_OTEL)
    env = {"PYTHONPATH": os.pathsep.join([str(hide), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = tmp_path / "out"
    done = genevals("run", str(_jsonl(tmp_path)), "-m", "exact_match", "-o", str(out), "--no-history",
                    "--otel-endpoint", "http://127.0.0.1:4318", env=env)
    assert done.returncode == 2, done.stderr
    assert "pip install 'genevals[otel]'" in done.stderr and "opentelemetry-exporter-otlp-proto-http" in done.stderr
    assert not out.exists()  # found before anything was read or scored
    assert genevals("run", str(_jsonl(tmp_path)), "-m", "exact_match", "-o", str(out), "-q", "--no-history",
                    env=env).returncode == 0  # without the flag, nothing is asked of the extra
    exported = genevals("export", "otel", str(out), env=env)
    assert exported.returncode == 2 and "pip install 'genevals[otel]'" in exported.stderr


@pytest.mark.parametrize("url", ["localhost:4318", "grpc://127.0.0.1:4317", "http://127.0.0.1:99999"])
def test_an_endpoint_that_is_not_an_http_url_is_refused_before_scoring(tmp_path, url):
    out = tmp_path / "out"
    done = genevals("run", str(_jsonl(tmp_path)), "-m", "exact_match", "-o", str(out), "--no-history",
                    "--otel-endpoint", url)
    assert done.returncode == 2 and done.stderr.startswith(f"genevals: error: --otel-endpoint: {url}"), done.stderr
    assert not out.exists()


def test_export_of_a_folder_without_results_is_bad_input(tmp_path):
    done = genevals("export", "otel", str(tmp_path / "nothing"), "--otel-endpoint", "http://127.0.0.1:4318")
    assert done.returncode == 2 and "no results.jsonl here" in done.stderr


@pytest.mark.parametrize("command", ["run", "export"])
def test_an_empty_endpoint_is_refused_not_sent_to_localhost(tmp_path, command):
    """`--otel-endpoint "$UNSET"` is a mistake, not a request for the default endpoint."""
    out = tmp_path / "out"
    args = (["run", str(_jsonl(tmp_path)), "-m", "exact_match", "-o", str(out), "--no-history"]
            if command == "run" else ["export", "otel", str(out)])
    done = genevals(*args, "--otel-endpoint", " ")
    assert done.returncode == 2 and "got an empty URL" in done.stderr and "Traceback" not in done.stderr
    assert command == "export" or not out.exists()
