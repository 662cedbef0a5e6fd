"""What a user is told about the offline judge, in a real process: the out-of-sample figure with its n and the
word-overlap baseline (never an in-sample one), and what ``--judge-backend auto`` does."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from support.runs import OFFLINE_ROWS

from genevals.lifecycle.messages import MAX_LINE
from genevals.output import runfolder
from genevals.grounding import figure


def offline_env() -> dict[str, str]:
    """No judge configured: no OpenAI endpoint or key in the environment."""
    return {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}


def genevals(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600,
                          env=offline_env(), check=False)


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("offline")
    data = root / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in OFFLINE_ROWS))
    done = genevals("run", str(data), "--out", str(root / "out"), "--metrics", "faithfulness")
    return done, root / "out"


def test_offline_run_states_the_cross_validated_figure_and_its_baseline(offline_run):
    done, out = offline_run
    assert done.returncode == 0, done.stderr
    shown = figure.packaged()
    h = shown.headline
    # the terminal: one line, the figure and its baseline (out of sample) and what to do (issue 52, point 10b)
    [note] = [line for line in done.stderr.splitlines() if line.startswith("genevals: note: grounding: ")]
    assert shown.brief() in note and "out of sample" in note and "--judge-base-url" in note
    assert f"{h['detector']['f1']:.3f}" in note and f"{h['word_overlap']['f1']:.3f}" in note
    assert len(note) <= MAX_LINE and "Good for:" not in done.stderr
    # the in-sample figures of old (0.81, not BEGIN's 0.811 the details quote for conversation turns)
    assert "40 RAGTruth answers" not in done.stderr and not re.search(r"0\.81(?!\d)", done.stderr)
    # summary.json (and the report, which reads it) keeps the details: how the figure was measured, what for
    full = json.loads((out / runfolder.SUMMARY_FILE).read_text())["meta"]["judge_warnings"]["grounding"]
    assert full.partition("\n")[0] == note.removeprefix("genevals: note: grounding: ")
    assert shown.sentence() in full and f"on {h['n']} RAGTruth answers" in full and "cross-validation" in full
    assert "word-overlap baseline on the same folds" in full and "Good for:" in full and "Not for:" in full


def test_judge_backend_help_says_what_auto_does():
    done = genevals("run", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())  # argparse wraps the help
    for part in ("OPENAI_BASE_URL or OPENAI_API_KEY", "--judge-model names a .gguf", "offline variants",
                 "local grounding checker", "llm_rubric runs the packaged Gemma 3 270M"):
        assert part in text, part
