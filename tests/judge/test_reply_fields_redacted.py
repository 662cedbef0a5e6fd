"""Issue 34, point 1: a judge server that writes the key into any field of its reply (its ``model``, ``id``,
``system_fingerprint``, finish reason, usage, headers, error bodies, the model list...) gets it written nowhere:
not in results.jsonl, summary.json, report.html, the judge cache (and its WAL) or the run history, on the run
that asked and on a second one answered from the cache. genevals runs as a real process against a real
:class:`FaultServer`; every file is read back for the key in every form (:func:`leaked`)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.fault_server import ECHO_FORMS, LEAK_ERRORS, LEAK_FIELDS, LEAK_REPLY, FaultServer, leaked

KEY = "sk-leaky-key-0123456789ABCDEF"
PASSWORD = "pw-url-secret-0123456789"
CONTEXT = "Marie Curie was born in Warsaw."
#: every field a reply leaks through, in every form (the model list is asked without a marker: below)
ROWS = [{"id": f"{field}-{form}", "answer": f"Marie Curie was born in Warsaw. FAULTLEAK leak={field} echo={form}.",
         "contexts": [CONTEXT]} for field in LEAK_REPLY + ("all",) + LEAK_ERRORS for form in ECHO_FORMS]


def genevals(tmp: Path, name: str, url: str, rows: list[dict], *extra: str, key: str | None = KEY):
    data = tmp / f"{name}.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    env = {**os.environ, "GENEVALS_HISTORY": str(tmp / "history" / "runs.sqlite")}
    env.pop("OPENAI_API_KEY", None)
    if key:
        env["OPENAI_API_KEY"] = key
    args = [sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp / name), "-m", "faithfulness",
            "--judge-base-url", url, "--judge-cache", str(tmp / "cache"), "--judge-retries", "0",
            "--max-judge-errors", "1", *extra]
    return subprocess.run(args, capture_output=True, text=True, env=env, timeout=300)


def leaks_in(tmp: Path, secrets: tuple[str, ...], *outputs: str) -> dict[str, list[str]]:
    """Every file under ``tmp`` but the inputs, and the processes' ``outputs``: where each secret is found."""
    found = {}
    files = [p for p in tmp.rglob("*") if p.is_file() and p.suffix != ".jsonl" or p.name == "results.jsonl"]
    texts = {str(p.relative_to(tmp)): p.read_bytes().decode("utf-8", "replace") for p in files}
    texts.update({f"output {i}": text for i, text in enumerate(outputs)})
    for where, text in texts.items():
        for secret in secrets:
            if leaked(text, secret):
                found[where] = leaked(text, secret)
    return found


def written(tmp: Path) -> set[str]:
    return {p.name for p in tmp.rglob("*") if p.is_file()}


def test_every_reply_field_in_every_form_is_written_nowhere(tmp_path):
    with FaultServer() as server:
        first = genevals(tmp_path, "first", server.base_url, ROWS, "--judge-model", "judge")
        again = genevals(tmp_path, "again", server.base_url, ROWS, "--judge-model", "judge")  # from the cache
        sent = {r["authorization"] for r in server.requests}
    assert first.returncode == 0 and again.returncode == 0, first.stderr[-2000:] + again.stderr[-2000:]
    assert sent == {f"Bearer {KEY}"}  # the key really went out, and came back in every field
    assert {"results.jsonl", "summary.json", "report.html", "judge_cache.sqlite", "runs.sqlite"} <= written(tmp_path)
    assert leaks_in(tmp_path, (KEY,), first.stdout + first.stderr, again.stdout + again.stderr) == {}
    rows = {json.loads(line)["id"]: json.loads(line)["metrics"]["faithfulness"]
            for line in (tmp_path / "first" / "results.jsonl").read_text().splitlines()}
    assert len(rows) == len(ROWS)
    # the model that answered is recorded, redacted: with the key in it, it says so
    assert rows["model-plain"]["details"]["judge"]["answered_by"] == "***"
    assert rows["id-plain"]["details"]["judge"]["answered_by"] == "judge"
    # a usage that is not counts is estimated, not a failed call; an error keeps its (redacted) message
    assert rows["usage-plain"]["status"] == "ok"
    assert rows["error400-plain"]["status"] == "judge_error" and "***" in rows["error400-plain"]["reason"]
    assert rows["errortext-base64"]["status"] == "judge_error" and "***" in rows["errortext-base64"]["reason"]


@pytest.mark.parametrize("how", ["env-key", "url-credentials"])
def test_every_request_leaking_the_credentials_leaks_nothing_with_repeats(tmp_path, how):
    """The preflight, decompose and each of 3 judge repeats answered with the credentials in every field and
    header: the key from OPENAI_API_KEY, or ``user:password@`` in the base URL (sent as Basic auth)."""
    rows = [{"id": "1", "answer": "Marie Curie was born in Warsaw. She was a physicist.", "contexts": [CONTEXT]}]
    with FaultServer() as server:
        url = server.base_url + "/leak-all"
        secrets: tuple[str, ...] = (KEY,)
        if how == "url-credentials":
            url = url.replace("http://", f"http://alice:{PASSWORD}@")
            secrets = (PASSWORD, f"alice:{PASSWORD}")
        done = genevals(tmp_path, "out", url, rows, "--judge-model", "judge", "--judge-repeats", "3",
                        "--judge-temperature", "0.5", key=KEY if how == "env-key" else None)
        seeds = sorted(r["body"]["seed"] for r in server.requests if r["kind"] == "verify")
    assert done.returncode == 0, done.stderr[-2000:]
    assert seeds == [0, 1, 2]  # three repeats were asked
    assert leaks_in(tmp_path, secrets, done.stdout + done.stderr) == {}
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text())
    assert line["metrics"]["faithfulness"]["details"]["judge"]["answered_by"] == "***"


@pytest.mark.parametrize("field", ["models", "models2"])
@pytest.mark.parametrize("form", ["plain", "base64"])
def test_a_model_list_holding_the_key_is_neither_shown_nor_taken(tmp_path, field, form):
    """Without --judge-model the server's one listed model is taken: one that is the key is refused, and the
    names of a list are shown redacted."""
    rows = [{"id": "1", "answer": "Marie Curie was born in Warsaw.", "contexts": [CONTEXT]}]
    with FaultServer() as server:
        done = genevals(tmp_path, "out", f"{server.base_url}/leak-{field}-{form}", rows)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "error" in done.stderr and "--judge-model" in done.stderr and "***" in done.stderr
    assert leaks_in(tmp_path, (KEY,), done.stdout + done.stderr) == {}


def test_the_leak_modes_cover_every_field_of_a_chat_completion():
    """What this file tests against: each top-level, choice and message field of an OpenAI chat completion,
    usage, headers and the error shapes (so a field added to the reply is added here)."""
    assert set(LEAK_REPLY) >= {"model", "id", "fingerprint", "object", "created", "tier", "finish", "role",
                               "refusal", "toolcalls", "logprobs", "usage", "content", "header"}
    assert {"error400", "error401", "error429", "error500", "errorhtml", "nochoices"} <= set(LEAK_ERRORS)
    assert {"models", "models2"} <= set(LEAK_FIELDS)
