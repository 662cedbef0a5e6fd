"""Peak memory of `genevals run` as the input grows: does it stay flat?

Each size runs in a fresh Python process (``genevals.cli.main``, exactly what the command does, with
keep_samples=False) and reports ``resource.getrusage`` ``ru_maxrss`` for that process and, separately, for its
worker processes (RUSAGE_CHILDREN: the largest child). Lexical + retrieval metrics, no BERTScore.

    python benchmarks/bench_memory.py                      # 1,000 / 10,000 / 100,000 samples
    python benchmarks/bench_memory.py --sizes 10000,100000 --metrics exact_match,token_f1,rouge,retrieval
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
METRICS = "exact_match,token_f1,rouge,bleu,retrieval"
WORDS = ("the ferry island harbour crossing minutes sails daily summer winter ticket adult child price return "
         "museum opens closes hours library doctor clinic weekday bus route school market fish wind gusts").split()

CHILD = r"""
import json, resource, sys, time
start = time.perf_counter()
if sys.argv[1] == "cli":  # the command as a user runs it (scoring, summary, then report.html)
    from genevals.cli import main
    code = main(["run", *sys.argv[2:]])
else:  # scoring and summary only: what cmd_run passes to evaluate(), without the HTML report step
    from genevals.api import evaluate
    _, path, _, out, _, _, metrics = sys.argv[1:8]
    evaluate(path, metrics.split(","), out_dir=out, keep_samples=False,
             workers=int(sys.argv[9]) if len(sys.argv) > 9 else None)
    code = 0
print(json.dumps({"code": code, "seconds": time.perf_counter() - start,
                  "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "children_maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def write_dataset(path: Path, n: int, seed: int = 0) -> None:
    """n samples, ~25-word answers and references, 5 contexts with ids and doc ids, 2 relevant labels."""
    rnd = random.Random(seed)
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            ref = " ".join(rnd.choices(WORDS, k=25))
            answer = " ".join(w if rnd.random() < 0.6 else rnd.choice(WORDS) for w in ref.split())
            contexts = [{"id": f"c{i}-{j}", "doc_id": f"https://example.org/{i % 97}/{j}",
                         "text": " ".join(rnd.choices(WORDS, k=40))} for j in range(5)]
            relevant = [f"c{i}-{j}" for j in rnd.sample(range(8), 2)]
            handle.write(json.dumps({"id": f"q{i}", "system": ("a", "b")[i % 2], "question": "what?",
                                     "answer": answer, "references": [ref], "contexts": contexts,
                                     "relevant": relevant}) + "\n")


def measure(path: Path, out: Path, metrics: str, workers: int | None, mode: str = "cli") -> dict:
    args = [mode, str(path), "--out", str(out), "-q", "--metrics", metrics]
    if workers is not None:
        args += ["--workers", str(workers)]
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--metrics", default=METRICS)
    parser.add_argument("--workers", type=int, default=None, help="default: genevals' own choice")
    parser.add_argument("--mode", choices=("cli", "evaluate"), default="cli",
                        help="cli: `genevals run` whole (includes report.html); evaluate: scoring + summary only")
    args = parser.parse_args()
    print(f"mode: {args.mode}; metrics: {args.metrics}; load average {os.getloadavg()[0]:.2f}; python {sys.version.split()[0]}")
    print("| samples | input MB | main peak RSS MB | largest worker peak RSS MB | wall s | samples/s |")
    print("|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            path = Path(tmp) / f"data{n}.jsonl"
            write_dataset(path, n)
            started = time.perf_counter()
            r = measure(path, Path(tmp) / f"out{n}", args.metrics, args.workers, args.mode)
            assert r["code"] == 0, r
            wall = time.perf_counter() - started
            print(f"| {n:,} | {path.stat().st_size / 2**20:.1f} | {r['maxrss_kb'] / 1024:.0f} | "
                  f"{r['children_maxrss_kb'] / 1024:.0f} | {wall:.1f} | {n / r['seconds']:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
