"""The metric protocol, sacrebleu-style: a small object with settings, a signature, and batch scoring.

A metric declares its own facts next to its code, as class attributes: its family name, its outputs (name,
one-line definition, direction, range), its kind (cheap and process-parallel, model-backed, or judge-backed),
and, through the methods it overrides, whether it gives corpus statistics and whether it needs a ``prepare``
look at the whole input. ``@register`` makes it available by name (:mod:`genevals.registry`); the runner,
the engines, the CLI and the report read these declarations and nothing else.

A metric family may produce several named outputs (ROUGE gives rouge1, rouge2, rougeL). Scoring takes a
batch so that families which benefit from batching (BERTScore, the judge) can do so; simple metrics loop.
``score_each`` hands each sample's outputs over as soon as they exist, so the runner can write a judged
sample without waiting for the slowest one of its batch; ``score_stream`` does the same for a whole run, and
the judges start a new sample whenever one finishes (a sliding window, no barrier between batches:
:class:`~genevals.metrics.base.concurrent.ConcurrentMetric`).
"""
from __future__ import annotations

import abc
import os
import re
from collections import Counter
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping, Sequence

from genevals import extras, types
from genevals.language import Language, LanguageSetting, language_of
from genevals.language.codes import name as language_name
from genevals.metrics.base.cards import card_lines
from genevals.metrics.base.declarations import CHEAP, KINDS, Output, _pattern
from genevals.settings import check
from genevals.types import MetricResult, Sample

if TYPE_CHECKING:
    from genevals.scored import Columns

#: ``emit(index, outputs)``: the outputs of ``samples[index]``, called once per sample.
Emit = Callable[[int, dict[str, MetricResult]], None]


#: family name -> metric class, filled by :func:`register`; :mod:`genevals.registry` reads it
_FAMILIES: dict[str, type["Metric"]] = {}


class Unscored(Exception):
    """Raised inside scoring: the sample gets ``status`` with ``reason`` and ``details`` instead of a value."""

    def __init__(self, status: str, reason: str, **details: Any):
        super().__init__(reason)
        self.status, self.reason, self.details = status, reason, details



