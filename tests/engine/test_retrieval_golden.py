"""A retrieval run's every value pinned: the 32 outputs of each sample (value, status, reason) and the summary
(means, bootstrap intervals, counts) of ``genevals.evaluate(rows, ["retrieval"])`` on rows given in memory, as
genevals computed them before issue #28's speed work (``tests/data/retrieval_golden/golden.json``, written by
``python tests/engine/test_retrieval_golden.py`` on that commit). Reading rows faster must not move one bit."""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "retrieval_golden" / "golden.json"
OPTIONS = {"retrieval": {"cutoffs": (1, 3, 5, 10), "level": "chunk"}}


def rows() -> list[dict]:
    """60 queries: graded labels as ints and floats, no relevant id, no labels, nothing retrieved, repeated ids,
    string contexts, and contexts carrying text and scores."""
    rnd = random.Random(28)
    out = []
    for i in range(60):
        pool = [f"d{j}" for j in range(30)]
        depth = rnd.choice([0, 1, 3, 7, 12, 20])
        ids = [rnd.choice(pool) for _ in range(depth)] if i % 11 == 0 else rnd.sample(pool, depth)
        kind = i % 7
        if kind == 0:
            contexts: list = [{"id": d} for d in ids]
        elif kind == 1:
            contexts = [{"id": d, "text": f"chunk {d}", "score": 1.0 / (r + 1)} for r, d in enumerate(ids)]
        else:
            contexts = [{"id": d, "text": "..."} for d in ids]
        labels = {d: rnd.choice([0, 1, 1, 2, 3]) for d in rnd.sample(pool, rnd.randint(0, 9))}
        if i % 5 == 0:
            labels = {d: float(g) for d, g in labels.items()}
        if i % 13 == 0:
            labels = {d: 0 for d in labels}  # labelled, none relevant
        row = {"id": f"q{i}", "answer": "a", "contexts": contexts, "relevant": labels}
        if i % 17 == 0:
            del row["relevant"]  # no labels at all
        out.append(row)
    return out


def computed() -> dict:
    import genevals

    results = genevals.evaluate(rows(), ["retrieval"], options=OPTIONS, workers=1)
    # a value where it is ok, else [status, reason]
    samples = {r.sample.id: {name: m.value if m.status == "ok" else [m.status, m.reason]
                             for name, m in r.metrics.items()} for r in results.samples}
    return {"samples": samples, "summary": results.summary()["systems"]}


def test_every_retrieval_value_equals_the_golden():
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(computed()))  # as JSON writes them: tuples as lists
    assert len(got["samples"]) == 60 and all(len(v) == 32 for v in got["samples"].values())
    assert got["samples"] == want["samples"]
    assert got["summary"] == want["summary"]


if __name__ == "__main__":  # write the golden (on the commit whose values it pins)
    GOLDEN.write_text(json.dumps(computed(), sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {GOLDEN}", file=sys.stderr)
