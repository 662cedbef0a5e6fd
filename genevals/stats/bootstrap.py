"""Percentile-bootstrap confidence intervals of a mean, with one seed: of a column of values (many columns
sharing one draw per length), and of judge repeats (samples, then each sample's repeats).

The seed and the number of resamples every genevals statistic uses are defined here, so an interval reproduces
byte for byte from the same values.
"""
from __future__ import annotations

import sys
from typing import Sequence

import numpy as np

DEFAULT_SEED = 12345
DEFAULT_RESAMPLES = 1000


def bootstrap_ci(values: Sequence[float], seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
                 confidence: float = 0.95) -> tuple[float, float]:
    r"""Percentile bootstrap of the mean.

    Draw ``resamples`` samples of size n with replacement using ``numpy.random.default_rng(seed)``, take each
    mean, and return the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles. The same values and seed give the
    same interval, so summaries reproduce exactly.
    """
    return bootstrap_cis([values], seed, resamples, confidence)[0]


def bootstrap_cis(columns: Sequence[Sequence[float]], seed: int = DEFAULT_SEED,
                  resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> list[tuple[float, float]]:
    """:func:`bootstrap_ci` of each column, each interval exactly as that function gives it.

    The resampled positions depend only on the seed and a column's length, so the columns of one length share
    one draw (a run's 32 retrieval outputs all have one length): each block of indices is drawn once and every
    column of that length is averaged over it."""
    data = [np.asarray(values, dtype=float) for values in columns]
    out: list[tuple[float, float] | None] = [None] * len(data)
    ahead = sys.modules.get("genevals.stats.ahead")  # loaded only by a caller that makes intervals ahead
    if ahead is not None and ahead.pending():  # the same intervals, taken
        keys = [ahead.key(column, seed, resamples, confidence) for column in data]
        made = ahead.take(keys)
        out = [made.get(k) for k in keys]
    return intervals(data, out, seed, resamples, confidence)


def intervals(data: list[np.ndarray], out: list[tuple[float, float] | None], seed: int, resamples: int,
              confidence: float) -> list[tuple[float, float]]:
    """:func:`bootstrap_cis` of the columns of ``data`` whose interval in ``out`` is None."""
    by_size: dict[int, list[int]] = {}
    for i, column in enumerate(data):
        if out[i] is not None:
            continue
        if column.size == 1:
            out[i] = (float(column[0]), float(column[0]))
        else:
            by_size.setdefault(column.size, []).append(i)
    alpha = (1.0 - confidence) / 2.0
    for size, members in by_size.items():
        rng = np.random.default_rng(seed)
        means = np.empty((len(members), resamples))
        # Resample in blocks so 100,000 values x 1,000 resamples never materialise at once.
        block = max(1, 2_000_000 // size)
        for start in range(0, resamples, block):
            stop = min(resamples, start + block)
            idx = rng.integers(0, size, size=(stop - start, size))
            for row, i in enumerate(members):
                # np.take, not data[i][idx]: the same values, faster, and it lets the GIL go (stats.ahead)
                means[row, start:stop] = np.take(data[i], idx).mean(axis=1)
        for row, i in enumerate(members):
            low, high = np.quantile(means[row], [alpha, 1.0 - alpha])
            out[i] = (float(low), float(high))
    return out  # type: ignore[return-value]


def bootstrap_repeats_ci(repeats: Sequence[Sequence[float]], seed: int = DEFAULT_SEED,
                         resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95) -> tuple[float, float]:
    r"""Percentile bootstrap of the mean that includes the judge's variance: two stages, samples then repeats.

    ``repeats[i]`` holds sample i's scores over its judge repeats (one or more). Each resample draws n samples
    with replacement, then for each drawn sample :math:`m_i` of its own scores with replacement, and takes
    :math:`\frac{1}{n}\sum_i \frac{1}{m_i}\sum_j x_{ij}^*`; the :math:`(1-c)/2` and :math:`(1+c)/2` quantiles
    of those means are the interval (Davison & Hinkley 1997, sec. 3.8). With one score per sample it is
    :func:`bootstrap_ci`'s interval of the samples' scores. The samples are taken in sorted order, so the same
    scores give the same interval whatever order they were counted in (local, worker or Ray engines).
    """
    rows = sorted(tuple(float(v) for v in r) for r in repeats if len(r))
    if not rows:
        raise ValueError("bootstrap_repeats_ci: no scores")
    if len(rows) == 1 and len(set(rows[0])) == 1:
        return rows[0][0], rows[0][0]
    width = max(len(r) for r in rows)
    n = len(rows)
    values = np.full((n, width), np.nan)
    counts = np.empty(n, dtype=int)
    for i, r in enumerate(rows):
        values[i, :len(r)], counts[i] = r, len(r)
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    block = max(1, 2_000_000 // (n * width))
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        picked = rng.integers(0, n, size=(stop - start, n))
        # each drawn sample's repeats, drawn with replacement from its own m_i scores
        cols = (rng.random((stop - start, n, width)) * counts[picked][..., None]).astype(int)
        scores = values[picked[..., None], cols]
        within = np.arange(width)[None, None, :] < counts[picked][..., None]
        sample_means = np.where(within, scores, 0.0).sum(axis=2) / counts[picked]
        means[start:stop] = sample_means.mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)
