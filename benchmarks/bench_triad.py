"""Fit, cross-validate and card the calibrated offline triad judges on public human labels (no LLM).

    python benchmarks/bench_triad.py [--data ../shared/datasets] [--embedding-cache /tmp/triad.npz] [--write]

Data: the development halves in ``DATA/triad/`` (WikiQA, Cranfield, NQ301; their README describes the fields)
and ``DATA/ragtruth_dev.jsonl``, read by ``triad_data.py``. For each judge, the features of :mod:`genevals.metrics.triad.triad_features`,
computed by the metric's own code, feed a logistic regression (features standardised, C = 1):

- ``context_relevance``: WikiQA sentences and Cranfield BM25 top-10 abstracts, one model for both; label: a
  crowd (WikiQA) or expert (Cranfield, grade > 0) judgement of relevance, classes weighted to even odds; a
  chunk is relevant when p >= 0.5. Baselines: list position (1 / rank), question-chunk word overlap, and
  Cranfield's retriever score; "every chunk relevant" is the F1 baseline.
- ``answer_relevance``: WikiQA's answer proxy (a sentence labelled relevant answers the question; another
  sentence of the same page is on topic but does not), classes weighted to even odds (one sentence in twenty
  answers on WikiQA's pages; an answer to judge is no such long shot). Baselines: question-answer word
  overlap, length.
- ``answer_correctness``: NQ301 answers against their gold references; label: a person accepted the answer.
  Baselines: token F1 (SQuAD), exact match, length. Also applied, not fit, to RAGTruth QA responses with a
  faithful response to the same question as the reference (hallucinated or not).

Figures are out-of-fold from 5-fold cross-validation grouped by question (questions are assigned to folds by
a seeded shuffle), each judge's feature set (among ``CANDIDATES``) and coefficients chosen inside each training
fold by a nested grouped cross-validation (``nested_cv.py``), with 95% CIs from 1000 bootstrap resamples of
questions; a baseline is oriented the way that suits it best (max(AUC, 1 - AUC), on all rows: in its favour),
and the card says the judge "beats" it when the paired CI of the difference lies above 0, is "level with" it
when the CI covers 0, and "worse than" it when the CI lies below. The shipped model is the same selection run
on all rows (the weights of the features it leaves out are 0). ``--write`` stores the full-data fit and the cards in ``genevals/metrics/triad/triad_calibration.json``,
with "pins" (the shipped model's figures through the real metric on the first questions of each file, and the
files' SHA-256, ``triad_pins.py``) that ``tests/metrics/triad/test_triad_cards.py`` checks. Cost: CPU seconds (``time.process_time``)
per sample through the metric, embedding cache cleared, model loaded.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import nested_cv as cv  # noqa: E402
from nested_cv import FOLDS, SEED, auc, bootstrap, ci, f1, predict  # noqa: E402,F401  (FOLDS: the tests read it here)

from genevals.grounding import checker  # noqa: E402
from genevals.metrics.triad import calibration as cal  # noqa: E402
from genevals.metrics.triad.local_relevance import (  # noqa: E402
    AnswerCorrectnessLocal,
    AnswerRelevanceLocal,
    ContextRelevanceLocal,
)
from genevals.metrics.lexical.squad import ExactMatch, TokenF1  # noqa: E402
from genevals.metrics.triad.triad_features import (  # noqa: E402
    HEAD_PIECES,
    ANSWER_FEATURES,
    CONTEXT_FEATURES,
    CORRECTNESS_FEATURES,
    word_overlap,
)
from genevals.types import Sample  # noqa: E402
# FILES and pin_samples: the tests read them here
from triad_data import FILES, context_samples, digest, nq_samples, ragtruth_pairs, rows  # noqa: E402,F401
from triad_pins import cost, measure_coverage, pin_samples, pins  # noqa: E402,F401

REPO = Path(__file__).resolve().parents[1]
EVEN = 0.5  # context_relevance's threshold on its even-odds probability
METHOD = ("logistic regression on one of a few sets of its {k} features; the feature set and coefficients chosen "
          "inside each training fold (nested: a 4-fold inner cross-validation picks the set); out-of-fold figures "
          "from 5-fold cross-validation grouped by question on the dev halves; 95% CI: bootstrap over questions, "
          "paired for the difference to the baseline")


# -- statistics (nested_cv.py: grouped folds, nested selection, bootstrap) ----------------------------------
#: the feature sets each judge's nested selection chooses among, inside each training fold (names of the metric's
#: features; the shipped weights give the features left out 0)
CANDIDATES = {
    "context_relevance": {"cosine": ("cosine",), "cosine and chunk kind": ("cosine", "passage"),
                          "every feature": CONTEXT_FEATURES},
    "answer_relevance": {"cosines": ("answer_cosine", "best_sentence_cosine"),
                         "cosines and word shares": ("answer_cosine", "best_sentence_cosine", "question_word_overlap",
                                                     "new_word_share"),
                         "every feature": ANSWER_FEATURES},
    "answer_correctness": {"token overlap": ("token_f1", "reference_recall", "containment"),
                           "token overlap, numbers and cosine": ("token_f1", "reference_recall", "containment",
                                                                 "number_agreement", "cosine"),
                           "every feature": CORRECTNESS_FEATURES},
}


#: the word pieces of a chunk embedded, chosen with the feature set (the shipped HEAD_PIECES first: ties keep it)
PIECES = (HEAD_PIECES, 62, 30)


def columns(judge: str, names) -> dict[str, list[int]]:
    return {k: [list(names).index(f) for f in v] for k, v in CANDIDATES[judge].items()}


def cross_validate(judge: str, names, x: np.ndarray, y: np.ndarray, groups: np.ndarray, threshold=None,
                   even: bool = False):
    """Out-of-fold probabilities and verdicts, the feature set and coefficients (and threshold) chosen inside each
    training fold; and the shipped model: the same selection on all rows, its weights over every feature."""
    candidates = columns(judge, names)
    found = cv.nested(x, y, groups, candidates, even=even, threshold=threshold)
    ship = cv.select(x, y, groups, candidates, even, threshold, SEED)
    w = np.zeros(len(names))
    w[ship["columns"]] = ship["weights"]
    return found, (w, ship["intercept"], ship["name"])


def evaluation(data: str, target: str, y: np.ndarray, score: np.ndarray, groups: np.ndarray,
               baselines: dict[str, np.ndarray], coverage: float, digest: str) -> dict:
    """The card entry for one data set: the judge's AUC and the best oriented baseline's, paired."""
    oriented = {name: (s if auc(y, s) >= 0.5 else -s) for name, s in baselines.items()}
    table = {name: round(auc(y, s), 4) for name, s in oriented.items()}
    best = max(table, key=table.get)
    judge = auc(y, score)
    boot = bootstrap(groups, lambda i: (auc(y[i], score[i]), auc(y[i], oriented[best][i])))
    diff = boot[:, 0] - boot[:, 1]
    interval = ci(diff)
    return {"data": data, "target": target, "n": int(len(y)), "groups": int(len(np.unique(groups))),
            "positives": int(y.sum()), "coverage": round(coverage, 4), "sha256": digest,
            "auc": {"value": round(judge, 4), "ci": ci(boot[:, 0])}, "baselines": table,
            "best_baseline": {"name": best, "auc": table[best],
                              "difference": {"value": round(judge - table[best], 4), "ci": interval}},
            "beats_baseline": bool(interval[0] > 0), "versus_baseline": cv.verdict_of(interval)}


def add_f1(entry: dict, y: np.ndarray, verdict: np.ndarray, groups: np.ndarray, threshold: float,
           chosen: list[float]) -> None:
    everything = np.ones_like(y)
    boot = bootstrap(groups, lambda i: (f1(verdict[i], y[i]), f1(everything[i], y[i])))
    diff = boot[:, 0] - boot[:, 1]
    entry["f1"] = {"value": round(f1(verdict, y), 4), "ci": ci(boot[:, 0]), "threshold": round(threshold, 4),
                   "fold_thresholds": [round(min(chosen), 4), round(max(chosen), 4)],
                   "precision": round(float(y[verdict].mean()) if verdict.any() else 0.0, 4),
                   "recall": round(float(verdict[y].mean()), 4), "share_called_relevant": round(float(verdict.mean()), 4)}
    entry["f1_baseline"] = {"name": "every chunk relevant", "value": round(f1(everything, y), 4),
                            "difference_ci": ci(diff)}
    entry["f1_beats_baseline"] = bool(ci(diff)[0] > 0)
    entry["f1_versus_baseline"] = cv.verdict_of(ci(diff))


# -- the judges ---------------------------------------------------------------------------------------------
def chunk_rows(data: Path, pieces: int) -> np.ndarray:
    """:data:`CONTEXT_FEATURES` of every chunk (WikiQA, then Cranfield) with its first ``pieces`` word pieces
    embedded instead of :data:`HEAD_PIECES` (what the metric would compute with that setting)."""
    from genevals.metrics.triad import local_relevance

    kept = local_relevance.HEAD_PIECES
    local_relevance.HEAD_PIECES = pieces
    try:
        return np.array([row for name, graded in (("wikiqa", False), ("cranfield", True))
                         for s in context_samples(rows(data, name), graded)
                         for row in ContextRelevanceLocal.chunk_features(s)[0]])
    finally:
        local_relevance.HEAD_PIECES = kept


def context_relevance(data: Path) -> tuple[dict, list[str]]:
    feats, gold, groups, sets, position, retriever, overlap, best = [], [], [], [], [], [], [], []
    for name, graded in (("wikiqa", False), ("cranfield", True)):
        for s in context_samples(rows(data, name), graded):
            x, found = ContextRelevanceLocal.chunk_features(s)
            feats += x
            best += [v for v, _ in found]
            gold += [s.relevant.get(c.key, 0) > 0 for c in s.contexts]
            groups += [f"{name}:{s.id}"] * len(x)
            sets += [name] * len(x)
            position += [1 / c.rank for c in s.contexts]
            overlap += [word_overlap(s.question, c.text) for c in s.contexts]
            retriever += [c.score if c.score is not None else 0.0 for c in s.contexts]
    x, y, groups, sets = np.array(feats), np.array(gold), np.array(groups), np.array(sets)
    position, retriever, overlap, best = map(np.array, (position, retriever, overlap, best))
    # Even odds, and a chunk is relevant when p >= 0.5: the bar does not move with the share of relevant chunks
    # in the training sets (one answering sentence in twenty on WikiQA's pages; an F1-optimal threshold fit there
    # calls few chunks of a real retrieval list relevant).
    # the chunk's embedded length is chosen inside the folds too: every feature set at every PIECES
    blocks = [x if p == HEAD_PIECES else chunk_rows(data, p) for p in PIECES]
    wide, k = np.hstack(blocks), len(CONTEXT_FEATURES)
    candidates = {f"{name} @ {p} pieces": [i * k + c for c in cols] for i, p in enumerate(PIECES)
                  for name, cols in columns("context_relevance", CONTEXT_FEATURES).items()}
    found = cv.nested(wide, y, groups, candidates, even=True, threshold=EVEN)
    ship = cv.select(wide, y, groups, candidates, True, EVEN, SEED)
    chosen_set, pieces = ship["name"].split(" @ ")[0], PIECES[ship["columns"][0] // k]
    if pieces != HEAD_PIECES:  # the metric must compute what the weights were fit on
        raise SystemExit(f"the selection on all rows chose {pieces} word pieces: set HEAD_PIECES = {pieces} in "
                         "genevals/metrics/triad/triad_features.py and rerun")
    w = np.zeros(k)
    w[[c % k for c in ship["columns"]]] = ship["weights"]
    b = ship["intercept"]
    oof, verdict = found["probability"], found["verdict"]
    chosen = [c["threshold"] for c in found["chosen"]]
    shipped = EVEN
    entries = []
    for name, label in (("wikiqa", "WikiQA dev"), ("cranfield", "Cranfield dev")):
        m = sets == name
        base = {"list position": position[m], "word overlap": overlap[m]}
        if name == "cranfield":
            base["retriever score"] = retriever[m]
        e = evaluation(label, "chunk relevant", y[m], oof[m], groups[m], base, 1.0, digest(data, name))
        e["reference_auc"] = {"the chunk's cosine alone": round(auc(y[m], best[m]), 4),
                              "the shipped model's ranking (monotone in its cosine within a chunk kind)":
                              round(auc(y[m], predict(x[m], w, b)), 4)}
        add_f1(e, y[m], verdict[m], groups[m], shipped, chosen)
        e["f1"]["cosine_at_0.45"] = round(f1(best[m] >= 0.45, y[m]), 4)
        entries.append(e)
    method = METHOD.format(k=len(CONTEXT_FEATURES)) + "; classes weighted to even odds, relevant when p >= 0.5"
    return ({"features": list(CONTEXT_FEATURES), "weights": [round(float(v), 6) for v in w],
             "intercept": round(b, 6), "threshold": round(shipped, 4), "feature_set": chosen_set,
             "head_pieces": HEAD_PIECES,
             "card": {"judge": "context_relevance", "method": method + "; the chunk's embedded word pieces ("
                      + ", ".join(map(str, PIECES)) + ") chosen inside each training fold too", "fold_choices": found["chosen"],
                      "evaluations": entries}}, [])


def answer_relevance(data: Path) -> dict:
    feats, gold, groups = [], [], []
    for s in context_samples(rows(data, "wikiqa"), False):
        for c in s.contexts:
            x, _, _ = AnswerRelevanceLocal.features(Sample(c.key, c.text, s.question))
            feats.append(x)
            gold.append(s.relevant.get(c.key, 0) > 0)
            groups.append(s.id)
    x, y, groups = np.array(feats), np.array(gold), np.array(groups)
    # WikiQA's pages hold one answering sentence in twenty; an answer to judge is no such long shot
    found, (w, b, chosen_set) = cross_validate("answer_relevance", ANSWER_FEATURES, x, y, groups, even=True)
    oof = found["probability"]
    base = {"question-answer word overlap": x[:, ANSWER_FEATURES.index("question_word_overlap")],
            "length": x[:, ANSWER_FEATURES.index("log_words")]}
    e = evaluation("WikiQA dev, answer proxy", "sentence answers the question", y, oof, groups, base, 1.0,
                   digest(data, "wikiqa"))
    e["reference_auc"] = {"question-answer cosine alone": round(auc(y, x[:, 0]), 4)}
    method = METHOD.format(k=len(ANSWER_FEATURES)) + "; classes weighted to even odds"
    return {"features": list(ANSWER_FEATURES), "weights": [round(float(v), 6) for v in w], "intercept": round(b, 6),
            "threshold": None, "feature_set": chosen_set,
            "card": {"judge": "answer_relevance", "method": method, "fold_choices": found["chosen"],
                     "evaluations": [e]}}


def answer_correctness(data: Path) -> dict:
    samples, y, groups = nq_samples(rows(data, "nq301"))
    metric = AnswerCorrectnessLocal.features
    x = np.array([metric(s)[0] for s in samples])
    found, (w, b, chosen_set) = cross_validate("answer_correctness", CORRECTNESS_FEATURES, x, y, groups)
    oof = found["probability"]
    tf1 = np.array([r["token_f1"].value for r in TokenF1().score(samples)])
    em = np.array([r["exact_match"].value for r in ExactMatch().score(samples)])
    base = {"token F1": tf1, "exact match": em, "length": x[:, CORRECTNESS_FEATURES.index("log_answer_words")]}
    e = evaluation("NQ301 dev", "a person accepts the answer", y, oof, groups, base, 1.0, digest(data, "nq301"))
    entries = [e]
    rt, rty, rtg = ragtruth_pairs(data)
    if len(rt):
        rx = np.array([metric(s)[0] for s in rt])
        rtf1 = np.array([r["token_f1"].value for r in TokenF1().score(rt)])
        t = evaluation("RAGTruth QA dev (faithful response as reference; model fit on NQ301, not here)",
                       "response not hallucinated", rty, predict(rx, w, b), rtg, {"token F1": rtf1}, 1.0,
                       hashlib.sha256((data / "ragtruth_dev.jsonl").read_bytes()).hexdigest())
        entries.append(t)
    return {"features": list(CORRECTNESS_FEATURES), "weights": [round(float(v), 6) for v in w],
            "intercept": round(b, 6), "threshold": None, "feature_set": chosen_set,
            "card": {"judge": "answer_correctness", "method": METHOD.format(k=len(CORRECTNESS_FEATURES)),
                     "fold_choices": found["chosen"], "evaluations": entries}}


# -- the embedding cache (development only: the figures do not depend on it) ---------------------------------
def load_cache(path: Path | None) -> None:
    if path is None or not path.exists():
        return
    with np.load(path, allow_pickle=False) as z:
        for text, vector in zip(z["texts"].tolist(), z["vectors"]):
            checker._CACHE[(checker.FULL, text)] = vector


def save_cache(path: Path | None) -> None:
    if path is None:
        return
    items = [(t, v) for (enc, t), v in checker._CACHE.items() if enc == checker.FULL]
    np.savez(path, texts=np.array([t for t, _ in items]), vectors=np.stack([v for _, v in items]))


# -- report -------------------------------------------------------------------------------------------------
def fmt(d: dict) -> str:
    return f"{d['value']:.3f} [{d['ci'][0]:.3f}, {d['ci'][1]:.3f}]"


def markdown(doc: dict) -> list[str]:
    lines = []
    for judge, entry in doc["judges"].items():
        card = entry["card"]
        lines += [f"#### {judge} (offline, calibrated)", "", f"{card['method']}; features: "
                  + ", ".join(entry["features"]) + (f"; threshold {entry['threshold']:.2f} on the probability"
                                                    if entry["threshold"] is not None else "") + ".", "",
                  "| data | n (questions, positives) | judge AUC [95% CI] | best trivial baseline | AUC | "
                  "difference [95% CI] | verdict |", "|---|---|---:|---|---:|---:|---|"]
        for e in card["evaluations"]:
            b = e["best_baseline"]
            lines.append(f"| {e['data']} | {e['n']} ({e['groups']}, {e['positives']}) | **{fmt(e['auc'])}** | "
                         f"{b['name']} | {b['auc']:.3f} | {fmt(b['difference'])} | "
                         f"{e['versus_baseline']} |")
        lines.append("")
        if card.get("fold_choices"):
            lines.append(f"- Feature set chosen per fold: {', '.join(c['features'] for c in card['fold_choices'])}; "
                         f"shipped (all rows): {entry['feature_set']}.")
        for e in card["evaluations"]:
            others = {**e["baselines"], **e.get("reference_auc", {})}
            lines.append(f"- {e['data']}: every baseline's AUC (oriented): "
                         + ", ".join(f"{k} {v:.3f}" for k, v in others.items()) + ".")
            if "f1" in e:
                f = e["f1"]
                lines.append(f"  F1 at the threshold {f['threshold']:.2f} (out-of-fold): **{fmt(f)}**, precision {f['precision']:.3f}, recall "
                             f"{f['recall']:.3f}, {f['share_called_relevant']:.1%} called relevant; "
                             f"'{e['f1_baseline']['name']}' F1 {e['f1_baseline']['value']:.3f} (difference CI "
                             f"[{e['f1_baseline']['difference_ci'][0]:.3f}, {e['f1_baseline']['difference_ci'][1]:.3f}]"
                             f"); the uncalibrated rule, cosine >= 0.45: {f['cosine_at_0.45']:.3f}.")
        if "cpu_ms_per_sample" in card:
            lines.append("- CPU per sample, model loaded, embeddings not cached: "
                         + ", ".join(f"{k} {v:.0f} ms" for k, v in card["cpu_ms_per_sample"].items()) + ".")
        lines.append("")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--embedding-cache", type=Path, default=None)
    parser.add_argument("--write", action="store_true", help=f"write {cal.PATH.relative_to(REPO)}")
    args = parser.parse_args()
    start, load = time.perf_counter(), os.getloadavg()
    load_cache(args.embedding_cache)
    ctx, _ = context_relevance(args.data)
    doc = {"generated_by": "benchmarks/bench_triad.py", "model": checker.MODEL_NAME,
           "judges": {"context_relevance": ctx, "answer_relevance": answer_relevance(args.data),
                      "answer_correctness": answer_correctness(args.data)}}
    save_cache(args.embedding_cache)
    for entry in doc["judges"].values():
        fitted = json.dumps([entry["features"], entry["weights"], entry["intercept"], entry["threshold"]])
        entry["tag"] = hashlib.sha256(fitted.encode()).hexdigest()[:8]
    if args.write:
        cal.PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        cal._document.cache_clear()
        doc["pins"] = pins(args.data)
        measure_coverage(args.data, doc)
        save_cache(args.embedding_cache)
        ms = cost(args.data)
        for judge, entry in doc["judges"].items():
            entry["card"]["cpu_ms_per_sample"] = {k: v for k, v in ms.items() if k.startswith(judge)}
        cal.PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print("\n".join(markdown(doc)))
    print(f"Machine: {os.cpu_count()} CPUs; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{time.perf_counter() - start:.0f} s wall.")


if __name__ == "__main__":
    main()
