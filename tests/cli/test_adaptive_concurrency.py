"""Adaptive judge concurrency (issue 12): against a one-slot server (requests answered one at a time, 0.4 s
each, as llama.cpp's default server does) with 4 requests in flight and a 1 s timeout, the fixed limit keeps
timing out and re-sending; the adaptive one halves on the timeouts and settles, so every answer is scored with
far fewer requests. Real CLI processes against the fault-injecting server."""
import json
import subprocess
import sys

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."


def run(tmp_path, name, *extra):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "answer": f"Marie Curie was born in Warsaw. Fact {i}.",
                                        "contexts": [CONTEXT]}) + "\n" for i in range(6)))
    with FaultServer(slots=1, latency=0.4) as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp_path / name),
                               "-q", "--metrics", "faithfulness", "--judge-base-url", server.base_url,
                               "--judge-model", "judge", "--no-judge-cache", "--judge-concurrency", "4",
                               "--judge-timeout", "1", "--judge-retries", "4", "--max-judge-errors", "1", *extra],
                              capture_output=True, text=True, timeout=300)
        requests = server.total
    statuses = [json.loads(line)["metrics"]["faithfulness"]["status"]
                for line in (tmp_path / name / "results.jsonl").read_text().splitlines()]
    return done, requests, statuses


def test_the_limit_adapts_to_a_one_slot_server(tmp_path):
    adaptive, adaptive_requests, adaptive_statuses = run(tmp_path, "adaptive")
    fixed, fixed_requests, fixed_statuses = run(tmp_path, "fixed", "--judge-fixed-concurrency")
    assert adaptive.returncode == 0 and fixed.returncode == 0, adaptive.stderr + fixed.stderr
    assert adaptive_statuses == ["ok"] * 6, adaptive.stderr
    # 1 preflight + 6 x (decompose + verify) = 13 requests when nothing times out; measured on a loaded 2-core
    # machine: adaptive 22 requests, all scored; fixed 41 requests and 3 of 6 answers lost to judge_error.
    print(f"one-slot server: adaptive {adaptive_requests} requests, fixed {fixed_requests} ({fixed_statuses})")
    assert adaptive_requests < 2 * 13 and fixed_requests > adaptive_requests
    assert "judge overloaded (timeout after 1s): lowered its concurrency to 2 of 4" in adaptive.stderr
    assert "lowered its concurrency" not in fixed.stderr
