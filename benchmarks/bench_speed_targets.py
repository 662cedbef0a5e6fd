"""Benchmark (issue 51): every speed target of the issue measured in one run, interleaved round by round.

    python benchmarks/bench_speed_targets.py [--rounds 3] [--keep DIR] [--only files,trec,lexical,report]
    python benchmarks/bench_speed_targets.py --queries 500 --trec 100x1000 --pairs 100 --samples 500 --rounds 1

The targets (issue 51, points 1-3), each genevals against its reference, in the same rounds so that a change in
the machine's load hits both sides:
  (a) ``files``: a ``--queries`` x 20-context retrieval-only file (:func:`bench_trec_scale.generate_jsonl`) as
      JSONL, CSV (``--map contexts[].id=retrieved``, the ids and ``relevant`` as JSON cells) and Parquet
      (``contexts`` a list of ``{"id"}``, ``relevant`` a map column): ``genevals run FILE -m retrieval`` as a
      whole process against a pytrec_eval process that reads the same file (``json`` per line / ``csv`` +
      ``json`` per cell / ``pyarrow``) into its dicts and evaluates the measures genevals' retrieval family
      shares (the child of ``bench_trec_scale.py``). Target: pytrec_eval / genevals >= 1.5.
  (b) ``trec``: ``--trec`` topics x depth TREC lines (``bench_trec_scale.generate``: 2,000 x 1,000 = 2 million
      lines), ``genevals run --qrels Q --run R`` against pytrec_eval's own parsers and evaluation. Target >= 1.5.
  (c) ``lexical``: ``--pairs`` pairs of distinct ~850-char texts (``bench_lexical.make_pairs`` with seed 101, the
      goals' "texts that never repeat"), rows with no ``language`` field, so the default ``--language auto``
      detects each sample: ``genevals.evaluate(rows, [token_f1, rouge, bleu], workers=1)`` against the direct
      rouge-score + ``sentence_bleu`` + SQuAD F1 loop (target >= 10), and ``Bleu().score`` against
      ``sacrebleu.sentence_bleu`` (target >= 2.5); each timed inside a fresh process after its imports (so the
      language model's load is genevals' cost), values asserted identical (``==``).
  (d) ``report``: the report's share of the wall time of a ``--samples``-sample ``genevals run`` (the retrieval
      JSONL of (a) and a lexical JSONL of distinct pairs): the command run in a process that wraps the run's
      report step (:meth:`genevals.lifecycle.course.Lifecycle._report`: the report's data and page) in a timer.
      Target <= 20%.
After the rounds, every value genevals wrote for (a) and (b) is compared with pytrec_eval's (in this process).
Each timing is a whole child process (its wall time), but for (c), timed inside its child. The machine's load
average is printed before and after, with the machine (:func:`machine.machine`); a Markdown table at the end.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_trec_scale as trec  # noqa: E402
from machine import machine  # noqa: E402

ROOT = HERE.parent
# bytecode written and read as an installed package's is (see bench_trec_scale.main)
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "HF_HUB_OFFLINE": "1",
       "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
LEXICAL = ["token_f1", "rouge", "bleu"]
PAIRS_SEED = 101
CUTS = (1, 3, 5, 10)  # genevals' default cutoffs

# pytrec_eval's side of (a): the same file read into its dicts, then bench_trec_scale's evaluation
_EVALUATE = """
measures = {"map", "recip_rank", "ndcg_cut", "P", "recall", "success"}
results = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
assert len(results) == len(run)
if len(sys.argv) > 2:  # a check, not a timing: the values, for the parent to compare
    with open(sys.argv[2], "w") as f:
        json.dump(results, f)
"""
PYTREC_FILES = {
    "jsonl": trec.PYTREC_JSONL.split("measures = ")[0] + _EVALUATE,
    "csv": """
import csv, json, sys, pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1], newline="") as f:
    for row in csv.DictReader(f):
        qrels[row["id"]] = json.loads(row["relevant"])
        run[row["id"]] = {d: float(-i) for i, d in enumerate(json.loads(row["retrieved"]))}
""" + _EVALUATE,
    "parquet": """
import json, sys, pytrec_eval, pyarrow.parquet as pq
qrels, run = {}, {}
table = pq.read_table(sys.argv[1], columns=["id", "contexts", "relevant"])
for q, contexts, relevant in zip(*(table.column(c).to_pylist() for c in ("id", "contexts", "relevant"))):
    qrels[q] = dict(relevant)
    run[q] = {c["id"]: float(-i) for i, c in enumerate(contexts)}
