"""The answerability gate (``unanswerable_from_source``, :mod:`genevals.generate.gates.solving`) on people's data:
XQuAD's Romanian paragraphs and human questions (``benchmarks/data/xquad_ro_subset.json``: 5 whole articles, 153
questions; CC BY-SA 4.0), with the self-containment and language gates on the same questions.

Pairs, as the gate sees an item (the human question, its human answer as the reference, one cited chunk):

- **positive**: the question with its own paragraph (the gate should pass it: answerable from the chunk);
- **negative**: the same question with another paragraph of the same article, one that does not contain the
  answer's text (the gate should reject it). The paragraph is drawn with a seeded generator.

The model sees ``--limit`` questions (a seeded sample of the distinct ones), each as a positive and a negative:
the gate's real code path (the solve prompt, the JSON schema, the token-F1 agreement with the reference) through
a llama.cpp server on 127.0.0.1. "Answerable" (the gate passes) is the prediction; on the pairs

    precision = TP / (TP + FP),  recall = TP / (TP + FN),  rejection rate on negatives = TN / (TN + FP),

each with its Wilson 95% interval. Beside it, on the same pairs: **always answerable**, and a **lexical rule**,
"answerable when the share of the question's distinct word tokens found in the paragraph is at least t", with t
chosen by 5-fold cross-validation grouped by article (scikit-learn's GroupKFold; the best accuracy on the other
four articles over a grid of 0.05 steps): every decision out of sample. The model is called better only when its
accuracy on the pairs is above the best baseline's; an exact McNemar test (scipy's binomtest on the discordant
pairs) says whether the difference is more than chance.

Also on all the distinct questions: the self-containment gate's hits (:func:`genevals.generate.gates.standalone.find`;
the questions read by hand: :data:`POINTS_AT_SOURCE` do cite their text, so a hit there is right and every other
hit a false positive),
and the language gate (:func:`genevals.generate.gates.language.check`, the question only: the answers are mostly
names and numbers): kept when Romanian is asked, rejected when English or Italian is.

    HF_HUB_OFFLINE=1 python benchmarks/bench_gates_answerability.py --gguf PATH [--limit 60] [--json PATH]
    python benchmarks/bench_gates_answerability.py --rules-only     # no model: the baselines and rule gates
    python benchmarks/bench_gates_answerability.py --card           # the card's figures from the committed JSON
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gates_standalone import wilson  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "benchmarks" / "data" / "xquad_ro_subset.json"
OUT = REPO / "benchmarks" / "gates_answerability.json"
CARD = REPO / "genevals" / "generate" / "gate_figures.json"
GRID = [round(0.05 * i, 2) for i in range(1, 20)]
SEED = 0
#: questions that do point at their source, read by hand: "Conform textului ..." (according to the text)
POINTS_AT_SOURCE = {"56d9c455dc89441400fdb7c5"}
FAST_LAUNCH = ("import runpy, sys; from genevals.judge.backends.llamacpp import enable_fast_grammar; "
               "enable_fast_grammar(); runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)")


class Question(NamedTuple):
    id: str
    article: str
    paragraph: str  # the chunk id: article#n
    question: str
    answer: str


def load(path: Path = DATA) -> tuple[list[Question], dict[str, str]]:
    """The distinct questions (first of each text within a paragraph) and every paragraph by chunk id."""
    squad = json.loads(path.read_text(encoding="utf-8"))
    questions, paragraphs = [], {}
    for article in squad["data"]:
        for n, para in enumerate(article["paragraphs"]):
            cid = f"{article['title']}#{n}"
            paragraphs[cid] = para["context"]
            seen = set()
            for qa in para["qas"]:
                if qa["question"] in seen:
                    continue
                seen.add(qa["question"])
                questions.append(Question(qa["id"], article["title"], cid, qa["question"], qa["answers"][0]["text"]))
    return questions, paragraphs


def pairs(questions: list[Question], paragraphs: dict[str, str], seed: int = SEED) -> list[dict]:
    """Each question as a positive (its paragraph) and a negative (another paragraph of its article without the
    answer's text); a question with no such paragraph has no negative."""
    rng = random.Random(seed)
    out = []
    for q in questions:
        out.append({"qid": q.id, "article": q.article, "chunk": q.paragraph, "answerable": True})
        others = [c for c in paragraphs if c.split("#")[0] == q.article and c != q.paragraph
                  and q.answer.casefold() not in paragraphs[c].casefold()]
        if others:
            out.append({"qid": q.id, "article": q.article, "chunk": rng.choice(others), "answerable": False})
    return out


def overlap(question: str, paragraph: str) -> float:
    """The share of the question's distinct word tokens (Romanian rule) found among the paragraph's."""
    from genevals.language.tokens import tokens

    q, p = set(tokens(question, "ro")), set(tokens(paragraph, "ro"))
    return len(q & p) / len(q) if q else 0.0


def lexical_out_of_fold(rows: list[dict], scores: list[float]) -> tuple[list[bool], list[float]]:
    """Decisions with the threshold chosen on the other articles (5 folds grouped by article)."""
    from sklearn.model_selection import GroupKFold

    labels = [r["answerable"] for r in rows]
    groups = [r["article"] for r in rows]
    decided, chosen = [False] * len(rows), []
    for train, test in GroupKFold(n_splits=5).split(rows, labels, groups):
        best = max(GRID, key=lambda t: (sum((scores[i] >= t) == labels[i] for i in train), -t))
        chosen.append(best)
        for i in test:
            decided[i] = scores[i] >= best
    return decided, chosen


def figures(decisions: list[bool], labels: list[bool]) -> dict:
    tp = sum(d and y for d, y in zip(decisions, labels))
    fp = sum(d and not y for d, y in zip(decisions, labels))
    fn = sum(y and not d for d, y in zip(decisions, labels))
    tn = sum(not d and not y for d, y in zip(decisions, labels))
    n = len(labels)

    def share(k: int, m: int) -> dict:
        if not m:  # precision when nothing passed: no figure, and why
            return {"status": "undefined", "reason": "no pair in the denominator", "k": k, "n": m}
        return {"value": round(k / m, 4), "k": k, "n": m, "ci": [round(x, 4) for x in wilson(k, m)]}

    return {"precision": share(tp, tp + fp), "recall": share(tp, tp + fn),
            "rejection_rate_on_negatives": share(tn, tn + fp), "accuracy": share(tp + tn, n),
            "counts": {"tp": tp, "fp": fp, "fn": fn, "tn": tn}}


def contains(answer: str, reference: str) -> bool:
    """The reference's normalised tokens appear, in order, inside the answer's (a diagnostic: the gate itself asks
    for token F1 >= 0.5, which a right answer written as a sentence around a one-word reference misses)."""
    from genevals.language.tokens import answer_tokens

    a, r = " ".join(answer_tokens(answer, "ro", "mlqa")), " ".join(answer_tokens(reference, "ro", "mlqa"))
    return bool(r) and f" {r} " in f" {a} "


def mcnemar(a: list[bool], b: list[bool], labels: list[bool]) -> dict:
    """Exact McNemar: of the pairs where exactly one of a, b is right, how many favour a; two-sided p."""
    from scipy.stats import binomtest

    a_only = sum((x == y) and (z != y) for x, z, y in zip(a, b, labels))
    b_only = sum((z == y) and (x != y) for x, z, y in zip(a, b, labels))
    p = binomtest(a_only, a_only + b_only).pvalue if a_only + b_only else 1.0
    return {"model_right_only": a_only, "baseline_right_only": b_only, "p_two_sided": float(f"{p:.3g}")}


def rule_gates(questions: list[Question]) -> dict:
    """The self-containment and language gates on every distinct question."""
    from genevals.generate.gates import GateContext
    from genevals.generate.gates.language import check
    from genevals.generate.gates.standalone import find, patterns
    from genevals.generate.items import Chunk, Item

    texts = list(dict.fromkeys(q.question for q in questions))
    by_text = {q.question: q.id for q in reversed(questions)}
    hits = [(t, find(t)) for t in texts]
    hits = [{"id": by_text[t], "question": t, "phrase": f[1], "table": f[0],
             "points_at_source": by_text[t] in POINTS_AT_SOURCE} for t, f in hits if f is not None]
    false_pos = sum(not h["points_at_source"] for h in hits)
    chunk = Chunk("d#0", "d", 0, "x", 0, 1)
    items = [Item(f"i{n}", "fact", t, "", ("d#0",)) for n, t in enumerate(texts)]
    from genevals.language import detect
    from genevals.language.codes import SUPPORTED

    sure = sum(detect(t).sure for t in texts)
    why = (f"the detector chooses among {len(SUPPORTED)} languages" + (", Romanian not among them" if "ro" not in
           SUPPORTED else "") + f": {len(texts) - sure} of {len(texts)} questions unsure, and an unsure question in "
           "a script the language asked uses is not rejected")
    language = {"n": len(items), "sure": sure, "why": why}
    for asked in ("ro", "en", "it"):
        ctx = GateContext.build([chunk], language=asked)
        statuses = [check(i, ctx).status for i in items]
        ok = sum(s == ("passed" if asked == "ro" else "wrong_language") for s in statuses)
        key = "kept_as_ro" if asked == "ro" else f"rejected_as_{asked}"
        language[key] = {"value": round(ok / len(items), 4), "k": ok, "n": len(items),
                         "ci": [round(x, 4) for x in wilson(ok, len(items))]}
    pointing = [q for q in questions if q.id in POINTS_AT_SOURCE]
    caught = [q.id for q in pointing if find(q.question) is not None]
    return {"standalone": {"n": len(texts), "hits": hits, "false_positives": false_pos,
                           "pointing_questions": {"ids": [q.id for q in pointing], "caught": caught,
                                                  "ro_phrase_table": "ro" in patterns()},
                           "false_positive_rate": {"value": round(false_pos / len(texts), 4), "k": false_pos,
                                                   "n": len(texts),
                                                   "ci": [round(x, 5) for x in wilson(false_pos, len(texts))]}},
            "language": language}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(gguf: str, log: Path, chat_format: str | None) -> tuple[subprocess.Popen, str]:
    port = _port()
    cmd = [sys.executable, "-c", FAST_LAUNCH, "--model", gguf, "--model_alias", "judge", "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", "4096", "--n_threads", "1", "--seed", "0"]
    if chat_format:
        cmd += ["--chat_format", chat_format]
    server = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    base = f"http://127.0.0.1:{port}/v1"
    for _ in range(480):
        try:
            with urllib.request.urlopen(f"{base}/models", timeout=2):
                return server, base
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"the llama.cpp server exited: {log.read_text()[-800:]}")
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError("the llama.cpp server did not answer in 240 s")


