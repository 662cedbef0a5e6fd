"""Run folders for the report tests, built with genevals' own API and run folder module.

* :func:`make_run`: the demo file (else a small fallback set) scored by the local engine;
* :func:`add_judge`: plausible LLM-judge verdicts added to a run (claims whose spans index the answer, quotes
  that are substrings of the contexts), recorded as a judge-backed run records them: the claims metric's
  details, and the judge outputs' declarations in outputs.json;
* :func:`make_xss_run`: a run full of XSS payloads, in every text and in a metric name, status and reason;
* :func:`make_synthetic_run`: 1,000 synthetic samples; :func:`write_scale_run`: 20,000 raw rows for the scale
  tests (``PYTHONPATH=tests python -m support.runs RUN_DIR N`` writes one by hand).

:func:`embedded` reads the page's JSON document back out of a report.
"""
from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from genevals import registry

from genevals.output import runfolder
from genevals.api import evaluate
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.output.results import Results, SummaryAccumulator, build_summary
from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, Verdict

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"
JUDGE = {"backend": "fixture", "model": "fixture-judge-1", "base_url": "http://localhost:0/v1", "prompt_version": "v1"}
JUDGE_OUTPUTS = ("faithfulness", "contradiction_rate", "unverifiable_rate")
TINY_WARNING = "verdicts came from the tiny embedded model (gemma3-270m); use them for smoke tests only"

XSS = [
    "<script>window.__xss=1</script>",
    "</script><script>window.__xss=2</script>",
    '<img src=x onerror="window.__xss=3">',
    '<a href="javascript:window.__xss=4">x</a>',
    "<!-- <svg onload=window.__xss=5>",
]


def embedded(html: str) -> dict:
    """The JSON document a report page embeds."""
    match = re.search(r'<script type="application/json" id="genevals-data">(.*?)</script>', html, re.S)
    assert match
    return json.loads(match.group(1))


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


# ----------------------------------------------------------------------------------------------- judge

_WORD = re.compile(r"[a-z0-9]+")


def _sentences(text: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"[^.!?\n]+[.!?]?", text) if m.group().strip()]


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


REASONS = {"supported": "The context states this.", "contradicted": "The context gives a different account.",
           "unverifiable": "No context mentions this."}


def judge_details(answer: str, contexts: list[str]) -> tuple[dict, list[str]]:
    """Plausible judge output: one claim per answer sentence, each checked against its best-overlapping
    context sentence (the details dict, and each claim's label)."""
    claims: list[Claim] = []
    verdicts: list[Verdict] = []
    for s, e in (_strip(answer, *span) for span in _sentences(answer)):
        if e <= s:
            continue
        text = answer[s:e]
        words = {w for w in _WORD.findall(text.lower()) if len(w) > 2}
        best, best_overlap, quote_span = None, 0.0, (0, 0)
        for ci, ctx in enumerate(contexts):
            for qs, qe in (_strip(ctx, *span) for span in _sentences(ctx)):
                overlap = len(words & set(_WORD.findall(ctx[qs:qe].lower()))) / max(1, len(words))
                if overlap > best_overlap:
                    best, best_overlap, quote_span = ci, overlap, (qs, qe)
        label = "supported" if best_overlap >= 0.6 else "contradicted" if best_overlap >= 0.3 else "unverifiable"
        claims.append(Claim(index=len(claims), text=text, spans=((s, e),), located=True))
        quote = contexts[best][quote_span[0]:quote_span[1]] if best is not None and label != "unverifiable" else ""
        verdicts.append(Verdict(claim_index=len(claims) - 1, label=label, context_index=best if quote else None,
                                quote=quote, quote_found=bool(quote), quote_span=quote_span if quote else None,
                                reason=REASONS[label]))
    return ({"claims": [c.to_dict() for c in claims], "verdicts": [v.to_dict() for v in verdicts]},
            [v.label for v in verdicts])


def judge_declarations() -> dict[str, Any]:
    """What a run with the faithfulness judge writes into outputs.json for its outputs."""
    judge = JudgeConfig(provider=ScriptedProvider({}), cache=False)
    return registry.declarations(registry.select(["faithfulness"], judge=judge))


