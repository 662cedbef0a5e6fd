"""Local grounding: CPU time per answer of the learned detector (the default offline faithfulness), the rule checker,
and MiniLM encoding alone (sentence-transformers called directly on the same texts), in batch, cold caches.

    python benchmarks/bench_grounding.py [--n 100] [--threads 2]   # prints a Markdown row per judge

The learned detector encodes with the MiniLM layers named in its weights (the first 3 layers,
fp32); the rule checker with the full model. Rows are the first N of ../shared/datasets/ragtruth_dev.jsonl
(about 860-char answers, 2,800-char contexts; the ~3 answers per source share a context, as in a RAG
evaluation, and each distinct context sentence is encoded once per batch). Each judge runs in a fresh process so
that the embedding cache starts empty; model loading is outside the timing. CPU seconds are process time (all threads).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "datasets" / "ragtruth_dev.jsonl"

CHILD = r"""
import json, sys, time, torch
torch.set_num_threads(int(sys.argv[3]))
from genevals.validation.labels import row_to_sample
rows = [json.loads(x) for x in open(sys.argv[1])][:int(sys.argv[2])]
samples = [row_to_sample(r) for r in rows]
which = sys.argv[4]
if which.startswith("minilm"):
    from genevals.grounding import checker, detector
    encoder = detector.load().encoder if which == "minilm_detector" else checker.FULL
    texts = []
    for r in rows:
        p = checker.prepare(r["response"], [r["context"]], r.get("question") or "")
        texts += [c.text for c in p.claims] + [u.text for u in p.units]
    texts = list(dict.fromkeys(texts))  # what the checker's cache encodes
    model = checker.get_model(encoder=encoder)
    run = lambda: model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False)
else:
    from genevals.grounding import checker
    from genevals.metrics.faithfulness.grounding import Grounding
    metric = Grounding(method=which)
    checker.get_model(encoder=metric.encoder)
    run = lambda: metric.score(samples)
cpu, wall = time.process_time(), time.perf_counter()
run()
print(json.dumps({"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall, "n": len(rows)}))
"""


def measure(which: str, n: int, threads: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, str(DATA), str(n), str(threads), which], env=env,
                         capture_output=True, text=True, check=True)
    return {**json.loads(out.stdout.strip().splitlines()[-1]), "load": os.getloadavg()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if not DATA.exists():
        print(f"{DATA} not found", file=sys.stderr)
        return 2
    print("| judge | answers | CPU ms / answer | wall ms / answer | load avg (1/5/15 min) |")
    print("|---|---|---|---|---|")
    for which in ("learned", "rules", "minilm_detector", "minilm"):
        r = measure(which, args.n, args.threads)
        name = {"learned": "learned detector (default)", "rules": "rule checker",
                "minilm_detector": "the detector's encoder alone (sentence-transformers direct)",
                "minilm": "full MiniLM encode only (sentence-transformers direct)"}[which]
        print(f"| {name} | {r['n']} | {1000 * r['cpu'] / r['n']:.0f} | {1000 * r['wall'] / r['n']:.0f} | "
              f"{' / '.join(f'{x:.2f}' for x in r['load'])} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
