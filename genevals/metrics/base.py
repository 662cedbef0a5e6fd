"""The metric protocol, sacrebleu-style: a small object with settings, a signature, and batch scoring.

A metric family may produce several named outputs (ROUGE gives rouge1, rouge2, rougeL). Scoring takes a
batch so that families which benefit from batching (BERTScore, the judge) can do so; simple metrics loop.
"""
from __future__ import annotations

import abc
from typing import Any, Iterable, Mapping, Sequence

from genevals.types import MetricResult, Sample


class Metric(abc.ABC):
    #: the family name used on the command line, e.g. "rouge"
    family: str = ""

    @abc.abstractmethod
    def output_names(self) -> list[str]:
        """The names of the values this metric writes, e.g. ["rouge1", "rouge2", "rougeL"]."""

    @abc.abstractmethod
    def signature(self) -> str:
        """A sacrebleu-style signature: ``name|setting:value|...|version:x``."""

    @abc.abstractmethod
    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        """One dict (output name -> result) per sample, in the order given."""

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """One sample's sufficient statistics for corpus-level values, to be summed key by key (sacrebleu's
        design: a run keeps only the running sums, never the samples). None: this metric has none."""
        return None

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        """Corpus-level values from the summed statistics. Default: the sums themselves (e.g. judge tokens)."""
        return dict(totals)

    def corpus_scores(self, per_sample: Iterable[Mapping[str, MetricResult]]) -> dict[str, Any]:
        """Corpus-level values of a sequence of per-sample outputs: sum the statistics, then finish."""
        totals = CorpusTotals()
        for outputs in per_sample:
            totals.add(self.corpus_statistics(outputs))
        return self.corpus_from_statistics(totals.sums) if totals.sums else {}

    @property
    def has_corpus_scores(self) -> bool:
        return type(self).corpus_statistics is not Metric.corpus_statistics

    def describe(self) -> dict[str, str]:
        """Output name -> one-line definition, for ``genevals metrics``."""
        doc = (type(self).__doc__ or "").strip()
        return {name: doc for name in self.output_names()}


class CorpusTotals:
    """Running key-by-key sums of per-sample corpus statistics: constant memory however many samples."""

    def __init__(self) -> None:
        self.sums: dict[str, float] = {}

    def add(self, statistics: Mapping[str, float] | None) -> None:
        for key, value in (statistics or {}).items():
            self.sums[key] = self.sums.get(key, 0) + value


def usage_statistics(result: MetricResult | None, prefix: str) -> dict[str, float] | None:
    """The numeric entries of a judge result's ``details["usage"]``, keys prefixed, for summing."""
    if result is None:
        return None
    usage = (result.details or {}).get("usage") or {}
    return {prefix + key: value for key, value in usage.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}
