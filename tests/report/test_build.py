"""The HTML report builder: data, escaping, labels, comparisons, bands from declarations, thresholds, CLI.
(Browser tests are in test_browser.py; the run builders in support.runs.)"""
from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from support.runs import (JUDGE, add_judge, embedded, judge_declarations, make_offline_run, make_run,
                          make_synthetic_run, make_xss_run)

from genevals.output import runfolder, thresholds
from genevals.cli import main
from genevals.api import evaluate
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.report import bands, write_report
from genevals.report.model import build_data
from genevals.report.render import embed_json, unshared_ids_notes
from genevals.output.results import Results
from genevals.stats import paired_comparison
from genevals.output.thresholds import Threshold


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "demo")


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory) -> Path:
    return add_judge(make_run(tmp_path_factory.mktemp("runs") / "judged"))


def copy_run(run: Path, out: Path, *names: str) -> Path:
    out.mkdir()
    for name in names or (runfolder.RESULTS_FILE, runfolder.SUMMARY_FILE, runfolder.OUTPUTS_FILE):
        shutil.copy(run / name, out / name)
    return out


def facts_of(data: dict) -> dict[str, dict]:
    return {m["name"]: m for m in data["metrics"]}


def test_embed_json_cannot_close_the_script_element():
    text = embed_json({"a": "</script><script>alert(1)</script>", "b": "<!-- x -->", "c": "a&b\u2028"})
    assert "</" not in text and "<!--" not in text and "<" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><script>alert(1)</script>", "b": "<!-- x -->", "c": "a&b\u2028"}


