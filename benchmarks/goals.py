"""The speed goals of issue #16 (raised by issue #28), every row measured in one run: ``python benchmarks/run.py --goals``.

Each row runs genevals and the library it wraps (or a direct script) alternately, each measurement in a fresh
Python process, ``--repeat`` times (direct first, then genevals, then again), and reports the median of each
side and their ratio (direct time / genevals time: above 1 means genevals is faster). The load average is
recorded at every measurement: on a shared machine absolute times are noisy, ratios measured back to back less
so. Values are asserted equal where both sides compute the same thing (BLEU, lexical, BERTScore within 1e-6).

    python benchmarks/run.py --goals             # every row; writes the "## Goals (issue #28): every goal in one run" section
    python benchmarks/run.py --goals --smoke     # tiny sizes, prints only
    python benchmarks/run.py --goals --only retrieval,bleu   # some rows, prints only
"""
from __future__ import annotations

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
SECTION = "## Goals (issue #28): every goal in one run"
# Bytecode is written and read as an installed package's is (pip compiles it at install): with
# PYTHONDONTWRITEBYTECODE set, every fresh process would compile genevals' modules again (~0.4 s of a 5-sample run).
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, "HF_HUB_OFFLINE": "1",
       "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": os.pathsep.join([str(REPO), str(HERE)])}
LEXICAL = ["token_f1", "rouge", "bleu"]
CUTS = "1,3,5,10"
PYTREC_MEASURES = {"map", "recip_rank", f"P.{CUTS}", f"recall.{CUTS}", f"ndcg_cut.{CUTS}", f"success.{CUTS}"}


# ---- in a fresh process: set up, then time one job --------------------------------------------------------
def _retrieval_data(n: int, depth: int):
    import bench_retrieval

    return bench_retrieval.make_data(n, depth)


def _pytrec(rankings, qrels):
    import pytrec_eval

    # distinct descending scores, so trec_eval keeps the given order (build + evaluate, 18 measures)
    def job():
        run = {q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, r in rankings.items()}
        return pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
    return job


def child(kind: str, impl: str, n: int) -> dict:
    if kind in ("retrieval", "ranking"):
        samples, rankings, qrels = _retrieval_data(n, 20)
        if impl == "direct":
            job = _pytrec(rankings, qrels)
        elif kind == "retrieval":
            import genevals

            rows = [s.to_dict() for s in samples]
            options = {"retrieval": {"cutoffs": (1, 3, 5, 10), "level": "chunk"}}
            evaluate = genevals.evaluate  # imported here, as pytrec_eval is imported before its timer
            job = lambda: evaluate(rows, ["retrieval"], options=options, workers=1)  # noqa: E731
        else:
            import numpy  # noqa: F401  # imported before the timer, as pytrec_eval is (evaluate_many imports it late)

            from genevals.metrics.retrieval.ranking_columns import evaluate_many

            lists = list(rankings.values())
            labels = [{d: float(v) for d, v in qrels[q].items()} for q in rankings]
            job = lambda: evaluate_many(lists, labels, (1, 3, 5, 10))  # noqa: E731
    elif kind == "lexical":
        import bench_lexical
        import bench_pipeline

        import genevals

        pairs = bench_lexical.make_pairs(n)
        rows = [{"id": i, "answer": a, "references": [r]} for i, (a, r) in enumerate(pairs)]
        evaluate = genevals.evaluate  # imported here, as rouge-score and sacrebleu are
        job = ((lambda: bench_pipeline.direct_loop(pairs)) if impl == "direct"
               else (lambda: evaluate(rows, LEXICAL, workers=1)))
    elif kind == "bleu":
        import bench_lexical
        import sacrebleu

        from genevals.metrics.lexical.bleu import Bleu
        from genevals.types import Sample

        pairs = bench_lexical.make_pairs(n, seed=101)  # distinct texts: nothing is counted twice
        if impl == "direct":
            job = lambda: [min(sacrebleu.sentence_bleu(a, [r]).score / 100, 1.0) for a, r in pairs]  # noqa: E731
        else:
            samples = [Sample(id=str(i), answer=a, references=(r,)) for i, (a, r) in enumerate(pairs)]
            job = lambda: [res["bleu"].value for res in Bleu().score(samples)]  # noqa: E731
    else:
        raise SystemExit(f"unknown kind {kind}")
    start = time.perf_counter()
    value = job()
    seconds = time.perf_counter() - start
    digest = None
    if kind == "bleu":
        digest = sum(value)
    return {"seconds": seconds, "digest": digest}


