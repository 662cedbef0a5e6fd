r"""Reciprocal rank fusion (RRF) of several rankings of the same topics.

.. math::

    \mathrm{RRF}(d) = \sum_{i=1}^{n} \frac{w_i}{k + \mathrm{rank}_i(d)}

where :math:`\mathrm{rank}_i(d)` is the 1-based rank of document :math:`d` in run :math:`i` (a run that did not
retrieve :math:`d` adds nothing), :math:`k = 60` by default and every weight :math:`w_i = 1` by default.

Reference: G. V. Cormack, C. L. A. Clarke, S. Buettcher. "Reciprocal Rank Fusion outperforms Condorcet and
individual Rank Learning Methods." SIGIR 2009.

    @inproceedings{cormack2009rrf,
      title={Reciprocal rank fusion outperforms condorcet and individual rank learning methods},
      author={Cormack, Gordon V. and Clarke, Charles L. A. and Buettcher, Stefan},
      booktitle={SIGIR}, pages={758--759}, year={2009}}

The sum is taken with :func:`math.fsum` (correctly rounded), so a document's score does not depend on the order
of the runs, and two documents with the same terms tie exactly. Ties are broken by document id in descending
byte order, trec_eval's own tie-break: a fused run written as a TREC file evaluates in trec_eval in exactly the
order genevals fused it.
"""
from __future__ import annotations

import math
import sys
from typing import Iterator, Mapping, Sequence

DEFAULT_K = 60.0


def check(k: float, weights: Sequence[float] | None, n_runs: int) -> list[float]:
    """The weights to use (1 each by default); ValueError for a k or weights that cannot work."""
    if not (isinstance(k, (int, float)) and math.isfinite(k) and k >= 0):
        raise ValueError(f"k must be a finite number >= 0, got {k!r}")
    if weights is None:
        return [1.0] * n_runs
    if len(weights) != n_runs:
        raise ValueError(f"{len(weights)} weight(s) for {n_runs} run(s): give one weight per run")
    for w in weights:
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"a weight must be a finite number >= 0, got {w!r}")
    if not any(weights):
        raise ValueError("at least one weight must be > 0")
    # a document's score is a sum of terms w / (k + rank), each at most w / (k + 1): their sum bounds it, and past
    # the largest double math.fsum raises OverflowError
    try:
        total = math.fsum(w / (k + 1) for w in weights)
    except OverflowError:
        total = math.inf
    if not math.isfinite(total):
        raise ValueError(f"with k = {k:g}, the weights add up to scores over {sys.float_info.max:.4g}, the largest "
                         "number a score can hold")
    return [float(w) for w in weights]


def rrf(runs: Sequence[Mapping[str, Sequence[str]]], k: float = DEFAULT_K,
        weights: Sequence[float] | None = None) -> dict[str, list[tuple[str, float]]]:
    """Fuse ``runs`` (each topic -> document ids, best first; a document listed twice in one ranking counts at
    its first rank) into topic -> (document id, RRF score), best first. Topics are those of any run, in the
    order they first appear (the first run's, then those only later runs have)."""
    return dict(rrf_topics(runs, k, weights))


def rrf_topics(runs: Sequence[Mapping[str, Sequence[str]]], k: float = DEFAULT_K,
               weights: Sequence[float] | None = None) -> Iterator[tuple[str, list[tuple[str, float]]]]:
    """:func:`rrf`, a topic at a time: (topic, its fused ranking), so that a fused run can be written as it is
    made, without holding every topic's (a run read as columns makes each topic's ranking when asked)."""
    weights = check(k, weights, len(runs))
    topics: dict[str, None] = {}
    for run in runs:
        topics.update(dict.fromkeys(run))
    for topic in topics:
        terms: dict[str, list[float]] = {}
        for run, weight in zip(runs, weights):
            seen: set[str] = set()
            rank = 0
            for doc in run.get(topic, ()):
                if doc in seen:
                    continue
                seen.add(doc)
                rank += 1
                terms.setdefault(doc, []).append(weight / (k + rank))
        scored = [(doc, math.fsum(parts)) for doc, parts in terms.items()]
        scored.sort(key=lambda d: d[0].encode(), reverse=True)
        scored.sort(key=lambda d: -d[1])  # stable: equal scores keep the id order (descending)
        yield topic, scored
