"""Secrets a judge server sends back broken by a line break (issue 52, point 12): ``genevals run`` as a real
process against a judge at ``http://alice:PASSWORD@.../leak-FIELD-folded``, which writes the Basic
``user:password`` it was sent back base64-encoded with a line break in the middle (a folded header echoed), into
every field of its replies; then ``genevals report``. results.jsonl, report.html, the judge cache and the history,
and what was printed, hold the password in no form (whole, base64 whole or broken)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from support.fault_server import FaultServer, leaked

USER, PASSWORD = "alice", "pw-folded-0123456789"
CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."


def genevals(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env,
                          timeout=300)


@pytest.mark.parametrize("field", ["all", "error500"])
def test_a_password_echoed_folded_is_written_nowhere(tmp_path, field):
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps({"id": str(n), "answer": "Marie Curie was born in Warsaw.",
                                        "contexts": [CONTEXT]}) + "\n" for n in range(2)), encoding="utf-8")
    out, cache, history = tmp_path / "out", tmp_path / "cache", tmp_path / "history.sqlite"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    with FaultServer() as server:
        url = server.base_url.replace("http://", f"http://{USER}:{PASSWORD}@") + f"/leak-{field}-folded"
        done = genevals("run", str(data), "--out", str(out), "--metrics", "faithfulness", "--judge-base-url", url,
                        "--judge-model", "test", "--judge-retries", "0", "--max-judge-errors", "1", "--judge-cache",
                        str(cache), "--history", str(history), env=env)
        assert any("Basic" in (r.get("authorization") or "") for r in server.requests)  # it was really sent
    printed = done.stdout + done.stderr
    assert done.returncode in (0, 1, 2, 3) and "Traceback" not in printed, printed
    if (out / "results.jsonl").exists():
        report = genevals("report", str(out), env=env)
        printed += report.stdout + report.stderr
    written = [p for folder in (out, cache) if folder.exists() for p in folder.rglob("*") if p.is_file()]
    written += [p for p in tmp_path.glob("history.sqlite*")]
    if field == "all":
        assert {p.name for p in written} >= {"results.jsonl", "report.html", "judge_cache.sqlite"}
    for secret in (PASSWORD, f"{USER}:{PASSWORD}"):
        assert not leaked(printed, secret), printed[-2000:]
        for path in written:
            assert not leaked(path.read_bytes().decode("latin-1"), secret), path
