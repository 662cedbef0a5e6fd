"""Benchmark: do generated queries rank retrieval systems as Cranfield's human queries and qrels do? (issue 49)

    HF_HUB_OFFLINE=1 python benchmarks/bench_generate_cranfield.py [--n 116] [--boot 1000] [--seed 0]
        [--collection ../shared/datasets/cranfield] [--systems a,b,c] [--json PATH]

The 12 systems of ``benchmarks/bench_judged_qrels.py`` (BM25, TF-IDF, MiniLM dense, their fusions, titles-only,
four-word-query, shuffled and random variants) are ranked twice: under Cranfield's 116 development queries and expert
qrels, and under a generated query set where each query's one relevant document is the document it was made from
(known-item evaluation). The two system rankings (means of nDCG@10 and of MAP over each set's topics) are
compared by Kendall tau (scipy), with a percentile 95% CI from a bootstrap that resamples the human topics and the
generated topics independently (the two sets share no topic) and recomputes every system's mean on both sides.

Query generators, each on the same documents (``genevals generate``'s coverage-first draw of ``--n`` items):

- ``genevals_offline``: ``genevals generate``'s offline default (known-item term-sampling queries and extractive
  items, half each), run as the command runs, its qrels mapped from chunks to their documents;
- ``title``: the document's title as the query (the baseline the issue asks the generator to beat);
- ``random_sentence``: a random sentence of the document (seeded);
- ``first_four_words``: the first four words of the document's text.

A generator that does not beat ``title`` is reported as such. ``--card`` writes the offline card's figures
(``genevals/generate/offline_card.json``, which every offline ``card.json`` carries); ``--from-json`` makes it
from an earlier run's ``--json`` without running again. Figures go to benchmarks/RESULTS.md by hand.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_judged_qrels as judged  # noqa: E402
from machine import machine  # noqa: E402

GENERATORS = ("genevals_offline", "title", "random_sentence", "first_four_words")
CARD = Path(__file__).resolve().parents[1] / "genevals" / "generate" / "offline_card.json"


def card_of(report: Mapping[str, Any]) -> dict[str, Any]:
    """What the offline card says of ranking agreement: each generator's tau and CI per measure, whether the
    offline generator beats ``title``, and the systems' nDCG@10 under the human and the offline queries."""
    gens = report["generators"]
    offline = gens["genevals_offline"]
    return {
        "benchmark": "benchmarks/bench_generate_cranfield.py",
        "collection": f"Cranfield 1400: {report['human_topics']} development queries with expert qrels, "
                      f"{len(report['systems'])} retrieval systems",
        "n": report["n"], "boot": report["boot"], "seed": report["seed"],
        "kendall_tau_vs_human": {m: {g: {"tau": v[m]["tau"], "ci95": v[m]["tau_ci95"]} for g, v in gens.items()}
                                 for m in judged.MEASURES},
        "offline_beats_title": offline["beats_title"],
        "ndcg10_human": report["human_means"]["ndcg@10"],
        "ndcg10_offline": offline["ndcg@10"]["means"],
    }


def generated(collection: Path, n: int, seed: int) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """``genevals generate``'s offline set on the documents: (topic -> query, topic -> {document: 1})."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([sys.executable, "-m", "genevals", "generate", str(collection / "docs.jsonl"),
                               "--out", tmp, "-n", str(n), "--seed", str(seed), "--no-embeddings"],
                              capture_output=True, text=True, timeout=3600)
        if done.returncode != 0:
            raise SystemExit(f"genevals generate failed ({done.returncode}): {done.stderr[-2000:]}")
        rows = [json.loads(line) for line in (Path(tmp) / "testset.jsonl").read_text().splitlines()]
    queries = {r["id"]: r["question"] for r in rows}
    qrels = {r["id"]: {c["doc_id"]: 1.0 for c in r["metadata"]["reference_contexts"]} for r in rows}
    return queries, qrels


def trivial(kind: str, docs: Mapping[str, Mapping[str, str]], targets: Sequence[str], seed: int
            ) -> tuple[dict[str, str], dict[str, dict[str, float]]]:
    """A trivial generator's queries on the ``targets`` documents (module docstring)."""
    rng = random.Random(seed)
    queries = {}
    for i, doc in enumerate(targets):
        title, text = docs[doc]["title"], docs[doc]["text"]
        if kind == "title":
            query = title
        elif kind == "random_sentence":
            sentences = [s.strip() for s in text.split(" . ") if len(s.split()) >= 4] or [text]
            query = rng.choice(sentences)
        else:
            query = " ".join(text.split()[:4])
        queries[f"t{i:04d}"] = query
    return queries, {f"t{i:04d}": {doc: 1.0} for i, doc in enumerate(targets)}


