"""What a run's lifecycle needs to know besides its results: one typed, frozen record of plain values, made by
each driver (the command line from its options, :func:`genevals.evaluate` from its arguments, the pytest plugin
from a marker), never parsed command-line arguments."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the share of judged samples that may end in judge_error or parse_error before the verdict is exit 3
MAX_JUDGE_ERRORS = 0.05


@dataclass(frozen=True)
class Settings:
    """The lifecycle's settings.

    ``out_dir``: the run folder (None: a run in memory, with no report, history or OTel send). ``metrics``: the
    names asked for (None: the default preset), for the check that each scored something. ``thresholds``:
    :class:`~genevals.output.thresholds.Threshold` gates; ``min_coverage``: below it a mean gets no band.
    ``max_judge_errors``: the share of judge failures that fails the run (exit 3). ``require_agreement``: a
    labels export the judge must agree with (``min_kappa``, default 0.6). ``history``: the history's SQLite file
    (None: the default one) and ``record``: whether the run is recorded there; ``baseline``: a run of the history
    (an id, ``latest`` or ``latest~N``) to compare with. ``otel_endpoint``: where the results are sent once
    written. ``report``: write report.html. ``input_name``: the input as summary.json names it; ``input_given``:
    the input as given (a file name the baseline's ``latest`` is looked up by). ``from_traces``: the input was a
    trace export (its ids never pair systems). ``dry_run``: the judge was priced, not called.
    """

    out_dir: Path | None = None
    metrics: tuple[str, ...] | None = None
    thresholds: tuple[Any, ...] = ()
    min_coverage: float | None = None
    max_judge_errors: float = MAX_JUDGE_ERRORS
    require_agreement: str | None = None
    min_kappa: float | None = None
    seed: int | None = None
    history: str | None = None
    record: bool = False
    baseline: str | None = None
    otel_endpoint: str | None = None
    report: bool = True
    input_name: str | None = None
    input_given: str | None = None
    from_traces: bool = False
    dry_run: bool = False

    @property
    def coverage(self) -> float:
        """The least coverage for a band, its default when not given."""
        from genevals.stats import DEFAULT_MIN_COVERAGE

        return DEFAULT_MIN_COVERAGE if self.min_coverage is None else self.min_coverage

    @property
    def uses_history(self) -> bool:
        return self.record or self.baseline is not None

    def meta(self) -> dict[str, Any]:
        """What summary.json's ``meta`` records of these settings: the input, the gates and the least coverage."""
        from genevals.output.thresholds import KINDS

        gates = {kind: {t.metric: t.limit for t in self.thresholds if t.kind == kind} for kind in KINDS}
        return {"input": self.input_name, **gates, "min_coverage": self.coverage}
