"""The self-containment gate's false positives on people's questions: every distinct human question of Cranfield's
queries (``../shared/datasets/cranfield/queries.tsv``) and of the triad dev sets (``../shared/datasets/triad/*``:
Cranfield, WikiQA, NQ), none of which points at a passage shown with it, run through
:func:`genevals.generate.gates.standalone.find`. A hit is a false positive; the rate comes with its Wilson 95%
interval.

    python benchmarks/bench_gates_standalone.py            # prints the figures as JSON
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "datasets"
Z = 1.959964


def questions(shared: Path = SHARED) -> dict[str, list[str]]:
    """Each source's distinct questions, in file order."""
    out: dict[str, list[str]] = {}
    rows = (shared / "cranfield" / "queries.tsv").read_text(encoding="utf-8").splitlines()
    out["cranfield_queries"] = list(dict.fromkeys(r.split("\t", 1)[1].strip() for r in rows if "\t" in r))
    for path in sorted((shared / "triad").glob("*.jsonl")):
        seen = (json.loads(line)["question"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
        out[path.stem] = list(dict.fromkeys(seen))
    return out


def wilson(k: int, n: int) -> tuple[float, float]:
    """The Wilson score 95% interval of k successes in n."""
    p, z2 = k / n, Z * Z
    centre, half = (p + z2 / (2 * n)) / (1 + z2 / n), Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def measure(shared: Path = SHARED) -> dict:
    sys.path.insert(0, str(REPO))
    from genevals.generate.gates.standalone import find

    by_source = questions(shared)
    every = list(dict.fromkeys(q for qs in by_source.values() for q in qs))
    hits = [(q, find(q)) for q in every]
    hits = [(q, f) for q, f in hits if f is not None]
    low, high = wilson(len(hits), len(every))
    return {"n": len(every), "per_source": {k: len(v) for k, v in by_source.items()},
            "false_positives": len(hits), "rate": len(hits) / len(every), "wilson95": [round(low, 5), round(high, 5)],
            "hits": [{"question": q, "language": f[0], "phrase": f[1]} for q, f in hits]}


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1, ensure_ascii=False))
