"""BERTScore speed and memory: genevals' BertScore against calling bert_score.score directly.

Two workloads, both with the default model (all-MiniLM-L6-v2, layer 5) on the same pairs:

* shared: N pairs from three systems answering the same N/3 questions (so N/3 distinct references);
  genevals scores them in chunks of 512 as the runner does, bert_score.score gets all pairs in one call;
* long: M distinct pairs with ~830-character candidates.

Each measurement runs in a fresh subprocess (model loading timed, imports not) and reports wall time, pairs/s and peak
RSS (resource.getrusage maxrss: tracemalloc does not see torch's allocations). The values of the two are
compared too. ``--smoke`` runs tiny sizes. Data comes from ../shared/datasets (ragtruth + summac texts).

    HF_HUB_OFFLINE=1 python benchmarks/bench_bertscore.py [--smoke] [--pairs 2000] [--long 500]
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _texts() -> tuple[list[str], list[str]]:
    """Distinct short texts (responses) and long texts (contexts) from the shared data."""
    short, long = {}, {}
    for name in ("ragtruth_dev.jsonl", "summac_subsets.jsonl"):
        with open(SHARED / "datasets" / name, encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                if isinstance(row.get("response"), str) and row["response"].strip():
                    short[" ".join(row["response"].split())[:400]] = None
                if isinstance(row.get("context"), str) and len(row["context"]) > 1000:
                    long[" ".join(row["context"].split())] = None
    return list(short), list(long)


def workload(kind: str, n: int) -> tuple[list[str], list[str]]:
    short, long = _texts()
    if kind == "shared":
        questions = n // 3
        refs = short[:questions]
        cands, out_refs = [], []
        for system in range(3):
            for q in range(questions):
                cands.append(short[(questions + system * questions + q) % len(short)])
                out_refs.append(refs[q])
        return cands, out_refs
    cands = [text[i:i + 830] for text in long for i in (0, 1000) if len(text) >= i + 830][:n]
    refs = [short[(i * 7) % len(short)] for i in range(len(cands))]
    return cands, refs


def measure(impl: str, kind: str, n: int, out: str) -> None:
    """Runs in a fresh subprocess: score, then write the values and the figures."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    cands, refs = workload(kind, n)
    import bert_score  # noqa: F401  (imports of torch/transformers are outside the timing for both)
    import torch  # noqa: F401
    import transformers  # noqa: F401
    # from_pretrained imports BERT's modeling code lazily (~1 s, 10+ s on a loaded machine): an import too
    import transformers.models.bert.modeling_bert  # noqa: F401
    from transformers.integrations import sdpa_attention  # noqa: F401

    start = time.perf_counter()
    if impl == "genevals":
        from genevals.metrics.semantic.semantic import BertScore
        from genevals.types import Sample

        metric = BertScore()
        samples = [Sample(id=str(i), answer=c, references=(r,)) for i, (c, r) in enumerate(zip(cands, refs))]
        values = []
        for i in range(0, len(samples), 512):  # the runner's chunks
            values += [[res[k].value for k in ("bertscore_precision", "bertscore_recall", "bertscore_f1")]
                       for res in metric.score(samples[i:i + 512])]
        embedded = metric.embedder.texts_embedded
        padded = metric.embedder.padded_tokens
    else:
        from bert_score import score

        from genevals.metrics.semantic.bertscore_model import DEFAULT_LAYER, default_model_path

        p, r, f = score(cands, refs, model_type=default_model_path(), num_layers=DEFAULT_LAYER, batch_size=64)
        values = [list(v) for v in zip(p.tolist(), r.tolist(), f.tolist())]
        embedded = len(set(cands) | set(refs))
    seconds = time.perf_counter() - start
    if impl != "genevals":  # bert_score's batches: distinct texts sorted by word count, 64 at a time, padded
        from bert_score.utils import get_tokenizer, sent_encode

        tokenizer = get_tokenizer(default_model_path(), use_fast=False)
        texts = sorted(set(refs + cands), key=lambda x: len(x.split(" ")), reverse=True)
        lengths = [len(sent_encode(tokenizer, t)) for t in texts]
        padded = sum(len(lengths[i:i + 64]) * max(lengths[i:i + 64]) for i in range(0, len(lengths), 64))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    Path(out).write_text(json.dumps({"impl": impl, "kind": kind, "pairs": len(cands), "seconds": seconds,
                                     "pairs_per_s": len(cands) / seconds, "peak_mb": peak_mb,
                                     "distinct_refs": len(set(refs)), "texts_embedded": embedded,
                                     "padded_tokens": padded,
                                     "mean_cand_chars": sum(map(len, cands)) / len(cands),
                                     "values": values}))


def run_one(impl: str, kind: str, n: int) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = handle.name
    env = dict(os.environ, HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, __file__, "--child", impl, kind, str(n), out], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    result = json.loads(Path(out).read_text())
    os.unlink(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, to check the benchmark runs")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--long", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        impl, kind, n, out = args.child
        measure(impl, kind, int(n), out)
        return
    if args.smoke:
        args.pairs, args.long = 30, 12
    import torch

    print(f"machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cpus, torch {torch.__version__} threads {torch.get_num_threads()}, "
          f"cuda {torch.cuda.is_available()}, load average {os.getloadavg()}")
    for kind, n in (("shared", args.pairs), ("long", args.long)):
        figures: dict[str, list[dict]] = {"bert_score": [], "genevals": []}
        for _ in range(args.repeat):  # interleaved, so background load hits both alike
            for impl in ("bert_score", "genevals"):
                figures[impl].append(run_one(impl, kind, n))
        best = {impl: min(runs, key=lambda r: r["seconds"]) for impl, runs in figures.items()}
        diff = max(abs(a - b) for ra, rb in zip(best["bert_score"]["values"], best["genevals"]["values"])
                   for a, b in zip(ra, rb))
        b, g = best["bert_score"], best["genevals"]
        print(f"\n{kind}: {b['pairs']} pairs, {b['distinct_refs']} distinct references, "
              f"candidates {b['mean_cand_chars']:.0f} chars on average")
        for impl, r in best.items():
            print(f"  {impl:<10} {r['seconds']:7.1f} s  {r['pairs_per_s']:7.1f} pairs/s  peak RSS "
                  f"{r['peak_mb']:6.0f} MB  texts embedded {r['texts_embedded']}  "
                  f"(all runs: {', '.join('%.1fs' % x['seconds'] for x in figures[impl])})")
        print(f"  speed-up {b['seconds'] / g['seconds']:.2f}x, max |difference| {diff:.2e}")


if __name__ == "__main__":
    main()
