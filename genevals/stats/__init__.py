"""Every statistic genevals reports, with one seed: one module per idea.

- :mod:`~genevals.stats.bootstrap`: percentile-bootstrap intervals of a mean (the seed and resamples live here),
- :mod:`~genevals.stats.summary`: a metric's mean, interval and unscored counts,
- :mod:`~genevals.stats.paired`: the paired bootstrap test of two systems,
- :mod:`~genevals.stats.cluster`: intervals and paired tests by conversation (turns are not independent),
- :mod:`~genevals.stats.agreement`: agreement of binary decisions with human labels, and raters' kappas,
- :mod:`~genevals.stats.comparisons`: which systems are compared and how (summary.json's comparisons), the
  headline metrics and the leaderboard with its one-sentence finding,
- :mod:`~genevals.stats.ahead`: intervals made ahead in a thread.

This package re-exports what ``genevals.stats`` offered as one module (intervals, summaries, the paired test), so
``from genevals.stats import summarise`` keeps working. It does not import :mod:`~genevals.stats.ahead`:
:func:`~genevals.stats.bootstrap.bootstrap_cis` looks there only once a caller has loaded it.
"""
from genevals.stats.bootstrap import (DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_ci, bootstrap_cis,
                                      bootstrap_repeats_ci, intervals)
from genevals.stats.paired import (IDENTICAL, MIN_PAIRS, SIGN_FLIP_BLOCK, TOO_FEW_PAIRS, PairedComparison,
                                   bootstrap_p_value, paired_bootstrap_means, paired_bootstrap_means_many,
                                   paired_comparison, paired_comparison_of_differences, paired_differences,
                                   paired_means_of, too_few_pairs_text, untested)
from genevals.stats.summary import (DEFAULT_MIN_COVERAGE, MetricSummary, summarise, summarise_many,
                                    unscored_count)

__all__ = ["DEFAULT_MIN_COVERAGE", "DEFAULT_RESAMPLES", "DEFAULT_SEED", "IDENTICAL", "MIN_PAIRS", "SIGN_FLIP_BLOCK",
           "TOO_FEW_PAIRS", "MetricSummary", "PairedComparison", "bootstrap_ci", "bootstrap_cis",
           "bootstrap_p_value", "bootstrap_repeats_ci", "intervals", "paired_bootstrap_means",
           "paired_bootstrap_means_many", "paired_comparison", "paired_comparison_of_differences",
           "paired_differences", "paired_means_of", "summarise", "summarise_many", "too_few_pairs_text", "unscored_count", "untested"]
