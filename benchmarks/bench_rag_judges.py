"""How good the offline RAG judges are where labels exist (no LLM; figures for benchmarks/RESULTS.md).

    python benchmarks/bench_rag_judges.py

1. Offline ``context_relevance`` on the demo's ``relevant`` labels: ROC AUC of the chunk score (the MiniLM cosine of
   the chunk's first 96 tokens to the question) against label > 0, beside 1/rank and the retriever's own score; F1 of
   the binary verdict at the packaged threshold (on the calibrated probability, fit on WikiQA and Cranfield) and
   with the threshold cross-validated leave-one-topic-out (folds by the question's document), beside the
   trivial baselines "every chunk relevant" and "only rank 1 relevant" on the same rows. The trec_eval test
   collection (tests/data/trec_eval) has relevance labels but no document texts, so nothing text-based can be
   measured on it.
2. Offline ``answer_correctness`` against token F1 and BERTScore F1 on the demo: Spearman correlation, and ROC
   AUC of each for the demo's planted labels (faithful = correct vs contradiction / unsupported / mixed).
3. Offline ``answer_relevance`` on planted off-topic answers: each demo answer (refusals left out) against the
   same system's answer to a question about another document (swapped), and against itself with that answer's
   first sentence appended (appended).
4. The LLM variants' calls, counted on the project's fault server (tests/support/fault_server.py, answering as
   tests/support/rag_judge.py's rule-based judge) for the whole demo, cache off.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from scipy.stats import spearmanr  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from genevals.api import evaluate  # noqa: E402
from genevals.input.readers import iter_samples  # noqa: E402
from genevals.metrics.triad.local_relevance import AnswerRelevanceLocal, ContextRelevanceLocal  # noqa: E402
from genevals.types import Sample  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "demo.jsonl"
GRID = np.round(np.arange(0.20, 0.80, 0.01), 2)


def f1(pred: np.ndarray, gold: np.ndarray) -> float:
    tp = int((pred & gold).sum())
    return 2 * tp / (int(pred.sum()) + int(gold.sum())) if pred.sum() + gold.sum() else 0.0


def topic(sample: Sample) -> str:
    return sorted(sample.relevant)[0].split("#")[0] if sample.relevant else sample.id


def context_relevance(samples: list[Sample]) -> list[str]:
    metric = ContextRelevanceLocal()
    rows = []  # (topic, sim, 1/rank, retriever score, system, gold)
    for s in samples:
        for ctx, (sim, _) in zip(s.contexts, metric.chunk_similarities(s)):
            rows.append((topic(s), sim, 1 / ctx.rank, ctx.score, s.system, s.relevant.get(ctx.key, 0) > 0))
    sims = np.array([r[1] for r in rows])
    probs = np.array([c["score"] for r in metric.score(samples) for c in r["context_relevance"].details["chunks"]])
    gold = np.array([r[5] for r in rows])
    ranks = np.array([r[2] for r in rows])
    topics = np.array([r[0] for r in rows])
    by_system = [roc_auc_score(gold[[r[4] == sys for r in rows]], [r[3] for r in rows if r[4] == sys])
                 for sys in sorted({r[4] for r in rows})]
    oof = np.zeros(len(rows), dtype=bool)
    chosen = []
    for t in sorted(set(topics)):
        train, test = topics != t, topics == t
        best = max(GRID, key=lambda th: (f1(sims[train] >= th, gold[train]), -abs(th - 0.45)))
        chosen.append(best)
        oof[test] = sims[test] >= best
    lines = [
        f"Demo: {len(rows)} retrieved chunks (90 rows x 3-5 chunks), {int(gold.sum())} labelled relevant; "
        f"{len(set(topics))} topics (documents) as cross-validation folds.",
        "",
        "| chunk score | ROC AUC |", "|---|---:|",
        f"| offline context_relevance (MiniLM similarity of the chunk's first 96 tokens) | **{roc_auc_score(gold, sims):.3f}** |",
        f"| 1 / rank (baseline) | {roc_auc_score(gold, ranks):.3f} |",
        f"| the retriever's own score, per system (baseline; mean of {len(by_system)}) | {np.mean(by_system):.3f} |",
        "",
        "| binary verdict | F1 | precision | recall |", "|---|---:|---:|---:|",
    ]

    def row(name: str, pred: np.ndarray) -> str:
        tp = int((pred & gold).sum())
        p = tp / pred.sum() if pred.sum() else 0.0
        return f"| {name} | {f1(pred, gold):.3f} | {p:.3f} | {tp / gold.sum():.3f} |"

    lines += [row("threshold cross-validated leave-one-topic-out (the honest figure; thresholds chosen "
                  f"{min(chosen):.2f}-{max(chosen):.2f})", oof),
              row(f"packaged threshold {metric.threshold:g} on the calibrated probability (fit on WikiQA and "
                  "Cranfield, benchmarks/bench_triad.py; not on the demo)", probs >= metric.threshold),
              row("baseline: every chunk relevant", np.ones_like(gold)),
              row("baseline: only rank 1 relevant", ranks == 1.0)]
    return lines


def answer_correctness(samples: list[Sample], labels: dict[tuple[str, str], str]) -> list[str]:
    results = evaluate([s.to_dict() for s in samples], ["token_f1", "bertscore", "answer_correctness"])
    table = {"answer_correctness (offline, calibrated)": [], "token_f1": [], "bertscore_f1": []}
    correct, statuses = [], {}
    for r in results.samples:
        m = r.metrics
        st = m["answer_correctness"].status
        statuses[st] = statuses.get(st, 0) + 1
        label = labels[(r.sample.system, r.sample.id)]
        if st != "ok" or label == "refusal" or m["token_f1"].value is None or m["bertscore_f1"].value is None:
            continue
        table["answer_correctness (offline, calibrated)"].append(m["answer_correctness"].value)
        table["token_f1"].append(m["token_f1"].value)
        table["bertscore_f1"].append(m["bertscore_f1"].value)
        correct.append(label == "faithful")
    ac = table["answer_correctness (offline, calibrated)"]
    lines = [f"Demo, {len(ac)} answers scored by all three (answer_correctness statuses over all 90: "
             + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) + f"); {sum(correct)} labelled faithful, "
             f"{len(correct) - sum(correct)} contradiction / unsupported / mixed.", "",
             "| metric | Spearman with answer_correctness | ROC AUC, faithful vs not |", "|---|---:|---:|"]
    for name, values in table.items():
        rho = "1" if name.startswith("answer_correctness") else f"{spearmanr(ac, values).statistic:.3f}"
        lines.append(f"| {name} | {rho} | {roc_auc_score(correct, values):.3f} |")
    return lines


def answer_relevance(samples: list[Sample]) -> list[str]:
    metric = AnswerRelevanceLocal()
    by_key = {(s.system, s.id): s for s in samples}
    kept = [s for s in samples if metric.score([s])[0]["answer_relevance"].status == "ok"]
    originals, swapped, appended = [], [], []
    for s in kept:
        other = next(o for o in (by_key[(s.system, f"q{(int(s.id[1:]) + k - 1) % 30 + 1:02d}")] for k in range(15, 30))
                     if topic(o) != topic(s) and metric.score([o])[0]["answer_relevance"].status == "ok")
        planted = other.answer.split(". ")[0].rstrip(".") + "."
        originals.append(s)
        swapped.append(Sample(s.id, other.answer, s.question, s.contexts, system=s.system))
        appended.append(Sample(s.id, s.answer.rstrip() + " " + planted, s.question, s.contexts, system=s.system))

    def values(batch):
        return [o["answer_relevance"] for o in metric.score(batch)]

    o, w, a = values(originals), values(swapped), values(appended)
    ov, wv, av = [r.value for r in o], [r.value for r in w], [r.value for r in a]
    flagged_planted = sum(1 for r in a if r.details["sentences"] and not r.details["sentences"][-1]["on_topic"])
    own = [c["on_topic"] for r in o for c in r.details["sentences"]]
    auc_swap = roc_auc_score([1] * len(ov) + [0] * len(wv), ov + wv)
    auc_app = roc_auc_score([1] * len(ov) + [0] * len(av), ov + av)
    return [f"Demo, {len(kept)} answers (refusals left out), each planted twice.", "",
            "| | original | appended off-topic sentence | swapped for an off-topic answer |", "|---|---:|---:|---:|",
            f"| mean answer_relevance | {np.mean(ov):.3f} | {np.mean(av):.3f} | {np.mean(wv):.3f} |",
            f"| ROC AUC, original vs planted | | {auc_app:.3f} | {auc_swap:.3f} |",
            f"| share scored 1.0 (nothing flagged) | {np.mean([v == 1.0 for v in ov]):.3f} | "
            f"{np.mean([v == 1.0 for v in av]):.3f} | {np.mean([v == 1.0 for v in wv]):.3f} |", "",
            f"Sentence level: {flagged_planted} of {len(a)} planted sentences flagged off-topic "
            f"({flagged_planted / len(a):.1%}); {own.count(False)} of {len(own)} original sentences flagged "
            f"({own.count(False) / len(own):.1%}, false alarms)."]


def calls_per_answer() -> list[str]:
    from collections import Counter

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.fault_server import FaultServer
    from support.rag_judge import FAMILIES, honest_judge, prompt_kind

    from genevals.judge.config import JudgeConfig

    with FaultServer(replies=honest_judge) as server:
        judge = JudgeConfig(base_url=server.base_url, model="fault", api_key="x", cache=False, concurrency=8)
        results = evaluate(str(DEMO), [*FAMILIES, "pairwise"], judge=judge)
        kinds = Counter(prompt_kind(r["body"]["messages"][0]["content"]) for r in server.requests)
    lines = ["| metric | requests on the server | answers (or pairs) sent to the judge | requests per answer | "
             "statuses |", "|---|---:|---:|---:|---|"]
    for family in [*FAMILIES, "pairwise"]:
        st = Counter(r.metrics[family].status for r in results.samples)
        sent = sum(1 for r in results.samples if r.metrics[family].details.get("judge_calls", 0) > 0) \
            if family != "pairwise" else len({r.sample.id for r in results.samples}) * 3
        lines.append(f"| {family} | {kinds[family]} | {sent}{' pairs' if family == 'pairwise' else ''} | "
                     f"{kinds[family] / sent:.2f} | " + ", ".join(f"{k} {v}" for k, v in sorted(st.items())) + " |")
    return lines


def main() -> None:
    start, load = time.perf_counter(), os.getloadavg()
    samples = [s for s in iter_samples(str(DEMO)) if isinstance(s, Sample)]
    labels = {(r["system"], r["id"]): (r.get("metadata") or {}).get("demo_label") for r in map(json.loads, DEMO.read_text().splitlines())}
    print("### Offline context_relevance vs the demo's relevance labels\n")
    print("\n".join(context_relevance(samples)))
    print("\n### Offline answer_correctness vs token F1 and BERTScore (demo)\n")
    print("\n".join(answer_correctness(samples, labels)))
    print("\n### Offline answer_relevance on planted off-topic answers (demo)\n")
    print("\n".join(answer_relevance(samples)))
    print("\n### LLM variants: judge calls counted on the fault server (demo, 90 rows, 3 systems)\n")
    print("\n".join(calls_per_answer()))
    print(f"\nMachine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; load average at start "
          f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {time.perf_counter() - start:.0f} s wall.")


if __name__ == "__main__":
    main()