def _in_child(kind: str, impl: str, n: int) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "run.py"), "--goals-child", kind, impl, str(n)],
                          capture_output=True, text=True, env=ENV, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"{kind}/{impl} failed:\n{done.stderr[-3000:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": os.getloadavg()[0]}


def _whole_process(argv: list[str]) -> dict:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, cwd=REPO)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv} failed:\n{done.stderr[-3000:]}")
    return {"seconds": seconds, "load": os.getloadavg()[0]}


DIRECT_SCRIPT = r"""
import json, sys
sys.path.insert(0, "benchmarks")
from bench_pipeline import direct_loop
pairs = [(r["answer"], r["references"][0]) for r in map(json.loads, open(sys.argv[1], encoding="utf-8"))]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for row in direct_loop(pairs):
        out.write(json.dumps(row) + "\n")
"""


# ---- the rows ------------------------------------------------------------------------------------------------
def _pair(direct, ours, repeat: int) -> dict:
    d, g = [], []
    for _ in range(repeat):
        d.append(direct())
        g.append(ours())
    dm, gm = statistics.median(x["seconds"] for x in d), statistics.median(x["seconds"] for x in g)
    return {"direct_s": dm, "genevals_s": gm, "ratio": dm / gm,
            "load": max(x["load"] for x in d + g), "runs": repeat,
            "digests": {x.get("digest") for x in d} | {x.get("digest") for x in g}}


def measure_all(smoke: bool, repeat: int, log=print, only: set[str] | None = None) -> list[dict]:
    """Every row, or those named in ``only`` (see ``run.py --only``)."""
    wanted = lambda key: only is None or key in only  # noqa: E731

    sizes = {"retrieval": 300 if smoke else 10_000, "lexical": 100 if smoke else 2_000,
             "bleu": 100 if smoke else 2_000, "bert_distinct": 20 if smoke else 500,
             "bert_shared": 30 if smoke else 1_500, "judge": 8 if smoke else 128, "report": 2000 if smoke else 3000}
    rows = []
    def add(row):
        rows.append(row)
        log(f"  {row['name']}: {row['shown']} (goal {row['goal']}; load {row['load']:.2f})")

    def ratio_row(name, kind, n, goal, minimum):
        got = _pair(lambda: _in_child(kind, "direct", n), lambda: _in_child(kind, "genevals", n), repeat)
        add({**got, "name": name, "goal": goal, "met": got["ratio"] >= minimum,
             "shown": f"{got['ratio']:.2f}x ({got['direct_s']:.3f} s direct, {got['genevals_s']:.3f} s genevals)"})
        return got

    n = sizes["retrieval"]
    if wanted("retrieval"):
        ratio_row(f"retrieval, {n:,} queries x 20 docs: `evaluate(..., ['retrieval'])` end to end (32 outputs) vs "
                  "pytrec_eval build + evaluate (18 measures)", "retrieval", n, ">= 0.5x", 0.5)
    if wanted("ranking"):
        ratio_row(f"retrieval math alone (`ranking_columns.evaluate_many`, {n:,} x 20) vs pytrec_eval", "ranking", n,
                  ">= 1.0x", 1.0)
    with tempfile.TemporaryDirectory(prefix="genevals-goals-") as tmp:
        import bench_lexical

        n = sizes["lexical"]
        data = Path(tmp) / "pairs.jsonl"
        data.write_text("".join(json.dumps({"id": i, "answer": a, "references": [r]}) + "\n"
                                for i, (a, r) in enumerate(bench_lexical.make_pairs(n))), encoding="utf-8")
        if wanted("lexical-run"):
            got = _pair(lambda: _whole_process([sys.executable, "-c", DIRECT_SCRIPT, str(data), f"{tmp}/direct.jsonl"]),
                        lambda: _whole_process([sys.executable, "-m", "genevals", "run", str(data), "--metrics",
                                                ",".join(LEXICAL), "--out", f"{tmp}/run", "-q"]), repeat)
            add({**got, "name": f"lexical, {n:,} pairs: `genevals run` whole process (results, summary, report.html) "
                 "vs a direct script (rouge-score + `sentence_bleu` + SQuAD F1, writing its values)", "goal": ">= 8x",
                 "met": got["ratio"] >= 8,
                 "shown": f"{got['ratio']:.2f}x ({got['direct_s']:.2f} s direct, {got['genevals_s']:.2f} s genevals)"})
        if wanted("lexical"):
            ratio_row(f"lexical, {n:,} pairs: `evaluate(workers=1)` vs the direct loop", "lexical", n, ">= 20x", 20)
        if wanted("bleu"):
            got = ratio_row(f"BLEU alone, {sizes['bleu']:,} pairs of texts that never repeat, vs `sentence_bleu`",
                            "bleu", sizes["bleu"], ">= 2x", 2)
            assert len(got["digests"]) == 1, "BLEU values differ from sentence_bleu"
        five = Path(tmp) / "five.jsonl"
        five.write_text("".join((REPO / "datasets" / "demo" / "demo.jsonl").read_text(encoding="utf-8")
                                .splitlines(keepends=True)[:5]), encoding="utf-8")
        if wanted("five"):
            runs = [_whole_process([sys.executable, "-m", "genevals", "run", str(five), "--metrics",
                                    "exact_match,token_f1,rouge,bleu", "--out", f"{tmp}/five", "-q"])
                    for _ in range(max(3, repeat))]
            seconds = statistics.median(r["seconds"] for r in runs)
            add({"name": "`genevals run` on 5 samples, lexical metrics, whole process (report.html included)",
                 "goal": "<= 0.6 s at load <= 4", "met": seconds <= 0.6, "shown": f"{seconds:.2f} s",
                 "load": max(r["load"] for r in runs)})
        if wanted("help"):
            helps = [_whole_process([sys.executable, "-m", "genevals", "--help"]) for _ in range(max(3, repeat))]
            seconds = statistics.median(r["seconds"] for r in helps)
            add({"name": "`genevals --help`, whole process", "goal": "< 0.25 s", "met": seconds < 0.25,
                 "shown": f"{seconds:.2f} s", "load": max(r["load"] for r in helps)})
    if wanted("bertscore"):
        rows += _bertscore(sizes, log, repeat)
    if wanted("judge"):
        rows.append(_judge(sizes["judge"], log, repeat))
    if wanted("report"):
        rows.append(_report(sizes["report"], smoke, log))
    if wanted("install"):  # issue #28: the core install's size and time (benchmarks/goals_install.py)
        import goals_install

        rows += goals_install.rows(smoke, log)
    if wanted("cluster"):  # issue #28: Ray across network namespaces (benchmarks/goals_cluster.py)
        import goals_cluster

        rows += goals_cluster.rows(smoke, log)
    return rows


