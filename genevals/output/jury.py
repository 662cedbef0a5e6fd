"""The terminal's jury lines: per system and output, the judges' agreement (Fleiss' kappa, each pair's Cohen's
kappa, the disagreement rate), the mean over judges with its interval over samples and judges, and each judge's
cost (summary meta ``jury``, :mod:`genevals.metrics.judging.jury_votes`)."""
from __future__ import annotations

from typing import Any, Mapping

from genevals.output.terminal import visible as shown_text


def _kappa(value: Any) -> str:
    return "-" if not isinstance(value, (int, float)) else f"{value:.2f}"


def _cost(value: Any) -> str:
    return "no price" if not isinstance(value, (int, float)) else f"${value:.4f}"


def lines(summary: Mapping[str, Any]) -> list[str]:
    jury = (summary.get("meta") or {}).get("jury") or {}
    out: list[str] = []
    for system, outputs in sorted(jury.items()):
        if not isinstance(outputs, Mapping):
            continue
        for name, j in outputs.items():
            if not isinstance(j, Mapping):
                continue
            judges = [shown_text(str(n)) for n in j.get("judges") or ()]
            if not out:
                out.append(f"jury ({len(judges)} judges: {', '.join(judges)}; {shown_text(str(j.get('policy')))}):")
            line = f"  {shown_text(str(system))} {shown_text(str(name))}:"
            if j.get("samples"):
                rate = j.get("disagreement_rate")
                pairs = ", ".join(f"{shown_text(p)} {_kappa(k)}" for p, k in (j.get("pairwise_kappa") or {}).items())
                line += (f" Fleiss' kappa {_kappa(j.get('fleiss_kappa'))}" + (f" (Cohen's: {pairs})" if pairs else "")
                         + f", disagreement {'-' if rate is None else f'{rate:.0%}'}"
                         + (f" ({j.get('split_units')}/{j.get('units')} {j.get('unit')} split)"
                            if j.get("unit") != "samples" else ""))
                ci, mean = j.get("ci95_jury") or [None, None], j.get("mean_over_judges")
                if mean is not None and None not in ci:
                    line += f"; mean over judges {mean:.4f} [{ci[0]:.2f}, {ci[1]:.2f}] (samples and judges)"
            costs = j.get("cost") or {}
            if costs:
                word = "cost" if j.get("samples") else "estimated cost"
                line += f"; {word} " + ", ".join(f"{shown_text(str(n))} {_cost(c)}" for n, c in costs.items())
            out.append(line)
    return out
