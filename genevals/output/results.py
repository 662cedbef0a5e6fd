"""The run's results: per-sample records plus a summary, rendered as a table, JSON or a DataFrame.

A ``Results`` can be rebuilt from a run directory (``Results.load``), so reports and comparisons read files,
never the scoring code.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from genevals.output import comparing, runfolder, unjudged
from genevals.output.blanks import BlankTally
from genevals.output.comparing import PairedValues
from genevals.output.languages import LanguageTally
from genevals.columns import DEFAULT_BUFFER_VALUES, SpillingColumns
from genevals.scored import ScoredBatch
from genevals.stats import DEFAULT_SEED, summarise_many
from genevals.output.clusters import ClusterCodes
from genevals.types import OK, SampleResult, SkippedRow


class SummaryAccumulator:
    """Per (system, metric) scored values and status counts, so the summary of a 100,000-sample run needs
    neither a second pass nor the samples themselves. Values live in :class:`SpillingColumns` (a small buffer
    per column, the rest in a temporary file), so memory stays flat as runs grow."""

    def __init__(self, buffer_values: int = DEFAULT_BUFFER_VALUES) -> None:
        self.values = SpillingColumns(buffer_values)
        self.statuses: dict[str, dict[str, Counter]] = {}
        self.counts: dict[str, int] = {}
        #: per system, its blank answers and empty rankings (:mod:`genevals.output.blanks`)
        self.blanks = BlankTally()
        self.languages = LanguageTally()
        #: each scored value's conversation, once a conversation's turn is counted (None before: other runs'
        #: summaries are computed as they always were)
        self.clusters: ClusterCodes | None = None

    def add(self, result: SampleResult) -> None:
        self.add_batch((result,))

    def add_batch(self, results: Iterable[SampleResult]) -> None:
        """:meth:`add` each result, with one append per column for the whole batch (the same columns); a
        :class:`~genevals.scored.ScoredBatch` in columns is counted from its columns, building no result."""
        columns = results.columns_by_system() if isinstance(results, ScoredBatch) else None
        if columns is not None and (self.clusters is not None or ClusterCodes.any_turn(results.samples)):
            columns = None  # a conversation's values need their samples, to know their conversations
        if columns is not None:
            self.languages.add_scored(results)
            self.blanks.add_scored(results)
            for system, n, outputs in columns:
                statuses = self.statuses.setdefault(system, {})
                self.counts[system] = self.counts.get(system, 0) + n
                for name, scored, status_list in outputs:
                    self.values.extend((system, name), scored)
                    counter = statuses.get(name)
                    if counter is None:
                        counter = statuses[name] = Counter()
                    if status_list is None:
                        counter[OK] += n
                    else:
                        counter.update(status_list)
            return
        batch: dict[tuple[str, str], list[float]] = {}
        if self.clusters is None and ClusterCodes.any_turn(r.sample for r in results):
            self.clusters = ClusterCodes.after(self.values)
        codes: dict[tuple[str, str], list[float]] | None = {} if self.clusters is not None else None
        for result in results:
            self.languages.add_result(result)
            system = result.sample.system
            statuses = self.statuses.setdefault(system, {})
            self.counts[system] = self.counts.get(system, 0) + 1
            self.blanks.add_result(result)
            for name, metric in result.metrics.items():
                values = batch.get((system, name))
                if values is None:
                    values = batch[(system, name)] = []
                if metric.value is not None:
                    values.append(metric.value)
                    if codes is not None:
                        codes.setdefault((system, name), []).append(self.clusters.code(result.sample))
                counter = statuses.get(name)
                if counter is None:
                    counter = statuses[name] = Counter()
                counter[metric.status] += 1
        for key, values in batch.items():
            self.values.extend(key, values)
        if codes is not None:
            self.clusters.extend(codes)

    def merge(self, part: SummaryPart) -> None:
        """Count a part built elsewhere (a worker process), as if its batches were added here, in its order."""
        if part.clusters is not None or self.clusters is not None:
            if self.clusters is None:
                self.clusters = ClusterCodes.after(self.values)
            self.clusters.merge(part.clusters, part.values)
        for key, values in part.values.items():
            self.values.extend(key, values)
        for system, names in part.statuses.items():
            statuses = self.statuses.setdefault(system, {})
            for name, counter in names.items():
                into = statuses.get(name)
                if into is None:
                    into = statuses[name] = Counter()
                into.update(counter)
        for system, n in part.counts.items():
            self.counts[system] = self.counts.get(system, 0) + n
        self.blanks.merge(part.blanks)
        self.languages.merge(part.languages)

    def blank_counts(self) -> dict[str, dict[str, dict[str, int]]]:
        """The summary's ``empty_answers`` and ``empty_rankings`` (:meth:`BlankTally.to_dict`)."""
        return self.blanks.to_dict(self.counts)

    @property
    def n_samples(self) -> int:
        return sum(self.counts.values())

    def status_counts(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per system and metric, what :meth:`summary` counts (scored, unscored, statuses), without the means
        and bootstrap intervals."""
        systems: dict[str, dict[str, dict[str, Any]]] = {}
        for system, name in sorted(self.values.keys(), key=lambda key: key[0]):
            statuses = dict(self.statuses[system][name])
            systems.setdefault(system, {})[name] = {
                "scored": self.values.length((system, name)),
                "unscored": sum(n for status, n in statuses.items() if status != OK), "statuses": statuses}
        return systems

    def summary(self, seed: int = DEFAULT_SEED) -> dict[str, dict[str, dict[str, Any]]]:
        systems: dict[str, dict[str, dict[str, Any]]] = {}
        keys = sorted(self.values.keys(), key=lambda key: key[0])
        # The columns of one length together, so they share their bootstrap draw (stats.bootstrap_cis), and
        # only one length's columns in memory at a time.
        by_length: dict[int, list] = {}
        for key in keys:
            by_length.setdefault(self.values.length(key), []).append(key)
        done: dict[Any, dict[str, Any]] = {}
        if self.clusters is not None:  # a run with conversations: intervals by conversation, coverage in both
            by_length = {}
            done = {key: self.clusters.summary(key, self.values.column(key), self.statuses[key[0]][key[1]], seed)
                    for key in keys}
        for group in by_length.values():
            summaries = summarise_many([(self.values.column(key), self.statuses[key[0]][key[1]]) for key in group],
                                       seed=seed)
            done.update((key, summary.to_dict()) for key, summary in zip(group, summaries))
        for system, name in keys:
            systems.setdefault(system, {})[name] = done[(system, name)]
        return systems


class _ListColumns(dict):
    """:class:`SpillingColumns`' ``extend``, in memory (a part holds one chunk) and picklable."""

    def extend(self, key: Any, values: Iterable[float]) -> None:
        got = self.get(key)
        if got is None:
            self[key] = list(values)
        else:
            got.extend(values)


class SummaryPart(SummaryAccumulator):
    """One chunk's counts, taken in a worker process and sent back and merged (:meth:`SummaryAccumulator.merge`)."""

    def __init__(self) -> None:
        self.values = _ListColumns()  # type: ignore[assignment]
        self.statuses = {}
        self.counts = {}
        self.blanks = BlankTally()
        self.languages = LanguageTally()
        self.clusters = None


@dataclass
class Results:
    samples: list[SampleResult] = field(default_factory=list)
    skipped: list[SkippedRow] = field(default_factory=list)
    signatures: dict[str, str] = field(default_factory=dict)
    corpus: dict[str, dict[str, Any]] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)
    seed: int = DEFAULT_SEED
    #: not compared: it follows from the fields above, and may not be built yet (see ``_deferred``)
    _summary: dict[str, Any] | None = field(default=None, compare=False)
    #: a run without a folder leaves its summary to be built on first use: its 1,000 bootstrap resamples of
    #: every column cost more than scoring cheap metrics, and many callers only read the samples
    _deferred: DeferredSummary | None = field(default=None, repr=False, compare=False)
    #: the judge families' failures, as the run counted them (:class:`genevals.engine.failures.JudgeFailures`;
    #: None for results loaded from a folder)
    judge_failures: Any = field(default=None, repr=False, compare=False)
    #: the values as blocks still held in memory (the columnar retrieval path: :mod:`genevals.report.held`), so
    #: that the report need not parse results.jsonl back for them; None otherwise
    held: Any = field(default=None, repr=False, compare=False)
    #: what the run's gates found (:class:`genevals.lifecycle.Verdict`), set by the lifecycle once it is done;
    #: None for results that went through none
    verdict: Any = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[SampleResult]:
        return iter(self.samples)

    def __len__(self) -> int:
        return len(self.samples)

    def summary(self) -> dict[str, Any]:
        """{"systems": {system: {metric: {mean, ci95, scored, unscored, statuses}}}, "corpus": ..., ...}."""
        if self._summary is None and self._deferred is not None:
            self._summary, self._deferred = self._deferred.build(), None
        if self._summary is None:
            acc = SummaryAccumulator()
            for result in self.samples:
                acc.add(result)
            self._summary = build_summary(acc, self.corpus, self.signatures, self.skipped, self.meta, self.seed,
                                          paired=lambda metrics: PairedValues.from_results(self.samples, metrics))
        return self._summary

    def __getstate__(self) -> dict[str, Any]:
        # A deferred summary holds the run's value columns, perhaps in an open temporary file: build it first.
        self.summary()
        return self.__dict__

    def status_counts(self) -> dict[str, Any]:
        """The summary's "meta" and, per system and metric, its scored and unscored counts and statuses (the
        means and intervals too once the summary exists): what a caveat needs, without the bootstrap."""
        if self._summary is None and self._deferred is not None:
            acc = self._deferred.acc
            return {"meta": self._deferred.meta, "systems": acc.status_counts(), **acc.blank_counts()}
        return self.summary()

    def to_pandas(self):
        """One row per sample: id, system, question, answer, then each metric's value and status."""
        import pandas as pd

        rows = []
        for result in self.samples:
            row: dict[str, Any] = {"id": result.sample.id, "system": result.sample.system,
                                   "question": result.sample.question, "answer": result.sample.answer}
            for name, metric in result.metrics.items():
                row[name] = metric.value
                row[f"{name}.status"] = metric.status
            rows.append(row)
        return pd.DataFrame(rows)

    def to_json(self) -> str:
        return json.dumps(self.summary(), indent=2, ensure_ascii=False)

    def to_table(self, verbose: bool = False, all_outputs: bool = False, requested: Sequence[str] = ()) -> str:
        """The summary as text: one compact table (metrics x systems, each mean with its interval and
        scored/total), or with ``verbose`` one block per system with every unscored status. Each family's
        headline outputs and those named in ``requested``, or with ``all_outputs`` every one."""
        return format_table(self.summary(), verbose, all_outputs, requested)

    def __str__(self) -> str:
        return self.to_table()

    def __repr__(self) -> str:
        return f"<Results: {len(self.samples)} samples in memory>\n{self.to_table()}"

    @classmethod
    def load(cls, run_dir: str | Path) -> "Results":
        summary = runfolder.read_summary(run_dir)
        skipped = [SkippedRow(**row) for row in summary.get("skipped", [])]
        results = cls(samples=list(runfolder.read_results(run_dir)), skipped=skipped,
                      signatures=summary.get("signatures", {}), corpus=summary.get("corpus", {}),
                      meta=summary.get("meta", {}), seed=summary.get("seed", DEFAULT_SEED))
        results._summary = summary or None
        return results


