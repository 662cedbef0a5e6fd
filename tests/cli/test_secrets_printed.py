"""What genevals prints never holds a secret it was given (issue 52, point 12), in real ``genevals`` processes:
``--print-config`` hides a URL's password, a user name given alone, its query and fragment (the judge's base URL
from a flag or a run file, the OpenTelemetry endpoint); a key pasted where ``api_key_env`` wants a variable's
NAME (a run file's ``[judge]``, a jury file's ``[[judge]]``) is refused with exit 2, naming the setting, without
echoing it; a name that could be a key is not echoed when the variable is unset."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-Pasted0123456789abcdefXYZ"
NAMED_KEY = "hf_abcdefXYZ0123456789secret"  # letters, digits and _: a valid name, and a key
PASSWORD, QUERY, FRAGMENT, TOKEN = "pw-printed-0123456789", "query-secret-98765", "frag-secret-4242", "tok-user-only-555"
ROW = '{"id": "1", "question": "q", "answer": "Paris is in France.", "contexts": ["Paris is in France."]}\n'


def genevals(tmp: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "OTEL_"))},
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
           "GENEVALS_HISTORY": str(tmp / "history.sqlite")}
    (tmp / "in.jsonl").write_text(ROW, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=tmp)


def test_print_config_hides_urls_credentials(tmp_path):
    (tmp_path / "run.toml").write_text(f'[judge]\nmodel = "m"\nbase_url = "http://{TOKEN}@127.0.0.1:9/v1"\n',
                                       encoding="utf-8")
    done = genevals(tmp_path, "run", "in.jsonl", "--config", "run.toml", "--judge-base-url",
                    f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={QUERY}#{FRAGMENT}",
                    "--otel-endpoint", f"http://127.0.0.1:4318/v1/logs?token={QUERY}", "--print-config")
    printed = done.stdout + done.stderr
    assert done.returncode == 0, printed
    for secret in (PASSWORD, QUERY, FRAGMENT, TOKEN):
        assert secret not in printed
    assert 'judge-base-url = "http://alice:***@127.0.0.1:9/v1?***#***"' in done.stdout
    assert 'otel-endpoint = "http://127.0.0.1:4318/v1/logs?***"' in done.stdout
    assert 'judge.base_url = "http://***@127.0.0.1:9/v1"' in done.stdout


@pytest.mark.parametrize("where", ["run-file", "jury-file"])
def test_a_key_given_for_a_variable_name_is_refused_unechoed(tmp_path, where):
    if where == "run-file":
        (tmp_path / "run.toml").write_text(f'[judge]\nmodel = "m"\napi_key_env = "{KEY}"\n', encoding="utf-8")
        args = ("--config", "run.toml", "--print-config")
    else:
        (tmp_path / "jury.toml").write_text(
            f'[[judge]]\nmodel = "a"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "{KEY}"\n'
            '[[judge]]\nmodel = "b"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
        args = ("--metrics", "faithfulness", "--jury", "jury.toml", "--dry-run")
    done = genevals(tmp_path, "run", "in.jsonl", "-o", "out", *args)
    printed = done.stdout + done.stderr
    assert done.returncode == 2 and "Traceback" not in printed, printed
    assert "api_key_env" in done.stderr and "not shown" in done.stderr
    assert KEY not in printed and KEY[8:20] not in printed


@pytest.mark.parametrize("where", ["run-file", "jury-file"])
def test_a_name_that_could_be_a_key_is_not_echoed_when_unset(tmp_path, where):
    if where == "run-file":
        (tmp_path / "run.toml").write_text(f'[judge]\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
                                           f'api_key_env = "{NAMED_KEY}"\n', encoding="utf-8")
        runs = [("--config", "run.toml", "--metrics", "faithfulness", "--dry-run"), ("--config", "run.toml",
                                                                                      "--print-config")]
    else:
        (tmp_path / "jury.toml").write_text(
            f'[[judge]]\nmodel = "a"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "{NAMED_KEY}"\n'
            '[[judge]]\nmodel = "b"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
        runs = [("--metrics", "faithfulness", "--jury", "jury.toml", "--dry-run")]
    for args in runs:
        done = genevals(tmp_path, "run", "in.jsonl", "-o", "out", *args)
        printed = done.stdout + done.stderr
        assert "Traceback" not in printed and NAMED_KEY not in printed, printed
        assert done.returncode == (0 if "--print-config" in args else 2), printed


@pytest.mark.parametrize("args", [
    ("export", "otel", "out", "--bogus", "URL"),  # an option the command does not have: argparse quotes it
    ("run", "in.jsonl", "--judge-timeout", "URL"),  # a URL where a number goes: argparse quotes the value
], ids=["unrecognized", "bad-value"])
def test_usage_errors_hide_urls_credentials(tmp_path, args):
    url = f"https://alice:{PASSWORD}@collector.example/v1/logs?token={QUERY}#{FRAGMENT}"
    done = genevals(tmp_path, *(url if a == "URL" else a for a in args))
    assert done.returncode == 2, done.stderr
    assert "error:" in done.stderr and "https://alice:***@collector.example/v1/logs?***" in done.stderr
    for secret in (PASSWORD, QUERY, FRAGMENT):
        assert secret not in done.stdout + done.stderr