def run_gate(sampled: list[dict], questions: dict[str, Question], paragraphs: dict[str, str], base: str,
             cache: Path) -> list[dict]:
    """The gate on each pair, one judge call each, in order."""
    from genevals.generate.gates import GateContext, Outcome
    from genevals.generate.gates.judged import version
    from genevals.generate.gates.solving import FROM_SOURCE, _solve, from_source
    from genevals.generate.items import Chunk, Item
    from genevals.judge.config import JudgeConfig
    from genevals.judge.runtime import JudgeRuntime

    chunks = [Chunk(cid, cid.split("#")[0], int(cid.split("#")[1]), text, 0, len(text))
              for cid, text in paragraphs.items()]
    config = JudgeConfig(base_url=base, model="judge", api_key="none", max_retries=1, timeout=600,
                         cache_dir=str(cache))
    ctx = GateContext.build(chunks, judge=JudgeRuntime(config, version()))

    async def all_pairs() -> list[dict]:
        out = []
        for n, pair in enumerate(sampled):
            q = questions[pair["qid"]]
            item = Item(f"{q.id}-{'pos' if pair['answerable'] else 'neg'}", "fact", q.question, q.answer,
                        (pair["chunk"],), language="ro")
            start = time.perf_counter()
            got = await from_source(item, ctx, "ro")
            seconds = round(time.perf_counter() - start, 2)
            # the same request again is answered by the judge cache: the solver's own reply, for the diagnostics
            raw = await _solve(item, ctx, FROM_SOURCE, list(item.chunks))
            said, answer = (None, None) if isinstance(raw, Outcome) else raw
            out.append({**pair, "status": got.status, "reason": got.reason, "solver_answerable": said,
                        "solver_answer": answer, "reference": q.answer, "seconds": seconds})
            print(f"{n + 1}/{len(sampled)} {pair['answerable']} {got.status} {got.reason[:90]}", file=sys.stderr)
        return out

    return asyncio.run(all_pairs())


