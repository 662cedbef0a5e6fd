"""The configured API key is redacted from everything a run writes (issue 12): a server that echoes the key it
was sent into claims and verdict reasons, run through the CLI as a real process; then every file of the run
folder, the judge cache (sqlite and its WAL) and the report are searched for the key. Issue 22: also when the
server writes it JSON-escaped, split, base64- or percent-encoded, and for credentials in the base URL."""
import base64
import json
import os
import re
import subprocess
import sys
from urllib.parse import unquote

from support.fault_server import ECHO_FORMS, FaultServer

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


def leaks(text: str, secret: str) -> list[str]:
    """The forms in which ``secret`` can be read back from ``text``: as is, after JSON unescaping (as often as
    escapes were nested), after percent-decoding, with whitespace and string boundaries taken out, or inside
    base64 at any alignment."""
    found = []
    unescaped = text
    for _ in range(3):  # results.jsonl holds a reply's "\u002d" as "\\u002d"
        unescaped = re.sub(r"\\+u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), unescaped)
    views = {"plain": text, "escaped": unescaped, "percent": unquote(unquote(text)),
             "split": re.sub(r'(?:\s|\\+[nrt]|\\*"\s*[+,]?\s*\\*")+', "", unescaped)}
    found += [name for name, view in views.items() if secret in view]
    raw = secret.encode()
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw).decode()
        core = encoded[-(-8 * k // 6): 8 * (k + len(raw)) // 6]
        if core in text or core.replace("+", "-").replace("/", "_") in text:
            found.append(f"base64@{k}")
    return found


def test_the_leak_finder_finds_each_form():
    """The scan below can fail: each form the server writes is found by it."""
    assert leaks(f"x {KEY} y", KEY) == ["plain", "escaped", "percent", "split"]
    assert "escaped" in leaks(json.dumps(KEY.replace("-", "\\u002d")), KEY)
    assert "split" in leaks(json.dumps({"r": f'"{KEY[:9]}" + "{KEY[9:]}"'}), KEY)
    assert "percent" in leaks("".join(f"%{b:02X}" for b in KEY.encode()), KEY)
    assert any(f.startswith("base64") for f in leaks(base64.b64encode(f"user:{KEY}".encode()).decode(), KEY))


def test_a_key_echoed_in_any_encoding_is_written_nowhere(tmp_path):
    """A judge that writes the key JSON-escaped (which the parser decodes back into it), split across strings
    and lines, base64- or percent-encoded: none of it reaches results, cache, report, summary or the terminal,
    on the first run and on a second one answered from the cache."""
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": form, "answer": f"Marie Curie was born in Warsaw. FAULTECHO echo={form}.",
                                        "contexts": [CONTEXT]}) + "\n" for form in ECHO_FORMS))
    out, cache = tmp_path / "out", tmp_path / "cache"
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    with FaultServer() as server:
        args = [sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics", "faithfulness",
                "--judge-base-url", server.base_url, "--judge-model", "judge", "--judge-cache", str(cache)]
        done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)
        again = subprocess.run([*args[:6], str(tmp_path / "again"), *args[7:]], capture_output=True, text=True,
                               env=env, timeout=300)
        replies = [r for r in server.requests if r["marker"] == "FAULTECHO"]
    assert done.returncode == 0 and again.returncode == 0, done.stderr + again.stderr
    assert len(replies) >= len(ECHO_FORMS)  # each form was echoed (the second run came from the cache)
    written = [p for folder in (out, tmp_path / "again", cache) for p in folder.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"results.jsonl", "summary.json", "report.html", "judge_cache.sqlite"}
    for path in written:
        assert leaks(path.read_bytes().decode("utf-8", "replace"), KEY) == [], path
    assert leaks(done.stdout + done.stderr + again.stdout + again.stderr, KEY) == []
    reasons = {}
    for line in (out / "results.jsonl").read_text().splitlines():
        row = json.loads(line)
        reasons[row["id"]] = row["metrics"]["faithfulness"]["details"]["verdicts"][-1]["reason"]
    assert set(reasons) == set(ECHO_FORMS) and all("***" in r for r in reasons.values()), reasons


def test_url_credentials_echoed_base64_are_printed_nowhere(tmp_path):
    """``user:PASSWORD@`` in the base URL goes out as ``Authorization: Basic base64(user:PASSWORD)``; a 401 that
    echoes it must not print it, encoded or not."""
    password = "pw-secret-0123456789"
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "answer": "Marie Curie was born in Warsaw.", "contexts": [CONTEXT]}) + "\n")
    with FaultServer(api_key="sk-the-right-one-0123") as server:
        url = server.base_url.replace("http://", f"http://alice:{password}@")
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp_path / "out"),
                               "--metrics", "faithfulness", "-q", "--judge-base-url", url, "--judge-model", "judge",
                               "--no-judge-cache"], capture_output=True, text=True, timeout=300)
        sent = server.requests[0]["authorization"]
    assert sent == "Basic " + base64.b64encode(f"alice:{password}".encode()).decode()  # what is echoed
    assert done.returncode == 2 and "HTTP 401" in done.stderr, done.stderr
    assert leaks(done.stdout + done.stderr, password) == [] and leaks(done.stderr, f"alice:{password}") == []
