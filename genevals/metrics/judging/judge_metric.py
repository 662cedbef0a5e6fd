"""What every LLM-judge metric shares (faithfulness, llm_rubric, pairwise and the one-call RAG judges): its
:class:`~genevals.judge.config.JudgeConfig` in ``self.judge`` and its
:class:`~genevals.judge.runtime.JudgeRuntime` in ``self.runtime``, which give its concurrency, its caution and
whether it runs offline.

Each subclass's ``_score_safe`` is wrapped, so that every judge metric's outputs leave it
- redacted: the client already redacts each reply as it arrives (its text, the model that answered, every
  error), but what a parser decoded or joined from it (a key written with JSON escapes, or split across two
  strings) only exists afterwards (:mod:`genevals.judge.redact`);
- saying which model answered: ``details["judge"]["answered_by"]``, the ``model`` the replies named (a local
  server answers with whatever it has loaded, whatever name it was sent), beside ``model``, the one asked for;
- saying which language the sample was judged in (:meth:`~genevals.metrics.base.Metric.language_of`:
  ``language``, ``language_source`` and any ``language_note``), on the first output and on every output that
  carries the judge's record; the signature names the run's setting (``lang:auto``, ``lang:zh``...);
- repeated, with ``--judge-repeats N`` (:mod:`genevals.metrics.judging.repeats`): scored N times as repeats
  0..N-1 and combined, unless the metric repeats its own calls (``repeats_itself``, as faithfulness verifies N
  times on one decomposition). Its ``corpus_statistics`` gain the repeats' statistics, which
  :meth:`JudgeMetric.judge_repeats` turns into the flip rate, spread and judge-variance interval per system.
"""
from __future__ import annotations

import asyncio
import functools
from dataclasses import replace
from typing import Any, ClassVar, Mapping

from genevals import prompt_render, types
from genevals.judge.client import ANSWERED, CallLog
from genevals.judge.config import JudgeConfig
from genevals.judge.runtime import JudgeRuntime
from genevals.language import Language
from genevals.metrics.base import ConcurrentMetric, Unscored
from genevals.metrics.judging import repeats
from genevals.types import MetricResult, Sample


class JudgeMetric(ConcurrentMetric):
    reads_language = True  # scores in the sample's language: the run counts its majority
    judge: JudgeConfig
    runtime: JudgeRuntime
    #: whether ``_score_safe`` makes the N repeats itself (else it is called N times, as repeats 0..N-1)
    repeats_itself = False
    #: how a jury judges this metric (:func:`genevals.metrics.judging.jury.for_jury`): True, each judge scores
    #: the whole sample; a mixin class, the family's own way; a string, why it cannot
    jury_support: Any = True
    #: the prompt files (prompts/NAME.md) it sends, hashed into its ``prompt_version``
    prompts: ClassVar[tuple[str, ...]] = ()

    def __init__(self, judge: JudgeConfig | None = None, **values: Any) -> None:
        """Its settings (:meth:`~genevals.metrics.base.Metric.__init__`), then its judge: ``judge`` (the defaults
        when None), the runtime calling it under the hash of its :attr:`prompts`, and the context budget."""
        if not self.prompts:  # an empty hash would not change when a prompt is edited: cached replies would stay
            raise TypeError(f"{type(self).__name__}: declare the prompt files it sends (prompts = (NAME, ...))")
        super().__init__(**values)
        self.judge = judge if judge is not None else JudgeConfig()
        self.runtime = JudgeRuntime(self.judge, prompt_render.prompt_version(*self.prompts))
        self.context_token_budget = self.judge.context_budget

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # as resolved: a mixin's (pairwise's) comes before JudgeMetric's own
        if not getattr(cls.corpus_statistics, "repeats", False):
            cls.corpus_statistics = _with_repeats(cls.corpus_statistics)  # type: ignore[method-assign]
        if not getattr(cls.corpus_from_statistics, "repeats", False):
            cls.corpus_from_statistics = _without_repeats(cls.corpus_from_statistics)  # type: ignore[method-assign]
        own = cls.__dict__.get("_score_safe")
        if own is None or getattr(own, "redacts", False):
            return

        @functools.wraps(own)
        async def redacted(self, sample):
            token = ANSWERED.set(set())  # filled by the client with each call's model, in this sample's task
            try:
                outputs = await self._repeated(own, sample)
                answered = ANSWERED.get()
            finally:
                ANSWERED.reset(token)
            return self.finish_outputs(outputs, answered, self.language_of(sample))

        redacted.redacts = True  # type: ignore[attr-defined]
        cls._score_safe = redacted  # type: ignore[method-assign]

    def judge_details(self, log: CallLog, variant: str | None = None, **more: Any) -> dict[str, Any]:
        """The details a judged result opens with: the judge's record (with ``variant``, when given), the usage of
        ``log``'s calls, ``more``, and the caution every result of this judge carries, if any."""
        judge = {**self.runtime.judge_info(), "variant": variant} if variant else self.runtime.judge_info()
        details: dict[str, Any] = {"judge": judge, "usage": self.runtime.usage_dict(log.usage), **more}
        if self.warning:
            details["warning"] = self.warning
        return details

    async def _repeated(self, own: Any, sample: Any) -> dict[str, MetricResult]:
        """``own(self, sample)`` once, or as N repeats combined (a dry run: once, its estimate times N)."""
        n = self.runtime.repeats
        if n == 1 or self.repeats_itself:
            return await own(self, sample)
        if self.judge.dry_run:
            return repeats.scaled_estimate(await own(self, sample), n)
        per_repeat = await asyncio.gather(*(repeats.in_repeat(r, lambda: own(self, sample)) for r in range(n)))
        return repeats.combine(per_repeat)

    def corpus_statistics(self, outputs: Mapping[str, MetricResult]) -> Mapping[str, Any] | None:
        """The repeats' statistics (none without repeats); a judge metric's own are added to them."""
        return None

    def corpus_from_statistics(self, totals: Mapping[str, Any]) -> dict[str, Any]:
        return dict(totals)

    def judge_repeats(self, totals: Mapping[str, Any], seed: int) -> dict[str, Any] | None:
        """Output -> its repeats' figures for one system (:func:`repeats.summarise`), from the summed corpus
        statistics; None without repeats."""
        parts = repeats.split(totals)[1]
        return {name: repeats.summarise(p, seed) for name, p in parts.items()} or None

    def language_signature(self) -> dict[str, str]:
        """The signature's language part: the run's setting (``lang:auto``, ``lang:auto:de``, ``lang:zh``). The
        judge reads any language; the setting still says which language each sample's details record."""
        return {"lang": str(self.language)}

    def finish_outputs(self, outputs: dict[str, Any], answered: set[str] | None,
                       language: Language | None = None) -> dict[str, Any]:
        """``outputs`` with the judge's secrets taken out of every reason and detail (after decoding), the
        models that ``answered`` in each ``details["judge"]``, and the sample's ``language`` on the first output
        and each output with a ``details["judge"]``."""
        redactor = self.runtime.redactor
        out = {}
        first = next(iter(outputs), None)
        for name, result in outputs.items():
            details = dict(result.details)
            if language is not None and (name == first or isinstance(details.get("judge"), dict)):
                details = {**language.details(), **details}
            if answered and isinstance(details.get("judge"), dict):
                # the models the replies named (already redacted by the client), redacted with the rest
                details["judge"] = {**details["judge"], "answered_by": "+".join(sorted(answered))}
            out[name] = replace(result, reason=redactor(result.reason), details=redactor.deep(details))
        return out

    @classmethod
    def offline(cls, judge: JudgeConfig | None) -> bool:
        return not (judge if judge is not None else JudgeConfig()).configured

    @property
    def warning(self) -> str | None:
        notes = [note for note in (self.runtime.warning, self.runtime.repeats_note) if note]
        return "; ".join(notes) or None

    @property
    def concurrency(self) -> int:
        return self.judge.in_flight