def measure(gguf: str | None, limit: int, chat_format: str | None = None, model_name: str = "") -> dict:
    sys.path.insert(0, str(REPO))
    questions, paragraphs = load()
    rows = pairs(questions, paragraphs)
    scores = [overlap(next(q.question for q in questions if q.id == r["qid"]), paragraphs[r["chunk"]]) for r in rows]
    lexical, thresholds = lexical_out_of_fold(rows, scores)
    labels = [r["answerable"] for r in rows]
    result = {"data": "benchmarks/data/xquad_ro_subset.json (XQuAD ro, 5 articles, CC BY-SA 4.0)",
              "questions": len(questions), "pairs": len(rows), "positives": sum(labels),
              "negatives": len(labels) - sum(labels),
              "all_pairs": {"baseline_always_answerable": figures([True] * len(rows), labels),
                            "baseline_lexical_overlap_cv": figures(lexical, labels),
                            "lexical_thresholds_chosen_per_fold": thresholds},
              **rule_gates(questions)}
    if gguf is None:
        return result
    with_neg = {r["qid"] for r in rows if not r["answerable"]}
    qids = sorted(with_neg)
    picked = set(random.Random(SEED).sample(qids, min(limit, len(qids))))
    index = [i for i, r in enumerate(rows) if r["qid"] in picked]
    sampled = [rows[i] for i in index]
    work = Path(tempfile.mkdtemp(prefix="bench_gates_answerability_"))
    load_before = os.getloadavg()
    server, base = serve(gguf, work / "server.log", chat_format)
    try:
        start = time.perf_counter()
        ran = run_gate(sampled, {q.id: q for q in questions}, paragraphs, base, work / "cache")
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(timeout=30)
    load_after = os.getloadavg()
    sub_labels = [r["answerable"] for r in ran]
    gate = [r["status"] == "passed" for r in ran]
    flag = [r["solver_answerable"] is True for r in ran]
    inside = [bool(r["solver_answerable"]) and contains(r["solver_answer"] or "", r["reference"]) for r in ran]
    base_lex = [lexical[i] for i in index]
    candidates = {"baseline_always_answerable": [True] * len(ran), "baseline_lexical_overlap_cv": base_lex}
    acc = {k: figures(v, sub_labels)["accuracy"]["value"] for k, v in candidates.items()}
    best = max(acc, key=acc.get)
    model_acc = figures(gate, sub_labels)["accuracy"]["value"]
    result["model_pairs"] = {
        "model": model_name, "questions": len(picked), "pairs": len(ran), "seconds": round(wall, 1),
        "seconds_per_call": round(wall / len(ran), 2), "load_1min": [round(load_before[0], 2), round(load_after[0], 2)],
        "statuses": {s: sum(r["status"] == s for r in ran) for s in sorted({r["status"] for r in ran})},
        "gate": figures(gate, sub_labels),
        "solver_said_answerable": figures(flag, sub_labels),
        "solver_answer_contains_reference": figures(inside, sub_labels),
        "baseline_always_answerable": figures(candidates["baseline_always_answerable"], sub_labels),
        "baseline_lexical_overlap_cv": figures(base_lex, sub_labels),
        "best_baseline": best,
        "model_better_than_best_baseline": model_acc > acc[best],
        "mcnemar_vs_best_baseline": mcnemar(gate, candidates[best], sub_labels),
        "says": (f"the gate with {model_name} is " + ("better" if model_acc > acc[best] else "NO better")
                 + f" than the best trivial baseline ({best}): accuracy {model_acc} vs {acc[best]} on the same "
                 f"{len(ran)} pairs"),
        "pairs_run": ran}
    return result


