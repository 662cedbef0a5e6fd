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
the judges start a new sample whenever one finishes (a sliding window, no barrier between batches).
"""
from __future__ import annotations

import abc
import dataclasses
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Iterator, Mapping, Sequence

from genevals import extras, types
from genevals.language import Language, LanguageSetting, language_of
from genevals.language.codes import name as language_name
from genevals.types import MetricResult, Sample

if TYPE_CHECKING:
    from genevals.scored import Columns

#: ``emit(index, outputs)``: the outputs of ``samples[index]``, called once per sample.
Emit = Callable[[int, dict[str, MetricResult]], None]


#: family name -> metric class, filled by :func:`register`; :mod:`genevals.registry` reads it
_FAMILIES: dict[str, type["Metric"]] = {}

#: Kinds of metric: how the engines run it.
CHEAP = "cheap"  # pure CPU work on one sample, picklable: may be spread over worker processes
MODEL = "model"  # loads a model once per process (BERTScore): Ray runs it in an actor pool
JUDGE = "judge"  # slow, paid calls: samples are written one by one as they finish, in judge actors on Ray
KINDS = (CHEAP, MODEL, JUDGE)
DIRECTIONS = ("higher", "lower", "neither")
#: what an output template's placeholder matches
#: (ASCII digits: ``\d`` also matches "١٠", which int() reads as 10 and no output is named)
_PLACEHOLDERS = {"k": r"(?P<k>[0-9]+)", "criterion": r"(?P<criterion>[a-z][a-z0-9_]*)"}


def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else _PLACEHOLDERS[p] for i, p in enumerate(parts)) + r"\Z")


class Unscored(Exception):
    """Raised inside scoring: the sample gets ``status`` with ``reason`` and ``details`` instead of a value."""

    def __init__(self, status: str, reason: str, **details: Any):
        super().__init__(reason)
        self.status, self.reason, self.details = status, reason, details


@dataclass(frozen=True)
class Output:
    """One value a metric writes per sample.

    ``name`` may hold one placeholder, ``{k}`` (a cutoff, an integer >= 1: "recall@{k}") or ``{criterion}``
    (a lowercase name: "rubric_{criterion}"); the registry derives the metric-name grammar from them.
    ``direction``: whether higher or lower values are better ("neither" for counts). ``range``: the values it
    can take, None for unbounded on that side.
    """

    name: str
    definition: str
    direction: str = "higher"
    range: tuple[float | None, float | None] = (0.0, 1.0)

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"output {self.name}: direction must be one of {', '.join(DIRECTIONS)}")

    @property
    def is_template(self) -> bool:
        return "{" in self.name

    def to_dict(self) -> dict[str, Any]:
        return {"definition": self.definition, "direction": self.direction, "range": list(self.range)}


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
    #: a family to run instead when this judge-backed one has no judge configured, and why
    offline_alternative: ClassVar[tuple[str, str] | None] = None
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
    #: ``options[family]`` against them before building, and ``genevals metrics NAME`` lists them
    SETTINGS: ClassVar[tuple[Any, ...]] = ()
    #: the languages this metric's model or calibration knows (None: any language); a sample in another one gets
    #: status ``unsupported_language`` (:meth:`unsupported`)
    languages: ClassVar[frozenset[str] | None] = None
    #: the run's ``--language`` (set on the built metric by :func:`genevals.registry.build`)
    language: LanguageSetting = LanguageSetting()

    def language_of(self, sample: Sample) -> Language:
        """The language ``sample`` is scored in (its row's, the run's, or detected: :mod:`genevals.language`).

        A metric that knows some :attr:`languages` only reads an *unsure* detection as its script's usual
        language when it knows that one (a short Latin-script answer guessed as Afrikaans is read as English by
        an English model, and its note says so) rather than refusing it: refusing is for a language the text is
        known to be in."""
        lang = language_of(sample, self.language)
        if (self.languages is not None and lang.source == "fallback" and lang.code not in self.languages
                and lang.script_code in self.languages and self.language.fallback is None):
            note = f"{lang.note}; {self.family} reads it as {lang.script_code}, the language it knows"
            return dataclasses.replace(lang, code=lang.script_code, note=note)
        return lang

    def unsupported(self, sample: Sample, name: str | None = None, instead: str = "") -> MetricResult | None:
        """An ``unsupported_language`` result when ``sample``'s language is not one of :attr:`languages`
        (``instead``: what to use for it), else None."""
        if self.languages is None:
            return None
        lang = self.language_of(sample)
        if lang.code in self.languages:
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
        """A caution to show with every result (e.g. the tiny packaged judge model), or None."""
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


def _versus(verdict: str | None, beats: bool, name: str) -> str:
    """" - level with NAME" or " - worse than NAME" (the paired CI of the difference covers 0, or lies below
    it); nothing when the judge beats it. A card without the verdict word: " - does NOT beat its baseline"."""
    if verdict in ("level with", "worse than"):
        return f" - {verdict} {name} (does NOT beat it)"
    return "" if beats else " - does NOT beat its baseline"


def _ci(d: Mapping[str, Any]) -> str:
    return f"{d['value']:.3f} [{d['ci'][0]:.3f}, {d['ci'][1]:.3f}]"


def card_lines(c: dict[str, Any]) -> list[str]:
    """The card as a few lines of text, for ``genevals metrics``."""
    lines = []
    for e in c["evaluations"]:
        base = e["best_baseline"]
        head = (f"{e['data']} (n={e['n']}, {e['groups']} questions): {e['target']} AUC {_ci(e['auc'])}; "
                f"best trivial baseline ({base['name']}) {base['auc']:.3f}, difference {_ci(base['difference'])}")
        lines.append(head + _versus(e.get("versus_baseline"), e["beats_baseline"], base["name"]))
        if "f1" in e:
            f1_base = e["f1_baseline"]
            lines.append(f"  F1 at threshold {e['f1']['threshold']:.2f}: {_ci(e['f1'])} vs "
                         f"'{f1_base['name']}' {f1_base['value']:.3f}"
                         + _versus(e.get("f1_versus_baseline"), e.get("f1_beats_baseline", True), f1_base["name"]))
        if "balanced_accuracy" in e:
            ba_base = e["balanced_accuracy_baseline"]
            lines.append(f"  balanced accuracy: {_ci(e['balanced_accuracy'])} vs '{ba_base['name']}' "
                         f"{ba_base['value']:.3f}" + _versus(e.get("balanced_accuracy_versus_baseline"), True,
                                                          ba_base["name"]))
        if e.get("coverage") is not None and e["coverage"] < 1:
            lines.append(f"  scores {e['coverage']:.1%} of the rows")
    lines.append(f"  ({c['method']})")
    return lines


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


class ConcurrentMetric(Metric):
    """A metric that scores each sample in its own coroutine, a whole batch at once (the LLM judges: their
    client's semaphore, not the batch, bounds the requests in flight)."""

    kind = JUDGE

    @abc.abstractmethod
    async def _score_safe(self, sample: Sample) -> dict[str, MetricResult]:
        """One sample's outputs; never raises for the sample's sake (failures become unscored results)."""

    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        return self._collect(samples)

    def score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        run_sync(lambda: self._score_each(samples, emit))

    def score_stream(self, samples: Iterable[Sample], emit: Emit, window: int) -> None:
        """A sliding window: up to ``window`` samples in flight, and the next one starts the moment one finishes
        (its outputs emitted first), so no sample waits for the slowest of a batch."""
        run_sync(lambda: self._score_stream(iter(samples), emit, max(1, window)))

    async def _score_stream(self, samples: Iterator[Sample], emit: Emit, window: int) -> None:
        import asyncio

        async def one(index: int, sample: Sample) -> tuple[int, dict[str, MetricResult]]:
            return index, await self._score_safe(sample)

        in_flight: set[asyncio.Task] = set()
        index = 0
        try:
            while True:
                for sample in samples:  # taking a sample may score the cheap metrics of its chunk first
                    in_flight.add(asyncio.ensure_future(one(index, sample)))
                    index += 1
                    if len(in_flight) >= window:
                        break
                if not in_flight:
                    return
                done, in_flight = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                # Every failure is retrieved, not only the first: when several samples meet a judge that cannot
                # answer (JudgeUnavailable) at once, asyncio would log each other one with a traceback.
                failed = [exc for exc in (task.exception() for task in done) if exc is not None]
                if failed:
                    raise failed[0]
                for task in sorted(done, key=lambda t: t.result()[0]):
                    emit(*task.result())
        finally:
            for task in in_flight:
                task.cancel()

    async def _score_each(self, samples: Sequence[Sample], emit: Emit) -> None:
        import asyncio

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


def run_sync(coro_factory: Callable[[], Any]) -> Any:
    """Run ``coro_factory()`` to completion from synchronous code, also when a loop is already running."""
    import asyncio  # here, not at the top: only judge-backed metrics need it, and it costs startup time

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
