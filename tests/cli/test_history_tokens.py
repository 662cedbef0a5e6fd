"""The history budget as a run setting, in real processes: --history-tokens, the run file's history_tokens and
genevals.evaluate(history_tokens=...) read the conversations with it, the manifest records it, and --resume
refuses a changed budget."""
import json
import subprocess
import sys

import pytest

from conftest import REPO

import genevals
from genevals.input.readers import InputError
from genevals.output import runfolder

CHAT = str(REPO / "datasets" / "chat" / "chat.jsonl")


def genevals_run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "genevals", "run", CHAT, "-m", "token_f1", "--no-history", "-q",
                           *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def dropped(out):
    return {r["id"]: r.get("history_dropped", 0) for _, r in runfolder.iter_rows(out)}  # one line per conversation


def test_flag_recorded_and_resume_refuses_a_changed_budget(tmp_path):
    out = tmp_path / "run"
    done = genevals_run("-o", str(out), "--history-tokens", "5")
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "manifest.json").read_text())["options"]["history_tokens"] == 5
    assert dropped(out)["bridge:3"] > 0  # a 5-token budget leaves the oldest turns out
    refused = genevals_run("-o", str(out), "--resume")
    assert refused.returncode == 2
    assert "the option history_tokens: 5 was used, now 2000" in refused.stderr
    assert genevals_run("-o", str(out), "--resume", "--history-tokens", "5").returncode == 0


def test_run_file_key_and_a_bad_value(tmp_path):
    (tmp_path / "genevals.toml").write_text("history_tokens = 5\n")
    done = genevals_run("-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["options"]["history_tokens"] == 5
    bad = genevals_run("-o", "out", "--history-tokens", "-1", cwd=tmp_path)
    assert bad.returncode == 2 and "--history-tokens: expected a whole number from 0 to 1,000,000, got -1" in bad.stderr


def test_a_folder_from_before_the_budget_was_recorded_resumes_with_the_default(tmp_path):
    out = tmp_path / "run"
    assert genevals_run("-o", str(out)).returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["options"]["history_tokens"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert genevals_run("-o", str(out), "--resume").returncode == 0
    assert genevals_run("-o", str(out), "--resume", "--history-tokens", "7").returncode == 2


def test_api_argument():
    found = genevals.evaluate(CHAT, ["token_f1"], history_tokens=0)
    assert all(not r.sample.history for r in found.samples)
    assert {r.sample.id: r.sample.history_dropped for r in found.samples}["bridge:3"] == 5
    with pytest.raises(InputError, match=r"history_tokens: expected a whole number from 0 to 1,000,000, got -3"):
        genevals.evaluate(CHAT, ["token_f1"], history_tokens=-3)


@pytest.mark.parametrize("value", ["1000001", "99999999999999999999"])
def test_a_budget_past_a_million_tokens_is_refused_everywhere(tmp_path, value):
    """A million tokens is past any judge's context: more is a typo, not "keep everything"; the flag, the run
    file and the API refuse it naming the option (or the file, line and key), the value and the limit."""
    flag = genevals_run("-o", str(tmp_path / "a"), "--history-tokens", value)
    assert flag.returncode == 2 and "Traceback" not in flag.stderr
    assert f"--history-tokens: expected a whole number from 0 to 1,000,000, got {value}" in flag.stderr
    (tmp_path / "genevals.toml").write_text(f"history_tokens = {value}\n")
    in_file = genevals_run("-o", "b", cwd=tmp_path)
    assert in_file.returncode == 2 and "Traceback" not in in_file.stderr
    assert f"genevals.toml:1: history_tokens: expected a whole number from 0 to 1,000,000, got {value}" in in_file.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    with pytest.raises(InputError, match=f"history_tokens: expected a whole number from 0 to 1,000,000, got {value}"):
        genevals.evaluate(CHAT, ["token_f1"], history_tokens=int(value))


def test_a_budget_of_a_million_is_taken_and_the_help_says_why_it_is_the_limit(tmp_path):
    done = genevals_run("-o", str(tmp_path / "run"), "--history-tokens", "1000000")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "run" / "manifest.json").read_text())["options"]["history_tokens"] == 1_000_000
    from genevals.cli import build_parser

    run = build_parser()._subparsers._group_actions[0].choices["run"]
    flag = next(a for a in run._actions if "--history-tokens" in a.option_strings)
    explained = getattr(flag, "hidden_help", flag.help)  # `run --help` hides it; the CLI reference lists it
    assert "at most 1,000,000, past any judge's context window" in explained
