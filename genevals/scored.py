"""A batch of scored samples kept in columns: result objects are built only where a user asks for them.

A cheap metric scored in columns (retrieval: 32 outputs for each of 10,000 samples) would otherwise build one
:class:`~genevals.types.MetricResult` per sample and output, then take each apart again to write results.jsonl
and count the summary. Here a family's results for a batch are :class:`Columns` (one list of values per output,
statuses and reasons only where not ok, one details mapping per sample), and a :class:`ScoredBatch` is the
batch's samples with every family's results. The summary counts the columns directly
(:meth:`ScoredBatch.columns_by_system`), results.jsonl is written from them (:meth:`ScoredBatch.row_dict`), and
each sample's :class:`BatchSampleResult` builds its ``metrics`` the first time they are read: the same
``MetricResult`` values, equal to a plain :class:`~genevals.types.SampleResult` with the same contents.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

from genevals.types import OK, MetricResult, Sample, SampleResult


class Columns:
    """One family's results for a batch of n samples, output by output.

    ``values[name][i]``: the value (None unless ok); ``statuses[name]``: one status per sample, or None when all
    are ok; ``reasons[name]``: one reason per sample (None where ok), or None when all are ok; ``details[i]``:
    the sample's details, shared by its outputs."""

    __slots__ = ("names", "values", "statuses", "reasons", "details")

    def __init__(self, names: Sequence[str], values: Mapping[str, list[float | None]],
                 statuses: Mapping[str, list[str] | None], reasons: Mapping[str, list[str | None] | None],
                 details: list[Mapping[str, Any]]) -> None:
        self.names = tuple(names)
        self.values, self.statuses, self.reasons, self.details = values, statuses, reasons, details

    def __len__(self) -> int:
        return len(self.details)

    def result(self, name: str, row: int) -> MetricResult:
        statuses = self.statuses[name]
        if statuses is None or statuses[row] == OK:
            return MetricResult(name, self.values[name][row], OK, None, self.details[row])
        return MetricResult(name, None, statuses[row], self.reasons[name][row], dict(self.details[row]))

    def result_dict(self, name: str, row: int) -> dict[str, Any]:
        """``self.result(name, row).to_dict()``, without the object."""
        statuses = self.statuses[name]
        details = self.details[row]
        if statuses is None or statuses[row] == OK:
            d: dict[str, Any] = {"value": self.values[name][row], "status": OK}
        else:
            d = {"value": None, "status": statuses[row], "reason": self.reasons[name][row]}
        if details:
            d["details"] = dict(details)
        return d

    def row(self, row: int) -> dict[str, MetricResult]:
        return {name: self.result(name, row) for name in self.names}

    def rows(self) -> list[dict[str, MetricResult]]:
        """One dict per sample, as ``Metric.score`` returns them."""
        return [self.row(i) for i in range(len(self))]


class _Rows:
    """A family's results as ``Metric.score`` returned them (one dict per sample), behind the same methods."""

    __slots__ = ("rows",)

    def __init__(self, rows: list[dict[str, MetricResult]]) -> None:
        self.rows = rows

    def result(self, name: str, row: int) -> MetricResult:
        return self.rows[row][name]

    def result_dict(self, name: str, row: int) -> dict[str, Any]:
        return self.rows[row][name].to_dict()