def means_per_topic(docs, queries, qrels, systems: Sequence[str] | None
                    ) -> tuple[dict[str, np.ndarray], list[str]]:
    built = judged.build_systems(docs, queries, systems)
    return judged.per_topic(built, qrels, list(queries)), list(built)


def tau_two_sets(human: np.ndarray, other: np.ndarray, boot: int, seed: int) -> dict[str, Any]:
    """Kendall tau of the systems' means, and a percentile CI resampling each side's topics independently."""
    from scipy.stats import kendalltau

    tau = float(kendalltau(human.mean(1), other.mean(1)).statistic)
    rng = np.random.default_rng(seed)
    taus = []
    for _ in range(boot):
        h = human[:, rng.integers(0, human.shape[1], human.shape[1])].mean(1)
        o = other[:, rng.integers(0, other.shape[1], other.shape[1])].mean(1)
        value = kendalltau(h, o).statistic
        if np.isfinite(value):
            taus.append(value)
    ci = [round(float(np.percentile(taus, q)), 4) for q in (2.5, 97.5)] if taus else None
    return {"tau": round(tau, 4), "tau_ci95": ci, "boot": len(taus)}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", type=Path, default=judged.COLLECTION)
    ap.add_argument("--n", type=int, default=116, help="generated queries per generator (default: as many as "
                                                        "Cranfield's human queries)")
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--systems", default=None, help="comma-separated system names (default: all 12)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--card", action="store_true", help=f"write {CARD.relative_to(CARD.parents[2])}")
    ap.add_argument("--from-json", type=Path, default=None, help="an earlier run's --json: write --card from it")
    args = ap.parse_args(argv)
    if args.from_json:
        report = json.loads(args.from_json.read_text())
        CARD.write_text(json.dumps(card_of(report), indent=2) + "\n")
        return report
    systems = args.systems.split(",") if args.systems else None
    docs, human_queries, human_qrels = judged.load(args.collection, None)
    human, names = means_per_topic(docs, human_queries, human_qrels, systems)
    queries, qrels = generated(args.collection, args.n, args.seed)
    targets = [next(iter(q)) for q in qrels.values()]  # the same documents for every generator
    sets = {"genevals_offline": (queries, qrels)}
    for kind in GENERATORS[1:]:
        sets[kind] = trivial(kind, docs, targets, args.seed)
    report: dict[str, Any] = {"collection": str(args.collection), "n": len(targets), "human_topics": len(human_queries),
                              "systems": names, "boot": args.boot, "seed": args.seed, "machine": machine(),
                              "human_means": {m: dict(zip(names, np.round(human[m].mean(1), 4).tolist()))
                                              for m in judged.MEASURES}, "generators": {}}
    for kind, (q, r) in sets.items():
        values, _ = means_per_topic(docs, q, r, systems)
        report["generators"][kind] = {
            m: {**tau_two_sets(human[m], values[m], args.boot, args.seed),
                "means": dict(zip(names, np.round(values[m].mean(1), 4).tolist()))} for m in judged.MEASURES}
    title = report["generators"]["title"]
    for kind, figures in report["generators"].items():
        figures["beats_title"] = {m: figures[m]["tau"] > title[m]["tau"] for m in judged.MEASURES}
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    if args.card:
        CARD.write_text(json.dumps(card_of(report), indent=2) + "\n")
    for kind, figures in report["generators"].items():
        print(kind, "  ".join(f"{m} tau {figures[m]['tau']} {figures[m]['tau_ci95']}" for m in judged.MEASURES),
              "beats title:", figures["beats_title"])
    return report


if __name__ == "__main__":
    main()
