"""The HTML report builder: data, escaping, labels, comparisons, thresholds, CLI. (Browser tests are separate.)

The helpers here also build the fixtures the browser tests use: the demo run, the demo run with plausible
LLM-judge verdicts added (spans that index the answer, quotes that are substrings of the contexts), a run
full of XSS payloads, and 1,000 synthetic samples.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from genevals.aggregate import paired_comparison
from genevals.report import bands
from genevals.report.cli_report import add_report_parser
from genevals.report.html import build_data, embed_json, render, write_report
from genevals.results import Results, SummaryAccumulator, build_summary
from genevals.runner import evaluate
from genevals.types import MetricResult

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "demo.jsonl"
JUDGE = {"backend": "fixture", "model": "fixture-judge-1", "base_url": "http://localhost:0/v1", "prompt_version": "v1"}
TINY_WARNING = "verdicts came from the tiny embedded model (gemma3-270m); use them for smoke tests only"

XSS = [
    "<script>window.__xss=1</script>",
    "</script><script>window.__xss=2</script>",
    '<img src=x onerror="window.__xss=3">',
    '<a href="javascript:window.__xss=4">x</a>',
    "<!-- <svg onload=window.__xss=5>",
]


def fallback_rows() -> list[dict]:
    """A small dataset in the input schema, used when the demo file is not there."""
    facts = [("What is the capital of France?", "Paris is the capital of France.", "Paris"),
             ("Who wrote Hamlet?", "Hamlet was written by William Shakespeare around 1600.", "William Shakespeare"),
             ("When did World War II end?", "World War II ended in 1945 after the surrender of Japan.", "1945"),
             ("What is the largest planet?", "Jupiter is the largest planet in the Solar System.", "Jupiter"),
             ("Who painted the Mona Lisa?", "The Mona Lisa was painted by Leonardo da Vinci.", "Leonardo da Vinci")]
    rows = []
    for system, good in (("dense", 0), ("sparse", 1)):
        for i, (question, fact, ref) in enumerate(facts):
            contexts = [{"id": f"c{i}-{j}", "doc_id": f"d{i}-{j}", "score": 1 - 0.1 * j,
                         "text": fact if j == good else f"Passage {j} about topic {i} mentions nothing useful at all."}
                        for j in range(3)]
            answer = fact if i % 2 == 0 else f"{ref}. It was first recorded in 1820 by the royal archive."
            rows.append({"id": f"q{i}", "system": system, "question": question, "answer": answer,
                         "contexts": contexts, "references": [ref], "relevant": {f"c{i}-{good}": 2}})
    return rows


def make_run(out: Path, rows: list[dict] | None = None) -> Path:
    """Score ``rows`` (default: the demo file, else a small fallback set) into the run folder ``out``."""
    data = rows if rows is not None else (str(DEMO) if DEMO.exists() else fallback_rows())
    evaluate(data, out_dir=out, meta={"input": "fixture"})
    return out


_WORD = re.compile(r"[a-z0-9]+")


def _sentences(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[^.!?\n]+[.!?]?", text) if m.group().strip()]


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def judge_details(answer: str, contexts: list[str]) -> tuple[dict, list[str]]:
    """Plausible judge output: one claim per answer sentence, each checked against its best-overlapping context."""
    claims, verdicts, labels = [], [], []
    for index, (s, e) in enumerate(_strip(answer, *span) for span in _sentences(answer)):
        if e <= s:
            continue
        text = answer[s:e]
        words = {w for w in _WORD.findall(text.lower()) if len(w) > 2}
        best, best_overlap, quote_span = None, 0.0, None
        for ci, ctx in enumerate(contexts):
            for qs, qe in (_strip(ctx, *span) for span in _sentences(ctx)):
                overlap = len(words & set(_WORD.findall(ctx[qs:qe].lower()))) / max(1, len(words))
                if overlap > best_overlap:
                    best, best_overlap, quote_span = ci, overlap, (qs, qe)
        label = "supported" if best_overlap >= 0.6 else "contradicted" if best_overlap >= 0.3 else "unverifiable"
        claims.append({"index": len(claims), "text": text, "spans": [[s, e]], "located": True})
        quote = contexts[best][quote_span[0]:quote_span[1]] if best is not None and label != "unverifiable" else ""
        verdicts.append({"claim_index": len(claims) - 1, "label": label,
                         "context_index": best if quote else None, "quote": quote, "quote_found": bool(quote),
                         "quote_span": list(quote_span) if quote else None,
                         "reason": {"supported": "The context states this.",
                                    "contradicted": "The context gives a different account.",
                                    "unverifiable": "No context mentions this."}[label], "missing": False})
        labels.append(label)
    return {"claims": claims, "verdicts": verdicts}, labels


def add_judge(run_dir: Path, warning: str | None = None) -> Path:
    """Add faithfulness, contradiction_rate and unverifiable_rate (with details) to every sample of a run."""
    results = Results.load(run_dir)
    for n, result in enumerate(results.samples):
        sample = result.sample
        answer = sample.answer
        if not answer.strip() or "don't know" in answer.lower():
            for name in ("faithfulness", "contradiction_rate", "unverifiable_rate"):
                result.metrics[name] = MetricResult.unscored(name, "refusal", "the answer declines to answer")
            continue
        details, labels = judge_details(answer, [c.text for c in sample.contexts])
        if n % 7 == 3:  # a claim the judge made up that is not in the answer, with no verdict back
            details["claims"].append({"index": len(labels), "text": "An inferred claim not found verbatim.",
                                      "spans": [], "located": False})
            details["verdicts"].append({"claim_index": len(labels), "label": "unverifiable", "context_index": None,
                                        "quote": "", "quote_found": False, "quote_span": None,
                                        "reason": "no verdict returned", "missing": True})
            labels.append("unverifiable")
        details.update(judge=JUDGE, usage={"prompt_tokens": 100, "completion_tokens": 20})
        if warning:
            details["warning"] = warning
        total = len(labels)
        rates = {"faithfulness": labels.count("supported") / total,
                 "contradiction_rate": labels.count("contradicted") / total,
                 "unverifiable_rate": labels.count("unverifiable") / total}
        result.metrics["faithfulness"] = MetricResult("faithfulness", rates["faithfulness"], details=details)
        result.metrics["contradiction_rate"] = MetricResult("contradiction_rate", rates["contradiction_rate"])
        result.metrics["unverifiable_rate"] = MetricResult("unverifiable_rate", rates["unverifiable_rate"])
    results.signatures["faithfulness"] = "faithfulness|judge:fixture-judge-1|prompt:v1|genevals:0.1.0"
    results.meta["judge"] = JUDGE
    write_results(run_dir, results)
    return run_dir


def write_results(run_dir: Path, results: Results) -> None:
    acc = SummaryAccumulator()
    with open(run_dir / "results.jsonl", "w", encoding="utf-8") as handle:
        for result in results.samples:
            acc.add(result)
            handle.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    summary = build_summary(acc, results.corpus, results.signatures, results.skipped, results.meta, results.seed)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))


def xss_rows() -> list[dict]:
    rows = []
    for i, payload in enumerate(XSS):
        rows.append({
            "id": f"x{i}{payload}", "system": f"sys{i % 2}" + ('<img src=x onerror="window.__xss=6">' if i % 2 else ""),
            "question": f"Question {i} {payload}?",
            "answer": f"The payload is {payload}. =HYPERLINK(\"http://evil.example\") then {payload}. "
                      f"Plain claim about the harbour ferry.",
            "contexts": [{"id": f"c{i}{payload}", "doc_id": "d<script>window.__xss=7</script>", "score": 0.9,
                          "text": f"The payload is {payload}. The harbour ferry sails daily."},
                         {"id": f"n{i}", "text": f"javascript:window.__xss=8 {payload} unrelated filler text."}],
            "references": [f"reference {payload}"],
            "relevant": {f"c{i}{payload}": 1},
        })
    return rows


def make_xss_run(out: Path) -> Path:
    make_run(out, xss_rows())
    add_judge(out)
    # A hostile metric name, status and reason straight in the results file.
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["metrics"]['<img src=x onerror="window.__xss=9">'] = {"value": None, "status": XSS[0], "reason": XSS[2]}
    row["metrics"]["faithfulness"]["details"]["verdicts"][0]["reason"] = XSS[1]
    lines[0] = json.dumps(row)
    (out / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


METRIC_NAMES = (["exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "bleu"]
                + [f"{m}@{k}" for m in ("precision", "recall", "f1", "hit_rate", "ndcg") for k in (1, 3, 5, 10)]
                + ["mrr", "map", "auc", "first_relevant_rank"])


def make_synthetic_run(out: Path, n: int = 1000, seed: int = 7) -> Path:
    """``n`` synthetic scored samples (two systems) with judge details, written straight to a run folder."""
    rng = random.Random(seed)
    words = ("harbour ferry island council library water lighthouse school permit crossing winter summer "
             "ticket resident vehicle timetable reservoir museum festival rubbish").split()

    def sentence(k: int) -> str:
        return " ".join(rng.choice(words) for _ in range(k)).capitalize() + "."

    out.mkdir(parents=True, exist_ok=True)
    acc = SummaryAccumulator()
    from genevals.types import SampleResult, Sample, Context
    with open(out / "results.jsonl", "w", encoding="utf-8") as handle:
        for i in range(n):
            contexts = [" ".join(sentence(rng.randint(8, 14)) for _ in range(3)) for _ in range(4)]
            answer = " ".join(sentence(rng.randint(6, 12)) for _ in range(rng.randint(1, 3)))
            sample = Sample(id=f"q{i // 2:04d}", system=("dense", "sparse")[i % 2], question=sentence(10),
                            answer=answer, references=(sentence(8),),
                            contexts=tuple(Context(text=t, rank=r + 1, id=f"c{i}-{r}", doc_id=f"d{i}",
                                                   score=round(1 - r / 10, 3)) for r, t in enumerate(contexts)),
                            relevant={f"c{i}-{rng.randint(0, 5)}": 1})
            metrics = {}
            for name in METRIC_NAMES:
                if name == "first_relevant_rank":
                    rank = rng.randint(1, 6)
                    metrics[name] = (MetricResult(name, float(rank)) if rank <= 4 else
                                     MetricResult.unscored(name, "not_found", "no relevant id retrieved"))
                else:
                    metrics[name] = MetricResult(name, round(rng.random(), 4))
            details, labels = judge_details(answer, contexts)
            details.update(judge=JUDGE)
            metrics["faithfulness"] = MetricResult("faithfulness", labels.count("supported") / len(labels), details=details)
            metrics["contradiction_rate"] = MetricResult("contradiction_rate", labels.count("contradicted") / len(labels))
            result = SampleResult(sample=sample, metrics=metrics)
            acc.add(result)
            handle.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
    summary = build_summary(acc, {}, {"retrieval": "retrieval|synthetic"}, [], {"judge": JUDGE}, 12345)
    (out / "summary.json").write_text(json.dumps(summary))
    return out


# ----------------------------------------------------------------------------------------------- tests

@pytest.fixture(scope="module")
def demo_run(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "demo")


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory) -> Path:
    return add_judge(make_run(tmp_path_factory.mktemp("runs") / "judged"))


def _embedded(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="genevals-data">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


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
    data = _embedded(html)
    assert data["samples"] and {s["label"] for s in data["systems"]} == {
        r["system"] for r in map(json.loads, (demo_run / "results.jsonl").read_text().splitlines())}


def test_judge_details_are_carried_and_checked(judged_run):
    data = build_data([judged_run])
    judged = [s for s in data["samples"] if "j" in s]
    assert judged and data["judges"] == [{k: str(v) for k, v in JUDGE.items()}]
    original = {(r.sample.system, r.sample.id): r for r in Results.load(judged_run)}
    for s in judged:
        details = original[(data["systems"][s["sys"]]["system"], s["id"])].metrics["faithfulness"].details
        for claim, raw in zip(s["j"]["claims"], details["claims"]):
            # Located claims are read back from the answer; the text is only stored when it differs.
            assert claim.get("text", s["a"][slice(*claim["spans"][0])] if claim["spans"] else None) == raw["text"]
            assert claim["located"] == raw["located"]
        for v, raw in zip(s["j"]["verdicts"], details["verdicts"]):
            assert v["label"] == raw["label"] and v.get("context_index") == raw["context_index"]
            if raw["quote_span"]:
                ctx = s["ctx"][v["context_index"]]["text"]
                assert ctx[slice(*v["quote_span"])] == raw["quote"] and "quote" not in v
    assert any(not c["located"] for s in judged for c in s["j"]["claims"])
    assert not data["warnings"]
    names = [m["name"] for m in data["metrics"]]
    assert {"faithfulness", "contradiction_rate", "unverifiable_rate"} <= set(names)


def test_spans_become_utf16_offsets_and_bad_spans_are_dropped(tmp_path):
    run = tmp_path / "emoji"
    run.mkdir()
    answer = "\U0001F600 Paris is big. Rome too."
    row = {"id": "1", "system": "s", "question": "q", "answer": answer, "references": [], "relevant": None,
           "contexts": [{"text": "\U0001F680 Paris is big.", "rank": 1}], "metrics": {"faithfulness": {
               "value": 0.5, "status": "ok", "details": {
                   "claims": [{"index": 0, "text": "Paris is big.", "spans": [[2, 15]], "located": True},
                              {"index": 1, "text": "Rome too.", "spans": [[16, 999]], "located": True}],
                   "verdicts": [{"claim_index": 0, "label": "supported", "context_index": 0, "quote": "Paris is big.",
                                 "quote_found": True, "quote_span": [2, 15], "reason": ""},
                                {"claim_index": 1, "label": "bogus", "context_index": 7}]}}}}
    (run / "results.jsonl").write_text(json.dumps(row) + "\n" + '{"id": "cut short')
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


def test_labels_and_comparisons_across_runs(demo_run, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    for name in ("results.jsonl", "summary.json"):
        (other / name).write_text((demo_run / name).read_text())
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


def test_bands_and_thresholds(tmp_path):
    assert [bands.band("token_f1", v) for v in (0.95, 0.8, 0.79, 0.5, 0.3, 0.1)] == [
        "Excellent", "Excellent", "Good", "Moderate", "Fair", "Poor"]
    assert bands.band("contradiction_rate", 0.05) == "Excellent"
    assert bands.band("first_relevant_rank", 1.2) is None and bands.band("mrr", None) is None
    (tmp_path / "a.json").write_text('{"mrr": 0.6, "faithfulness": 0.8}')
    (tmp_path / "b.json").write_text('{"fail_under": {"ndcg@10": 0.7}}')
    (tmp_path / "c.json").write_text('{"mrr": "high"}')
    assert bands.load_thresholds(tmp_path / "a.json") == {"mrr": 0.6, "faithfulness": 0.8}
    assert bands.load_thresholds(tmp_path / "b.json") == {"ndcg@10": 0.7}
    with pytest.raises(ValueError):
        bands.load_thresholds(tmp_path / "c.json")


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="genevals")
    add_report_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_report(demo_run, tmp_path, capsys):
    out = tmp_path / "compare.html"
    config = tmp_path / "thresholds.json"
    config.write_text(json.dumps({"token_f1": 0.01, "mrr": 0.3}))
    assert _cli(["report", str(demo_run), str(demo_run), "-o", str(out), "--config", str(config)]) == 0
    data = _embedded(out.read_text(encoding="utf-8"))
    assert data["thresholds"] == {"token_f1": 0.01, "mrr": 0.3} and len(data["runs"]) == 2
    assert _cli(["report", str(demo_run), "-o", str(out), "--fail-under", "token_f1=0.99"]) == 1
    assert "threshold missed" in capsys.readouterr().err
    assert _embedded(out.read_text(encoding="utf-8"))["thresholds"] == {"token_f1": 0.99}
    assert _cli(["report", str(tmp_path / "missing")]) == 2
    assert _cli(["report", str(demo_run)]) == 0 and (demo_run / "report.html").exists()


def test_hostile_text_never_reaches_the_markup(tmp_path):
    run = make_xss_run(tmp_path / "<svg onload=window.__xss=10>")
    html = write_report([run], tmp_path / "x.html").read_text(encoding="utf-8")
    assert html.count("<script") == 2 and "<img" not in html and "<svg onload" not in html
    assert "javascript:window" in html  # present, but only as JSON text
    data = _embedded(html)
    assert any("<script>window.__xss=1</script>" in s["a"] for s in data["samples"])


def test_synthetic_thousand_is_small(tmp_path):
    run = make_synthetic_run(tmp_path / "big")
    out = write_report([run], tmp_path / "big.html")
    assert out.stat().st_size < 3_000_000
    assert len(_embedded(out.read_text(encoding="utf-8"))["samples"]) == 1000
