"""Windows as ordinary runs, through a real ``genevals watch --from`` (backfill) process: faithfulness judged by
the fault-injecting judge server (an honest judge: a claim is supported when its text is in the contexts), so each
window's values are known by hand; every trace decided once, with its reason; the sample is the hash rule's."""
import json
import sqlite3

import pytest
from support.cli import genevals
from support.fault_server import FaultServer
from support.watch_process import scored_ids
from support.watch_traces import json_body, request, spans, trace_id

from genevals.watch import decisions

sampling = pytest.importorskip("genevals.watch.sampling")  # W2's module: the loop's triage needs it
pytestmark = pytest.mark.slow  # real watch processes and a judge server

DOC = "Paris is the capital of France."


def _export(path, n, **kw):
    """n traces; trace i answers with the document's sentence (faithfulness 1) when i is even, else with it and
    an unsupported sentence (1 of 2 claims supported: 0.5)."""
    with open(path, "wb") as out:
        for i in range(n):
            answer = DOC if i % 2 == 0 else f"{DOC} It has nine million people."
            out.write(json_body(request(spans(trace_id(i), answer=answer, docs=(DOC,), **kw)), hex_ids=i % 3 > 0)
                      + b"\n")
    return path


def _judge(url):
    return ("--judge-backend", "openai", "--judge-base-url", url, "--judge-model", "judge", "--no-judge-cache")


def test_a_backfill_scores_the_hash_sample_in_windows_with_known_values(tmp_path):
    export = _export(tmp_path / "export.jsonl", 12)
    with FaultServer() as server:
        done = genevals("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--from", export, "--sample", "0.5",
                        "--window", "3", "--history", tmp_path / "history.sqlite", *_judge(server.base_url))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    ids = [trace_id(i) for i in range(12)]
    chosen = {t for t in ids if sampling.unit(t, b"sample") < 0.5}
    assert 0 < len(chosen) < 12
    assert sorted(scored_ids(tmp_path / "w")) == sorted(chosen)  # each once, and only the sampled
    log = decisions.read(tmp_path / "w")
    assert sorted(line["trace_id"] for line in log) == sorted(ids)  # one line per trace
    for line in log:
        assert line["decision"] == ("scored" if line["trace_id"] in chosen else "sampled_out"), line
    windows = sorted(p for p in (tmp_path / "w" / "windows").iterdir() if p.is_dir())
    assert len(windows) == -(-len(chosen) // 3)
    for folder in windows:
        assert (folder / "report.html").exists()
        for row in map(json.loads, (folder / "results.jsonl").read_text().splitlines()):
            i = ids.index(row["id"])
            assert row["metrics"]["faithfulness"]["value"] == (1.0 if i % 2 == 0 else 0.5), row
            assert row["trace"] == {"trace_id": row["id"], "span_id": row["id"][:16]}  # linked to the root span
    first = json.loads((windows[0] / "summary.json").read_text())
    values = [1.0 if ids.index(json.loads(r)["id"]) % 2 == 0 else 0.5
              for r in (windows[0] / "results.jsonl").read_text().splitlines()]
    assert first["systems"]["default"]["faithfulness"]["mean"] == pytest.approx(sum(values) / len(values))
    with sqlite3.connect(tmp_path / "history.sqlite") as history:  # each window recorded as a run
        assert history.execute("SELECT count(*) FROM runs").fetchone()[0] == len(windows)


def test_a_second_run_samples_the_same_traces_and_nested_rates_nest(tmp_path):
    export = _export(tmp_path / "export.jsonl", 20)
    picked = {}
    for name, rate in (("a", "0.3"), ("b", "0.3"), ("c", "0.6")):
        done = genevals("watch", "--out", tmp_path / name, "-m", "token_f1", "--from", export, "--sample", rate,
                        "--window", "50")
        assert done.returncode == 0, done.stderr
        picked[name] = set(scored_ids(tmp_path / name))
    assert picked["a"] == picked["b"] and picked["a"] < picked["c"]


def test_unreadable_incomplete_and_filtered_traces_get_their_reasons(tmp_path):
    export = tmp_path / "export.jsonl"
    good, rootless, no_answer = trace_id(1), trace_id(2), trace_id(3)
    lines = [request(spans(good, attrs={"deployment.environment": "prod"})),
             request(spans(rootless, root=False)),
             request(spans(no_answer, attrs={"deployment.environment": "prod"}))]
    # no_answer's root carries no output.value and its child no LLM message: the trace reader refuses it
    body = json.loads(json_body(lines[2]))
    for span in body["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        span["attributes"] = [a for a in span["attributes"] if a["key"] != "output.value"]
    staging = [json_body(lines[0]), json_body(lines[1]), json.dumps(body).encode(),
               json_body(request(spans(trace_id(4), attrs={"deployment.environment": "dev"})))]
    export.write_bytes(b"\n".join(staging) + b"\n")
    done = genevals("watch", "--out", tmp_path / "w", "-m", "token_f1", "--from", export,
                    "--filter", "deployment.environment=prod")
    assert done.returncode == 0, done.stderr
    by_trace = {line["trace_id"]: line for line in decisions.read(tmp_path / "w")}
    assert by_trace[good]["decision"] == "scored" and by_trace[good]["window"] == 1
    assert by_trace[rootless]["decision"] == "incomplete" and "no root span" in by_trace[rootless]["reason"]
    assert by_trace[no_answer]["decision"] == "failed" and "no answer" in by_trace[no_answer]["reason"]
    assert by_trace[trace_id(4)]["decision"] == "filtered"
    assert scored_ids(tmp_path / "w") == [good]


def test_bad_options_exit_2_with_the_option_named(tmp_path):
    for args, words in ((("-m", "nosuch", "--otlp-port", "0"), "--metrics"),
                        (("-m", "token_f1", "--otlp-port", "0", "--shard", "2/2"), "--shard"),
                        (("-m", "token_f1", "--otlp-port", "0", "--window", "soon"), "--window"),
                        (("-m", "token_f1"), "nothing to watch"),
                        (("-m", "token_f1", "--otlp-port", "0", "--sample", "2"), "--sample")):
        done = genevals("watch", "--out", tmp_path / "w", *args)
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_without_the_otel_extra_the_command_says_what_to_install(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    hide = Path(__file__).resolve().parents[1] / "support" / "without_otel"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "genevals", "watch", "--out", str(tmp_path / "w"), "-m", "token_f1",
                           "--otlp-port", "0"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "opentelemetry-proto" in done.stderr and "pip install 'genevals[otel]'" in done.stderr


HOSTILE_LINES = [
    b"{",  # cut JSON
    b"[]",
    b'{"resourceSpans": "x"}',
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + b"0" * 32 + b'", "spanId": "1"}]}]}]}',
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "' + b"ab" * 16 + b'", "spanId": "' + b"cd" * 8
    + b'", "parentSpanId": "' + b"ef" * 8 + b'"}, {"traceId": "' + b"ab" * 16 + b'", "spanId": "' + b"ef" * 8
    + b'", "parentSpanId": "' + b"cd" * 8 + b'"}]}]}]}',  # a span cycle: never a root
    json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "12" * 16, "spanId": "34" * 8, "attributes": [
        {"key": "openinference.span.kind", "value": {"intValue": "9" * 31}}]}]}]}]}).encode(),  # past int64
    b'{"a":' * 3000 + b"1" + b"}" * 3000,
    b"\xff\xfe not utf-8",
    b"",
]


