"""Build genevals/data/bertscore_baseline_minilm.tsv, the rescaling baseline of the default BERTScore model.

bert-score's shipped baselines (bert_score/rescale_baseline/<lang>/<model>.tsv) are, per layer, the mean raw
P, R and F of BERTScore over random pairs of unrelated sentences from Common Crawl, computed with all layers at
once and without idf. We cannot download Common Crawl, so this script does the same over a deterministic set
of unrelated sentence pairs drawn from the news articles and passages of the shared evaluation data
(../shared/datasets/summac_subsets.jsonl and ragtruth_dev.jsonl): the contexts are split into sentences, the
sentences ordered by a hash of their text (a fixed pseudo-random order, no RNG state), and sentence 2i is paired
with sentence 2i+1 when the two come from different documents.

Run from the repository root (offline; about a minute on CPU):

    HF_HUB_OFFLINE=1 python tools/make_bertscore_baseline.py
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("summac_subsets.jsonl", "ragtruth_dev.jsonl")
OUT = REPO / "genevals" / "data" / "bertscore_baseline_minilm.tsv"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'])")


def sentences(shared: Path) -> list[tuple[int, str]]:
    """(document number, sentence) for every distinct sentence of 8 to 40 words, in hash order."""
    docs: dict[str, int] = {}
    seen: dict[str, int] = {}
    for name in SOURCES:
        with open(shared / "datasets" / name, encoding="utf-8") as handle:
            for line in handle:
                context = json.loads(line).get("context") or ""
                if not isinstance(context, str) or context in docs:
                    continue
                doc = docs.setdefault(context, len(docs))
                for sentence in _SENTENCE_END.split(" ".join(context.split())):
                    if 8 <= len(sentence.split()) <= 40 and sentence not in seen:
                        seen[sentence] = doc
    ordered = sorted(seen, key=lambda s: hashlib.sha1(s.encode("utf-8")).hexdigest())
    return [(seen[s], s) for s in ordered]


def unrelated_pairs(pool: list[tuple[int, str]], n: int) -> tuple[list[str], list[str]]:
    cands, refs = [], []
    for i in range(0, len(pool) - 1, 2):
        (doc_a, a), (doc_b, b) = pool[i], pool[i + 1]
        if doc_a != doc_b:
            cands.append(a)
            refs.append(b)
        if len(cands) == n:
            break
    if len(cands) < n:
        raise SystemExit(f"only {len(cands)} unrelated pairs available, {n} asked")
    return cands, refs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--pairs", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import torch
    from bert_score import score

    from genevals.metrics.semantic.bertscore_model import default_model_path

    cands, refs = unrelated_pairs(sentences(args.shared), args.pairs)
    torch.manual_seed(0)
    (p, r, f) = score(cands, refs, model_type=default_model_path(), num_layers=6, all_layers=True, idf=False,
                      batch_size=64, device="cpu")
    # all_layers: each is [layers + 1, pairs]; the baseline of a layer is the mean over the pairs.
    means = torch.stack((p.mean(-1), r.mean(-1), f.mean(-1)), dim=-1).float().numpy()
    lines = ["LAYER,P,R,F"] + [f"{layer},{row[0]},{row[1]},{row[2]}" for layer, row in enumerate(means)]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out} from {len(cands)} unrelated pairs")


if __name__ == "__main__":
    main()
