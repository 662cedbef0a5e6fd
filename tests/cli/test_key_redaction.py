"""The configured API key is redacted from everything a run writes (issue 12): a server that echoes the key it
was sent into claims and verdict reasons, run through the CLI as a real process; then every file of the run
folder, the judge cache (sqlite and its WAL) and the report are searched for the key."""
import json
import os
import subprocess
import sys

from support.fault_server import FaultServer

KEY = "sk-echoed-key-ABCDEF0123456789"
CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."


def test_a_key_the_judge_echoes_is_written_nowhere(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "answer": "Marie Curie was born in Warsaw. FAULTECHO.",
                                "contexts": [CONTEXT]}) + "\n")
    out, cache = tmp_path / "out", tmp_path / "cache"
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    with FaultServer() as server:
        args = [sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics", "faithfulness",
                "-q", "--judge-base-url", server.base_url, "--judge-model", "judge", "--judge-cache", str(cache)]
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
        again = subprocess.run([*args[:6], str(tmp_path / "again"), *args[7:]], capture_output=True, text=True,
                               env=env, timeout=300)  # the same run answered from the cache
        assert any(r["authorization"] == f"Bearer {KEY}" for r in server.requests)  # the key was really sent
    assert done.returncode == 0 and again.returncode == 0, done.stderr + again.stderr
    line = json.loads((out / "results.jsonl").read_text())
    details = line["metrics"]["faithfulness"]["details"]
    assert details["claims"][0]["text"] == "Marie Curie was born in Warsaw. (***)"
    assert details["verdicts"][0]["reason"].startswith("checked with ***")
    assert any("***" in (c.get("reply") or "") for c in details.get("transcript", [])) or "transcript" not in details
    written = [p for folder in (out, tmp_path / "again", cache) for p in folder.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"results.jsonl", "summary.json", "report.html", "judge_cache.sqlite"}
    for path in written:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in done.stdout + done.stderr + again.stdout + again.stderr
