"""The shipped detector's calibration out of its domain, as the cascade would use it (issue 52, point 21).

    python benchmarks/bench_cascade_domain.py [--data ../shared/datasets] [--limit 300] [--write]

The packaged detector (``genevals/grounding/detector.json``) was fit on RAGTruth dev; its out-of-fold expected
calibration error there is recorded with it. This scores a seeded sample of SummaC's labelled summaries (news
articles and their summaries, consistent or not; ``summac_subsets.jsonl``) with the shipped ``grounding`` metric,
exactly as the cascade's local stage does, and measures on them:

- the ECE of the answer's p(hallucinated) (ten equal-width bins, :func:`ece`);
- at the cascade's default ``settle_confidence`` 0.9 (confidence :math:`\\max(p, 1-p)`, as the metric gives it):
  the share of answers it would settle and the accuracy of its verdict (any sentence flagged: hallucinated) on
  them, beside the accuracy of always saying the sample's majority label.

``--write`` stores the figures, with the data's and the detector model's SHA-256, in
``genevals/grounding/cascade_domain.json`` (the per-row verdicts in
``tests/grounding/testdata/summac_detector.json``), which :mod:`genevals.grounding.domain` reads for the cascade's reason
and card; ``tests/grounding/test_cascade_domain.py`` fails when the detector is retrained without rerunning this.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from genevals import types  # noqa: E402
from genevals.grounding import domain  # noqa: E402
from genevals.grounding.figure import WEIGHTS_PATH  # noqa: E402
from genevals.metrics.faithfulness.cascade import DEFAULT_SETTLE  # noqa: E402
from genevals.types import Context, Sample  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FILE = "summac_subsets.jsonl"
SEED = 0
#: the per-row verdicts the figures come from, so a test recomputes them without the encoder
ROWS_PATH = REPO / "tests" / "grounding" / "testdata" / "summac_detector.json"


def ece(p: list[float], gold: list[bool], bins: int = 10) -> float:
    """Expected calibration error: sum over equal-width bins of p of |mean p - positive rate| x share."""
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, v in enumerate(p) if lo <= v < hi or (b == bins - 1 and v == 1.0)]
        if idx:
            total += len(idx) / len(p) * abs(sum(p[i] for i in idx) / len(idx) - sum(gold[i] for i in idx) / len(idx))
    return total


def sample_rows(path: Path, limit: int) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    random.Random(SEED).shuffle(rows)
    return rows[:limit]


def measure(rows: list[dict]) -> list[list]:
    """[id, p(hallucinated), confidence, flagged, hallucinated] of each row the shipped detector scored."""
    from genevals.metrics.faithfulness.grounding import Grounding

    samples = [Sample(id=r["id"], answer=r["response"], question=r.get("question") or "",
                      contexts=(Context(text=r["context"], rank=1),)) for r in rows]
    out = []
    for r, result in zip(rows, Grounding().score(samples)):
        faith = result["faithfulness"]
        if faith.status == types.OK:
            out.append([r["id"], float(faith.details["probability"]), float(faith.details["confidence"]),
                        faith.value < 1.0, bool(r["hallucinated"])])
    return out


def figures(scored: list[list], asked: int) -> dict:
    """The record's figures from :func:`measure`'s rows (``asked``: the rows sampled)."""
    p, conf = [r[1] for r in scored], [r[2] for r in scored]
    flagged, gold = [r[3] for r in scored], [r[4] for r in scored]
    settled = [i for i, c in enumerate(conf) if c >= DEFAULT_SETTLE]
    rate = sum(gold) / len(gold)
    return {"n": len(gold), "unscored": asked - len(gold), "ece": round(ece(p, gold), 4),
            "hallucinated_rate": round(rate, 4), "settle_confidence": DEFAULT_SETTLE,
            "settled_share": round(len(settled) / len(gold), 4), "settled_n": len(settled),
            "settled_accuracy": round(sum(flagged[i] == gold[i] for i in settled) / len(settled), 4) if settled
            else None,
            "majority_accuracy": round(max(rate, 1 - rate), 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "datasets")
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--write", action="store_true", help=f"write {domain.OUT_OF_DOMAIN_PATH.relative_to(REPO)}")
    args = parser.parse_args()
    start, load = time.perf_counter(), os.getloadavg()
    path = args.data / FILE
    weights = json.loads(WEIGHTS_PATH.read_text(encoding="utf-8"))
    scored = measure(sample_rows(path, args.limit))
    record = {"data": "SummaC's labelled news summaries", "file": FILE,
              "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "seed": SEED, "limit": args.limit,
              "detector_sha256": domain.model_digest(weights), **figures(scored, args.limit)}
    doc = {"generated_by": "benchmarks/bench_cascade_domain.py", "out_of_domain": [record]}
    if args.write:
        domain.OUT_OF_DOMAIN_PATH.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        ROWS_PATH.parent.mkdir(parents=True, exist_ok=True)
        ROWS_PATH.write_text(json.dumps({"columns": ["id", "probability", "confidence", "flagged", "hallucinated"],
                                         "rows": scored}, separators=(",", ":")) + "\n", encoding="utf-8")
    print(json.dumps(doc, indent=1))
    print(f"Machine: {os.cpu_count()} CPUs; load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{time.perf_counter() - start:.0f} s wall.")


if __name__ == "__main__":
    main()
