"""The local judges page, as a newcomer follows it (issue 52, point 6 and the "Done when" line): its command that
starts llama.cpp's server with the packaged model runs as written (on a free port instead of 8080), and its
commands that score the first five demo rows with faithfulness over HTTP score every one (status ok, exit 0),
with the packaged model recognised by the name the server lists (no worked example; the tiny-model warning).

Against the same server (one start for the module, stopped by the PID of the process group it started):
- the structured-output mode is probed once and remembered (point 10): a model the run does not recognise, at
  concurrency 4, leaves exactly one 500 in the server's log (the preflight's), not one per request or metric;
- a request given up on stops the server's generation: right after a run whose request timed out, the one-slot
  server answers ``/v1/models`` at once (it went on generating for minutes before).
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from support.docs_blocks import DOCS, REPO, commands, section_blocks
from support.llama_server import STARTUP_SECONDS, packaged_gguf

pytestmark = pytest.mark.slow

SECTION = "The packaged model on llama.cpp's server"
PAGE = DOCS / "how-to" / "local-judges.md"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(base URL, server log) of the page's server command, run as written on a free port."""
    packaged_gguf()  # skips without the llama extra
    code = section_blocks(PAGE, SECTION, "bash")[0]
    assert code.startswith("python -m genevals.judge.serve ") and "--port 8080" in code
    port = _free_port()
    # `python` as the page says it, this interpreter's (the one with the extra installed)
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    log_path = tmp_path_factory.mktemp("server") / "server.log"
    log = log_path.open("w")
    server = subprocess.Popen(["bash", "-c", code.replace("--port 8080", f"--port {port}")], stdout=log,
                              stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline, models = time.monotonic() + STARTUP_SECONDS, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as answer:
                    models = json.load(answer)
                break
            except OSError:
                time.sleep(0.5)
        assert models is not None, log_path.read_text()[-3000:]
        assert [m["id"] for m in models["data"]] and "gemma" in json.dumps(models).lower()
        yield f"http://127.0.0.1:{port}/v1", log_path
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the group this test started: bash and the server
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
        log.close()


def _refusals(log: Path) -> int:
    return len(re.findall(r'"POST /v1/chat/completions HTTP/1\.1" 500', log.read_text(errors="replace")))


def test_the_newcomer_path_scores_every_demo_row_with_the_packaged_model(served, tmp_path):
    base_url, log = served
    code = section_blocks(PAGE, SECTION, "bash")[1]
    (tmp_path / "datasets").symlink_to(REPO / "datasets")
    before = _refusals(log)
    done = None
    for words in commands(code):
        if words[0] == "head":  # the page's shell step, as the shell would run it
            assert words[1:3] == ["-n", "5"] and words[-2] == ">"
            lines = (tmp_path / words[3]).read_text(encoding="utf-8").splitlines(keepends=True)[:5]
            (tmp_path / words[-1]).write_text("".join(lines), encoding="utf-8")
            continue
        assert words[0] == "genevals" and "http://127.0.0.1:8080/v1" in words
        words = [base_url if w == "http://127.0.0.1:8080/v1" else w for w in words]
        done = subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=900)
    assert done is not None and done.returncode == 0, done.stderr[-3000:]
    rows = [json.loads(line) for line in (tmp_path / "reports" / "local" / "results.jsonl").open(encoding="utf-8")]
    faith = [row["metrics"]["faithfulness"] for row in rows]
    assert len(rows) == 5 and [f["status"] for f in faith] == ["ok"] * 5, [(f["status"], f.get("reason")) for f in faith]
    assert all(0.0 <= f["value"] <= 1.0 for f in faith)
    # recognised as the packaged model: its warning in every result and on stderr, no worked example
    assert all("packaged Gemma 3 270M" in f["details"]["warning"] for f in faith)
    assert "packaged Gemma 3 270M base model" in done.stderr
    signature = json.loads((tmp_path / "reports" / "local" / "summary.json").read_text())["signatures"]
    assert "example:no" in signature["faithfulness"] and "tiny-base-model" in signature["faithfulness"]
    assert _refusals(log) == before  # its format is known: json_object with a schema, refused nothing
    print(f"newcomer path: faithfulness {[f['value'] for f in faith]}")


def test_the_response_format_is_probed_once_a_run(served, tmp_path):
    """A model the run does not recognise starts at json_schema, which llama.cpp's Python server answers with a
    500 and a traceback: the preflight's one request finds that, and no request after it is refused (before,
    every request in flight with json_schema was: one per sample at concurrency 4). At concurrency 4 the one-slot
    server cuts the streamed replies that others wait behind: the limiter lowers the concurrency, and no sample
    is lost to it."""
    base_url, log = served
    rows = [json.loads(line) for line in (REPO / "datasets" / "demo" / "demo.jsonl").open(encoding="utf-8")][:2]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({k: r[k] for k in ("id", "question", "answer", "contexts")}) + "\n"
                            for r in rows), encoding="utf-8")
    before = _refusals(log)
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "faithfulness", "--judge-base-url",
                           base_url, "--judge-model", "some-local-model", "--judge-concurrency", "4",
                           "--judge-max-tokens", "128", "--judge-max-claims", "1", "--no-judge-cache",
                           "--max-judge-errors", "1", "-q", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600)
    assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr[-3000:]
    assert _refusals(log) - before == 1, log.read_text(errors="replace")[-3000:]
    statuses = [json.loads(line)["metrics"]["faithfulness"]["status"]
                for line in (tmp_path / "out" / "results.jsonl").open(encoding="utf-8")]
    assert len(statuses) == 2 and "judge_error" not in statuses, done.stderr[-3000:]


def test_a_request_given_up_on_stops_the_servers_generation(served, tmp_path):
    """An 8 s timeout on a reply of up to 1,500 tokens (no grammar: the base model does not stop by itself); the
    server must then answer at once. Without streaming it went on for the whole reply (186.9 s measured)."""
    base_url, _ = served
    row = json.loads((REPO / "datasets" / "demo" / "demo.jsonl").open(encoding="utf-8").readline())
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({k: row[k] for k in ("id", "question", "answer", "contexts")}) + "\n",
                    encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "faithfulness", "--judge-base-url",
                           base_url, "--judge-timeout", "8", "--judge-retries", "0", "--judge-max-tokens", "1500",
                           "--judge-option", "response_format=none", "--no-preflight", "--no-judge-cache",
                           "--max-judge-errors", "1", "-q", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=600)
    assert "timeout after 8s" in done.stderr, done.stderr[-3000:]
    started = time.monotonic()
    with urllib.request.urlopen(f"{base_url}/models", timeout=300) as answer:
        assert answer.status == 200
    waited = time.monotonic() - started
    print(f"/v1/models answered {waited:.1f} s after the timed-out request")
    assert waited < 20, f"the server went on generating the abandoned reply: /v1/models took {waited:.1f} s"
