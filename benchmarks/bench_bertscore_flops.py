"""How close BERTScore's forward pass runs to this CPU's fp32 matrix-product rate: the bound on issue #16's goal.

On the "shared" workload of ``bench_bertscore.py`` (1,500 pairs, 1,988 distinct texts) this times, in one
process and with the model loaded beforehand:

* the forward passes alone, over genevals' own batches (``Embedder._batches``), on ONNX Runtime and on torch;
* the forward passes over bert_score's batches (distinct texts sorted by word count, 64 at a time), on torch;
* plain fp32 matrix products (torch.mm) of the shape that dominates the model ([4096, 384] x [384, 1536]) and
  of a large square one.

The least possible forward time is the real tokens' work at the best rate seen by any of these (ONNX Runtime's
own kernels can beat torch.mm).

FLOPs per sequence of L tokens, per layer (H = 384 hidden, I = 1,536 intermediate), counting a multiply-add as
two: 2 L (4 H^2 + 2 H I) for the projections and the feed-forward network, plus 4 L^2 H for the attention
scores and their weighted sum; BERTScore's layer 5 runs 5 layers. Padded positions are computed like real ones,
so the work done is that of the padded batches; the least possible work is that of the real tokens alone.

    HF_HUB_OFFLINE=1 python benchmarks/bench_bertscore_flops.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

H, I, LAYERS = 384, 1536, 5


def flops(width: int, rows: int = 1) -> float:
    """fp32 operations of ``rows`` sequences padded to ``width`` tokens through the 5 layers."""
    per_layer = 2 * width * (4 * H * H + 2 * H * I) + 4 * width * width * H
    return rows * LAYERS * per_layer


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch
    from bert_score.utils import sent_encode

    import bench_bertscore
    from machine import machine
    from genevals.metrics.semantic import bertscore_embed as be
    from genevals.metrics.semantic import bertscore_model as bm

    cands, refs = bench_bertscore.workload("shared", 1500)
    texts = list(dict.fromkeys(refs + cands))
    spec = bm.resolve_model(None)
    load_before = machine()["load"]

    def padded(seqs, ranges, pad):
        return [be.padded_batch(seqs[start:end], max(len(s) for s in seqs[start:end]), pad) for start, end in ranges]

    rows = []
    for runtime in ("onnxruntime", "torch"):
        loaded = bm.load(spec, bm.DEFAULT_LAYER, "cpu", runtime=runtime)
        embedder = be.Embedder(loaded)
        seqs = sorted((embedder.ids(t) for t in texts), key=len, reverse=True)
        real = sum(len(s) for s in seqs)
        ours = padded(seqs, embedder._batches([len(s) for s in seqs]), loaded.tokenizer.pad_token_id)
        plans = [("genevals' batches", ours)]
        if runtime == "torch":  # bert_score's: sorted by word count, 64 a batch
            by_words = sorted(texts, key=lambda x: len(x.split(" ")), reverse=True)
            theirs = [sent_encode(loaded.tokenizer, t) for t in by_words]
            plans.append(("bert_score's batches", padded(theirs, [(i, min(i + 64, len(theirs)))
                                                                    for i in range(0, len(theirs), 64)],
                                                         loaded.tokenizer.pad_token_id)))
        for label, plan in plans:
            def forward(plan=plan, loaded=loaded):
                with torch.inference_mode():
                    for ids, mask in plan:
                        loaded.forward(ids, mask)
            forward()  # warm-up: first-call allocations and kernel choice
            seconds = timed(forward, args.repeat)
            work = sum(flops(ids.shape[1], ids.shape[0]) for ids, _ in plan)
            tokens = sum(ids.numel() for ids, _ in plan)
            rows.append((f"{runtime}, {label}", tokens, seconds, work / seconds / 1e9))
    least = sum(flops(len(s)) for s in seqs)

    # the best of two shapes: the model's own, and a square one that BLAS libraries run near the CPU's peak
    gemms = []
    for m, k, n in ((4096, H, I), (2048, 2048, 2048)):
        a, b = torch.randn(m, k), torch.randn(k, n)
        torch.mm(a, b)
        gemms.append(2 * m * k * n * 10 / timed(lambda: [torch.mm(a, b) for _ in range(10)], args.repeat) / 1e9)
    gemm = max(gemms)

    print(f"shared workload: {len(texts):,} distinct texts, {real:,} real tokens; "
          f"torch threads {torch.get_num_threads()}; load average {load_before} -> {machine()['load']}")
    print("| forward pass | padded tokens | seconds | GFLOP/s done | rate / torch.mm rate |")
    print("|---|---:|---:|---:|---:|")
    for label, tokens, seconds, rate in rows:
        print(f"| {label} | {tokens:,} | {seconds:.2f} | {rate:.0f} | {rate / gemm:.0%} |")
    print(f"| fp32 matrix product (torch.mm): [4096, {H}] x [{H}, {I}] {gemms[0]:.0f}, "
          f"[2048, 2048] x [2048, 2048] {gemms[1]:.0f} | | | {gemm:.0f} | 100% |")
    # ONNX Runtime's own kernels can beat torch.mm: the bound uses the best rate seen by anything here
    best = max(gemm, *(rate for *_, rate in rows))
    ours = rows[0][2]  # onnxruntime on genevals' batches
    print(f"least possible forward time: the {real:,} real tokens alone ({least / 1e12:.2f} TFLOP) at the best rate "
          f"seen here ({best:.0f} GFLOP/s): {least / best / 1e9:.2f} s, against {ours:.2f} s for ONNX Runtime on "
          f"genevals' batches")


if __name__ == "__main__":
    main()
