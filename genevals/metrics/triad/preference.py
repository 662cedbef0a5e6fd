"""What both pairwise variants (LLM judge and offline) share: the output, the memory of every system's answer
to each question, the outcome arithmetic, and the per-pair win / tie / loss rates with a paired CI.

Per sample of system S, against the k other systems T on the same question:

.. math::
    \\mathrm{pairwise} = \\frac{1}{k}\\sum_{T} o_T, \\qquad o_T = 1\\ (\\text{win}),\\ 0.5\\ (\\text{tie}),\\ 0\\
    (\\text{loss})

Per system pair, in the summary's corpus scores of S (``pairwise_vs:T:...``): n questions, win / tie / loss
rates, and net = win rate - loss rate with a paired 95% CI: d_i = +1, 0, -1 per question,

.. math::
    \\bar d \\pm 1.96 \\sqrt{\\frac{s^2}{n}}, \\qquad s^2 = \\frac{w + l - n \\bar d^2}{n - 1}

(the normal approximation; w, l: wins and losses; no CI for n < 2).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from genevals import types
from genevals.metrics.base import Output, usage_statistics
from genevals.types import MetricResult, Sample

PAIRWISE_OUTPUTS = (Output("pairwise", "preference over the other systems on the same question (win 1, tie 0.5, "
                                       "loss 0; both orders asked, disagreement is a tie)"),)
PREFIX = "pairwise_vs:"
SCORE = {"win": 1.0, "tie": 0.5, "loss": 0.0}
Z95 = 1.959964


def net_preference(win: float, tie: float, loss: float) -> dict[str, float | None]:
    """Rates and the paired 95% CI of net preference (win rate - loss rate) from the counts of one pair."""
    n = win + tie + loss
    if n <= 0:
        return {}
    d = (win - loss) / n
    out: dict[str, float | None] = {"n": n, "win_rate": win / n, "tie_rate": tie / n, "loss_rate": loss / n,
                                    "net": d, "net_ci_low": None, "net_ci_high": None}
    if n >= 2:
        half = Z95 * math.sqrt(max(0.0, (win + loss - n * d * d) / (n - 1)) / n)
        out["net_ci_low"], out["net_ci_high"] = max(-1.0, d - half), min(1.0, d + half)
    return out


def combine(first: str, second: str) -> tuple[str, bool]:
    """The pair's winner ("a", "b" or "tie") from both orders' winners (already mapped back to a / b), and
    whether they agreed; disagreement is a tie."""
    return (first, True) if first == second else ("tie", False)




class PairwiseStats:
    """Mixin: remembers every system's sample per question (``prepare_sample``), and sums wins, ties and losses
    per opponent into the corpus scores."""

    _by_id: dict[str, dict[str, Sample]]

    def prepare_sample(self, sample: Sample) -> None:
        """Remember every system's sample of each question: a system's answer is judged against the others'."""
        self._by_id.setdefault(sample.id, {})[sample.system] = sample

    def opponents(self, sample: Sample) -> list[str]:
        return sorted(t for t in self._by_id.get(sample.id, {}) if t != sample.system)

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """Wins, ties and losses against each other system, and the judge usage."""
        result = outputs.get("pairwise")
        stats = dict(usage_statistics(result, "pairwise_judge_") or {})
        if result is not None and result.status == types.OK:
            for duel in result.details.get("duels", []):
                stats[f"{PREFIX}{duel['opponent']}:{duel['outcome']}"] = 1
        return stats

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        out = {k: v for k, v in totals.items() if not k.startswith(PREFIX)}
        opponents = sorted({k[len(PREFIX):].rsplit(":", 1)[0] for k in totals if k.startswith(PREFIX)})
        for t in opponents:
            counts = {o: totals.get(f"{PREFIX}{t}:{o}", 0) for o in SCORE}
            for key, value in net_preference(counts["win"], counts["tie"], counts["loss"]).items():
                if value is not None:
                    out[f"{PREFIX}{t}:{key}"] = value
        return out