def card_figures(answerability: dict, language: dict) -> dict:
    """What the test set's card states (genevals/generate/gate_figures.json), read from the committed figures."""
    run = answerability["model_pairs"]
    gate, lexical, always = run["gate"], run["baseline_lexical_overlap_cv"], run["baseline_always_answerable"]
    alone = answerability["standalone"]
    keys = ("precision", "recall", "rejection_rate_on_negatives", "accuracy")
    return {
        "measured": "2026-12-02, by benchmarks/bench_gates_answerability.py and bench_gates_language.py on "
                    "people's data (not on this set)",
        "unanswerable_from_source": {
            "judge": run["model"], "data": f"XQuAD ro, {run['questions']} human questions, each with its own "
                                          "paragraph and with another of its article",
            "pairs": run["pairs"], **{k: gate[k] for k in keys},
            "judge_errors": run["statuses"].get("judge_error", 0),
            "baseline_always_answerable": {k: always[k] for k in keys},
            "baseline_lexical_overlap_cv": {k: lexical[k] for k in keys},
            "best_baseline": run["best_baseline"], "better_than_best_baseline": run["model_better_than_best_baseline"]},
        "not_self_contained": {
            "data": f"XQuAD ro, {alone['n']} distinct human questions", "n": alone["n"],
            "false_positives": alone["false_positives"], "false_positive_rate": alone["false_positive_rate"],
            "pointing": len(alone["pointing_questions"]["ids"]),
            "pointing_caught": len(alone["pointing_questions"]["caught"]),
            "ro_phrase_table": alone["pointing_questions"]["ro_phrase_table"]},
        "wrong_language": {"ro": answerability["language"], "xquad_answer_windows": language},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", default=None)
    ap.add_argument("--model-name", default="SmolLM2-135M-Instruct Q4_1 (llama-cpp-python server, 1 thread)")
    ap.add_argument("--chat-format", default=None)
    ap.add_argument("--limit", type=int, default=60)
    ap.add_argument("--rules-only", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--card", action="store_true",
                    help="write genevals/generate/gate_figures.json from the committed benchmark figures and stop")
    args = ap.parse_args()
    if args.card:
        figures = card_figures(json.loads(OUT.read_text(encoding="utf-8")),
                               json.loads((OUT.parent / "gates_language.json").read_text(encoding="utf-8")))
        CARD.write_text(json.dumps(figures, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    if not args.rules_only and not args.gguf:
        ap.error("--gguf PATH, --rules-only or --card")
    result = measure(None if args.rules_only else args.gguf, args.limit, args.chat_format, args.model_name)
    text = json.dumps(result, indent=1, ensure_ascii=False)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
