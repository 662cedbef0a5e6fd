"""All benchmarks in one table: genevals next to the libraries called directly, plus the LLM judge.

    python benchmarks/run.py                   # 1,000 and 10,000 samples; writes RESULTS.md sections
    python benchmarks/run.py --smoke           # 50 samples, judge 8 samples at concurrency 1 and 8; writes nothing
    python benchmarks/run.py --bertscore-n 10000 --judge-samples 200
    python benchmarks/run.py --goals           # the goals table (issues #16 and #28), every row in one run (goals.py)

For lexical metrics, retrieval metrics and BERTScore, every measurement (one implementation, one size) runs in a
fresh subprocess: it imports the same modules for both sides, builds the data, then times the scoring and
reports samples/s and peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``; the RSS after imports is shown
too, since imports dominate at small sizes). genevals is measured as a user calls it, ``genevals.evaluate`` with
one process; the direct baselines are:

* lexical (token_f1 + ROUGE-1/2/L + BLEU): rouge-score + sacrebleu + the official SQuAD F1 in one loop
  (``bench_pipeline.direct_loop`` on ``bench_lexical.make_pairs`` data, ~850-character pairs);
* retrieval (10 contexts per sample, cutoffs 1,3,5,10, ``bench_retrieval.make_data``): pytrec_eval-terrier
  (trec_eval's C code) when installed, else a plain Python loop over the same measures;
* BERTScore (default all-MiniLM-L6-v2, layer 5, ``bench_bertscore.workload("shared")``: three systems sharing
  references): one ``bert_score.score`` call. Slow on CPU, so capped at ``--bertscore-n`` (default 1,000).

The judge rows come from ``bench_judge.py`` (FaultServer with 200 ms of latency per call, cache off).
Without ``--smoke`` the "## Summary table" and "## Judge throughput" sections of RESULTS.md are replaced;
nothing else in the file is touched.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from machine import RESULTS, machine

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

SECTION = "## Summary table"
KINDS = ("lexical", "retrieval", "bertscore")


# ---- one measurement, in a fresh process ------------------------------------------------------------------
def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _lexical(impl: str, n: int):
    import bench_lexical
    import bench_pipeline

    import genevals

    pairs = bench_lexical.make_pairs(n)
    if impl == "direct":
        return len(pairs), lambda: bench_pipeline.direct_loop(pairs)
    rows = [{"id": i, "answer": a, "references": [r]} for i, (a, r) in enumerate(pairs)]
    return len(rows), lambda: genevals.evaluate(rows, bench_pipeline.METRICS, workers=1)


def _retrieval(impl: str, n: int):
    import bench_retrieval

    import genevals

    samples, rankings, qrels = bench_retrieval.make_data(n, 10)
    cutoffs = bench_retrieval.CUTOFFS
    if impl == "genevals":
        rows = [s.to_dict() for s in samples]
        options = {"retrieval": {"cutoffs": cutoffs, "level": "chunk"}}
        return len(rows), lambda: genevals.evaluate(rows, ["retrieval"], options=options, workers=1)
    try:
        import pytrec_eval
    except ImportError:
        return len(rankings), lambda: [_plain_retrieval(rankings[q], qrels[q], cutoffs) for q in rankings]
    cuts = ",".join(map(str, cutoffs))
    measures = {"map", "recip_rank", f"P.{cuts}", f"recall.{cuts}", f"ndcg_cut.{cuts}", f"success.{cuts}"}

    def direct():
        # distinct descending scores, so trec_eval keeps the given order (as in bench_retrieval.py)
        run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)

    return len(rankings), direct


def _plain_retrieval(ranking: list[str], labels: dict[str, int], cutoffs) -> dict[str, float]:
    """trec_eval's map, recip_rank, P@k, recall@k, ndcg_cut@k (linear gain) and success@k, in plain Python."""
    import math

    relevant = {d for d, g in labels.items() if g > 0}
    hits, precisions, first = 0, [], 0.0
    for i, d in enumerate(ranking, 1):
        if d in relevant:
            hits += 1
            precisions.append(hits / i)
            first = first or 1 / i
    out = {"map": sum(precisions) / len(relevant) if relevant else 0.0, "recip_rank": first}
    ideal = sorted((g for g in labels.values() if g > 0), reverse=True)
    for k in cutoffs:
        top = ranking[:k]
        got = sum(d in relevant for d in top)
        dcg = sum(labels.get(d, 0) / math.log2(i + 1) for i, d in enumerate(top, 1) if labels.get(d, 0) > 0)
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal[:k], 1))
        out.update({f"P_{k}": got / k, f"recall_{k}": got / len(relevant) if relevant else 0.0,
                    f"ndcg_cut_{k}": dcg / idcg if idcg else 0.0, f"success_{k}": float(got > 0)})
    return out


