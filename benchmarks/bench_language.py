"""Language detection's cost per sample (issue 35): genevals.language.detect on RAGTruth's answers, cold (every
text new) and cached, beside py3langid called directly on the whole text, interleaved in one run.

    python benchmarks/bench_language.py
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "ragtruth_dev.jsonl"


def main() -> None:
    import genevals.language  # noqa: F401  (the package's detect function shadows the module's name)
    detect_module = sys.modules["genevals.language.detect"]
    texts = [json.loads(line)["response"] for line in SHARED.read_text(encoding="utf-8").splitlines()]
    model = detect_module._identifier()
    rounds = {"genevals detect (cold)": [], "py3langid classify (whole text)": [], "genevals detect (cached)": []}
    for _ in range(5):
        detect_module.detect.cache_clear()
        start = time.perf_counter()
        for text in texts:
            detect_module.detect(text)
        rounds["genevals detect (cold)"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            model.classify(text)
        rounds["py3langid classify (whole text)"].append(time.perf_counter() - start)
        start = time.perf_counter()
        for text in texts:
            detect_module.detect(text)
        rounds["genevals detect (cached)"].append(time.perf_counter() - start)
    print(f"{len(texts)} RAGTruth answers, {sum(map(len, texts)) / len(texts):.0f} characters on average; "
          f"load average {os.getloadavg()[0]:.2f}; best of 5")
    for name, times in rounds.items():
        print(f"  {name}: {min(times) / len(texts) * 1e3:.3f} ms per answer")


if __name__ == "__main__":
    main()
