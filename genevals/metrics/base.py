"""The metric protocol, sacrebleu-style: a small object with settings, a signature, and batch scoring.

A metric family may produce several named outputs (ROUGE gives rouge1, rouge2, rougeL). Scoring takes a
batch so that families which benefit from batching (BERTScore, the judge) can do so; simple metrics loop.
"""
from __future__ import annotations

import abc
from typing import Any, Mapping, Sequence

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

    def corpus_scores(self, per_sample: Sequence[Mapping[str, MetricResult]]) -> dict[str, Any]:
        """Corpus-level values computed from summed per-sample statistics (BLEU). Default: none."""
        return {}

    def describe(self) -> dict[str, str]:
        """Output name -> one-line definition, for ``genevals metrics``."""
        doc = (type(self).__doc__ or "").strip()
        return {name: doc for name in self.output_names()}
