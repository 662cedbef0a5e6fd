"""The whole lexical pipeline, as a user runs it: genevals.evaluate on 1 and 2 worker processes, against
calling rouge-score, sacrebleu and the SQuAD F1 function directly in one loop.

    python benchmarks/bench_pipeline.py            # 10,000 pairs, writes "## Lexical pipeline" in RESULTS.md
    python benchmarks/bench_pipeline.py --smoke    # 300 pairs, prints only
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sacrebleu  # noqa: E402
from bench_lexical import _machine, _official_f1, make_pairs  # noqa: E402
from rouge_score import rouge_scorer  # noqa: E402

import genevals  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTION = "## Lexical pipeline"
METRICS = ["token_f1", "rouge", "bleu"]


def direct_loop(pairs):
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    out = []
    for answer, reference in pairs:
        rouge = scorer.score(reference, answer)
        bleu = sacrebleu.sentence_bleu(answer, [reference]).score
        out.append((_official_f1(answer, reference), rouge["rougeL"].fmeasure, bleu))
    return out


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    n = 300 if args.smoke else args.n
    pairs = make_pairs(n)
    rows = [{"id": i, "answer": a, "references": [r]} for i, (a, r) in enumerate(pairs)]

    direct, t_direct = timed(lambda: direct_loop(pairs))
    one, t_one = timed(lambda: genevals.evaluate(rows, METRICS, workers=1))
    two, t_two = timed(lambda: genevals.evaluate(rows, METRICS, workers=2))
    for (f1, rouge_l, bleu), a, b in zip(direct, one, two):
        assert a.metrics["token_f1"].value == b.metrics["token_f1"].value == f1
        assert a.metrics["rougeL"].value == b.metrics["rougeL"].value == rouge_l
        assert a.metrics["bleu"].value == b.metrics["bleu"].value == min(bleu / 100, 1.0)

    table = [
        "| what | seconds | pairs/s | vs direct |",
        "|---|---:|---:|---:|",
        f"| direct loop: rouge-score + sacrebleu + SQuAD F1 | {t_direct:.1f} | {n / t_direct:,.0f} | 1.0x |",
        f"| genevals.evaluate, 1 process | {t_one:.1f} | {n / t_one:,.0f} | {t_direct / t_one:.1f}x |",
        f"| genevals.evaluate, 2 processes | {t_two:.1f} | {n / t_two:,.0f} | {t_direct / t_two:.1f}x |",
    ]
    machine = _machine()
    text = "\n".join([
        SECTION, "",
        f"`python benchmarks/bench_pipeline.py --n {n}`: the same synthetic ~850-character pairs as above, "
        "token_f1 + ROUGE-1/2/L + BLEU through `genevals.evaluate` (reading, validation, scoring, results) "
        "against the three libraries called directly in one loop. Values asserted identical.", "",
        *table, "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in machine.items()) + ".", "",
    ])
    print(text)
    if not args.smoke:
        content = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n\n"
        if SECTION in content:
            head, _, rest = content.partition(SECTION)
            tail = rest[rest.find("\n## "):] if "\n## " in rest else ""
            content = head + text + tail.lstrip("\n")
        else:
            content = content.rstrip("\n") + "\n\n" + text
        RESULTS.write_text(content)


if __name__ == "__main__":
    main()