class ScoredBatch(Sequence[SampleResult]):
    """A batch's samples and every family's results; a sequence of :class:`BatchSampleResult`, in input order.

    ``parts``: per family, in the order results list them, its results (:class:`Columns` or one dict per
    sample) and which outputs are kept (None: all)."""

    def __init__(self, samples: Sequence[Sample],
                 parts: Sequence[tuple[Columns | list[dict[str, MetricResult]], Callable[[str], bool] | None]]):
        self.samples = samples
        self._parts = [(got if isinstance(got, Columns) else _Rows(got), keep) for got, keep in parts]
        self._results = [BatchSampleResult(self, i) for i in range(len(samples))]

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, index):  # type: ignore[override]
        return self._results[index]

    def __iter__(self) -> Iterator[SampleResult]:
        return iter(self._results)

    def release(self) -> None:
        """Forget the results once they are written and counted and nobody keeps them: each result refers to its
        batch and the batch to its results, a cycle that only the cyclic collector frees, and the collector is
        paused while cheap metrics score (:mod:`genevals.gcpause`), so every batch of a run, samples and all,
        would otherwise live until the run ends (two 10^6-line TREC runs: 1 GB). The batch is empty after."""
        self._results = []

    def families(self) -> list[tuple[Columns | list[dict[str, MetricResult]], Callable[[str], bool] | None]]:
        """Each family's results (:class:`Columns`, or one dict per sample) and which outputs are kept (None:
        all): for a reader that needs the details or reasons of many samples without building their results."""
        return [(got.rows if isinstance(got, _Rows) else got, keep) for got, keep in self._parts]

    def names(self, row: int) -> list[tuple[Any, str]]:
        """(family results, output name) of the sample's kept outputs, in the order its metrics list them."""
        out = []
        for got, keep in self._parts:
            names = got.names if isinstance(got, Columns) else got.rows[row]
            out.extend((got, name) for name in names if keep is None or keep(name))
        return out

    def metrics(self, row: int) -> dict[str, MetricResult]:
        return {name: got.result(name, row) for got, name in self.names(row)}

    def row_dict(self, row: int) -> dict[str, Any]:
        """``SampleResult.to_dict()`` of the sample, with its results written from the columns."""
        d = self.samples[row].to_dict()
        d["metrics"] = {name: got.result_dict(name, row) for got, name in self.names(row)}
        return d

    def columns_by_system(self) -> list[tuple[str, int, list[tuple[str, list[float], list[str] | None]]]] | None:
        """Per system (in order of first appearance): its number of samples and, per kept output in the order
        its samples list them, its values where scored and its statuses (None: all ok), in input order; None
        unless every family is :class:`Columns` (every sample then has the same outputs)."""
        if not all(isinstance(got, Columns) for got, _ in self._parts):
            return None
        rows_of: dict[str, list[int]] = {}
        for i, sample in enumerate(self.samples):
            rows_of.setdefault(sample.system, []).append(i)
        out = []
        everyone = len(rows_of) == 1
        for system, rows in rows_of.items():
            outputs = []
            for got, name in (self.names(rows[0]) if rows else []):
                values, statuses = got.values[name], got.statuses[name]
                if not everyone:
                    values = [values[i] for i in rows]
                    statuses = None if statuses is None else [statuses[i] for i in rows]
                scored = values if statuses is None else [v for v in values if v is not None]
                outputs.append((name, scored, statuses))
            out.append((system, len(rows), outputs))
        return out


class BatchSampleResult(SampleResult):
    """One sample of a :class:`ScoredBatch`: ``metrics`` are built from the batch's columns when first read.

    Equal to a :class:`SampleResult` with the same sample and metrics (either way round), and pickled as one."""

    def __init__(self, batch: ScoredBatch, index: int) -> None:  # no dataclass __init__ here
        self.sample = batch.samples[index]
        self._batch: ScoredBatch | None = batch
        self._index = index
        self._metrics: dict[str, MetricResult] | None = None

    @property  # type: ignore[override]
    def metrics(self) -> dict[str, MetricResult]:
        if self._metrics is None:
            assert self._batch is not None
            self._metrics = self._batch.metrics(self._index)
            self._batch = None  # built: the batch is no longer needed by this sample
        return self._metrics

    @metrics.setter
    def metrics(self, value: dict[str, MetricResult]) -> None:
        self._metrics = value
        self._batch = None

    def to_dict(self) -> dict[str, Any]:
        if self._batch is not None:
            return self._batch.row_dict(self._index)
        return super().to_dict()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SampleResult):
            return NotImplemented
        return (self.sample, self.metrics) == (other.sample, other.metrics)

    __hash__ = None  # type: ignore[assignment]  # mutable, as SampleResult

    def __repr__(self) -> str:
        return f"SampleResult(sample={self.sample!r}, metrics={self.metrics!r})"

    def __reduce__(self):
        return (SampleResult, (self.sample, self.metrics))
