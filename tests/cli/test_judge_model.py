"""The judge model is never a silent default (issue 22): without --judge-model the one model the server's
/v1/models lists judges, none or several is exit 2 naming them, and the model that answered (the reply's
``model``) is recorded beside the one asked for in results, the summary's signature and the report. The
preflight is sent only before a call the cache cannot answer. Real processes against the fault server."""
import json
import subprocess
import sys

import pytest

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."


def run(data, out, base_url, *extra):
    return subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics",
                           "faithfulness", "-q", "--judge-base-url", base_url, *extra],
                          capture_output=True, text=True, timeout=300)


def rows(tmp_path, n=2):
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps({"id": str(i), "answer": f"Marie Curie was born in Warsaw. Row {i}.",
                                        "contexts": [CONTEXT]}) + "\n" for i in range(n)))
    return path


def test_the_only_listed_model_judges_and_the_model_that_answered_is_recorded(tmp_path):
    data = rows(tmp_path)
    with FaultServer(listed=["local-gemma"], answer_model="gemma-3-1b-it-Q4_K_M.gguf") as server:
        done = run(data, tmp_path / "out", server.base_url, "--no-judge-cache")
        asked = {r["body"]["model"] for r in server.requests}
    assert done.returncode == 0, done.stderr
    assert asked == {"local-gemma"} and server.gets == ["/v1/models"]
    judge = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])[
        "metrics"]["faithfulness"]["details"]["judge"]
    assert judge["model"] == "local-gemma" and judge["answered_by"] == "gemma-3-1b-it-Q4_K_M.gguf"
    signature = json.loads((tmp_path / "out" / "summary.json").read_text())["signatures"]["faithfulness"]
    assert "model:local-gemma|answered:gemma-3-1b-it-Q4_K_M.gguf|" in signature
    assert "gpt-4o-mini" not in signature
    assert "gemma-3-1b-it-Q4_K_M.gguf" in (tmp_path / "out" / "report.html").read_text()


def test_no_model_named_and_none_or_several_listed_is_exit_2_naming_them(tmp_path):
    data = rows(tmp_path, 1)
    with FaultServer(listed=["llama-3-8b", "qwen-2.5-7b"]) as server:
        several = run(data, tmp_path / "a", server.base_url)
        assert server.total == 0  # nothing was sent for judging
    with FaultServer(listed=False) as server:
        unlisted = run(data, tmp_path / "b", server.base_url)
    assert several.returncode == 2, several.stderr
    assert "lists 2 models: llama-3-8b, qwen-2.5-7b; pass --judge-model NAME" in several.stderr
    assert unlisted.returncode == 2 and "could not be listed" in unlisted.stderr and "--judge-model" in unlisted.stderr
    assert "Traceback" not in several.stderr + unlisted.stderr


def test_a_rerun_answered_from_the_cache_sends_nothing_and_needs_no_endpoint(tmp_path):
    data, cache = rows(tmp_path), str(tmp_path / "cache")
    with FaultServer() as server:
        url = server.base_url
        first = run(data, tmp_path / "out", url, "--judge-model", "judge", "--judge-cache", cache)
        assert first.returncode == 0, first.stderr
        assert server.total == 1 + 2 * 2  # the preflight, then decompose + verify of each row
        server.reset_counts()
        fresh = run(data, tmp_path / "again", url, "--judge-model", "judge", "--judge-cache", cache)
        assert fresh.returncode == 0, fresh.stderr
        assert server.total == 0 and server.gets == []  # every call was in the cache: not even the preflight
    # the endpoint is down now: a resumed run and a fresh one, both answered from the cache, still succeed
    resumed = run(data, tmp_path / "out", url, "--judge-model", "judge", "--judge-cache", cache, "--resume")
    down = run(data, tmp_path / "third", url, "--judge-model", "judge", "--judge-cache", cache)
    assert resumed.returncode == 0 and down.returncode == 0, resumed.stderr + down.stderr
    assert len((tmp_path / "third" / "results.jsonl").read_text().splitlines()) == 2
    # a call the cache cannot answer still meets the preflight: exit 2 with what to fix
    more = tmp_path / "more.jsonl"
    more.write_text(data.read_text() + json.dumps({"id": "new", "answer": "Marie Curie discovered polonium.",
                                                   "contexts": [CONTEXT]}) + "\n")
    missing = run(more, tmp_path / "fourth", url, "--judge-model", "judge", "--judge-cache", cache)
    assert missing.returncode == 2 and "did not answer a test request" in missing.stderr, missing.stderr
    assert "Traceback" not in missing.stderr


@pytest.mark.parametrize("judge", [("--judge-base-url", "http://127.0.0.1:9/v1", "--judge-model", "judge"),
                                   ("--judge-backend", "llamacpp", "--judge-model", "nosuch.gguf")],
                         ids=["endpoint-down", "no-gguf"])
def test_a_run_refused_at_its_first_judge_call_leaves_the_earlier_run_as_it_was(tmp_path, judge):
    """The preflight waits for the first call the cache cannot answer, after the earlier run was moved to
    earlier/<date-time>/: a run refused then, with nothing scored, moved it back, leaving nothing of its own."""
    data, out = rows(tmp_path), tmp_path / "out"
    first = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "-q", "-m",
                            "exact_match"], capture_output=True, text=True, timeout=300)
    assert first.returncode == 1 and (out / "report.html").is_file(), first.stderr  # 1: rows have no references
    before = {p.relative_to(out): p.read_bytes() if p.is_file() else None for p in sorted(out.rglob("*"))}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "-q", "-m",
                           "faithfulness", "--judge-cache", str(tmp_path / "cache"), *judge],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "genevals: error:" in done.stderr and "Traceback" not in done.stderr
    assert f"nothing was scored; the earlier run is back in {out}" in done.stderr
    assert {p.relative_to(out): p.read_bytes() if p.is_file() else None for p in sorted(out.rglob("*"))} == before


def test_listing_the_metrics_asks_no_server_for_its_model():
    """`genevals metrics` with OPENAI_* set and no model named describes the judge as unresolved: it neither
    asks /v1/models nor fails (it printed a JudgeUnavailable traceback when the server was down)."""
    import os

    with FaultServer(listed=["local-gemma"]) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test"}
        done = subprocess.run([sys.executable, "-m", "genevals", "metrics"], capture_output=True, text=True,
                              timeout=120, env=env)
        gets = list(server.gets)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert gets == [] and "model:unresolved" in done.stdout
