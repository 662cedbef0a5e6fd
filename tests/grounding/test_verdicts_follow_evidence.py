"""The offline checker's verdicts follow their own evidence (issue 37): a claim none of whose content words is
in any context is never supported (the golden cases in data/absurd_claims.json), the label agrees with the
p(hallucinated) it shows under detector.FLAG_RULE, and the passage shown is the one the verdict rests on (demo
q07 and q28), each through `genevals run` in a real process."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.grounding import detector

REPO = Path(__file__).resolve().parents[2]
ABSURD = json.loads((Path(__file__).with_name("data") / "absurd_claims.json").read_text(encoding="utf-8"))["cases"]
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"


def _run(rows: list[dict], tmp_path: Path, method: str = "learned") -> dict[str, dict]:
    """`genevals run -m faithfulness` (no judge: the local checker) on ``rows``; each row's faithfulness
    details by id."""
    data = tmp_path / f"rows-{method}.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / f"out-{method}"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-m", "faithfulness", "-o", str(out),
                           "--no-history", "-q", "--set", f"grounding.method={method}"],
                          capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: r["metrics"]["faithfulness"] for r in results}


@pytest.mark.parametrize("method", ["learned", "rules"])
def test_no_absurd_claim_is_supported(tmp_path, method):
    rows = [{"id": f"a{i:02d}", "question": "", "answer": case["claim"], "contexts": [case["context"]]}
            for i, case in enumerate(ABSURD)]
    scored = _run(rows, tmp_path, method)
    supported = [(case["claim"], scored[r["id"]]["details"]["verdicts"]) for r, case in zip(rows, ABSURD)
                 if any(v["label"] == "supported" for v in scored[r["id"]]["details"]["verdicts"])]
    assert supported == []
    assert all(scored[r["id"]]["value"] == 0.0 for r in rows)
    if method == "learned":  # no passage is about an absurd claim: none is shown
        verdicts = [v for r in rows for v in scored[r["id"]]["details"]["verdicts"]]
        assert all(v["quote"] == "" and v["quote_span"] is None for v in verdicts)
        assert all(v["reason"].startswith("no related evidence: none of its content words is in any context (the "
                                          "'absent' rule flags it") for v in verdicts)


def test_the_label_follows_the_probability_it_shows(tmp_path):
    """Under FLAG_RULE a supported claim shows a p below the claim threshold, and a flagged one either reaches
    it, names the rule that fired, or is the likeliest sentence of an answer whose p reaches its threshold."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    rows = [{**r, "id": f"{r['system']}/{r['id']}"} for r in rows[:40]]
    rows.append({"id": "moon", "question": "", "answer": "Paris is in France. The moon is made of cheese.",
                 "contexts": ["Paris is in France."]})
    rows.append({"id": "polite", "question": "", "answer": "Paris is in France. I hope this helps!",
                 "contexts": ["Paris is in France."]})
    scored = _run(rows, tmp_path)
    tc = detector.load().claim_threshold
    for sid, faith in scored.items():
        for v in faith["details"].get("verdicts", []):  # a refusal has none
            shown = float(re.search(r"p\(hallucinated\) (\d\.\d\d)", v["reason"]).group(1))
            assert shown == pytest.approx(v["probability"], abs=0.0051)
            if v["label"] == "supported":
                assert v["probability"] < tc and f"< {tc:.2f}" in v["reason"], (sid, v)
            else:
                assert (v["probability"] >= tc or "rule" in v["reason"]
                        or "likeliest sentence" in v["reason"]), (sid, v)
    # a sentence addressed to the reader claims nothing: the absent rule leaves it to the probabilities
    assert not any("'absent' rule" in v["reason"] for v in scored["polite"]["details"]["verdicts"])
    moon = scored["moon"]
    assert moon["value"] == 0.5
    assert [v["label"] for v in moon["details"]["verdicts"]] == ["supported", "unverifiable"]


def _words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{4,}", text.lower())} - {"every", "about", "their", "which"}


@pytest.mark.skipif(not DEMO.exists(), reason="datasets/demo absent")
def test_demo_evidence_is_about_the_claim(tmp_path):
    """Demo q07 and q28 (every system): each quote shares the words of the clause it is shown for; where no
    passage is about the claim (dense q07: the mobile library is in no retrieved passage) none is shown."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    rows = [{**r, "id": f"{r['system']}/{r['id']}"} for r in rows if r["id"] in ("q07", "q28")]
    scored = _run(rows, tmp_path)
    answers = {r["id"]: r["answer"] for r in rows}
    for sid, faith in scored.items():
        claims = {c["index"]: c for c in faith["details"]["claims"]}
        for v in faith["details"]["verdicts"]:
            if not v["quote"]:
                continue
            claim = claims[v["claim_index"]]["text"]
            span = v.get("answer_span")
            about = answers[sid][span[0]:span[1]] if span else claim
            shared = _words(about) & _words(v["quote"])
            assert shared, (sid, about, v["quote"])
    dense_q07 = scored["dense/q07"]["details"]["verdicts"]
    assert [(v["label"], v["quote"]) for v in dense_q07] == [("unverifiable", "")]
    [q28] = scored["dense/q28"]["details"]["verdicts"]
    assert q28["label"] != "supported" and q28["quote"] == "Admission is free, and donations are welcome."
    assert all(v["label"] == "supported" and v["quote"] for s in ("sparse/q07", "hybrid/q07", "sparse/q28",
                                                                 "hybrid/q28")
               for v in scored[s]["details"]["verdicts"])