def test_report_is_one_file_with_hash_csp(demo_run, tmp_path):
    out = write_report([demo_run], tmp_path / "r.html")
    html = out.read_text(encoding="utf-8")
    assert html.count("<script") == 2
    # Outside the embedded data, the only URL is the SVG namespace name (never loaded); no link/src/import.
    markup = re.sub(r'<script type="application/json" id="genevals-data">.*?</script>', "", html, flags=re.S)
    assert set(re.findall(r"https?://[^\s\"')]+", markup)) == {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<link|<img|<iframe|\bsrc=|@import|url\(", markup)
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp.split("style-src")[0]
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp
    data = embedded(html)
    assert data["samples"] and {s["label"] for s in data["systems"]} == {
        row["system"] for _, row in runfolder.iter_rows(demo_run)}


def test_judge_details_are_carried_and_checked(judged_run):
    data = build_data([judged_run])
    judged = [s for s in data["samples"] if "j" in s]
    assert judged and data["judges"] == [{k: str(v) for k, v in JUDGE.items()}]
    original = {(r.sample.system, r.sample.id): r for r in Results.load(judged_run)}
    for s in judged:
        details = original[(data["systems"][s["sys"]]["system"], s["id"])].metrics["faithfulness"].details
        # Claims not located in the answer (the fixture writes them as older runs did) are not the answer's.
        for claim, raw in zip(s["j"]["claims"], [c for c in details["claims"] if c["located"]], strict=True):
            # Located claims are read back from the answer; the text is only stored when it differs.
            assert claim.get("text", s["a"][slice(*claim["spans"][0])] if claim["spans"] else None) == raw["text"]
            assert claim["located"] == raw["located"]
        for v, raw in zip(s["j"]["verdicts"], details["verdicts"]):
            assert v["label"] == raw["label"] and v.get("context_index") == raw["context_index"]
            if raw["quote_span"]:
                ctx = s["ctx"][v["context_index"]]["text"]
                assert ctx[slice(*v["quote_span"])] == raw["quote"] and "quote" not in v
    invented = sum(len(s["j"].get("inv", [])) for s in judged)
    assert invented and all(c["located"] for s in judged for c in s["j"]["claims"])
    assert [w for w in data["warnings"] if not w.startswith("Judge quality:")] == []
    assert any(f"the judge returned {invented} claim(s)" in w for w in data["warnings"])
    names = [m["name"] for m in data["metrics"]]
    assert {"faithfulness", "contradiction_rate", "unverifiable_rate"} <= set(names)


def _one_row_run(run: Path, answer: str, contexts: list[dict], details: dict) -> Path:
    run.mkdir()
    row = {"id": "1", "system": "s", "question": "q", "answer": answer, "references": [], "relevant": None,
           "contexts": contexts, "metrics": {"faithfulness": {"value": 0.5, "status": "ok", "details": details}}}
    (run / runfolder.RESULTS_FILE).write_text(json.dumps(row) + "\n" + '{"id": "cut short')
    return run


def test_spans_become_utf16_offsets_and_bad_spans_are_dropped(tmp_path):
    answer = "\U0001F600 Paris is big. Rome too."
    run = _one_row_run(tmp_path / "emoji", answer, [{"text": "\U0001F680 Paris is big.", "rank": 1}], {
        "claims": [{"index": 0, "text": "Paris is big.", "spans": [[2, 15]], "located": True},
                   {"index": 1, "text": "Rome too.", "spans": [[16, 999]], "located": True}],
        "verdicts": [{"claim_index": 0, "label": "supported", "context_index": 0, "quote": "Paris is big.",
                      "quote_found": True, "quote_span": [2, 15], "reason": ""},
                     {"claim_index": 1, "label": "bogus", "context_index": 7}]})
    data = build_data([run])
    s = data["samples"][0]
    utf16 = answer.encode("utf-16-le")
    start, end = s["j"]["claims"][0]["spans"][0]
    assert utf16[2 * start:2 * end].decode("utf-16-le") == "Paris is big."
    assert s["j"]["claims"][1] == {"index": 1, "text": "Rome too.", "spans": [], "located": False}
    assert s["j"]["verdicts"][0]["quote_span"] == [3, 16]
    assert s["j"]["verdicts"][1] == {"claim_index": 1, "label": "unverifiable"}  # bad label and context dropped
    # No summary.json: means are computed from the samples.
    assert data["systems"][0]["summary"]["faithfulness"]["mean"] == 0.5
    assert len(data["samples"]) == 1


def test_malformed_claims_and_verdicts_are_dropped_or_defaulted(tmp_path):
    answer = "Paris is big. Rome too. Oslo is cold."
    run = _one_row_run(tmp_path / "bad", answer, [{"text": "Paris is big.", "rank": 1}, "not a context"], {
        "claims": ["not a claim", {"index": "x", "text": "no index"}, {"index": 1, "text": 7},
                   {"index": 2, "text": "Rome too.", "spans": "14-23"},
                   {"index": 3, "text": "Oslo is cold.", "spans": [[24, 37], [True, 3]]},
                   {"index": 4, "text": "Paris is big.", "spans": [[0, 13]], "located": True}],
        "verdicts": [None, {"claim_index": None, "label": "supported"},
                     {"claim_index": 2, "label": "contradicted", "context_index": 0, "quote_span": "zz",
                      "quote": "<b>x</b>"},
                     {"claim_index": 4, "label": "supported", "context_index": True, "quote": "Paris is big."},
                     {"claim_index": 4, "label": "contradicted"}]})
    s = build_data([run])["samples"][0]
    # Claims that do not parse are left out; bad spans are dropped and the claim kept, not located.
    assert s["j"]["claims"] == [{"index": 2, "text": "Rome too.", "spans": [], "located": False},
                                {"index": 3, "text": "Oslo is cold.", "spans": [], "located": False},
                                {"index": 4, "spans": [[0, 13]], "located": True}]
    # A verdict keeps its claim and label when its evidence does not parse; one with no claim is left out.
    assert s["j"]["verdicts"] == [{"claim_index": 2, "label": "contradicted"},
                                  {"claim_index": 4, "label": "supported"},
                                  {"claim_index": 4, "label": "contradicted"}]
    assert s["ctx"] == [{"text": "Paris is big.", "rank": 1, "id": None, "doc_id": None, "score": None}]
    # Verdict counts for the charts read the same claims: the first verdict of a claim counts.
    data = build_data([run], max_detailed_samples=0)
    assert data["samples"][0]["vc"] == [1, 1, 1] and data["verdicts"][0]["judged"] == 1
    details = json.loads((run / runfolder.RESULTS_FILE).read_text().splitlines()[0])["metrics"]["faithfulness"]
    for claims, verdicts, judge in (("nope", {"a": 1}, None), ("nope", [], {"claims": [], "verdicts": []})):
        details["details"] = {"claims": claims, "verdicts": verdicts}
        (run / runfolder.RESULTS_FILE).write_text(json.dumps({"id": 2, "metrics": {"faithfulness": details}}) + "\n")
        assert build_data([run])["samples"][0].get("j") == judge


def test_labels_and_comparisons_across_runs(demo_run, tmp_path):
    other = copy_run(demo_run, tmp_path / "other")
    data = build_data([demo_run, other])
    labels = [s["label"] for s in data["systems"]]
    assert all(label.startswith(("demo/", "other/")) for label in labels) and len(set(labels)) == len(labels)
    comp = next(c for c in data["comparisons"] if c["metric"] == "token_f1")
    values = {}
    for s in data["samples"]:
        pos = [m["name"] for m in data["metrics"]].index("token_f1")
        if pos < len(s["v"]) and s["v"][pos] is not None:
            values.setdefault(s["sys"], {})[s["id"]] = s["v"][pos]  # rounded to 6 digits for the page
    direct = paired_comparison("token_f1", labels[comp["a"]], values[comp["a"]], labels[comp["b"]], values[comp["b"]],
                               seed=data["seed"], resamples=5000)
    assert comp["p_value"] == pytest.approx(direct.p_value, abs=1e-6)
    assert comp["ci95"][0] == pytest.approx(direct.ci_low, abs=1e-6)
    assert comp["mean_difference"] == pytest.approx(direct.mean_difference, abs=1e-6)
    assert build_data([demo_run, other])["comparisons"] == data["comparisons"]  # seeded: identical
    # A copy of the same run: the same system in both runs never differs.
    same = [c for c in data["comparisons"] if labels[c["a"]].split("/")[1] == labels[c["b"]].split("/")[1]]
    assert same and all(c["mean_difference"] == 0 and not c["significant"] for c in same)
    # Unique names keep their plain label.
    assert [s["label"] for s in build_data([demo_run])["systems"]] == [s["system"] for s in data["systems"]][:len(
        build_data([demo_run])["systems"])]


def test_bands_follow_declarations(demo_run):
    higher = bands.metric_facts("token_f1", {"direction": "higher", "range": [0.0, 1.0]}, None)
    assert [bands.band(higher, v) for v in (0.95, 0.8, 0.79, 0.5, 0.3, 0.1)] == [
        "Excellent", "Excellent", "Good", "Moderate", "Fair", "Poor"]
    # What the faithfulness judge declares: its rates are lower-is-better, banded by their own strict limits,
    # never as 1 - mean (0.14 would read "Excellent" so).
    judged = judge_declarations()
    contradiction = bands.metric_facts("contradiction_rate", judged["contradiction_rate"], (0.0, 1.0))
    assert contradiction["lower_better"]
    assert [bands.band(contradiction, v) for v in (0.0, 0.02, 0.05, 0.1, 0.14, 0.2, 0.25, 1.0)] == [
        "Excellent", "Excellent", "Good", "Moderate", "Fair", "Fair", "Poor", "Poor"]
    # A mean covering less than the minimum share of its samples gets no band: 1.0 on 2 of 9 says little.
    assert bands.band(higher, 1.0, covered=2 / 9) is None and bands.band(higher, 1.0, covered=0.8) == "Excellent"
    assert bands.band(higher, 1.0, covered=0.5, min_coverage=0.5) == "Excellent"
    assert bands.coverage({"scored": 2, "unscored": 7}) == 2 / 9 and bands.coverage({"scored": 0}) is None
    # What a real run folder declares: first_relevant_rank is on [1, null], so it gets no band.
    facts = facts_of(build_data([demo_run]))
    assert runfolder.read_outputs(demo_run)["first_relevant_rank"]["range"] == [1.0, None]
    # issue 37: each metric's declared definition travels with it, shown under its name in the Overview
    assert facts["first_relevant_rank"].pop("definition").startswith("1-based rank of the first relevant id")
    assert facts["mrr"].pop("definition").startswith("1 / rank of the first relevant id")
    assert facts["first_relevant_rank"] == {"name": "first_relevant_rank", "lower_better": True, "unit": False,
                                            "banded": False, "integer": True}  # a rank: shown as a whole number
    assert bands.band(facts["first_relevant_rank"], 1.2) is None and bands.band(facts["mrr"], None) is None
    assert facts["mrr"] == {"name": "mrr", "lower_better": False, "unit": True, "banded": True}


def test_judge_run_declares_its_rates_lower_is_better(tmp_path):
    """A real faithfulness run (scripted judge): outputs.json carries the declarations the report bands by."""
    answer = "Marie Curie was born in Warsaw. She won the Nobel Prize in 1903. She lived to be 120. She sang."
    row = {"id": "s1", "question": "Who was Marie Curie?", "answer": answer,
           "contexts": [{"text": "Marie Curie (born in Warsaw in 1867) was a physicist."},
                        {"text": "Curie shared the 1903 Nobel Prize. She died in 1934, aged 66."}]}
    script = {"decompose": {"claims": [
        {"claim": "Marie Curie was born in Warsaw.", "source": "Marie Curie was born in Warsaw"},
        {"claim": "Marie Curie won the Nobel Prize in 1903.", "source": "She won the Nobel Prize in 1903"},
        {"claim": "Marie Curie lived to be 120.", "source": "She lived to be 120"},
        {"claim": "Marie Curie sang.", "source": "She sang"}]},
        "verify": {"verdicts": [
            {"id": 1, "context": 1, "quote": "born in Warsaw", "label": "supported", "reason": "stated"},
            {"id": 2, "context": 2, "quote": "shared the 1903 Nobel Prize", "label": "supported", "reason": "stated"},
            {"id": 3, "context": 2, "quote": "She died in 1934, aged 66.", "label": "contradicted", "reason": "66"},
            {"id": 4, "context": 1, "quote": "", "label": "unverifiable", "reason": "not said"}]}}
    run = tmp_path / "judged"
    evaluate([row], ["faithfulness"], judge=JudgeConfig(provider=ScriptedProvider(script), cache=False), out_dir=run)
    assert runfolder.read_outputs(run)["contradiction_rate"]["direction"] == "lower"
    data = build_data([run])
    facts = facts_of(data)
    means = {name: m["mean"] for name, m in data["systems"][0]["summary"].items()}
    assert means == {"faithfulness": 0.5, "contradiction_rate": 0.25, "unverifiable_rate": 0.25, "invented_claims": 0}
    assert not facts["invented_claims"]["banded"] and not facts["invented_claims"]["unit"]
    del means["invented_claims"]  # a judge-quality count, not banded
    assert facts["contradiction_rate"]["lower_better"] and facts["unverifiable_rate"]["lower_better"]
    assert not facts["faithfulness"]["lower_better"]
    assert [bands.band(facts[name], means[name]) for name in means] == ["Moderate", "Poor", "Poor"]
    assert data["verdicts"][0] == {"judged": 1, "supported": 2, "contradicted": 1, "unverifiable": 1}
    cited = [v for v in data["samples"][0]["j"]["verdicts"] if v["label"] == "contradicted"]
    assert cited and "quote" not in cited[0] and cited[0]["context_index"] == 1


def test_outputs_json_drives_direction_and_range(demo_run, tmp_path):
    """A custom output declared "lower" is banded by the error-rate limits; one declared off [0, 1] gets no band and a
    min-max histogram, whatever its values; "neither" gets no band."""
    run = copy_run(demo_run, tmp_path / "custom")
    rows = [row for _, row in runfolder.iter_rows(run)]
    for i, row in enumerate(rows):
        row["metrics"]["error_share"] = {"value": 0.1, "status": "ok"}
        row["metrics"]["hops"] = {"value": 0.5 if i % 2 else 0.25, "status": "ok"}
        row["metrics"]["balance"] = {"value": 0.5, "status": "ok"}
    (run / runfolder.RESULTS_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    outputs = runfolder.read_outputs(run)
    outputs.update(error_share={"direction": "lower", "range": [0, 1]},
                   hops={"direction": "higher", "range": [0, None]},
                   balance={"direction": "neither", "range": [0, 1]})
    runfolder.write_outputs(run, outputs)
    data = build_data([run])
    facts = facts_of(data)
    assert facts["error_share"] == {"name": "error_share", "lower_better": True, "unit": True, "banded": True}
    assert bands.band(facts["error_share"], 0.1) == "Moderate"  # an error rate of 10%, not 1 - 0.1
    assert facts["hops"] == {"name": "hops", "lower_better": False, "unit": False, "banded": False}
    assert bands.band(facts["hops"], 0.4) is None
    assert (data["histograms"]["hops"]["lo"], data["histograms"]["hops"]["hi"]) == (0.25, 0.5)
    assert facts["balance"]["unit"] and not facts["balance"]["banded"]
    # Without the declaration the same values would be banded, higher-is-better.
    runfolder.write_outputs(run, {})
    assert facts_of(build_data([run]))["error_share"] == {"name": "error_share", "lower_better": False,
                                                          "unit": True, "banded": True}


def test_old_run_folder_without_outputs_json_still_renders(demo_run, tmp_path):
    run = copy_run(demo_run, tmp_path / "old", runfolder.RESULTS_FILE, runfolder.SUMMARY_FILE)
    assert runfolder.read_outputs(run) == {}
    data = embedded(write_report([run], tmp_path / "old.html").read_text(encoding="utf-8"))
    facts = facts_of(data)
    # No declarations: every metric reads as higher-is-better; one with values off [0, 1] gets no band.
    assert not any(m["lower_better"] for m in data["metrics"])
    assert not facts["first_relevant_rank"]["banded"] and not facts["first_relevant_rank"]["unit"]
    assert all(m["banded"] for name, m in facts.items() if name != "first_relevant_rank")
    assert data["samples"] and data["histograms"]["token_f1"]["lo"] == 0.0
    assert data["systems"] == build_data([demo_run])["systems"]


def test_thresholds(tmp_path):
    (tmp_path / "a.json").write_text('{"mrr": 0.6, "faithfulness": 0.8}')
    (tmp_path / "b.json").write_text('{"fail_under": {"ndcg@10": 0.7}, "fail_over": {"contradiction_rate": 0.1}}')
    assert thresholds.load(tmp_path / "a.json") == [Threshold("mrr", 0.6), Threshold("faithfulness", 0.8)]
    assert thresholds.load(tmp_path / "b.json") == [Threshold("ndcg@10", 0.7),
                                                    Threshold("contradiction_rate", 0.1, thresholds.FAIL_OVER)]
    for bad in ('{"mrr": "high"}', '{"mrr": "0.5"}', '{"mrr": NaN}', '{"mrr": Infinity}', '{"mrr": true}', "[1]",
                '{"fail_under": {"mrr": 1}, "mrr": 2}', '{"fail_over": [1]}'):
        (tmp_path / "c.json").write_text(bad)
        with pytest.raises(ValueError):
            thresholds.load(tmp_path / "c.json")
    with pytest.raises(ValueError, match="nosuch.json: file not found"):
        thresholds.load(tmp_path / "nosuch.json")
    assert thresholds.limit_value("mrr", "0.5") == 0.5 and thresholds.limit_value("mrr", 1) == 1.0
    for bad in ("high", "nan", "inf", "-inf", True, None):
        with pytest.raises(ValueError, match="'mrr'"):
            thresholds.limit_value("mrr", bad)
    under, over = Threshold("mrr", 0.5), Threshold("contradiction_rate", 0.1, thresholds.FAIL_OVER)
    assert under.passes(0.5) and not under.passes(0.49) and not under.passes(None)
    assert over.passes(0.1) and not over.passes(0.25) and not over.passes(None)


def test_cli_report(demo_run, tmp_path, capsys):
    out = tmp_path / "compare.html"
    config = tmp_path / "thresholds.json"
    config.write_text(json.dumps({"token_f1": 0.01, "mrr": 0.3}))
    assert main(["report", str(demo_run), str(demo_run), "-o", str(out), "--config", str(config)]) == 0
    data = embedded(out.read_text(encoding="utf-8"))
    assert data["thresholds"] == {"token_f1": {"limit": 0.01, "kind": "fail_under"},
                                  "mrr": {"limit": 0.3, "kind": "fail_under"}} and len(data["runs"]) == 2
    assert main(["report", str(demo_run), "-o", str(out), "--fail-under", "token_f1=0.99"]) == 1
    assert "threshold missed" in capsys.readouterr().err
    assert embedded(out.read_text(encoding="utf-8"))["thresholds"] == {"token_f1": {"limit": 0.99,
                                                                                 "kind": "fail_under"}}
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert main(["report", str(demo_run)]) == 0 and (demo_run / runfolder.REPORT_FILE).exists()


def test_hostile_text_never_reaches_the_markup(tmp_path):
    run = make_xss_run(tmp_path / "<svg onload=window.__xss=10>")
    html = write_report([run], tmp_path / "x.html").read_text(encoding="utf-8")
    assert html.count("<script") == 2 and "<img" not in html and "<svg onload" not in html
    assert "javascript:window" in html  # present, but only as JSON text
    data = embedded(html)
    assert any("<script>window.__xss=1</script>" in s["a"] for s in data["samples"])


def test_synthetic_thousand_is_small(tmp_path):
    run = make_synthetic_run(tmp_path / "big")
    out = write_report([run], tmp_path / "big.html")
    assert out.stat().st_size < 3_000_000
    assert len(embedded(out.read_text(encoding="utf-8"))["samples"]) == 1000


def test_judge_warnings_read_as_text_and_low_coverage_is_in_the_data(tmp_path):
    """summary.json's {family: warning} reaches the banner as "family: warning", never as a raw dict; the page
    gets the minimum coverage and every metric's scored/unscored counts for its banner."""
    rows = [{"id": str(i), "answer": "Paris", "references": ["Paris"] if i == 0 else []} for i in range(5)]
    run = tmp_path / "run"
    evaluate(rows, ["exact_match"], out_dir=run)
    summary = json.loads((run / runfolder.SUMMARY_FILE).read_text())
    summary["meta"]["judge_warnings"] = {"faithfulness": "the tiny model"}
    (run / runfolder.SUMMARY_FILE).write_text(json.dumps(summary))
    data = build_data([run], min_coverage=0.5)
    assert data["warnings"] == ["faithfulness: the tiny model"] and data["min_coverage"] == 0.5
    em = data["systems"][0]["summary"]["exact_match"]
    assert (em["scored"], em["unscored"], em["statuses"]) == (1, 4, {"ok": 1, "no_reference": 4})


def test_systems_sharing_no_question_id_are_named_for_the_compare_tab(tmp_path):
    """Ids defaulted to row numbers never match across systems: the page data names the pairs, and the same
    run with real ids names none. Across runs, the same system with other ids is named too."""
    def row(system, i, with_id):
        return {"system": system, "answer": f"Sight {i} is in Paris", "references": [f"Sight {i} is in Paris"],
                **({"id": f"q{i}"} if with_id else {})}

    no_ids = make_run(tmp_path / "no_ids", [row(s, i, False) for s in ("a", "b", "c") for i in range(3)])
    data = build_data([no_ids])
    assert data["unshared_ids"] == [[0, 1], [0, 2], [1, 2]] and data["comparisons"] == []
    assert unshared_ids_notes(data) == [
        "systems 'a' and 'b', 'a' and 'c', 'b' and 'c' share no question id, so they are not compared. A row "
        "without an id gets its row number as id: if each row holds its question, run again with --map id=question"]
    ids = make_run(tmp_path / "ids", [row(s, i, True) for s in ("a", "b") for i in range(3)])
    assert build_data([ids])["unshared_ids"] == [] and unshared_ids_notes(build_data([ids])) == []
    other = make_run(tmp_path / "other", [row("a", i + 10, True) for i in range(3)])
    assert build_data([ids, other])["unshared_ids"] == [[0, 2]]  # ids/a against other/a


def test_offline_banner_shows_the_out_of_sample_figure_once_with_its_baseline(tmp_path, monkeypatch):
    from genevals.grounding import figure

    data = build_data([make_offline_run(tmp_path / "run", monkeypatch)])
    sentence = figure.packaged().sentence()
    shown = "\n".join(data["warnings"])
    assert shown.count(sentence) == 1 and shown.count("word-overlap baseline") == 1
    assert "40 RAGTruth answers" not in shown and "Good for:" in shown and "Not for:" in shown


def test_judge_card_lists_each_judge_once(tmp_path, monkeypatch):
    """The detector describes itself per sample (the context kind varies): it is one judge, its varying field
    listed once."""
    data = build_data([make_offline_run(tmp_path / "run", monkeypatch)])
    [judge] = data["judges"]
    assert judge["backend"] == "local-grounding" and judge["context_kind"] == "text, record"
