r"""``genevals run --baseline RUN``: this run against an earlier one of the history, system by system, on the
question ids both scored, with the paired test the report uses between systems
(:func:`genevals.stats.paired_comparison_of_differences`, :data:`genevals.report.stats.PAIRED_RESAMPLES`
resamples, the run's seed).

For each system both runs have and each metric both stored, :math:`d_i = x_i - b_i` over the shared ids taken in
ascending order of their 64-bit digests (the order every paired comparison takes), ``x`` this run and ``b`` the
baseline. A change is a regression when it is significant (``p < 0.05``, i.e. the 95% CI of the mean difference
excludes 0) and goes the wrong way for the metric: below 0 for a higher-is-better metric, above 0 for a
lower-is-better one. Fewer than :data:`genevals.stats.MIN_PAIRS` shared ids are "too few pairs to test": never a
regression. A regression of a gated metric (one with ``--fail-under`` or ``--fail-over``) fails the run.
Differences within float noise are 0 (:func:`genevals.stats.paired_differences`): equal on every id is
"identical on every sample", with no test. A metric the two runs scored under signatures that differ
(:func:`genevals.signature.signature_difference`: other settings, language handling, model or prompt) is not
compared, never a regression, and says why.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import numpy as np

from genevals.history.store import RunRecord
from genevals.output.terminal import visible
from genevals.report.stats import PAIRED_RESAMPLES
from genevals.signature import signature_difference, signature_of
from genevals.stats import (DEFAULT_SEED, IDENTICAL, paired_comparison_of_differences, paired_differences,
                            too_few_pairs_text)

Values = Mapping[str, tuple[np.ndarray, Mapping[str, np.ndarray]]]


@dataclass(frozen=True)
class Change:
    system: str
    metric: str
    n_pairs: int
    baseline_mean: float
    mean: float
    #: None when not compared (:attr:`not_compared`)
    mean_difference: float | None
    #: None, both, with too few pairs to test (:data:`genevals.stats.MIN_PAIRS`)
    ci95: tuple[float | None, float | None]
    p_value: float | None
    significant: bool
    #: significant, and the wrong way for the metric's direction
    regression: bool
    gated: bool
    #: equal on every shared id (within float noise): no test
    identical: bool = False
    #: why the metric was not compared ("signatures differ (lang:auto vs lang:en)"), or None
    not_compared: str | None = None

    def line(self, baseline_id: int | None) -> str:
        word = "REGRESSION" if self.regression else ("improved" if self.significant else "no significant change")
        head = (f"{visible(self.system)}: {visible(self.metric)} {self.mean:.4f} vs {self.baseline_mean:.4f} "
                f"in run #{baseline_id} on {self.n_pairs} shared ids")
        if self.not_compared is not None:
            return f"{head}: not compared: {visible(self.not_compared)}" + (" (gated)" if self.gated else "")
        if self.identical:
            return f"{head}: {IDENTICAL}" + (" (gated)" if self.gated else "")
        head += f": difference {self.mean_difference:+.4f}"
        if self.p_value is None or self.ci95[0] is None or self.ci95[1] is None:
            test = f": {too_few_pairs_text(self.n_pairs)}"
        else:
            test = f" [95% CI {self.ci95[0]:+.4f}, {self.ci95[1]:+.4f}], p = {self.p_value:.4f}: {word}"
        return head + test + (" (gated)" if self.gated else "")


def compare(values: Values, baseline: RunRecord, directions: Mapping[str, str], gated: Collection[str],
            seed: int = DEFAULT_SEED, signatures: Mapping[str, str] | None = None,
            families: Mapping[str, str] | None = None) -> list[Change]:
    """Every (system, metric) both have, this run's ``values`` against the ``baseline``'s stored ones;
    ``directions[metric]``: "higher" or "lower" (is better); a metric without one is compared, never a
    regression. ``signatures``: this run's (summary.json's, by family; ``families``: output -> family): a metric
    whose signature differs from the baseline's is a :class:`Change` with ``not_compared`` set, and no test."""
    apart = {}
    for metric in {m for _, columns in values.values() for m in columns}:
        why = signature_difference(signature_of(metric, signatures, families),
                                   signature_of(metric, baseline.signatures, families))
        if why is not None:
            apart[metric] = why
    out = []
    for system, (keys, columns) in values.items():
        if system not in baseline.values:
            continue
        base_keys, base_columns = baseline.values[system]
        for metric, column in columns.items():
            if metric not in base_columns:
                continue
            mine, theirs = ~np.isnan(column), ~np.isnan(base_columns[metric])
            _, ia, ib = np.intersect1d(keys[mine], base_keys[theirs], assume_unique=True, return_indices=True)
            x, b = column[mine][ia], base_columns[metric][theirs][ib]
            if metric in apart:
                if x.size:
                    out.append(Change(system, metric, int(x.size), float(b.mean()), float(x.mean()), None,
                                      (None, None), None, False, False, metric in gated, not_compared=apart[metric]))
                continue
            result = paired_comparison_of_differences(metric, "run", "baseline", paired_differences(x, b), seed=seed,
                                                      resamples=PAIRED_RESAMPLES)
            if result is None:
                continue
            direction = directions.get(metric)
            wrong_way = ((direction == "higher" and result.mean_difference < 0)
                         or (direction == "lower" and result.mean_difference > 0))
            out.append(Change(system, metric, result.n_pairs, float(b.mean()), float(x.mean()),
                              result.mean_difference, (result.ci_low, result.ci_high), result.p_value,
                              result.significant, result.significant and wrong_way, metric in gated,
                              identical=result.identical))
    return out


def unshared_ids(ids: Mapping[str, np.ndarray], baseline: RunRecord) -> str | None:
    """Why a run whose samples have ``ids`` (per system, their id digests) cannot be compared with ``baseline``:
    no system in common, or no question id in common (the usual cause: the baseline is a run of another input);
    None when some system shares some id."""
    systems = [s for s in ids if s in baseline.values]
    if not systems:
        return f"no system in common (this run: {_listed(ids)}; the baseline: {_listed(baseline.values)})"
    if any(np.intersect1d(ids[s], baseline.values[s][0]).size for s in systems):
        return None
    mine = np.unique(np.concatenate([np.asarray(k, dtype=np.uint64) for k in ids.values()]))
    theirs = np.unique(np.concatenate([k for k, _ in baseline.values.values()]))
    shared = np.intersect1d(mine, theirs).size
    return (f"it has {theirs.size} question id{'s' if theirs.size != 1 else ''}, this run {mine.size}, "
            + ("none shared" if not shared else f"{shared} shared but under other systems"))


def nothing_shared(values: Values, baseline: RunRecord) -> str:
    """Why :func:`compare` found nothing to compare, with the counts: no shared system or id
    (:func:`unshared_ids`), no stored metric in common, or no id scored by both."""
    problem = unshared_ids({s: keys for s, (keys, _) in values.items()}, baseline) if values else None
    if problem is not None:
        return problem
    systems = [s for s in values if s in baseline.values]
    mine = sorted({m for s in systems for m in values[s][1]})
    theirs = sorted({m for s in systems for m in baseline.values[s][1]})
    if not set(mine) & set(theirs):
        return f"no stored metric in common (this run: {_listed(mine)}; the baseline: {_listed(theirs)})"
    return "no question id scored by both runs in any system and metric"


def _listed(names: Collection[str], most: int = 4) -> str:
    names = list(names)
    return ", ".join(visible(n) for n in names[:most]) + (f" and {len(names) - most} more" if len(names) > most
                                                          else "") if names else "none"