def test_a_backfill_of_hostile_lines_scores_the_good_trace_and_names_each_bad_line(tmp_path):
    export = tmp_path / "export.jsonl"
    good = trace_id(77)
    export.write_bytes(b"\n".join([*HOSTILE_LINES[:4], json_body(request(spans(good))), *HOSTILE_LINES[4:]]) + b"\n")
    done = genevals("watch", "--out", tmp_path / "w", "-m", "token_f1", "--from", export)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert scored_ids(tmp_path / "w") == [good]
    for line in (1, 2, 3, 4):
        assert f"export.jsonl:{line}" in done.stderr, done.stderr
    by_trace = {d["trace_id"]: d for d in decisions.read(tmp_path / "w")}
    assert by_trace["ab" * 16]["decision"] == "incomplete"  # the cycle
    assert by_trace["12" * 16]["decision"] == "failed"  # a root without an answer: the trace reader's reason
    assert by_trace[good]["decision"] == "scored"


def test_a_judge_that_cannot_be_reached_fails_the_window_not_the_watcher(tmp_path):
    """No --judge-model and a server that cannot list its models: the judge's JudgeUnavailable (a BaseException)
    fails the window's traces with the reason, no traceback."""
    export = _export(tmp_path / "export.jsonl", 2)
    done = genevals("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--from", export, "--no-history",
                    "--judge-backend", "openai", "--judge-base-url", "http://127.0.0.1:9/v1", "--no-judge-cache",
                    "--no-preflight", "--max-judge-calls", "10")
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    log = decisions.read(tmp_path / "w")
    assert len(log) == 2 and all(line["decision"] == "failed" for line in log), log
    assert all("window 1 could not be scored: JudgeUnavailable" in line["reason"] and "--judge-model" in
               line["reason"] for line in log), log
