r"""The rules that choose samples; each returns the indices (into the candidates) it chose.

* ``flagged``: a claim-checking metric (its details hold ``counts``, as faithfulness and the local grounding
  checker write them) found at least one contradicted or unverifiable claim:
  :math:`counts_{contradicted} + counts_{unverifiable} \ge 1`.
* ``disputed``: the sample's reviewers disagree with the judge or with each other
  (:mod:`genevals.curate.candidates`).
* ``low:METRIC<X``: METRIC's status is ``ok`` and its value :math:`v < X`. Unscored samples are never low.
* ``sample:N``: a seeded sample stratified by system and by band of the band metric's value, allocated in
  proportion to stratum size by largest remainders (Hamilton's method):
  :math:`q_h = N \cdot n_h / \sum_k n_k`, each stratum gets :math:`\lfloor q_h \rfloor`, and the
  :math:`N - \sum_h \lfloor q_h \rfloor` left go to the largest remainders :math:`q_h - \lfloor q_h \rfloor`
  (ties by stratum name). Bands: ``[0,0.25)``, ``[0.25,0.5)``, ``[0.5,0.75)``, ``[0.75,1]``, ``outside [0,1]``,
  and ``unscored`` (no ok value); a value is rounded to 9 decimals before it is banded, so that 3/4 computed as
  0.7499999999999999 falls in ``[0.75,1]`` as it would by hand. Within a stratum the draw is ``random.Random(f"{seed}:{stratum}").sample``, so
  one stratum's draw does not depend on the others'.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from genevals.curate.candidates import Candidate
from genevals.curate.config import Rule

BANDS = ((0.0, 0.25, "[0,0.25)"), (0.25, 0.5, "[0.25,0.5)"), (0.5, 0.75, "[0.5,0.75)"))


def value(candidate: Candidate, metric: str) -> float | None:
    """The metric's value when its status is ok and the value a finite number, else None."""
    result = candidate.metric(metric)
    if result is None or result.get("status") != "ok":
        return None
    v = result.get("value")
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return None
    return float(v)


def flagged(candidate: Candidate) -> bool:
    metrics = candidate.row.get("metrics")
    for result in (metrics.values() if isinstance(metrics, dict) else ()):
        details = result.get("details") if isinstance(result, dict) else None
        counts = details.get("counts") if isinstance(details, dict) else None
        if isinstance(counts, dict) and sum(counts.get(k, 0) for k in ("contradicted", "unverifiable")
                                            if isinstance(counts.get(k, 0), int)) >= 1:
            return True
    return False


def band(v: float | None) -> str:
    if v is None:
        return "unscored"
    v = round(v, 9)
    for low, high, name in BANDS:
        if low <= v < high:
            return name
    return "[0.75,1]" if 0.75 <= v <= 1.0 else "outside [0,1]"


def allocate(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Hamilton's largest-remainder allocation of ``n`` over strata of ``sizes`` (all when n >= their sum)."""
    total = sum(sizes.values())
    if n >= total:
        return dict(sizes)
    quotas = {h: n * size / total for h, size in sizes.items()}
    out = {h: math.floor(q) for h, q in quotas.items()}
    left = n - sum(out.values())
    for h in sorted(quotas, key=lambda h: (-(quotas[h] - out[h]), h))[:left]:
        out[h] += 1
    return out


def stratified(candidates: Sequence[Candidate], n: int, metric: str, seed: int) -> tuple[list[int], dict[str, Any]]:
    """The indices drawn, and each stratum's size and count drawn (for the card)."""
    strata: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        strata.setdefault(f"{c.system} | {band(value(c, metric))}", []).append(i)
    drawn = allocate({h: len(members) for h, members in strata.items()}, n)
    chosen = []
    for h in sorted(strata):
        chosen += random.Random(f"{seed}:{h}").sample(strata[h], drawn[h])
    table = {h: {"size": len(strata[h]), "drawn": drawn[h]} for h in sorted(strata)}
    return sorted(chosen), {"metric": metric, "seed": seed, "strata": table}


def choose(rule: Rule, candidates: Sequence[Candidate], band_metric: str, seed: int) -> tuple[list[int], Any]:
    """The indices ``rule`` chooses, and what the card says about the draw (None but for ``sample``)."""
    if rule.kind == "flagged":
        return [i for i, c in enumerate(candidates) if flagged(c)], None
    if rule.kind == "disputed":
        return [i for i, c in enumerate(candidates) if c.disputed], None
    if rule.kind == "low":
        return [i for i, c in enumerate(candidates) if (v := value(c, rule.metric)) is not None and v < rule.below], None
    return stratified(candidates, rule.n, band_metric, seed)


def why_none(kind: str, candidates: Sequence[Candidate]) -> str:
    """Why a rule of ``kind`` chose no sample among ``candidates``: what the user can change."""
    if not candidates:
        return "the sources hold no sample with a question"
    if kind == "flagged":
        counted = any(isinstance((r.get("details") or {}).get("counts"), dict)
                      for c in candidates for r in _results(c))
        return ("no answer has a contradicted or unverifiable claim" if counted else
                "no result holds claim counts: flagging needs a claim-checking metric in the run (faithfulness, "
                "or the offline grounding checker)")
    if kind == "disputed":
        return ("no sample's reviewers disagree with the judge or with each other (decisions are read from each "
                "run folder's review.sqlite, or --review)")
    if kind == "low":
        return "no sample's value is below the bound (unscored samples are never low)"
    return "no sample to draw"


def _results(candidate: Candidate) -> list[dict[str, Any]]:
    metrics = candidate.row.get("metrics")
    return [r for r in (metrics.values() if isinstance(metrics, dict) else ()) if isinstance(r, dict)]