def _bertscore(sizes: dict, log, repeat: int) -> list[dict]:
    """Each workload ``repeat`` times, direct and genevals alternately (fresh processes); medians compared."""
    import bench_bertscore

    out = []
    for kind, n, goal, minimum, what in (("long", sizes["bert_distinct"], ">= 2x", 2, "distinct pairs"),
                                         ("shared", sizes["bert_shared"], ">= 3x", 3, "pairs sharing references")):
        directs, ours, loads = [], [], []
        for _ in range(repeat):
            directs.append(bench_bertscore.run_one("direct", kind, n))
            loads.append(os.getloadavg()[0])
            ours.append(bench_bertscore.run_one("genevals", kind, n))
            loads.append(os.getloadavg()[0])
        diff = max(abs(a - b) for d, g in zip(directs, ours)
                   for x, y in zip(d["values"], g["values"]) for a, b in zip(x, y))
        d_s, g_s = statistics.median(x["seconds"] for x in directs), statistics.median(x["seconds"] for x in ours)
        ratio = d_s / g_s
        runs = "" if repeat == 1 else (f"; runs {', '.join('%.1f' % r['seconds'] for r in directs)} s direct, "
                                       f"{', '.join('%.1f' % r['seconds'] for r in ours)} s genevals")
        row = {"name": f"BERTScore (MiniLM), {ours[0]['pairs']:,} {what}, vs `bert_score.score`", "goal": f"{goal}, "
               "within 1e-6", "met": ratio >= minimum and diff <= 1e-6, "ratio": ratio, "load": max(loads),
               "shown": f"{ratio:.2f}x ({d_s:.1f} s direct, {g_s:.1f} s genevals, medians; max difference "
                        f"{diff:.1e}; padded tokens {ours[0]['padded_tokens']:,} genevals, "
                        f"{directs[0]['padded_tokens']:,} direct{runs})"}
        log(f"  {row['name']}: {row['shown']} (load {row['load']:.2f})")
        out.append(row)
    return out


