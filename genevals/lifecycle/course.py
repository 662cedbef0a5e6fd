"""One run's course around its scoring, for every driver (the command line, :func:`genevals.evaluate`, the pytest
plugin): what is checked before anything is scored, and everything after it, in this order: the agreement gate,
the report page, what the driver shows, the caveats, the metrics that scored nothing, the thresholds, the
history record and the baseline, the OTel send, the judge's failures; then the :class:`Verdict`.

    course = Lifecycle(settings, emit)
    problem = course.check()                      # before scoring: None, or what to fix (exit 2)
    spec = RunSpec.build(..., before_writing=course.before_writing)
    course.check_selected(spec.selected)          # the gates against what the metrics declare
    results = engine.run(spec)
    verdict = course.finish(results, spec.judge)  # verdict.exit_code
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence

from genevals.lifecycle import agreement, gates
from genevals.lifecycle.history import Recorder
from genevals.lifecycle.messages import Message, Messages, headlines
from genevals.lifecycle.settings import Settings
from genevals.lifecycle.verdict import Verdict
from genevals.types import DRY_RUN

#: ``show(results, report_data, report_path)``: what the driver shows once the report is written (the terminal's
#: table); report_data is None when no report was built
Show = Callable[[Any, Any, "Path | None"], None]


class Lifecycle:
    """The course of one run (see the module's docstring); ``emit`` gets each line as it is said."""

    def __init__(self, settings: Settings, emit: Callable[[Message], None] | None = None) -> None:
        self.settings = settings
        self.say = Messages(emit)
        self.recorder = Recorder(settings)
        self.asked: agreement.Required | None = None

    def check(self) -> str | None:
        """Before anything is scored: the agreement labels read, the OTel endpoint and the history checked.
        What to fix, naming the option, or None."""
        from genevals.validation.labels import LabelledInputError

        try:
            self.asked = agreement.required(self.settings.require_agreement, self.settings.min_kappa)
        except LabelledInputError as exc:
            return f"--require-agreement: {exc}"
        except ValueError as exc:
            return str(exc)
        problem = otel_problem(self.settings.otel_endpoint)
        return problem or self.recorder.start()

    def before_writing(self, plan: Any) -> None:
        """RunSpec's ``before_writing``: the baseline settled against the input just read."""
        self.recorder.check_input(plan)

    def check_selected(self, selected: Sequence[Any], computed_gates: bool = True) -> None:
        """Before scoring, against what the selected metrics declare: ThresholdError for a threshold on an output
        the run does not compute (unless not ``computed_gates``: the API's and pytest's gate on a metric not
        computed is a missed gate, as it is in ``genevals report``), InputError for an agreement gate on a run
        that computes no verdict."""
        from genevals import registry
        from genevals.input.readers import InputError

        if computed_gates:
            gates.check_thresholds(self.settings.thresholds, selected)
        if self.asked is not None:
            problem = agreement.computed(registry.declarations(selected))
            if problem is not None:
                raise InputError("--require-agreement", None, None, problem)

    def finish(self, results: Any, judge: Any = None, show: Show | None = None) -> Verdict:
        """Everything after scoring, in order; the verdict (also set as ``results.verdict``)."""
        settings, say = self.settings, self.say
        # A run in memory with no gate on a mean leaves its summary's bootstrap to whoever asks for it: the
        # counts and statuses are all the other checks read.
        needs_means = settings.out_dir is not None or bool(settings.thresholds) or self.asked is not None
        summary = results.summary() if needs_means or not hasattr(results, "status_counts") else \
            results.status_counts()
        agreed = self._agreement(results)  # recorded in summary.json before the report reads it
        for warning in summary.get("meta", {}).get("unknown_fields") or ():
            strict = "" if warning.startswith("ignored field ") else " (--strict makes this an error)"
            say.warning(f"genevals: warning: {warning}{strict}")
        report_data, report_path = self._report(results)
        if show is not None:
            show(results, report_data, report_path)
        self._caveats(summary, report_data)
        excused = (DRY_RUN,) if settings.dry_run else ()  # a judge priced, not called, scored nothing by design
        unscored, notes = gates.unscored_requested(settings.metrics, summary, excused)
        blank, blank_notes = gates.blanks(summary, settings.metrics)
        unscored, notes = unscored + blank, notes + blank_notes
        for note in notes:
            say.note(f"genevals: note: {note}")
        for error in unscored:
            say.error(f"genevals: error: {error}{gates.references_hint(error, summary)}")
        decided = agreement.decided(settings.thresholds, agreed, self._declarations(), say)
        decided = self._priced(decided, summary)
        from genevals.output.thresholds import failures as threshold_failures

        missed = threshold_failures(decided, summary.get("systems", {}))
        for failure in missed:
            say.gate(f"genevals: threshold missed: {failure}")
        compared = 0
        if settings.dry_run:  # a dry run is no run of the system: the history and the baseline never see it
            if settings.uses_history:
                say.note("genevals: note: a dry run is not recorded in the history nor compared with a baseline")
        elif settings.out_dir is not None:
            compared = self.recorder.finish(summary, judge, say)
        self._send()
        judge_failed = self._judge_failures(results)
        verdict = Verdict(judge_failed=judge_failed, agreement=agreed, unscored=tuple(unscored),
                          missed=tuple(missed), thresholds=tuple(decided),
                          set_aside=tuple(t for t in settings.thresholds if t not in decided), baseline=compared, report=report_path,
                          messages=tuple(say.said))
        try:
            results.verdict = verdict
        except AttributeError:  # results of another kind (a plugin's): the verdict is returned all the same
            pass
        return verdict

    def _agreement(self, results: Any) -> Any:
        """The agreement measured on the written run and said (a gate result: also with -q); None without
        labels, or on a dry run (no verdicts to compare: the gate waits for the real run)."""
        if self.asked is None:
            return None
        if self.settings.dry_run:
            self.say.note("genevals: note: --require-agreement: not measured on a dry run (no verdicts)")
            return None
        seed = self.settings.seed if self.settings.seed is not None else results.summary().get("seed")
        found = agreement.measure(self.asked, results, self.settings.out_dir, seed)
        if found.passed:
            self.say.gate(f"genevals: {found.line()}")
        else:
            self.say.error(f"genevals: error: {found.line()}; exit 3 (results are written)")
        return found

    def _priced(self, thresholds: Sequence[Any], summary: dict[str, Any]) -> list[Any]:
        """The thresholds a dry run can decide: those on outputs that were scored (a judge's were priced, not
        called: each such threshold is named, not checked)."""
        if not self.settings.dry_run:
            return list(thresholds)
        kept = []
        for t in thresholds:
            priced = any((metrics.get(t.metric) or {}).get("statuses", {}).get(DRY_RUN)
                         for metrics in (summary.get("systems") or {}).values())
            if priced:
                self.say.note(f"genevals: note: threshold not checked on a dry run: {t.metric} (the judge was "
                              "priced, not called)")
            else:
                kept.append(t)
        return kept

    def _report(self, results: Any) -> tuple[Any, Path | None]:
        """The report's data (its pass over the samples also gives the history its values) and the page written
        (with ``report``); (None, None) for a run with no folder."""
        settings = self.settings
        if settings.out_dir is None or not (settings.report or settings.uses_history):
            return None, None
        from genevals.output.runfolder import REPORT_FILE
        from genevals.report.model import build_data
        from genevals.report.render import write_page

        data = build_data([Path(settings.out_dir)], list(settings.thresholds) or None,
                          min_coverage=settings.coverage, on_values=self.recorder.values,
                          held=[getattr(results, "held", None)])
        if not settings.report:
            return data, None
        return data, write_page(data, Path(settings.out_dir) / REPORT_FILE)

    def _caveats(self, summary: dict[str, Any], report_data: Any) -> None:
        """The judges' warnings, the qrels' note and the systems that share no question id."""
        meta = summary.get("meta", {})
        for family, warning in (meta.get("judge_warnings") or {}).items():
            for line in headlines(str(warning)):
                self.say.note(f"genevals: note: {family}: {line}")
        if (meta.get("qrels_judged_by") or {}).get("note"):
            self.say.note(f"genevals: note: --qrels: {meta['qrels_judged_by']['note']}")
        for family, warning in (meta.get("corpus_warnings") or {}).items():
            self.say.warning(f"genevals: warning: {family}: {warning}")
        for note in unshared_ids_notes(report_data, self.settings.from_traces) if report_data else ():
            self.say.warning(f"genevals: warning: {note}")

    def _declarations(self) -> dict[str, Any]:
        """The run's outputs as its folder declares them (outputs.json), else as the metrics installed do."""
        from genevals import registry

        if self.settings.out_dir is not None:
            from genevals.output.runfolder import read_outputs

            return read_outputs(self.settings.out_dir)
        return {t.metric: registry.declaration_of(t.metric) or {} for t in self.settings.thresholds}

    def _send(self) -> None:
        """``otel_endpoint``: send the written run; what could not be sent is a warning (also with -q: the events
        are lost to the dashboard until sent again), never the verdict: a dashboard that is down fails no run."""
        url, out = self.settings.otel_endpoint, self.settings.out_dir
        if url is None or out is None:
            return
        try:
            ok, line, unrecorded = otel_send(Path(out), url)
        except ValueError as exc:  # OtelError: a run folder that cannot be read back
            ok, line, unrecorded = False, f"could not send the results to OpenTelemetry: {exc}", None
        if not ok:
            self.say.gate(f"genevals: warning: {line}")
        else:
            self.say.note(f"genevals: note: {line}")
        if unrecorded:
            self.say.gate(f"genevals: warning: could not record what was sent: {unrecorded}")

    def _judge_failures(self, results: Any) -> bool:
        """Say the judge's failures with their reasons; True when their share is above ``max_judge_errors``."""
        found = getattr(results, "judge_failures", None)
        if found is None:
            return False
        return judge_failures(found, self.settings.max_judge_errors, self.say)


def judge_failures(found: Any, limit: float, say: Messages, unit: str = "samples",
                   kept: str = "everything scored is written") -> bool:
    """Say ``found``'s reasons (:class:`genevals.engine.failures.JudgeFailures`); True when the share of judge
    failures is above ``limit`` (then say so, counting ``unit`` and saying what was ``kept``)."""
    for line in found.lines():
        say.gate(line)
    worst = found.worst()
    if worst is None or found.share <= limit:
        return False
    family, errors, judged = worst
    say.error(f"genevals: error: {errors} of {judged} {family} {unit} ({errors / judged:.0%}) ended in judge_error "
              f"or parse_error, more than --max-judge-errors {limit:g}; {kept}, but the judge needs fixing (see the "
              "reasons above) before these numbers mean anything")
    return True


def unshared_ids_notes(report_data: Any, from_traces: bool) -> list[str]:
    """The report's line on systems that share no question id, with the fix for this input: a trace's id is its
    trace id, which no other system's trace shares, whatever the question."""
    from genevals.report.render import unshared_ids_notes as notes

    found = notes(report_data)
    if not found or not from_traces:
        return found
    labels = [system["label"] for system in report_data["systems"]]
    pairs = [f"'{labels[a]}' and '{labels[b]}'" for a, b in report_data.get("unshared_ids") or ()]
    return [f"systems {', '.join(pairs)} share no question id, so they are not compared. A trace's id is its trace "
            "id, which differs between systems' traces of the same question: run again with --map id=question to "
            "pair them by question"]


def otel_problem(url: str | None) -> str | None:
    """Why ``--otel-endpoint URL`` cannot work (the extra missing, a URL that is not http(s)), else None."""
    from genevals.output import otel

    if url is None:
        return None
    try:
        otel.endpoint(url)
    except otel.OtelError as exc:
        return str(exc)
    needs = otel.missing()
    return f"--otel-endpoint: {needs}" if needs else None


def otel_send(run_dir: Path, url: str | None) -> tuple[bool, str, str | None]:
    """(all sent, the line to say, a problem recording it)."""
    from genevals.output import otel

    outcome = otel.send(run_dir, otel.endpoint(url))
    return outcome.ok, outcome.line(), otel.record(run_dir, outcome)
