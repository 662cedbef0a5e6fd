"""Benchmark: genevals retrieval metrics on 10,000 samples x 10 contexts, against pytrec_eval and ranx.

    python benchmarks/bench_retrieval.py [--samples 10000] [--contexts 10] [--repeat 3]

Reports the best-of-N wall time of:
  * genevals Retrieval.score (end to end: Samples in, MetricResults out, all 32 outputs)
  * genevals ranking.evaluate only (the pure math on prepared rankings)
  * pytrec_eval (trec_eval C code) and ranx (numba) on the same data, when they are installed
and the largest per-query / mean difference from each reference for the measures they share.
"""
from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from genevals.metrics.retrieval import ranking as rk  # noqa: E402
from genevals.metrics.retrieval.retrieval import Retrieval  # noqa: E402
from genevals.types import Context, Sample  # noqa: E402

CUTOFFS = (1, 3, 5, 10)


def make_data(n: int, n_ctx: int, seed: int = 0):
    rnd = random.Random(seed)
    samples, rankings, qrels = [], {}, {}
    for i in range(n):
        pool = [f"doc{j}" for j in range(50)]
        retrieved = rnd.sample(pool, n_ctx)
        labels = {d: rnd.choice([0, 1, 1, 2, 3]) for d in rnd.sample(pool, 8)}
        labels[rnd.choice(pool)] = rnd.choice([1, 2])  # at least one relevant (almost always)
        qid = f"q{i}"
        rankings[qid] = retrieved
        qrels[qid] = labels
        ctxs = tuple(Context(text="...", rank=r + 1, id=d) for r, d in enumerate(retrieved))
        samples.append(Sample(id=qid, answer="a", contexts=ctxs, relevant=labels))
    return samples, rankings, qrels


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--contexts", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    samples, rankings, qrels = make_data(args.samples, args.contexts)
    fqrels = {q: {d: float(v) for d, v in lab.items()} for q, lab in qrels.items()}
    print(f"python {platform.python_version()} on {platform.machine()}, "
          f"{args.samples} samples x {args.contexts} contexts, best of {args.repeat}")

    metric = Retrieval(cutoffs=CUTOFFS, level="chunk")
    t, results = best_of(lambda: metric.score(samples), args.repeat)
    print(f"genevals Retrieval.score (32 outputs, end to end): {t:.3f} s  ({t / args.samples * 1e6:.1f} us/sample)")
    t, ours = best_of(lambda: {q: rk.evaluate(rankings[q], fqrels[q], CUTOFFS) for q in rankings}, args.repeat)
    print(f"genevals ranking.evaluate only:                    {t:.3f} s  ({t / args.samples * 1e6:.1f} us/sample)")

    # trec_eval name -> our name, for the shared measures
    shared = {"map": "map", "recip_rank": "mrr"}
    for k in CUTOFFS:
        shared.update({f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}",
                       f"ndcg_cut_{k}": f"ndcg@{k}", f"success_{k}": f"hit_rate@{k}"})
    scored = [q for q in rankings if ours[q]["num_relevant"]]

    try:
        import pytrec_eval
    except ImportError:
        print("pytrec_eval: not installed")
    else:
        cuts = ",".join(map(str, CUTOFFS))
        measures = {"map", "recip_rank", f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"success.{cuts}"}
        # distinct descending scores, so trec_eval keeps the given order
        run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}

        def pte():
            return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

        t, ref = best_of(pte, args.repeat)
        ver = getattr(pytrec_eval, "__version__", "?")
        print(f"pytrec_eval {ver} (evaluator build + evaluate, {len(shared)} measures): {t:.3f} s")
        worst = max(abs(ref[q][tm] - ours[q][gm]) for q in scored for tm, gm in shared.items())
        print(f"  max |genevals - pytrec_eval| over {len(scored)} queries x {len(shared)} measures: {worst:.2e}")

    try:
        import ranx
    except ImportError:
        print("ranx: not installed")
    else:
        names = ["map", "mrr"] + [f"{m}@{k}" for m in ("precision", "recall", "ndcg", "hit_rate", "ndcg_burges")
                                  for k in CUTOFFS]
        rq = ranx.Qrels({q: {d: int(v) for d, v in lab.items() if v > 0} for q, lab in qrels.items()})
        rr = ranx.Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()})
        t0 = time.perf_counter()
        ranx.evaluate(rq, rr, names, make_comparable=True)  # first call includes numba compilation
        print(f"ranx first call (numba JIT): {time.perf_counter() - t0:.3f} s")

        def rx():
            rr_ = ranx.Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()})
            return ranx.evaluate(rq, rr_, names, return_mean=False, make_comparable=True), rr_

        t, _ = best_of(rx, args.repeat)
        print(f"ranx (Run build + evaluate, {len(names)} measures, warm): {t:.3f} s")
        ranx.evaluate(rq, rr, names, return_mean=False, make_comparable=True)
        ours_names = {"mrr": "mrr", "map": "map"}
        ours_names.update({n: n.replace("ndcg_burges", "ndcg_exp") for n in names if "@" in n})
        worst = 0.0
        for n, gm in ours_names.items():
            per_q = rr.scores[n]
            worst = max(worst, max(abs(per_q[q] - ours[q][gm]) for q in scored))
        print(f"  max |genevals - ranx| over {len(scored)} queries x {len(ours_names)} measures: {worst:.2e}")
    assert len(results) == args.samples


if __name__ == "__main__":
    main()
