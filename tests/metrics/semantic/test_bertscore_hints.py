"""BERTScore on Chinese (issue 52, point 10f): the reason an unscored sample carries names only what the user has
not done yet (never "--bertscore-layer N" to someone who gave --bertscore-layer 5, nor "--bertscore-model PATH" as
news to someone who named the packaged model with it), and the finding sentence says a metric that scored nothing
is "not scored" and why, never "no single leader". Real ``genevals run`` processes on real files."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("bert_score")

REPO = Path(__file__).resolve().parents[3]
QA = [("法国的首都是哪里？", "巴黎是法国的首都。", "巴黎是法国的首都。"),
      ("谁写了哈姆雷特？", "哈姆雷特是莎士比亚写的。", "威廉·莎士比亚写了哈姆雷特。"),
      ("二战什么时候结束？", "二战在1945年结束。", "第二次世界大战于1945年结束。"),
      ("最大的行星是什么？", "木星是太阳系最大的行星。", "木星是最大的行星。")]


def chinese(tmp_path: Path) -> Path:
    rows = [{"id": f"q{i}", "system": system, "question": q, "answer": a if system == "a" else a[:-1] + "吗。",
             "references": [r], "contexts": [r]} for system in ("a", "b") for i, (q, a, r) in enumerate(QA)]
    path = tmp_path / "zh.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO),
                                                                                       os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(chinese(tmp_path)), "-o", str(out),
                           "--no-history", *args], capture_output=True, text=True, timeout=300, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done, json.loads((out / "summary.json").read_text(encoding="utf-8"))


def reasons(tmp_path: Path) -> set[str]:
    out = sorted(tmp_path.glob("out*"))[-1]
    return {r["metrics"]["bertscore_f1"]["reason"] for r in map(json.loads, (out / "results.jsonl").open())}


def test_the_hint_names_only_the_flags_not_given(tmp_path):
    done, _ = run(tmp_path, "-m", "bertscore", "--language", "zh", "--bertscore-layer", "5")
    [reason] = reasons(tmp_path)
    assert "--bertscore-layer 5 applies to it" in reason and "--bertscore-layer N" not in reason, reason
    assert "--bertscore-model PATH" in reason
    said = done.stdout + done.stderr
    assert "--bertscore-layer N" not in said and "--bertscore-layer 5 applies to it" in said
    run(tmp_path, "-m", "bertscore", "--bertscore-model", "all-MiniLM-L6-v2")
    [reason] = reasons(tmp_path)
    assert "--bertscore-model all-MiniLM-L6-v2 is the packaged English model" in reason, reason
    assert "--bertscore-model PATH" not in reason and "--bertscore-layer N" in reason
    run(tmp_path, "-m", "bertscore", "--language", "zh")  # nothing given: both named
    [reason] = reasons(tmp_path)
    assert "--bertscore-model PATH (a local Hugging Face model folder) with --bertscore-layer N" in reason


def test_a_metric_that_scored_nothing_is_not_scored_in_the_finding_never_a_tie(tmp_path):
    done, summary = run(tmp_path, "-m", "bertscore,token_f1", "--language", "zh")
    sentence = summary["leaderboard"]["sentence"]
    assert "bertscore_f1 not scored (unsupported_language 8)" in sentence, sentence
    said = done.stdout + done.stderr
    assert "no single leader" not in sentence and "no single leader" not in said
    assert "finding: " in said and "bertscore_f1 not scored (unsupported_language 8)" in said
    done, summary = run(tmp_path, "-m", "bertscore", "--language", "zh")  # the only metric: still why
    assert summary["leaderboard"]["sentence"] == "bertscore_f1 not scored (unsupported_language 8)"
    assert "share no scored question ids" not in done.stdout + done.stderr