def add_judge(run_dir: Path, warning: str | None = None) -> Path:
    """Add faithfulness, contradiction_rate and unverifiable_rate (with details) to every sample of a run."""
    results = Results.load(run_dir)
    for n, result in enumerate(results.samples):
        sample = result.sample
        answer = sample.answer
        if not answer.strip() or "don't know" in answer.lower():
            for name in JUDGE_OUTPUTS:
                result.metrics[name] = MetricResult.unscored(name, "refusal", "the answer declines to answer")
            continue
        details, labels = judge_details(answer, [c.text for c in sample.contexts])
        if n % 7 == 3:  # a claim the judge made up that is not in the answer, with no verdict back
            details["claims"].append(Claim(index=len(labels), text="An inferred claim not found verbatim.",
                                           located=False).to_dict())
            details["verdicts"].append(Verdict(claim_index=len(labels), label="unverifiable",
                                               reason="no verdict returned", missing=True).to_dict())
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
    runfolder.write_outputs(run_dir, {**runfolder.read_outputs(run_dir), **judge_declarations()})
    return run_dir


def write_results(run_dir: Path, results: Results) -> None:
    """Rewrite a run folder's results.jsonl and summary.json from ``results``."""
    acc = SummaryAccumulator()
    (run_dir / runfolder.RESULTS_FILE).unlink(missing_ok=True)
    writer = runfolder.ResultsWriter(run_dir)
    try:
        writer.write([result] for result in results.samples)  # one unit a sample: no conversations here
    finally:
        writer.close()
    for result in results.samples:
        acc.add(result)
    summary = build_summary(acc, results.corpus, results.signatures, results.skipped, results.meta, results.seed)
    runfolder.write_summary(run_dir, summary, results.skipped)


# ----------------------------------------------------------------------------------------------- hostile

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
    path = out / runfolder.RESULTS_FILE
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["metrics"]['<img src=x onerror="window.__xss=9">'] = {"value": None, "status": XSS[0], "reason": XSS[2]}
    row["metrics"]["faithfulness"]["details"]["verdicts"][0]["reason"] = XSS[1]
    lines[0] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


# ----------------------------------------------------------------------------------------------- synthetic