def _bertscore(impl: str, n: int):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import bench_bertscore
    import bert_score
    import torch  # noqa: F401
    import transformers  # noqa: F401

    import genevals
    from genevals.metrics.semantic.bertscore_model import DEFAULT_LAYER, default_model_path

    cands, refs = bench_bertscore.workload("shared", n)
    if impl == "direct":
        return len(cands), lambda: bert_score.score(cands, refs, model_type=default_model_path(),
                                                    num_layers=DEFAULT_LAYER, batch_size=64)
    rows = [{"id": i, "answer": c, "references": [r]} for i, (c, r) in enumerate(zip(cands, refs))]
    return len(rows), lambda: genevals.evaluate(rows, ["bertscore"], workers=1)


def child(kind: str, impl: str, n: int) -> dict:
    """Imports, data, then the timed scoring. Model loading (BERTScore) is inside the timing for both sides."""
    import_start = time.perf_counter()
    setup = {"lexical": _lexical, "retrieval": _retrieval, "bertscore": _bertscore}[kind]
    count, job = setup(impl, n)
    after_setup_mb = _rss_mb()
    setup_s = time.perf_counter() - import_start
    start = time.perf_counter()
    job()
    seconds = time.perf_counter() - start
    return {"kind": kind, "impl": impl, "n": count, "seconds": seconds, "samples_per_s": count / seconds,
            "peak_mb": _rss_mb(), "setup_mb": after_setup_mb, "setup_s": setup_s}


