"""Benchmark (issue 40): ``genevals run --qrels Q --run R`` at TREC scale against pytrec_eval, end to end.

    python benchmarks/bench_trec_scale.py [--sizes 2000x1000,7000x1000] [--rounds 3] [--keep DIR] [--jsonl N]
    python benchmarks/bench_trec_scale.py --keep DIR --check   # then: every shared value against pytrec_eval
    python benchmarks/bench_trec_scale.py --sizes "" --jsonl 10000 --before DIR   # DIR: an older checkout, too

For each size a synthetic collection is generated (seed fixed; 12 judged documents per topic, grades 0-3, half of
them among the retrieved; scores rounded to 3 decimals, so ties occur). Then, interleaved, round after round:
  * genevals: ``python -m genevals run --qrels Q --run R --no-history -q -o OUT`` as a real process (parse, rank,
    score, bootstrap, results.jsonl, summary.json, the report);
  * pytrec_eval: a child process that parses both files with pytrec_eval's own parsers and evaluates map,
    recip_rank, ndcg_cut, P, recall and success (the measures genevals' retrieval family shares).
Then the same for a 10,000-query retrieval-only genevals JSONL file (20 contexts a query; ``--jsonl``):
``genevals run FILE -m retrieval`` (the columnar path, :mod:`genevals.input.rows_columns`) against a child that
reads the file into pytrec_eval's dicts with ``json`` and evaluates the same measures; and, timed inside their
processes after the imports, pytrec_eval's evaluation of the dicts already built ("prepared dicts") and
``genevals.evaluate(FILE, ["retrieval"])`` with ``keep_samples=False`` (the columnar path) and with the default
``keep_samples=True`` (a SampleResult per query: the per-sample path). ``--before DIR`` adds the
same genevals command run from another checkout (``git archive`` of an older commit), in the same rounds.
Each timing is the child's wall time; peak memory is the child's maximum RSS (resource.getrusage of the children
of a fresh interpreter that runs only that one command). Prints a Markdown table with the machine's load before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
JUDGED = 12
SEED = 40

PYTREC = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(sys.argv[2]) as f:
    run = pytrec_eval.parse_run(f)
measures = {"map", "recip_rank", "ndcg_cut", "P", "recall", "success"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
assert len(results) == len(run)
"""


PYTREC_JSONL = """
import json, sys, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        row = json.loads(line)
        qrels[row["id"]] = row["relevant"]
        run[row["id"]] = {c["id"]: float(-i) for i, c in enumerate(row["contexts"])}
measures = {"map", "recip_rank", "ndcg_cut", "P", "recall", "success"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
assert len(results) == len(run)
"""


#: in-process timings printed by the child (seconds, after its imports): pytrec_eval on dicts already built from
#: the JSONL file (the "prepared dicts" of the issue), and genevals.evaluate on the file itself
PYTREC_PREPARED = PYTREC_JSONL.replace("measures = ", "import time\nstarted = time.perf_counter()\nmeasures = ") + \
    "print(time.perf_counter() - started)\n"
GENEVALS_API = """
import sys, time, genevals
started = time.perf_counter()
results = genevals.evaluate(sys.argv[1], ["retrieval"], keep_samples=sys.argv[2] == "keep")
assert results.summary()["n_samples"] > 0
print(time.perf_counter() - started)
"""