METRIC_NAMES = (["exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "bleu"]
                + [f"{m}@{k}" for m in ("precision", "recall", "f1", "hit_rate", "ndcg") for k in (1, 3, 5, 10)]
                + ["mrr", "map", "auc", "first_relevant_rank"])


def make_synthetic_run(out: Path, n: int = 1000, seed: int = 7) -> Path:
    """``n`` synthetic scored samples (two systems) with judge details, written straight to a run folder
    (no outputs.json: a run folder as older versions wrote them)."""
    rng = random.Random(seed)
    words = ("harbour ferry island council library water lighthouse school permit crossing winter summer "
             "ticket resident vehicle timetable reservoir museum festival rubbish").split()

    def sentence(k: int) -> str:
        return " ".join(rng.choice(words) for _ in range(k)).capitalize() + "."

    out.mkdir(parents=True, exist_ok=True)
    acc = SummaryAccumulator()
    results = []
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
        results.append(result)
    writer = runfolder.ResultsWriter(out)
    try:
        writer.write([result] for result in results)  # one unit a sample
    finally:
        writer.close()
    summary = build_summary(acc, {}, {"retrieval": "retrieval|synthetic"}, [], {"judge": JUDGE}, 12345)
    runfolder.write_summary(out, summary, [])
    return out


N_SCALE = 20_000
SCALE_METRICS = (["exact_match", "token_f1", "rouge1", "rouge2", "rougeL", "bleu"]
                 + [f"{m}@{k}" for m in ("precision", "recall", "f1", "hit_rate", "ndcg", "ndcg_exp")
                    for k in (1, 3, 5, 10)]
                 + ["mrr", "map", "auc", "first_relevant_rank", "bertscore_precision", "bertscore_recall",
                    "bertscore_f1"])
SCALE_WORDS = ("harbour ferry island council library water lighthouse school permit crossing winter summer ticket "
               "resident vehicle timetable reservoir museum festival rubbish sails daily price return").split()
#: Every HALLUCINATED-th sample (from 7 on) has a contradicted claim; every UNSCORED-th lacks a reference.
HALLUCINATED, UNSCORED = 40, 15


def is_hallucinated(i: int) -> bool:
    return i % HALLUCINATED == 7


def write_scale_run(out: Path, n: int = N_SCALE, seed: int = 3) -> Path:
    """``n`` rows of results.jsonl written as raw JSON (two systems sharing question ids), each with every
    metric's value, status and details, texts, and judge claims with spans and quotes; plus a summary.json
    without systems (the report summarises the samples itself)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)

    def sentence(k: int) -> str:
        return " ".join(rng.choice(SCALE_WORDS) for _ in range(k)).capitalize() + "."

    with open(out / runfolder.RESULTS_FILE, "w", encoding="utf-8") as handle:
        for i in range(n):
            contexts = [" ".join(sentence(rng.randint(8, 14)) for _ in range(3)) for _ in range(4)]
            first = contexts[0].split(". ")[0].rstrip(".") + "."
            second = sentence(9)
            answer = first + " " + second
            labels = ["supported", "contradicted" if is_hallucinated(i) else "supported"]
            claims = [Claim(0, first, ((0, len(first)),)), Claim(1, second, ((len(first) + 1, len(answer)),))]
            verdicts = [Verdict(claim_index=c, label=labels[c], context_index=0, quote=first, quote_found=True,
                                quote_span=(0, len(first)), reason=REASONS[labels[c]]) for c in range(2)]
            metrics = {}
            for name in SCALE_METRICS:
                if name.startswith(("rouge", "bleu", "exact", "token")) and i % UNSCORED == 4:
                    metrics[name] = {"value": None, "status": "no_reference", "reason": "the sample has no reference",
                                     "details": {}}
                elif name == "first_relevant_rank":
                    rank = rng.randint(1, 12)
                    metrics[name] = ({"value": float(rank), "status": "ok", "reason": "", "details": {}} if rank <= 11
                                     else {"value": None, "status": "not_found", "reason": "no relevant id retrieved",
                                           "details": {}})
                else:
                    metrics[name] = {"value": round(rng.random(), 6), "status": "ok", "reason": "",
                                     "details": {"precision": round(rng.random(), 6), "recall": round(rng.random(), 6),
                                                 "counts": [rng.randint(0, 30) for _ in range(4)]}}
            supported = labels.count("supported") / 2
            metrics["faithfulness"] = {"value": supported, "status": "ok", "reason": "", "details": {
                "claims": [c.to_dict() for c in claims], "verdicts": [v.to_dict() for v in verdicts],
                "judge": {"backend": "fixture", "model": "scale-judge"},
                "usage": {"prompt_tokens": 900, "completion_tokens": 120}}}
            metrics["contradiction_rate"] = {"value": 1 - supported, "status": "ok", "reason": "", "details": {}}
            metrics["unverifiable_rate"] = {"value": 0.0, "status": "ok", "reason": "", "details": {}}
            row = {"id": f"q{i // 2:05d}", "system": ("dense", "sparse")[i % 2], "question": sentence(10),
                   "answer": answer, "references": [] if i % UNSCORED == 4 else [sentence(8)],
                   "contexts": [{"text": t, "rank": r + 1, "id": f"c{i}-{r}", "doc_id": f"d{i % 97}",
                                 "score": round(1 - r / 10, 3)} for r, t in enumerate(contexts)],
                   "relevant": {f"c{i}-{rng.randint(0, 5)}": 1}, "origin": f"data.jsonl:{i + 1}", "metrics": metrics}
            handle.write(json.dumps(row) + "\n")
    (out / runfolder.SUMMARY_FILE).write_text(json.dumps({"seed": 12345, "meta": {"judge": {"model": "scale-judge"}}}))
    return out


if __name__ == "__main__":
    write_scale_run(Path(sys.argv[1]), int(sys.argv[2]))


OFFLINE_ROWS = [  # a text context, a JSON-record context and a refusal: one local judge, three descriptions
    {"id": "text", "question": "When does the ferry leave?", "answer": "The ferry leaves at 9 am from Pier 4.",
     "contexts": ["The ferry leaves at 9 am every day from Pier 4."]},
    {"id": "record", "question": "How many rooms?", "answer": "The Harbour Hotel has 40 rooms and a pool.",
     "contexts": ['{"name": "Harbour Hotel", "rooms": 40, "pool": true}']},
    {"id": "refusal", "question": "Who built it?", "answer": "I don't know.", "contexts": ["Built in 1901."]},
]


def make_offline_run(out: Path, monkeypatch) -> Path:
    """faithfulness with no judge configured (the local grounding detector) on :data:`OFFLINE_ROWS`."""
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    evaluate(OFFLINE_ROWS, ["faithfulness"], out_dir=out)
    return out


def write_long_input(path: Path, n: int = 30_000) -> Path:
    """``n`` input rows with long answers and references: a ROUGE run over them lasts long enough to be
    interrupted or killed mid-way (the interrupt and worker tests)."""
    with open(path, "w") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": i, "answer": f"answer number {i} " * 20,
                                     "references": [f"reference {i} " * 20]}) + "\n")
    return path


def ctrl_c_heard() -> None:
    """``preexec_fn`` for a child the test will Ctrl-C: a process started in the background of a shell without job
    control inherits SIGINT ignored, and Python then never turns it into KeyboardInterrupt."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