def _with_repeats(own: Any) -> Any:
    @functools.wraps(own)
    def corpus_statistics(self, outputs):
        stats = own(self, outputs)
        extra = repeats.statistics_of(outputs)
        if not extra:
            return stats
        return {**(stats or {}), **extra}

    corpus_statistics.repeats = True  # type: ignore[attr-defined]
    return corpus_statistics


def _without_repeats(own: Any) -> Any:
    @functools.wraps(own)
    def corpus_from_statistics(self, totals):
        return own(self, repeats.split(totals)[0])

    corpus_from_statistics.repeats = True  # type: ignore[attr-defined]
    return corpus_from_statistics


JudgeMetric.corpus_statistics = _with_repeats(JudgeMetric.corpus_statistics)  # type: ignore[method-assign]
JudgeMetric.corpus_from_statistics = _without_repeats(  # type: ignore[method-assign]
    JudgeMetric.corpus_from_statistics)


class GuardedJudge(JudgeMetric):
    """A judge metric that scores a sample in ``_score_one(sample, log)``: an
    :class:`~genevals.metrics.base.Unscored` it raises, or a bug, leaves every output unscored with its status and
    redacted reason (never a lost sample, never a silent value); the first output carries the details, the calls'
    usage and, when the judge failed or its reply could not be read, the transcript."""

    async def _score_one(self, sample: Sample, log: CallLog) -> dict[str, MetricResult]:
        raise NotImplementedError

    def _details(self, log: CallLog) -> dict[str, Any]:
        return self.judge_details(log, "llm", judge_calls=len(log.calls))

    def unscored(self, status: str, reason: str, details: Mapping[str, Any]) -> dict[str, MetricResult]:
        names = self.output_names()
        return {name: MetricResult.unscored(name, status, reason, **(dict(details) if name == names[0] else {}))
                for name in names}

    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        log = CallLog()
        try:
            return await self._score_one(sample, log)
        except Unscored as exc:
            details = {**self._details(log), **exc.details}
            if exc.status in (types.PARSE_ERROR, types.JUDGE_ERROR):
                details["transcript"] = log.transcript()
            return self.unscored(exc.status, self.runtime.redact(exc.reason), details)
        except Exception as exc:  # a bug must not lose the sample: record it
            details = {**self._details(log), "transcript": log.transcript()}
            return self.unscored(types.ERROR, self.runtime.redact(f"internal error: {type(exc).__name__}: {exc}"),
                                 details)
        finally:
            self.runtime.add_total(log.usage)