def measure(jobs: list[tuple[str, str, int]]) -> list[dict]:
    """Run ``jobs`` one after the other in one fresh subprocess (one job per subprocess for real figures)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
    done = subprocess.run([sys.executable, __file__, "--child", json.dumps(jobs)], capture_output=True,
                          text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{jobs} failed:\n{done.stderr[-3000:]}")
    return [{**got, "load": os.getloadavg()[0]} for got in json.loads(done.stdout.strip().splitlines()[-1])]


# ---- the table ---------------------------------------------------------------------------------------------
DIRECT_NAME = {
    "lexical": "rouge-score + sacrebleu + SQuAD F1 loop",
    "bertscore": "`bert_score.score`",
}
WHAT = {
    "lexical": "lexical: token_f1 + ROUGE-1/2/L + BLEU",
    "retrieval": "retrieval: 32 outputs, 10 contexts",
    "bertscore": "BERTScore P/R/F (MiniLM-L6, CPU)",
}


def _direct_name(kind: str) -> str:
    if kind != "retrieval":
        return DIRECT_NAME[kind]
    try:
        import pytrec_eval  # noqa: F401
        return "pytrec_eval-terrier (trec_eval C, 18 measures)"
    except ImportError:
        return "plain Python loop (18 measures)"


def table(rows: list[dict], judge: list[dict], latency: float, capped: dict[str, int]) -> list[str]:
    lines = ["| workload | samples | genevals samples/s | genevals peak RSS MB (after imports) | direct baseline "
             "| direct samples/s | direct peak RSS MB (after imports) | genevals / direct speed | load avg |",
             "|---|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        g, d = r["genevals"], r["direct"]
        lines.append(
            f"| {WHAT[r['kind']]} | {g['n']:,} | {g['samples_per_s']:,.1f} | {g['peak_mb']:,.0f} ({g['setup_mb']:,.0f}) "
            f"| {_direct_name(r['kind'])} | {d['samples_per_s']:,.1f} | {d['peak_mb']:,.0f} ({d['setup_mb']:,.0f}) "
            f"| {g['samples_per_s'] / d['samples_per_s']:.2f}x | {max(g['load'], d['load']):.2f} |")
    for kind, asked in capped.items():
        lines.append(f"| {WHAT[kind]} | {asked:,} | not run: capped by `--{kind}-n` | | | | | | |")
    for j in judge:
        chunk = f", chunk_size={j['chunk_size']}" if j.get("chunk_size") else ""
        note = (f"concurrency {j['concurrency']}{chunk}, {latency * 1000:.0f} ms/call: wall {j['wall_s']:.1f} s; "
                f"{j['requests_per_sample']:.2f} requests, {j['prompt_tokens_per_sample']:.0f} prompt + "
                f"{j['completion_tokens_per_sample']:.0f} completion tokens per sample")
        lines.append(f"| faithfulness judge ({note}) | {j['samples']:,} | {j['samples_per_s']:,.1f} | "
                     f"{j['peak_mb']:,.0f} | no direct baseline | | | | {j['load']:.2f} |")
    return lines


def render(lines: list[str], m: dict[str, str], args, load_end: str, elapsed: float) -> str:
    cmd = "python benchmarks/run.py" + (" --smoke" if args.smoke else "") + \
        (f" --bertscore-n {args.bertscore_n}" if args.bertscore_n != 1000 else "")
    return "\n".join([
        SECTION, "",
        f"`{cmd}` ({elapsed / 60:.1f} minutes). " + ("Smoke run: all measurements shared one subprocess "
        "(peak RSS is cumulative) while the judge ran, so the figures mean nothing. " if args.smoke else "") + "Each lexical/retrieval/BERTScore cell is one fresh subprocess "
        "(run once; genevals and the direct loop interleaved); samples/s is wall time of the scoring only "
        "(genevals: `genevals.evaluate(..., workers=1)` end to end, reading, validation, scoring and summary; "
        "BERTScore: model loading included on both sides); peak RSS is `ru_maxrss`, with the RSS after imports "
        "and data generation in brackets. BERTScore is capped at "
        f"`--bertscore-n {args.bertscore_n:,}` samples (CPU only, ~10-25 samples/s); the 10,000 row is not run "
        "unless the cap is raised. Judge rows: see \"## Judge throughput\". Details of each workload are in the "
        "sections below and in `benchmarks/run.py`'s docstring.", "",
        *lines, "",
        "Reading the rows: the lexical genevals column is ROUGE's counting-once + rapidfuzz LCS against "
        "rouge-score's pure-Python LCS, with BLEU at par (both call sacrebleu's tokenizer); see \"## Lexical "
        "metrics\". The retrieval ratio compares unlike things on purpose: genevals is `evaluate()` end to end "
        "(every row parsed and validated twice, 32 `MetricResult`s per sample, a seeded bootstrap CI for each "
        "of the 32 outputs), trec_eval only the measure arithmetic on prepared dicts; genevals' own ranking math "
        "runs at trec_eval speed (\"## Retrieval metrics\"). One cProfile run of the 10,000-sample retrieval "
        "`evaluate()` split its time as: input parsing and validation 44% (two passes; `isinstance(x, "
        "typing.Mapping)` in `io.py` alone ~12%), `Retrieval.score` 24%, bootstrap CIs 18%, writing/recording "
        "results 11%. BERTScore: both sides load the model inside the timing and embed each distinct text once; "
        "see \"## BERTScore\".", "",
        f"Machine: {m['nproc']} cores ({m['cpu']}), {m['memory']} RAM, Python {m['python']}; {m['libs']}. "
        f"Load average at start {m['load']}, at end {load_end} (the machine was shared: a load above "
        f"{m['nproc']} means other jobs competed for the cores, so absolute rates are low and noisy, up to 2x run "
        "to run; ratios measured back to back are steadier).", "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, print only (< 60 s)")
    parser.add_argument("--sizes", default="1000,10000", help="sample counts for lexical/retrieval/BERTScore")
    parser.add_argument("--bertscore-n", type=int, default=1000, help="largest BERTScore size (CPU is slow)")
    parser.add_argument("--judge-samples", type=int, default=128)
    parser.add_argument("--judge-concurrency", default="1,8,32,32:256",
                        help="concurrency[:chunk_size] list (chunk_size: evaluate()'s, default the runner's)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the judge server adds per call")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--goals", action="store_true",
                        help="measure every row of the goals table (issues #16, #28) instead (see benchmarks/goals.py)")
    parser.add_argument("--repeat", type=int, default=3, help="--goals: alternating runs per side")
    parser.add_argument("--only", default="", help="--goals: these rows only, comma-separated (print only): "
                        "retrieval, ranking, lexical-run, lexical, bleu, five, help, bertscore, judge, report, install, "
                        "cluster")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--goals-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps([child(kind, impl, int(n)) for kind, impl, n in json.loads(args.child)]))
        return
    if args.goals_child:
        import goals

        kind, impl, n = args.goals_child
        print(json.dumps(goals.child(kind, impl, int(n))))
        return
    if args.goals:
        import goals

        only = {x.strip() for x in args.only.split(",") if x.strip()} or None
        goals.main(args.smoke, args.repeat, write=not args.no_write and only is None, only=only)
        return
    import bench_judge

    started = time.perf_counter()
    sizes = [50] if args.smoke else [int(x) for x in args.sizes.split(",")]
    judge_n, judge_c = (8, [(1, None), (8, None)]) if args.smoke else (
        args.judge_samples, bench_judge.parse_configs(args.judge_concurrency))
    m = machine()
    print(f"machine: {m['nproc']} cores, {m['cpu']}, {m['memory']}, python {m['python']}, load {m['load']}",
          file=sys.stderr)
    rows, capped, jobs = [], {}, []
    for kind in KINDS:
        for n in sizes:
            if kind == "bertscore" and n > args.bertscore_n:
                capped[kind] = n
                continue
            # alternate which side goes first, so background load falls on both alike
            jobs += [(kind, impl, n) for impl in (("direct", "genevals") if n % 2 == 0 else ("genevals", "direct"))]

    def show(got):
        print(f"  {got['kind']:<9} {got['impl']:<8} n={got['n']:>6,}  {got['seconds']:7.1f} s  "
              f"{got['samples_per_s']:9.1f}/s  peak {got['peak_mb']:6.0f} MB  load {got['load']:.2f}",
              file=sys.stderr, flush=True)
        return got

    if args.smoke:
        # Smoke runs check that everything runs, not speed: one subprocess for all the small measurements
        # (imports and model loading once), overlapped with the latency-bound judge, well under a minute.
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            judge_future = pool.submit(bench_judge.run, judge_n, judge_c, args.latency)
            figures = [show(got) for got in measure(jobs)]
            judge = judge_future.result()
    else:
        figures = [show(measure([job])[0]) for job in jobs]
        judge = bench_judge.run(judge_n, judge_c, args.latency)
    for (kind, impl, n), got in zip(jobs, figures):
        if not rows or rows[-1]["kind"] != kind or impl in rows[-1]:
            rows.append({"kind": kind})
        rows[-1][impl] = got
    for j in judge:
        print(f"  judge     c={j['concurrency']:<3} n={j['samples']}  {j['wall_s']:6.1f} s  "
              f"{j['requests_per_sample']:.2f} req/sample", file=sys.stderr, flush=True)
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = render(table(rows, judge, args.latency, capped), m, args, load_end, time.perf_counter() - started)
    print(text)
    if not (args.smoke or args.no_write):
        bench_judge.write_section(RESULTS, SECTION, text)
        bench_judge.write_section(RESULTS, bench_judge.SECTION, bench_judge.render(
            judge, args.latency, f"Load average at the end: {load_end}."))
        print(f"wrote the '{SECTION}' and '{bench_judge.SECTION}' sections of {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
