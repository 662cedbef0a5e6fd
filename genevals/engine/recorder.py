"""Where scored samples go: results.jsonl (appended and flushed as they come), the summary accumulator,
corpus statistics, and at the end summary.json and skipped.jsonl. Every engine uses it, so their files are the
same by construction.

Results come as the engine scored them, in whole units (:mod:`genevals.engine.units`): with their units' sizes,
each unit is one results.jsonl line (a conversation's turns together), so nothing here waits for a conversation's
last turn or looks for where one begins.
"""
from __future__ import annotations

import contextlib
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from genevals import registry

from genevals.output import comparing, runfolder
from genevals.engine.failures import JudgeFailures
from genevals.engine.units import cut
from genevals.input.readers import InputError
from genevals.metrics.base import JUDGE
from genevals.output.results import DeferredSummary, Results, SummaryAccumulator
from genevals.scored import ScoredBatch
from genevals.types import SampleResult, SkippedRow
from genevals.output.terminal import say


@contextlib.contextmanager
def _ctrl_c_held():
    """Hold a Ctrl-C (SIGINT) until the block ends, then raise it: a batch is written to results.jsonl and counted
    in the summary together or not at all, so an interrupted run's summary counts exactly the lines written."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def corpus_statistics(families: Sequence[registry.Selected], results: Iterable[SampleResult]
                      ) -> dict[str, list[tuple[str, Any]]]:
    """Per family with corpus scores, each result's (system, corpus statistics), in order (taken in a worker
    process too, and added up by :meth:`RunRecorder.write_done`)."""
    results = list(results)
    return {sel.family: [(r.sample.system, sel.metric.corpus_statistics(r.metrics)) for r in results]
            for sel in families}


class RunRecorder:
    def __init__(self, selected: Sequence[registry.Selected], out: Path | None, *, errors: Sequence[InputError],
                 seed: int, keep_samples: bool, meta: Mapping[str, Any]) -> None:
        self.selected = selected
        self.out = out
        self.keep_samples = keep_samples
        self.seed = seed
        self.acc = SummaryAccumulator()
        self.corpus_families = [s for s in selected if s.metric.has_corpus_scores]
        # family -> system -> running sums of the corpus statistics (Counter.update adds key by key):
        # constant memory per system, as in sacrebleu.
        self.corpus_totals: dict[str, dict[str, Counter]] = {s.family: {} for s in self.corpus_families}
        self.results = Results(
            skipped=[SkippedRow(e.source + (f":{e.line}" if e.line else ""), e.field, e.message) for e in errors],
            seed=seed, meta={"metrics": [s.family for s in selected], **meta})
        self.writer = runfolder.ResultsWriter(out) if out is not None else None
        #: the judge families' failures, counted as results are recorded (the exit code and the reasons after
        #: a run come from here, never from results.jsonl read again)
        self.judge_failures = JudgeFailures()
        self._judged = {name: d["family"] for name, d in registry.declarations(selected).items()
                        if d.get("kind") == JUDGE}
        #: set by :func:`genevals.engine.plan.start_run`: where the earlier run was moved (or None), and the run
        #: files the folder held then, for :meth:`withdraw`
        self.earlier: Path | None = None
        self.present: frozenset[str] = frozenset()

    def record(self, result: SampleResult, *, in_memory: bool = True) -> None:
        """Count a result in the summary (one already in results.jsonl, when resuming). ``in_memory=False``:
        the caller adds it to ``Results.samples`` later, with :meth:`keep`, to keep those in input order."""
        self.acc.add(result)
        if self._judged:
            self.judge_failures.add_result(result.metrics, self._judged)
        if in_memory:
            self.keep([result])
        for sel in self.corpus_families:
            totals = self.corpus_totals[sel.family].setdefault(result.sample.system, Counter())
            totals.update(sel.metric.corpus_statistics(result.metrics) or {})

    def write(self, results: Iterable[SampleResult], sizes: Sequence[int] | None = None, *,
              in_memory: bool = True) -> None:
        """Append new results to results.jsonl, flush, then count them (``in_memory`` as for :meth:`record`).
        ``sizes``: how many results each unit holds, in order (:attr:`genevals.engine.units.Chunk.sizes`; None:
        each result alone); a unit is one line."""
        if not isinstance(results, ScoredBatch):  # a batch keeps its columns, for the summary
            results = list(results)
        if not results:
            return
        with _ctrl_c_held():
            if self.writer is not None:
                self.writer.write(cut(results, sizes))
            self.acc.add_batch(results)
            if self._judged:
                for result in results:
                    self.judge_failures.add_result(result.metrics, self._judged)
            if in_memory:
                self.keep(results)
            self._count_corpus(corpus_statistics(self.corpus_families, results))
        if isinstance(results, ScoredBatch) and not (in_memory and self.keep_samples):
            results.release()

    def write_done(self, done: Any) -> None:
        """Append and count one chunk a worker process scored and wrote (a :class:`genevals.engine.pipeline.Done`),
        with the same effect as :meth:`write` of its results (its lines were made from its units)."""
        with _ctrl_c_held():
            if self.writer is not None and done.text:
                self.writer.write_text(done.text)
            self.acc.merge(done.summary)
            if done.results is not None:
                self.keep(done.results)
            self._count_corpus(done.corpus)

    def _count_corpus(self, corpus: Mapping[str, Sequence[tuple[str, Any]]]) -> None:
        """Add :func:`corpus_statistics` to the running sums, sample by sample in order."""
        for family, rows in corpus.items():
            for system, stats in rows:
                self.corpus_totals[family].setdefault(system, Counter()).update(stats or {})

    def keep(self, results: Iterable[SampleResult]) -> None:
        """Add results already written and counted to ``Results.samples`` (when keeping samples)."""
        if self.keep_samples:
            self.results.samples.extend(results)

    def close(self) -> None:
        """Close results.jsonl (also done by :meth:`finish`)."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    def withdraw(self) -> bool:
        """For a run stopped by an error: when it wrote no result (its judge could not answer the first call,
        say), put the run folder back as it was (:func:`genevals.output.runfolder.put_back`: the earlier run back in
        place, nothing of this run's left) and return True; the run then writes no summary. False when it
        wrote results: they are kept, and :meth:`finish` writes the summary of what was scored."""
        if self.out is None or self.writer is None or self.writer.written:
            return False
        self.close()
        runfolder.put_back(self.out, self.earlier, self.present)
        if self.earlier is not None:
            say(f"genevals: note: nothing was scored; the earlier run is back in {self.out}")
        return True

    def finish(self, *, n_input_rows: int, interrupted: bool = False,
               paired: Callable[[Sequence[str]], comparing.PairedValues] | None = None) -> Results:
        """Corpus scores, signatures (taken now: some settings are only known after scoring), summary files.
        ``paired``: the compared metrics' values with their ids, from a caller that still holds them (the
        columnar TREC path), instead of reading results.jsonl back."""
        self.close()
        results = self.results
        for sel in self.corpus_families:
            for system, totals in sorted(self.corpus_totals[sel.family].items()):
                if totals:
                    results.corpus.setdefault(system, {}).update(sel.metric.corpus_from_statistics(totals))
                    varied = sel.metric.judge_repeats(totals, self.seed)  # --judge-repeats: flip rate, spread
                    if varied:
                        results.meta.setdefault("judge_repeats", {}).setdefault(system, {}).update(varied)
                    jury = sel.metric.judge_jury(totals, self.seed) if hasattr(sel.metric, "judge_jury") else None
                    if jury:  # a jury: kappa, disagreement, cost per judge (genevals.metrics.judging.jury_votes)
                        results.meta.setdefault("jury", {}).setdefault(system, {}).update(jury)
        for sel in self.corpus_families:  # e.g. retrieval cutoffs deeper than the qrels' pool
            line = sel.metric.corpus_warning(self.corpus_totals[sel.family])
            if line:
                results.meta.setdefault("corpus_warnings", {})[sel.family] = line
        results.signatures = {sel.family: sel.metric.signature() for sel in self.selected}
        results.meta["interrupted"] = interrupted
        results.meta["n_input_rows"] = n_input_rows
        results.judge_failures = self.judge_failures
        # the offline stand-in's note and its own warning (citations_local's card) both: the note says what ran,
        # the warning what it is worth; a blank line between them, so the terminal shows each one's first line
        # (genevals.lifecycle.messages.headlines)
        warnings = {s.family: "\n\n".join(w for w in (s.note, s.metric.warning) if w) for s in self.selected
                    if s.note or s.metric.warning}
        if warnings:
            results.meta["judge_warnings"] = warnings
        declared = registry.declarations(self.selected)
        # The paired comparisons need each value's question id, which the accumulator does not keep: read back
        # from results.jsonl (every result of the run, resumed ones too), or from the results kept in memory,
        # unless the caller gave them.
        out, kept = self.out, results.samples
        if paired is None and out is not None:
            paired = lambda metrics: comparing.PairedValues.from_folder(out, metrics)  # noqa: E731
        elif paired is None:
            paired = (lambda metrics: comparing.PairedValues.from_results(kept, metrics)) if self.keep_samples else None
        deferred = DeferredSummary(self.acc, dict(results.corpus), dict(results.signatures), list(results.skipped),
                                   dict(results.meta), self.seed, paired=paired,
                                   directions=comparing.directions_of(declared))
        if self.out is None:  # built when first asked for (Results.summary)
            results._deferred = deferred
            return results
        results._summary = deferred.build()
        runfolder.write_summary(self.out, results._summary, results.skipped)
        runfolder.write_outputs(self.out, declared)
        return results
