"""MLQA's token F1 / EM vectors through the real command line: rows from pairs, one `genevals run`, results back
in the pairs' order, and whether a result is MLQA's value exactly."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUBSET = REPO / "tests" / "data" / "mlqa" / "mlqa_f1_subset.jsonl"
SHARED = REPO.parent / "shared" / "vectors" / "multilingual" / "mlqa_f1_vectors.jsonl"
LANGUAGES = ("ar", "de", "en", "es", "hi", "vi", "zh")


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def genevals(*args: str, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], check=False, capture_output=True, text=True,
                          env=env or dict(os.environ), timeout=timeout)


def run(tmp_path: Path, pairs: list[dict], *args: str, language_field: bool = False,
        metrics: str = "token_f1,exact_match", name: str = "pairs", env: dict | None = None) -> list[dict]:
    """Each pair as a row (answer = prediction, one reference = gold; with ``language_field`` its ``language``),
    scored by ``genevals run``; the rows' metric results in the pairs' order."""
    rows = tmp_path / f"{name}.jsonl"
    with rows.open("w", encoding="utf-8") as out:
        for i, pair in enumerate(pairs):
            row = {"id": str(i), "answer": pair["prediction"], "references": [pair["gold"]]}
            if language_field:
                row["language"] = pair["lang"]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    folder = tmp_path / f"{name}-out"
    done = genevals("run", str(rows), "-m", metrics, "-o", str(folder), "-q", *args, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    results = {r["id"]: r["metrics"] for r in load(folder / "results.jsonl")}
    return [results[str(i)] for i in range(len(pairs))]


def exact(pair: dict, metrics: dict) -> bool:
    """MLQA's values: F1 to 1e-12 (the script's own float operations give the very bits), EM exactly."""
    f1, em = metrics["token_f1"], metrics["exact_match"]
    return (f1["status"] == em["status"] == "ok" and abs(f1["value"] - pair["f1"]) <= 1e-12
            and em["value"] == pair["em"])


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of k successes in n (95% by default)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half