""" + _EVALUATE,
}

# (c): one side timed in a fresh process after its imports; prints seconds and its values (JSON)
LEXICAL_CHILD = """
import json, sys, time
import sacrebleu
from rouge_score import rouge_scorer
from bench_lexical import _official_f1, make_pairs
import genevals
from genevals.metrics.lexical.bleu import Bleu
from genevals.types import Sample

kind, side, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
pairs = make_pairs(n, seed=int(sys.argv[4]))
if kind == "lexical" and side == "direct":
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    def job():  # bench_pipeline.direct_loop, keeping every value it computes
        out = []
        for answer, reference in pairs:
            rouge = scorer.score(reference, answer)
            bleu = sacrebleu.sentence_bleu(answer, [reference]).score
            out.append([_official_f1(answer, reference), rouge["rouge1"].fmeasure, rouge["rouge2"].fmeasure,
                        rouge["rougeL"].fmeasure, min(bleu / 100, 1.0)])
        return out
elif kind == "lexical":
    rows = [{"id": i, "answer": a, "references": [r]} for i, (a, r) in enumerate(pairs)]  # no language: auto
    names = ("token_f1", "rouge1", "rouge2", "rougeL", "bleu")
    def job():
        return [[s.metrics[k].value for k in names] for s in genevals.evaluate(rows, sys.argv[5].split(","),
                                                                                 workers=1)]
elif side == "direct":
    def job():
        return [min(sacrebleu.sentence_bleu(a, [r]).score / 100, 1.0) for a, r in pairs]
else:
    samples = [Sample(id=str(i), answer=a, references=(r,)) for i, (a, r) in enumerate(pairs)]  # no language
    def job():
        return [res["bleu"].value for res in Bleu().score(samples)]
started = time.perf_counter()
values = job()
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "values": values}))
"""

# (d): `genevals run ARGS` in this process, with the run's report step timed (the phase it is)
REPORT_CHILD = """
import sys, time
started = time.perf_counter()
from genevals.lifecycle.course import Lifecycle
spent = []
inner = Lifecycle._report
def timed(self, results):
    began = time.perf_counter()
    try:
        return inner(self, results)
    finally:
        spent.append(time.perf_counter() - began)
