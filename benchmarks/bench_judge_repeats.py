"""Judge repeats (issue #27): does the flip rate recover a judge's known instability, and does the interval with
the judge's variance cover the true mean?

A scripted judge (the provider protocol's one method) decides each claim's verdict by a known law: every claim
has a true label (supported with probability 0.7, else contradicted) and a flip probability p (0.25 for 30% of
claims, 0.03 for the rest); each repeat, seeded by its request's seed, reports the other label with probability
p. Each simulated run draws 100 answers of 5 claims (500 claims) from that population and scores them with the
real pipeline: ``genevals.evaluate(..., metrics=["faithfulness"], judge=JudgeConfig(repeats=3, ...))``
(prompts, client, parsing, majority votes, summary). Then:

- flip rate: the run's ``meta.judge_repeats`` flip rate against the truth for its 500 claims,
  :math:`\\frac{1}{500}\\sum_i 1 - (1-p_i)^3 - p_i^3` (the chance that 3 repeats do not all agree);
- coverage: whether ``ci95_judge`` (two-stage bootstrap, samples then repeats) holds the population mean of
  one verdict's score, :math:`0.7 (1 - E p) + 0.3 E p = 0.6616`; beside it, the usual interval of the majority
  scores (samples only), which answers a different question (majority voting moves the mean).

Run: ``python benchmarks/bench_judge_repeats.py [--runs 200] [--samples 100]``.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import genevals  # noqa: E402
from genevals.judge.config import JudgeConfig  # noqa: E402
from genevals.judge.protocol import Completion, Usage  # noqa: E402

CLAIMS_PER_ANSWER = 5
REPEATS = 3
P_SUPPORTED, P_UNSTABLE, FLIP_UNSTABLE, FLIP_STABLE = 0.7, 0.3, 0.25, 0.03
MEAN_P = P_UNSTABLE * FLIP_UNSTABLE + (1 - P_UNSTABLE) * FLIP_STABLE
TRUE_MEAN = P_SUPPORTED * (1 - MEAN_P) + (1 - P_SUPPORTED) * MEAN_P


def flip_chance(p: float, n: int = REPEATS) -> float:
    return 1 - (1 - p) ** n - p ** n


class KnownJudge:
    """Verdicts by the law above; ``law[claim text] = (true label, p)``."""

    backend, base_url, model = "scripted", None, "known-flips"
    repeats_vary_at_zero = True

    def __init__(self, law: dict[str, tuple[str, float]], run: int) -> None:
        self.law, self.run = law, run

    async def complete(self, messages, schema, params):
        content = messages[0]["content"]
        if "Claims:" in content:
            block = content.split("\nClaims:\n", 1)[1].split("\nReply:", 1)[0]
            verdicts = []
            for line in block.strip().splitlines():
                number, text = line.split(". ", 1)
                label, p = self.law[text]
                if random.Random(f"{self.run}:{text}:{params['seed']}").random() < p:
                    label = "contradicted" if label == "supported" else "supported"
                verdicts.append({"id": int(number), "context": 1, "quote": "", "label": label, "reason": "known"})
            reply = {"verdicts": verdicts}
        else:
            answer = content.rsplit('Answer: """', 1)[1].rsplit('"""', 1)[0]
            reply = {"claims": [{"claim": s.strip() + ".", "source": s.strip() + "."}
                                for s in answer.split(".") if s.strip()]}
        return Completion(text=json.dumps(reply), usage=Usage(len(content) // 4, 20))


def one_run(run: int, n_samples: int) -> dict[str, float]:
    rng = random.Random(run)
    law, rows = {}, []
    for i in range(n_samples):
        sentences = []
        for k in range(CLAIMS_PER_ANSWER):
            text = f"Item {k + 1} of answer {i} holds"
            law[text + "."] = ("supported" if rng.random() < P_SUPPORTED else "contradicted",
                               FLIP_UNSTABLE if rng.random() < P_UNSTABLE else FLIP_STABLE)
            sentences.append(text + ".")
        rows.append({"id": f"a{i}", "question": "q", "answer": " ".join(sentences), "contexts": ["a context"]})
    truth = sum(flip_chance(p) for _, p in law.values()) / len(law)
    judge = JudgeConfig(provider=KnownJudge(law, run), cache=False, repeats=REPEATS, temperature=0.8,
                        concurrency=16)
    summary = genevals.evaluate(rows, metrics=["faithfulness"], judge=judge, seed=run).summary()
    r = summary["meta"]["judge_repeats"]["default"]["faithfulness"]
    usual = summary["systems"]["default"]["faithfulness"]["ci95"]
    assert r["units"] == len(law), (r["units"], len(law))
    return {"flip": r["flip_rate"], "truth": truth, "lo": r["ci95_judge"][0], "hi": r["ci95_judge"][1],
            "mean": r["mean_over_repeats"], "usual_lo": usual[0], "usual_hi": usual[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--samples", type=int, default=100)
    args = parser.parse_args()
    from machine import machine

    info = machine()
    start = time.perf_counter()
    runs = [one_run(run, args.samples) for run in range(args.runs)]
    seconds = time.perf_counter() - start
    errors = [abs(r["flip"] - r["truth"]) for r in runs]
    covered = sum(r["lo"] <= TRUE_MEAN <= r["hi"] for r in runs)
    usual = sum(r["usual_lo"] <= TRUE_MEAN <= r["usual_hi"] for r in runs)
    first = runs[0]
    print(f"claims per run: {args.samples * CLAIMS_PER_ANSWER}, repeats {REPEATS}, runs {args.runs}, "
          f"{seconds:.0f} s ({seconds / args.runs:.2f} s/run)")
    print(f"run 0: flip rate {first['flip']:.4f}, truth {first['truth']:.4f}, error {errors[0]:.4f}")
    print(f"flip-rate error over runs: mean {sum(errors) / len(errors):.4f}, max {max(errors):.4f}, "
          f"within 0.03 in {sum(e <= 0.03 for e in errors)}/{len(errors)}")
    print(f"true mean {TRUE_MEAN:.4f}: ci95_judge covers it in {covered}/{len(runs)} runs "
          f"({covered / len(runs):.1%}); the usual majority interval in {usual}/{len(runs)}")
    print(f"mean widths: judge {sum(r['hi'] - r['lo'] for r in runs) / len(runs):.4f}, "
          f"usual {sum(r['usual_hi'] - r['usual_lo'] for r in runs) / len(runs):.4f}")
    print(f"machine: {info['nproc']} cores ({info['cpu']}), Python {info['python']}, load average {info['load']}")


if __name__ == "__main__":
    main()
