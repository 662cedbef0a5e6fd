"""A judge server on this machine gets its own defaults (300 s a request, 512 tokens a reply, streamed replies),
and ``--print-config`` says which values a run sends, given or not."""
import subprocess
import sys

import pytest

PRINTED = "# judge, as sent to a judge server"


def _printed(tmp_path, *flags):
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "1", "question": "q", "answer": "a", "contexts": ["c"]}\n')
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "faithfulness", *flags,
                           "--print-config"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stdout.splitlines() if line.startswith(PRINTED)]


@pytest.mark.parametrize("flags, line", [
    (["--judge-base-url", "http://127.0.0.1:8080/v1"],
     "on this machine: timeout = 300 s, max_tokens = 512, stream = true"),
    (["--judge-base-url", "http://localhost:8080/v1", "--judge-timeout", "30", "--judge-max-tokens", "64",
      "--judge-option", "stream=false"], "on this machine: timeout = 30 s, max_tokens = 64, stream = false"),
    (["--judge-base-url", "https://judge.example.org/v1"],
     "elsewhere: timeout = 60 s, max_tokens = each call's own budget, stream = false"),
])
def test_print_config_shows_what_the_judge_server_is_sent(tmp_path, monkeypatch, flags, line):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert _printed(tmp_path, *flags) == [f"{PRINTED} {line}"]


def test_no_line_without_a_judge_server(tmp_path, monkeypatch):
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert _printed(tmp_path) == [] and _printed(tmp_path, "--judge-backend", "llamacpp") == []
