"""The language gate (``wrong_language``) on people's text in 7 languages: XQuAD's answers in their context
windows (``../shared/vectors/multilingual/mlqa_f1_vectors.jsonl``, kind ``window``: a gold answer with up to 25
characters of its Wikipedia paragraph on each side; ar, de, en, es, hi, vi, zh), each checked as an item's
question and reference.

- **kept in its own language** (the gate's false rejections): each text with its own language expected;
- **rejected in another** (its true rejections): each text with a different language expected, English for the
  non-English texts and German for the English ones (the hardest pair for Latin script is a Latin one).

Both with Wilson 95% intervals, per language. The trivial baseline, "keep everything", keeps 100% in its own
language and rejects 0% in another. The texts are shorter than most questions a generator writes, so these
figures are the gate's floor, not its typical case. Written to benchmarks/gates_language.json (the test
tests/generate/gates/test_measured.py checks it is what this script measures).

    python benchmarks/bench_gates_language.py            # prints the figures as JSON
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gates_standalone import wilson  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
VECTORS = REPO.parent / "shared" / "vectors" / "multilingual" / "mlqa_f1_vectors.jsonl"


def texts(path: Path = VECTORS) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["kind"] == "window":
            out.setdefault(row["lang"], []).append(row["prediction"])
    return {lang: list(dict.fromkeys(found)) for lang, found in sorted(out.items())}


def measure(path: Path = VECTORS) -> dict:
    sys.path.insert(0, str(REPO))
    from genevals.generate.gates import GateContext
    from genevals.generate.gates.language import check
    from genevals.generate.items import Chunk, Item

    chunk = Chunk("d#0", "d", 0, "x", 0, 1)
    out = {}
    for lang, found in texts(path).items():
        other = "de" if lang == "en" else "en"
        own, foreign = GateContext.build([chunk], language=lang), GateContext.build([chunk], language=other)
        items = [Item(f"i{n}", "fact", text, text, ("d#0",)) for n, text in enumerate(found)]
        kept = sum(check(i, own).status == "passed" for i in items)
        rejected = sum(check(i, foreign).status == "wrong_language" for i in items)
        n = len(items)
        out[lang] = {"n": n, "other": other,
                     "kept_in_own": {"share": round(kept / n, 4), "ci": [round(x, 4) for x in wilson(kept, n)]},
                     "rejected_in_other": {"share": round(rejected / n, 4),
                                           "ci": [round(x, 4) for x in wilson(rejected, n)]}}
    return out


if __name__ == "__main__":
    print(json.dumps(measure(), indent=1))