Lifecycle._report = timed
from genevals.cli import main
code = main(sys.argv[1:])
assert code == 0, code
print(sum(spent), time.perf_counter() - started)
"""


def write_formats(folder: Path, queries: int) -> dict[str, Path]:
    """The retrieval JSONL of ``bench_trec_scale`` and the same rows as CSV and Parquet."""
    jsonl = trec.generate_jsonl(folder, queries)
    paths = {"jsonl": jsonl, "csv": jsonl.with_suffix(".csv"), "parquet": jsonl.with_suffix(".parquet")}
    if paths["csv"].exists() and paths["parquet"].exists():
        return paths
    import csv

    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in jsonl.open()]
    with open(paths["csv"], "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "answer", "retrieved", "relevant"])
        for r in rows:
            writer.writerow([r["id"], r["answer"], json.dumps([c["id"] for c in r["contexts"]]),
                             json.dumps(r["relevant"])])
    pq.write_table(pa.table({
        "id": [r["id"] for r in rows], "answer": [r["answer"] for r in rows],
        "contexts": [r["contexts"] for r in rows],
        # a map column, not a struct: pyarrow would make a struct of every document id in the file
        "relevant": pa.array([list(r["relevant"].items()) for r in rows], type=pa.map_(pa.string(), pa.int64()))}),
        paths["parquet"])
    return paths


def write_pairs(folder: Path, n: int) -> Path:
    """``n`` distinct pairs as a genevals JSONL file (no language field: the default detection)."""
    import bench_lexical

    path = folder / f"pairs-{n}.jsonl"
    if not path.exists():
        path.write_text("".join(json.dumps({"id": i, "answer": a, "references": [r]}) + "\n" for i, (a, r)
                                in enumerate(bench_lexical.make_pairs(n, seed=PAIRS_SEED))), encoding="utf-8")
    return path


def timed(command: list[str]) -> float:
    """Wall seconds of one child process."""
    return trec.child(command, ROOT)


def printed(command: list[str]) -> str:
    """The last line a child prints (it fails loudly)."""
    done = subprocess.run(command, cwd=ROOT, env=ENV, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{command[:5]} failed ({done.returncode}): {done.stderr[-3000:]}")
    return (done.stdout.strip().splitlines() or [""])[-1]


def compare_files(folder: Path, paths: dict[str, Path], outs: dict[str, Path]) -> str:
    """Each format's results.jsonl against pytrec_eval on the JSONL file, and each pytrec_eval child's values
    against the same: (values compared, largest difference) per format."""
    import pytrec_eval

    qrels, run = {}, {}
    for line in paths["jsonl"].open():
        row = json.loads(line)
        qrels[row["id"]] = row["relevant"]
        run[row["id"]] = {c["id"]: float(-i) for i, c in enumerate(row["contexts"])}
    text = ",".join(map(str, CUTS))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", f"ndcg_cut.{text}", f"P.{text}",
                                                       f"recall.{text}", f"success.{text}"}).evaluate(run)
    shared = {"map": "map", "recip_rank": "mrr"}
    for k in CUTS:
        shared.update({f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}", f"ndcg_cut_{k}": f"ndcg@{k}",
                       f"success_{k}": f"hit_rate@{k}"})
    said = []
    for kind, out in outs.items():
        compared, gap = 0, 0.0
        with open(out / "results.jsonl") as handle:
            for line in handle:
                row = json.loads(line)
                assert row["metrics"]["map"]["status"] == "ok", row["id"]  # every query has a relevant one
                for theirs, ours in shared.items():
                    gap = max(gap, abs(reference[row["id"]][theirs] - row["metrics"][ours]["value"]))
                    compared += 1
        assert compared == len(reference) * len(shared), (kind, compared)
        dumped = folder / f"pytrec-{kind}.json"
        printed([sys.executable, "-c", PYTREC_FILES[kind], str(paths[kind]), str(dumped)])
        same = json.loads(dumped.read_text()) == json.loads(json.dumps(
            pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "ndcg_cut", "P", "recall", "success"})
            .evaluate(run)))
        assert same, f"pytrec_eval read {kind} into other dicts"
        said.append(f"{kind}: {compared:,} genevals values against pytrec_eval, largest difference {gap:.3g}; "
                    "pytrec_eval's child read the same dicts")
    return "; ".join(said)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep", default=None, help="folder for the generated files (kept between runs)")
    parser.add_argument("--queries", type=int, default=10_000, help="queries of the retrieval files (a), (d)")
    parser.add_argument("--trec", default="2000x1000", help="topics x depth of the TREC files (b)")
    parser.add_argument("--pairs", type=int, default=2_000, help="distinct pairs of (c)")
    parser.add_argument("--samples", type=int, default=10_000, help="samples of the lexical run of (d)")
    parser.add_argument("--only", default="files,trec,lexical,report")
    args = parser.parse_args()
    only = set(args.only.split(","))
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_speed_"))
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "genevals")], check=True, env=ENV)
    info = machine()
    print(f"{info['cpu']}, {info['nproc']} cores, {info['memory']}, python {info['python']}; {info['libs']}")
    print(f"load before: {info['load']}", flush=True)

    run = [sys.executable, "-m", "genevals", "run"]
    quiet = ["--no-history", "-q", "-o"]
    cases: dict[str, tuple[list[str], list[str]]] = {}  # name -> (genevals, reference)
    outs: dict[str, Path] = {}
    if "files" in only:
        paths = write_formats(folder, args.queries)
        for kind, path in paths.items():
            outs[kind] = folder / f"out-{kind}"
            mapped = ["--map", "contexts[].id=retrieved"] if kind == "csv" else []
            cases[f"{kind}, {args.queries:,} x 20"] = (
                run + [str(path), "-m", "retrieval", *mapped, *quiet, str(outs[kind])],
                [sys.executable, "-c", PYTREC_FILES[kind], str(path)])
    if "trec" in only:
        topics, depth = (int(x) for x in args.trec.split("x"))
        qrels, ranked = trec.generate(folder, topics, depth)
        cases[f"TREC, {topics * depth:,} lines"] = (
            run + ["--qrels", str(qrels), "--run", str(ranked), *quiet, str(folder / f"out-{args.trec}")],
            [sys.executable, "-c", trec.PYTREC, str(qrels), str(ranked)])
    lexical = {}
    if "lexical" in only:
        lexical = {name: [[sys.executable, "-c", LEXICAL_CHILD, kind, side, str(args.pairs), str(PAIRS_SEED),
                           ",".join(LEXICAL)] for side in ("genevals", "direct")]
                   for name, kind in (("lexical (ROUGE-1/2/L, BLEU, token F1)", "lexical"),
                                      ("BLEU alone", "bleu"))}
    report = {}
    if "report" in only:
        retrieval = trec.generate_jsonl(folder, args.queries)
        report[f"retrieval JSONL, {args.queries:,} queries"] = [
            sys.executable, "-c", REPORT_CHILD, "run", str(retrieval), "-m", "retrieval", *quiet,
            str(folder / "out-report-retrieval")]
        report[f"lexical JSONL, {args.samples:,} samples"] = [
            sys.executable, "-c", REPORT_CHILD, "run", str(write_pairs(folder, args.samples)), "-m",
            ",".join(LEXICAL), *quiet, str(folder / "out-report-lexical")]

    times: dict[str, dict[str, list[float]]] = {name: {"genevals": [], "reference": []} for name in cases}
    times.update({name: {"genevals": [], "reference": []} for name in lexical})
    shares: dict[str, list[tuple[float, float]]] = {name: [] for name in report}
    values: dict[str, dict[str, str]] = {name: {} for name in lexical}
    for r in range(args.rounds):
        for name, (ours, theirs) in cases.items():  # which goes first alternates round by round
            for side, command in ((("genevals", ours), ("reference", theirs)) if r % 2 == 0 else
                                  (("reference", theirs), ("genevals", ours))):
                times[name][side].append(timed(command))
        for name, commands in lexical.items():
            sides = list(zip(("genevals", "reference"), commands))
            for side, command in sides if r % 2 == 0 else sides[::-1]:
                got = json.loads(printed(command))
                times[name][side].append(got["seconds"])
                values[name][side] = json.dumps(got["values"])
        for name, command in report.items():
            report_s, total_s = (float(x) for x in printed(command).split())
            shares[name].append((report_s, total_s))
        print(f"round {r + 1}: " + "; ".join(f"{name}: " + ", ".join(f"{side} {v[-1]:.3f}" for side, v in t.items())
                                              for name, t in times.items())
              + "; " + "; ".join(f"{name}: report {s[-1][0]:.2f} of {s[-1][1]:.2f} s" for name, s in shares.items())
              + f"; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for name, got in values.items():
        assert got["genevals"] == got["reference"], f"{name}: genevals' values differ from the direct loop's"
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load after: {load_after}")
    if "files" in only:
        print("values: " + compare_files(folder, paths, outs))
    if "trec" in only:
        compared, gap = trec.check(folder, args.trec)
        print(f"values: TREC: {compared:,} genevals values against pytrec_eval, largest difference {gap:.3g}")
    if lexical:
        print(f"values: lexical and BLEU: every value of {args.pairs:,} pairs identical (==) to the direct loop's")

    targets = {"lexical (ROUGE-1/2/L, BLEU, token F1)": 10.0, "BLEU alone": 2.5}
    print(f"\nload before {info['load']}, after {load_after}; {args.rounds} rounds\n")
    print("| target | genevals s (best / median) | reference s (best / median) | ratio (reference / genevals; best, "
          "median) | target | met |")
    print("|---|---|---|---|---|---|")
    for name, t in times.items():
        goal = targets.get(name, 1.5)
        best = min(t["reference"]) / min(t["genevals"])
        median = statistics.median(t["reference"]) / statistics.median(t["genevals"])
        print(f"| {name} | {min(t['genevals']):.3f} / {statistics.median(t['genevals']):.3f} | "
              f"{min(t['reference']):.3f} / {statistics.median(t['reference']):.3f} | {best:.2f}x, {median:.2f}x | "
              f">= {goal}x | {'yes' if median >= goal else 'no'} |")
    for name, s in shares.items():
        part = [a / b for a, b in s]
        print(f"| report's share, {name} | {statistics.median(b for _, b in s):.2f} s (median run) | "
              f"report {statistics.median(a for a, _ in s):.2f} s | {min(part):.1%} best, {statistics.median(part):.1%} "
              f"median | <= 20% | {'yes' if statistics.median(part) <= 0.2 else 'no'} |")


if __name__ == "__main__":
    main()
