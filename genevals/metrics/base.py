"""The metric protocol, sacrebleu-style: a small object with settings, a signature, and batch scoring.

A metric family may produce several named outputs (ROUGE gives rouge1, rouge2, rougeL). Scoring takes a
batch so that families which benefit from batching (BERTScore, the judge) can do so; simple metrics loop.
``score_each`` hands each sample's outputs over as soon as they exist, so the runner can write a judged
sample without waiting for the slowest one of its batch.
"""
from __future__ import annotations

import abc
import asyncio
from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Sequence

from genevals.types import MetricResult, Sample

#: ``emit(index, outputs)``: the outputs of ``samples[index]``, called once per sample.
Emit = Callable[[int, dict[str, MetricResult]], None]


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

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        """Call ``emit`` once per sample, as soon as that sample's outputs exist (in any order).

        Default: score the whole batch, then emit in order; metrics whose samples finish at very different
        times (the LLM judges) override it."""
        for index, outputs in enumerate(self.score(samples)):
            emit(index, outputs)

    def _collect(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        """``score`` for metrics built on ``score_each``: its outputs, back in input order."""
        out: list[dict[str, MetricResult]] = [{} for _ in samples]

        def keep(index: int, outputs: dict[str, MetricResult]) -> None:
            out[index] = outputs

        self.score_each(samples, keep)
        return out

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, float] | None:
        """One sample's sufficient statistics for corpus-level values, to be summed key by key (sacrebleu's
        design: a run keeps only the running sums, never the samples). None: this metric has none."""
        return None

    def corpus_from_statistics(self, totals: Mapping[str, float]) -> dict[str, Any]:
        """Corpus-level values from the summed statistics. Default: the sums themselves (e.g. judge tokens)."""
        return dict(totals)

    def corpus_scores(self, per_sample: Iterable[Mapping[str, MetricResult]]) -> dict[str, Any]:
        """Corpus-level values of a sequence of per-sample outputs: sum the statistics, then finish."""
        totals: Counter = Counter()
        for outputs in per_sample:
            totals.update(self.corpus_statistics(outputs) or {})
        return self.corpus_from_statistics(totals) if totals else {}

    @property
    def has_corpus_scores(self) -> bool:
        return type(self).corpus_statistics is not Metric.corpus_statistics

    def describe(self) -> dict[str, str]:
        """Output name -> one-line definition, for ``genevals metrics``."""
        doc = (type(self).__doc__ or "").strip()
        return {name: doc for name in self.output_names()}


class ConcurrentMetric(Metric):
    """A metric that scores each sample in its own coroutine, a whole batch at once (the LLM judges: their
    client's semaphore, not the batch, bounds the requests in flight)."""

    @abc.abstractmethod
    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        """One sample's outputs; never raises for the sample's sake (failures become unscored results)."""

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return self._collect(samples)

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        from genevals.judge.client import run_sync

        run_sync(lambda: self._score_each(samples, emit))

    async def _score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        async def one(index: int, sample: Sample) -> None:
            emit(index, await self._score_safe(sample))

        await asyncio.gather(*(one(index, sample) for index, sample in enumerate(samples)))


def usage_statistics(result: MetricResult | None, prefix: str) -> dict[str, float] | None:
    """The numeric entries of a judge result's ``details["usage"]``, keys prefixed, for summing."""
    if result is None:
        return None
    usage = (result.details or {}).get("usage") or {}
    return {prefix + key: value for key, value in usage.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)}