@dataclass(frozen=True)
class DeferredSummary:
    """What :func:`build_summary` needs, kept as the run ended, to build the summary when first asked."""

    acc: SummaryAccumulator
    corpus: dict[str, Any]
    signatures: dict[str, str]
    skipped: list[SkippedRow]
    meta: dict[str, Any]
    seed: int
    #: the values of the compared metrics with their ids, for the paired comparisons (None: not compared)
    paired: Callable[[Sequence[str]], PairedValues] | None = None
    #: output name -> declared direction ("higher", "lower"), for the leaderboard's best
    directions: Mapping[str, str] | None = None

    def build(self) -> dict[str, Any]:
        return build_summary(self.acc, self.corpus, self.signatures, self.skipped, self.meta, self.seed,
                             paired=self.paired, directions=self.directions)


def build_summary(acc: SummaryAccumulator, corpus: Mapping[str, Any], signatures: Mapping[str, str],
                  skipped: Iterable[SkippedRow], meta: Mapping[str, Any], seed: int,
                  paired: Callable[[Sequence[str]], PairedValues] | None = None,
                  directions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The summary; with ``paired`` (the compared metrics -> their values with ids), also the paired
    ``comparisons`` of the systems and the ``leaderboard`` (:mod:`genevals.output.comparing`)."""
    from genevals._version import __version__

    systems = acc.summary(seed=seed)
    unjudged.mark(systems, corpus)  # an output at a cutoff past the qrels' pool depth says how much is unjudged
    compared = {}
    if paired is not None:
        compared = comparing.block(systems, paired(comparing.compared_metrics(systems, meta)), seed, directions)
    languages = acc.languages.to_dict()  # how each sample's language was decided (:mod:`genevals.output.languages`)
    language = acc.languages.language_field(meta.get("language"))  # the same in brief
    return {
        "genevals_version": __version__,
        "seed": seed,
        "n_samples": acc.n_samples,
        "systems": systems,
        **compared,
        "corpus": dict(corpus),
        "signatures": dict(signatures),
        **({"languages": languages} if languages else {}),
        **({"language": language} if language else {}),
        "skipped": [row.to_dict() for row in skipped],
        **acc.blank_counts(),
        "meta": dict(meta),
    }


def format_table(summary: Mapping[str, Any], verbose: bool = False, all_outputs: bool = False,
                 requested: Sequence[str] = ()) -> str:
    """See :mod:`genevals.output.table`; the outputs shown are :func:`genevals.registry.headlines` unless
    ``all_outputs``."""
    from genevals.output import jury, languages, table

    shown = None
    if not all_outputs:
        from genevals.registry import headlines

        names = list(dict.fromkeys(name for metrics in (summary.get("systems") or {}).values() for name in metrics))
        shown = headlines(names, requested)
    text = table.detailed(summary, shown) if verbose else table.compact(summary, shown)
    return "\n".join([text, *table.judge_repeats(summary), *jury.lines(summary), *languages.lines(summary)])