class Metric(abc.ABC):
    #: the family name used on the command line, e.g. "rouge"
    family: ClassVar[str] = ""
    #: what it writes; templates ("recall@{k}") stand for the outputs a setting chooses
    outputs: ClassVar[tuple[Output, ...]] = ()
    #: CHEAP, MODEL or JUDGE
    kind: ClassVar[str] = CHEAP
    #: the named sets it belongs to: "default" (what runs when no metric is named) and "all"
    presets: ClassVar[tuple[str, ...]] = ()
    #: its position in listings, presets and each results line (smaller first)
    order: ClassVar[int] = 100
    #: another family whose outputs this one writes (grounding and cascade write faithfulness's): a run
    #: holds one of them, and output names resolve to that family
    writes_for: ClassVar[str | None] = None
    #: a family to run instead when this judge-backed one has no judge configured, and why: a note whose first
    #: line is what the terminal shows (the fact and what to do, at most
    #: :data:`genevals.lifecycle.messages.MAX_LINE` characters with its prefix); lines after it are details, kept in
    #: summary.json and shown in the report
    offline_alternative: ClassVar[tuple[str, str] | None] = None
    #: settings the offline alternative runs with when it stands in for this metric (the user's own win)
    offline_settings: ClassVar[Mapping[str, Any]] = {}
    #: the outputs the terminal table shows by default (``--all-outputs`` shows every one); None: all of them.
    #: A template's instance ("recall@10") stands for the nearest cutoff a run computed (see
    #: :func:`genevals.registry.headlines`)
    headline: ClassVar[tuple[str, ...] | None] = None
    #: the genevals extra that installs ``requires`` (``pip install 'genevals[semantic]'``), or None
    extra: ClassVar[str | None] = None
    #: (import name, distribution) pairs this metric loads when it scores: a run that asks for it while one is
    #: not installed stops before scoring, naming ``extra`` (:func:`genevals.extras.missing`)
    requires: ClassVar[tuple[tuple[str, str], ...]] = ()
    #: the keyword arguments ``__init__`` takes, declared (:class:`genevals.settings.Setting`): the registry checks
    #: ``options[family]`` against them before building, ``genevals metrics NAME`` lists them, and
    #: :meth:`__init__` makes each an attribute of the metric
    SETTINGS: ClassVar[tuple[Any, ...]] = ()
    #: the languages this metric's model or calibration knows (None: any language); a sample in another one gets
    #: status ``unsupported_language`` (:meth:`unsupported`)
    languages: ClassVar[frozenset[str] | None] = None
    #: whether it scores a sample in the sample's language (:meth:`language_of`): then the planning pass detects
    #: every sample's language and counts the run's majority language (:mod:`genevals.language.majority`), which
    #: its unsure samples are scored in
    reads_language: ClassVar[bool] = False
    #: whether an empty answer gets a value (0, by the reference script's rule: SQuAD's F1, sacrebleu, ROUGE) rather
    #: than status ``empty_answer``: a system whose every answer is empty then fails the run, as nothing of it was
    #: scored but blanks (:func:`genevals.lifecycle.gates.blanks`)
    scores_empty_answer: ClassVar[bool] = False
    #: the run's ``--language`` (set on the built metric by :func:`genevals.registry.build`)
    language: LanguageSetting = LanguageSetting()

    def __init__(self, **values: Any) -> None:
        """Every declared setting (:attr:`SETTINGS`) as an attribute of its name: the value given, else its
        default (:meth:`settled`). So a setting's name and default are written once, in its declaration; a metric
        with state derived from its settings (a judge, a model, a compiled pattern) has an ``__init__`` that takes
        what is not a setting, calls this, then reads ``self.<setting>``."""
        for name, value in self.settled(values).items():
            setattr(self, name, value)

    @classmethod
    def settled(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every declared setting's value: the one given, checked by the one checker
        (:func:`genevals.settings.check`; a path given for a text setting is its text), else the declared default.
        A keyword that is no setting is a TypeError, as for any function."""
        declared = {setting.name: setting for setting in cls.SETTINGS}
        for key in values:
            if key not in declared:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument '{key}'")
        out = {}
        for name, setting in declared.items():
            if name not in values:
                out[name] = setting.default
                continue
            value = values[name]
            if setting.type is str and isinstance(value, os.PathLike):
                value = os.fspath(value)
            out[name] = check(setting, value, name)
        return out

    def language_of(self, sample: Sample) -> Language:
        """The language ``sample`` is scored in: its row's, the run's, or detected, decided once for the sample
        (:func:`genevals.language.language_of`) and the same for every metric of the run."""
        return language_of(sample, self.language)

    def reads_as(self, lang: Language) -> str:
        """The language this metric reads a text of language ``lang`` in: ``lang.code``, except that a metric
        that knows some :attr:`languages` reads an *unsure* detection in another language as its script's usual
        language when it knows that one (a short Latin-script answer guessed as Spanish is read as English by an
        English model) rather than refusing it: refusing is for a language the text is known to be in. The
        sample's language stays what was decided; the details say ``read_as``."""
        if (self.languages is not None and lang.source == "fallback" and lang.code not in self.languages
                and lang.script_code in self.languages and self.language.fallback is None):
            return lang.script_code
        return lang.code

    def language_details(self, sample: Sample) -> dict[str, Any]:
        """What a result's details record about ``sample``'s language (:meth:`Language.details`), with
        ``read_as`` where this metric read it as another (:meth:`reads_as`)."""
        lang = self.language_of(sample)
        details = lang.details()
        read = self.reads_as(lang)
        if read != lang.code:
            details["read_as"] = read
        return details

    def unsupported(self, sample: Sample, name: str | None = None, instead: str = "") -> MetricResult | None:
        """An ``unsupported_language`` result when this metric cannot read ``sample``'s language (not one of
        :attr:`languages`, :meth:`reads_as`; ``instead``: what to use for it), else None."""
        if self.languages is None:
            return None
        lang = self.language_of(sample)
        if self.reads_as(lang) in self.languages:
            return None
        known = ", ".join(sorted(self.languages))
        how = {"row": "its row's language field", "run": "--language",
               "detected": "detected", "fallback": "assumed"}[lang.source]
        reason = (f"{self.family} knows {known} only; this sample is {language_name(lang.code)} ({how})"
                  + (f"; {instead}" if instead else ""))
        return MetricResult.unscored(name or self.family, types.UNSUPPORTED_LANGUAGE, reason, **lang.details())

    def output_names(self) -> list[str]:
        """The names of the values this metric writes, e.g. ["rouge1", "rouge2", "rougeL"]; metrics with
        template outputs fill them in from their settings."""
        return [o.name for o in self.outputs]

    @classmethod
    def match_output(cls, name: str) -> tuple[Output, dict[str, str]] | None:
        """The declared output ``name`` is an instance of, with the placeholder values it fills in."""
        for spec in cls.outputs:
            if not spec.is_template:
                if spec.name == name:
                    return spec, {}
                continue
            found = _pattern(spec.name).match(name)
            if found:
                return spec, found.groupdict()
        return None

    @classmethod
    def output(cls, name: str) -> Output | None:
        """The declared output of a concrete output name, its definition filled in ("{k}" -> 5)."""
        found = cls.match_output(name)
        if found is None:
            return None
        spec, params = found
        return Output(name, spec.definition.format(**params), spec.direction, spec.range) if params else spec

    @classmethod
    def missing(cls) -> str | None:
        """What to install when a package in :attr:`requires` is not installed, else None."""
        return extras.missing(f"metric '{cls.family}'", cls.requires, cls.extra)

    @classmethod
    def offline(cls, judge: Any) -> bool:
        """Whether this judge-backed metric has no judge configured in ``judge`` (a JudgeConfig, or None for
        the defaults), so that :attr:`offline_alternative` runs instead."""
        return False

    @classmethod
    def widen(cls, options: Mapping[str, Any], params: Mapping[str, str]) -> dict[str, Any]:
        """The settings that make an output named with ``params`` exist (retrieval adds a cutoff for
        "recall@20"). Default: unchanged."""
        return dict(options)

    @property
    def concurrency(self) -> int:
        """Requests a judge-backed metric keeps in flight at once (1 for the others)."""
        return 1

    @property
    def warning(self) -> str | None:
        """A caution to show with every result (e.g. the tiny packaged judge model), or None: its first line is what
        the terminal shows (see :attr:`offline_alternative`)."""
        return None

    @property
    def needs_prepare(self) -> bool:
        """Whether every sample must pass through :meth:`prepare_sample` before scoring starts."""
        return type(self).prepare_sample is not Metric.prepare_sample

    def prepare_sample(self, sample: Sample) -> None:
        """Run-wide state, one sample at a time, from the planning pass over the whole input (BERTScore's
        idf); :meth:`finish_prepare` follows the last sample. Default: none."""

    def finish_prepare(self) -> None:
        """Called once after the last :meth:`prepare_sample`."""

    def prepare(self, samples: Iterable[Sample]) -> None:
        """:meth:`prepare_sample` for every sample, then :meth:`finish_prepare`."""
        for sample in samples:
            self.prepare_sample(sample)
        self.finish_prepare()

    @abc.abstractmethod
    def signature(self) -> str:
        """A sacrebleu-style signature: ``name|setting:value|...|version:x``."""

    @abc.abstractmethod
    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        """One dict (output name -> result) per sample, in the order given."""

    def score_columns(self, samples: Sequence[Sample]) -> Columns | list[dict[str, MetricResult]]:
        """The batch's results for the engine: :meth:`score`'s, or the same results kept in columns
        (:class:`genevals.scored.Columns`) by metrics that compute them so, which then never build a result object
        per sample and output unless one is read."""
        return self.score(samples)

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        """Call ``emit`` once per sample, as soon as that sample's outputs exist (in any order).

        Default: score the whole batch, then emit in order; metrics whose samples finish at very different
        times (the LLM judges) override it."""
        for index, outputs in enumerate(self.score(samples)):
            emit(index, outputs)

    def score_stream(self, samples: Iterable[Sample], emit: Emit, window: int) -> None:
        """``score_each`` over an iterable of any length: ``emit(index, outputs)`` once per sample, ``index``
        counting from 0 over the whole iterable; at most ``window`` samples are taken before being emitted.

        Default: ``score_each`` on consecutive batches of ``window`` samples (each batch waits for its
        slowest); :class:`ConcurrentMetric` slides the window instead."""
        batch: list[Sample] = []
        start = 0
        for sample in samples:
            batch.append(sample)
            if len(batch) >= window:
                self.score_each(batch, lambda i, outputs, at=start: emit(at + i, outputs))
                start += len(batch)
                batch = []
        if batch:
            self.score_each(batch, lambda i, outputs, at=start: emit(at + i, outputs))

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

    def corpus_warning(self, totals_by_system: Mapping[str, Mapping[str, float]]) -> str | None:
        """A warning about the run as a whole from each system's summed statistics (summary meta
        ``corpus_warnings``, shown in the terminal and the report); None: nothing to say."""
        return None

    def judge_repeats(self, totals: Mapping[str, Any], seed: int) -> dict[str, Any] | None:
        """Per output, how its judge repeats varied (:mod:`genevals.metrics.judging.repeats`), from the summed
        statistics; None for a metric that is not judged repeatedly."""
        return None

    def corpus_scores(self, per_sample: Iterable[Mapping[str, MetricResult]]) -> dict[str, Any]:
        """Corpus-level values of a sequence of per-sample outputs: sum the statistics, then finish."""
        totals: Counter = Counter()
        for outputs in per_sample:
            totals.update(self.corpus_statistics(outputs) or {})
        return self.corpus_from_statistics(totals) if totals else {}

    @property
    def has_corpus_scores(self) -> bool:
        return type(self).corpus_statistics is not Metric.corpus_statistics

    @classmethod
    def card(cls) -> dict[str, Any] | None:
        """The metric's validation card: its measured agreement with public human labels, beside the best
        trivial baseline (the offline triad judges' come from :mod:`genevals.metrics.triad.calibration`), or None
        when it has none; :func:`card_lines` writes it out."""
        return None

    def output_facts(self, name: str) -> dict[str, Any]:
        """What outputs.json says about output ``name`` beyond its declaration, under this metric's settings:
        its validation card (``card``, ``card_text``), or why its mean takes no band (``band: false``,
        ``band_note``). Default: the card, on the first output."""
        found = self.card()
        if found is None or name != self.output_names()[0]:
            return {}
        return {"card": found, "card_text": card_lines(found)}

    def describe(self) -> dict[str, str]:
        """Output name -> one-line definition, for ``genevals metrics``."""
        out = {}
        for name in self.output_names():
            spec = self.output(name)
            out[name] = spec.definition if spec is not None else (type(self).__doc__ or "").strip()
        return out


def register(cls: type[Metric]) -> type[Metric]:
    """Class decorator: make a metric available by its family name, after checking its declarations."""
    name = cls.family
    if not name or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise TypeError(f"{cls.__name__}: family must be a lowercase name, got {name!r}")
    if not cls.outputs or not all(isinstance(o, Output) for o in cls.outputs):
        raise TypeError(f"{cls.__name__}: declare its outputs as a tuple of Output")
    if cls.kind not in KINDS:
        raise TypeError(f"{cls.__name__}: kind must be one of {', '.join(KINDS)}")
    other = _FAMILIES.get(name)
    if other is not None and other.__qualname__ != cls.__qualname__:
        raise TypeError(f"metric family '{name}' is already registered by {other.__module__}.{other.__qualname__}")
    _FAMILIES[name] = cls
    return cls

