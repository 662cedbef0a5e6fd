"""Do worker processes pay? `genevals run` on a large JSONL file, whole process, with --workers 1, --workers 2 and
the automatic choice (no --workers), taken alternately in fresh processes; medians per setting.

    python benchmarks/bench_workers.py                  # lexical 20,000 pairs and retrieval 40,000 rows, 3 runs each
    python benchmarks/bench_workers.py --smoke          # tiny, to check it runs
    python benchmarks/bench_workers.py --before DIR     # also time a checkout of an older genevals (PYTHONPATH=DIR)

Worker processes read, validate, score and write whole chunks (genevals/engine/pipeline.py); with --before, the
older code's workers (scoring only, with parsing and recording in the parent) are timed the same way. Every run's
results.jsonl is compared byte for byte with the --workers 1 run's.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))


def _write_inputs(folder: Path, n_lexical: int, n_retrieval: int) -> dict[str, tuple[Path, str]]:
    import bench_lexical
    import bench_retrieval

    lexical = folder / "lexical.jsonl"
    with open(lexical, "w", encoding="utf-8") as out:
        for i, (a, r) in enumerate(bench_lexical.make_pairs(n_lexical)):
            out.write(json.dumps({"id": i, "answer": a, "references": [r]}) + "\n")
    retrieval = folder / "retrieval.jsonl"
    samples, _, _ = bench_retrieval.make_data(n_retrieval, 20)
    with open(retrieval, "w", encoding="utf-8") as out:
        for s in samples:
            out.write(json.dumps(s.to_dict()) + "\n")
    return {f"lexical {n_lexical:,} pairs (token_f1, rouge, bleu)": (lexical, "token_f1,rouge,bleu"),
            f"retrieval {n_retrieval:,} rows x 20 contexts": (retrieval, "retrieval")}


def _run(code: Path, data: Path, metrics: str, workers: str | None, out: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(code), "HF_HUB_OFFLINE": "1"}
    argv = [sys.executable, "-m", "genevals", "run", str(data), "--metrics", metrics, "--out", str(out), "-q"]
    if workers is not None:
        argv += ["--workers", workers]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr[-3000:]}")
    return seconds, hashlib.sha256((out / "results.jsonl").read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, help="an older checkout of genevals to time beside this one")
    parser.add_argument("--lexical", type=int, default=20_000, help="lexical pairs")
    parser.add_argument("--retrieval", type=int, default=40_000, help="retrieval rows")
    args = parser.parse_args()
    n_lex, n_ret = (2500, 2500) if args.smoke else (args.lexical, args.retrieval)
    settings = [("now", "1"), ("now", "2"), ("now", None)]
    if args.before:
        settings += [("before", "2"), ("before", None)]
    code = {"now": REPO, "before": args.before}
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, (data, metrics) in _write_inputs(tmp, n_lex, n_ret).items():
            times: dict[tuple, list[float]] = {s: [] for s in settings}
            digests = set()
            load = 0.0
            for r in range(args.repeat):
                for which, workers in settings:
                    seconds, digest = _run(code[which], data, metrics, workers, tmp / f"out{r}{which}{workers}")
                    times[(which, workers)].append(seconds)
                    digests.add(digest)
                    load = max(load, os.getloadavg()[0])
            print(f"\n{name}: results.jsonl identical across settings: {len(digests) == 1}; max load {load:.2f}")
            base = statistics.median(times[("now", "1")])
            for (which, workers), got in times.items():
                m = statistics.median(got)
                label = f"{which}, --workers {workers}" if workers else f"{which}, automatic"
                print(f"  {label:<22} median {m:6.2f} s  ({', '.join(f'{x:.2f}' for x in got)})  "
                      f"{base / m:4.2f}x of --workers 1")
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