def _judge(n: int, log, repeat: int = 1) -> dict:
    """Serial once (it is latency-bound: ~50 s), concurrency 32 ``repeat`` times (median)."""
    import bench_judge

    with bench_judge.LatencyServer(latency_seconds=0.2) as server:
        serial = bench_judge.measure(server, n, 1)
        wides = [bench_judge.measure(server, n, 32) for _ in range(repeat)]
    wide = sorted(wides, key=lambda w: w["wall_s"])[len(wides) // 2]
    share = serial["wall_s"] / 32 / wide["wall_s"]
    row = {"name": f"judge, {n} answers, 200 ms per call, concurrency 32: share of the ideal (serial time / 32)",
           "goal": ">= 90%", "met": share >= 0.9, "load": max([serial["load"]] + [w["load"] for w in wides]),
           "shown": f"{share:.0%} (serial {serial['wall_s']:.1f} s, concurrency 32 {wide['wall_s']:.2f} s (median of "
                    f"{', '.join('%.2f' % w['wall_s'] for w in wides)}), ideal {serial['wall_s'] / 32:.2f} s; "
                    f"{wide['requests_per_sample']:.2f} requests per sample)"}
    log(f"  {row['name']}: {row['shown']} (load {row['load']:.2f})")
    return row


def _report(sentences: int, smoke: bool, log) -> dict:
    argv = [sys.executable, str(HERE / "bench_report.py"), "--json", "--sentences", str(sentences),
            "--samples", "3" if smoke else "6"]
    done = subprocess.run(argv, capture_output=True, text=True, env=ENV, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"bench_report failed:\n{done.stderr[-3000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    seconds = got["slowest_open_ms"] / 1000
    row = {"name": "report: opening one sample's drill-down in Chromium, slowest sample of a run with long hostile "
                   f"texts ({got['slowest_claims']:,} claims, {got['slowest_answer_chars']:,}-character answer, 20 "
                   "long contexts; `benchmarks/bench_report.py`)", "goal": "<= 1 s", "met": seconds <= 1,
           "load": got["load"], "shown": f"{seconds:.2f} s (then a claim click {got['slowest_click_ms'] / 1000:.2f} s)"}
    log(f"  {row['name']}: {row['shown']} (load {row['load']:.2f})")
    return row


def render(rows: list[dict], command: str, minutes: float, machine: str, load_start: str, load_end: str) -> str:
    lines = ["| workload | measured | goal | reached | load avg |", "|---|---|---|---|---:|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['shown']} | {r['goal']} | {'yes' if r['met'] else '**no**'} | "
                     f"{r['load']:.2f} |")
    return "\n".join([
        SECTION, "",
        f"`{command}` ({minutes:.1f} minutes): every row in one run. Each ratio is the median direct time over the "
        "median genevals time of runs taken alternately (direct, then genevals), each in a fresh Python process; "
        "whole-process rows time the command from the parent, interpreter start included. The load average is the "
        "highest seen during the row (1-minute figure).", "",
        *lines, "",
        f"Machine: {machine}. Load average at start {load_start}, at end {load_end}.", "",
    ])


def main(smoke: bool, repeat: int, write: bool, only: set[str] | None = None) -> None:
    import bench_judge
    from machine import RESULTS, machine

    started = time.perf_counter()
    m = machine()
    load_start = m["load"]
    print(f"machine: {m['nproc']} cores, load {load_start}", file=sys.stderr)
    rows = measure_all(smoke, repeat, log=lambda line: print(line, file=sys.stderr, flush=True), only=only)
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())
    command = "python benchmarks/run.py --goals" + (" --smoke" if smoke else "") + \
        (f" --repeat {repeat}" if repeat != 3 else "")
    text = render(rows, command, (time.perf_counter() - started) / 60,
                  f"{m['nproc']} cores ({m['cpu']}), {m['memory']} RAM, Python {m['python']}; {m['libs']}",
                  load_start, load_end)
    print(text)
    if write and not smoke and not only:
        bench_judge.write_section(RESULTS, SECTION, text)
        print(f"wrote the '{SECTION}' section of {RESULTS}", file=sys.stderr)