def in_process(command: list[str], root: Path = ROOT) -> float:
    """The seconds a child prints (its own in-process timing)."""
    done = subprocess.run(command, cwd=root, env={**os.environ, "PYTHONPATH": str(root)}, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return float(done.stdout.strip().splitlines()[-1])


def generate_jsonl(folder: Path, queries: int, depth: int = 20, seed: int = SEED) -> Path:
    """A retrieval-only genevals JSONL file: per query its ranked context ids and graded relevant ids."""
    path = folder / f"retrieval-{queries}x{depth}.jsonl"
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    with open(path, "w") as f:
        for q in range(queries):
            docs = rng.choice(50_000, size=depth, replace=False)
            pool = np.unique(np.concatenate([rng.choice(docs, 4, replace=False), rng.choice(50_000, 4)]))
            relevant = {f"d{d}": int(g) for d, g in zip(pool, rng.integers(0, 4, size=len(pool)))}
            f.write(json.dumps({"id": f"q{q}", "answer": "", "contexts": [{"id": f"d{d}"} for d in docs],
                                "relevant": relevant}) + "\n")
    return path


def generate(folder: Path, topics: int, depth: int, seed: int = SEED) -> tuple[Path, Path]:
    """A qrels file (JUDGED documents per topic, half of them retrieved) and a run (``depth`` per topic, written
    in rank order, as retrieval systems write them)."""
    qrels, run = folder / f"qrels-{topics}x{depth}.txt", folder / f"run-{topics}x{depth}.txt"
    if qrels.exists() and run.exists():
        return qrels, run
    rng = np.random.default_rng(seed)
    with open(qrels, "w") as q, open(run, "w") as r:
        for t in range(topics):
            docs = rng.choice(1_000_000, size=depth, replace=False)
            scores = np.round(rng.normal(size=depth) * 10, 3)
            order = np.argsort(-scores, kind="stable")
            pool = np.unique(np.concatenate([rng.choice(docs, JUDGED // 2, replace=False),
                                             rng.choice(1_000_000, JUDGED - JUDGED // 2)]))
            grades = rng.integers(0, 4, size=len(pool))
            q.write("".join(f"q{t} 0 d{d} {g}\n" for d, g in zip(pool, grades)))
            r.write("".join(f"q{t} Q0 d{docs[i]} {k + 1} {float(scores[i])!r} bench\n" for k, i in enumerate(order)))
    return qrels, run


def check(folder: Path, size: str) -> tuple[int, float]:
    """Every measure genevals and pytrec_eval both compute, per topic, from genevals' results.jsonl of ``size``
    (its default cutoffs 1, 3, 5, 10) against pytrec_eval on the same files: (values compared, largest gap)."""
    import pytrec_eval

    topics, depth = (int(x) for x in size.split("x"))
    qrels_path, run_path = generate(folder, topics, depth)
    with open(qrels_path) as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    with open(run_path) as handle:
        run = pytrec_eval.parse_run(handle)
    cuts = (1, 3, 5, 10)
    shared = {"map": "map", "recip_rank": "mrr"}
    for k in cuts:
        shared.update({f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}", f"ndcg_cut_{k}": f"ndcg@{k}",
                       f"success_{k}": f"hit_rate@{k}"})
    text = ",".join(map(str, cuts))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", f"ndcg_cut.{text}", f"P.{text}",
                                                       f"recall.{text}", f"success.{text}"}).evaluate(run)
    del qrels, run
    compared, gap = 0, 0.0
    with open(folder / f"out-{size}" / "results.jsonl") as handle:
        for line in handle:
            row = json.loads(line)
            if row["metrics"]["map"]["status"] != "ok":  # no relevant judgement: trec_eval skips it too
                continue
            for theirs, ours in shared.items():
                gap = max(gap, abs(reference[row["id"]][theirs] - row["metrics"][ours]["value"]))
                compared += 1
    return compared, gap


def child(command: list[str], root: Path = ROOT) -> float:
    """Wall seconds of one child process, with genevals from ``root``."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds


def peak_of(command: list[str]) -> float:
    """Peak RSS (MB) of one run of ``command``, in a fresh interpreter that measures only its own child."""
    probe = ("import resource, subprocess, sys, os; subprocess.run(sys.argv[1:], check=True, "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *command], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return int(out.stdout.strip()) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="2000x1000,7000x1000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", default=None, help="folder for the generated files (kept between runs)")
    parser.add_argument("--check", action="store_true", help="only compare each size's results with pytrec_eval "
                        "(after a run with the same --keep)")
    parser.add_argument("--jsonl", type=int, default=10_000, help="queries of the retrieval JSONL row (0: none)")
    parser.add_argument("--before", default=None, help="another genevals checkout, timed in the same rounds")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_trec_"))
    folder.mkdir(parents=True, exist_ok=True)
    if args.check:
        for size in args.sizes.split(","):
            compared, gap = check(folder, size)
            print(f"{size}: {compared:,} values compared with pytrec_eval, largest difference {gap:.3g}")
        return
    # genevals' modules compiled to bytecode first, as pip does when it installs them (PYTHONDONTWRITEBYTECODE, set
    # here, would otherwise have every genevals child compile ~190 modules: 0.3-0.6 s a run; pytrec_eval is C++)
    before = Path(args.before).resolve() if args.before else None
    for root in (ROOT, before) if before else (ROOT,):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "genevals")], check=True,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    info = machine()
    print(f"{info['cpu']}, {info['nproc']} cores, python {info['python']}; load before: {info['load']}")
    rows = []
    cases = [size for size in args.sizes.split(",") if size] + ([f"jsonl{args.jsonl}"] if args.jsonl else [])
    for size in cases:
        if size.startswith("jsonl"):  # genevals' own input, retrieval only; pytrec_eval reads it into its dicts
            data = generate_jsonl(folder, args.jsonl)
            topics, depth = args.jsonl, 20
            ours = [sys.executable, "-m", "genevals", "run", str(data), "-m", "retrieval", "--no-history", "-q",
                    "-o", str(folder / f"out-{size}")]
            theirs = [sys.executable, "-c", PYTREC_JSONL, str(data)]
        else:
            topics, depth = (int(x) for x in size.split("x"))
            qrels, run = generate(folder, topics, depth)
            ours = [sys.executable, "-m", "genevals", "run", "--qrels", str(qrels), "--run", str(run),
                    "--no-history", "-q", "-o", str(folder / f"out-{size}")]
            theirs = [sys.executable, "-c", PYTREC, str(qrels), str(run)]
        times: dict[str, list[float]] = {"genevals": [], "pytrec_eval": []}
        if before:
            times["before"] = []
        jsonl = size.startswith("jsonl")
        if jsonl:  # in-process timings too (after imports): what a user calling either library sees
            for name in ("pytrec_eval prepared dicts, in-process", "genevals.evaluate, in-process",
                         "genevals.evaluate keep_samples, in-process"):
                times[name] = []
        for _ in range(args.rounds):  # interleaved: a change in the machine's load hits both
            times["genevals"].append(child(ours))
            times["pytrec_eval"].append(child(theirs))
            if before:
                times["before"].append(child(ours[:-1] + [ours[-1] + "-before"], before))
            if jsonl:
                times["pytrec_eval prepared dicts, in-process"].append(
                    in_process([sys.executable, "-c", PYTREC_PREPARED, str(data)]))
                times["genevals.evaluate, in-process"].append(
                    in_process([sys.executable, "-c", GENEVALS_API, str(data), "columns"]))
                times["genevals.evaluate keep_samples, in-process"].append(
                    in_process([sys.executable, "-c", GENEVALS_API, str(data), "keep"]))
        peaks = {"genevals": peak_of(ours), "pytrec_eval": peak_of(theirs)}
        best = {k: min(v) for k, v in times.items()}
        rows.append((size, topics * depth, best, {k: statistics.median(v) for k, v in times.items()}, peaks))
        print(f"{size}: " + ", ".join(f"{k} {[round(t, 2) for t in v]}" for k, v in times.items())
              + f", peaks {peaks}, load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| collection | lines | genevals s (best / median) | pytrec_eval s (best / median) | speed ratio "
          "(pytrec_eval / genevals, best) | genevals peak MB | pytrec_eval peak MB |")
    print("|---|---|---|---|---|---|---|")
    for size, lines, best, median, peaks in rows:
        print(f"| {size} | {lines:,} | {best['genevals']:.2f} / {median['genevals']:.2f} | "
              f"{best['pytrec_eval']:.2f} / {median['pytrec_eval']:.2f} | "
              f"{best['pytrec_eval'] / best['genevals']:.2f}x | {peaks['genevals']:.0f} | {peaks['pytrec_eval']:.0f} |")
    for size, lines, best, median, peaks in rows:  # the other timings of each case (before, in-process)
        for name in best:
            if name not in ("genevals", "pytrec_eval"):
                print(f"{size}: {name} best {best[name]:.3f} s, median {median[name]:.3f} s")


if __name__ == "__main__":
    main()
