"""The run folders a report is built from, read only through :mod:`genevals.output.runfolder`.

A :class:`Run` holds what is small: the folder's name and path, its summary.json and its outputs.json (what
each output means: direction and range, for the bands). results.jsonl is never held whole: :meth:`Run.rows`
streams it once, and :meth:`Run.lines` reads back just the lines the page embeds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from genevals.output import runfolder


@dataclass(frozen=True)
class Run:
    name: str
    path: Path
    #: summary.json ({} when the run wrote none)
    summary: Mapping[str, Any] = field(default_factory=dict)
    #: outputs.json: output name -> {family, kind, definition, direction, range} ({} for an older run)
    outputs: Mapping[str, Any] = field(default_factory=dict)

    def rows(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, raw record) for each record of results.jsonl, streamed."""
        return runfolder.iter_rows(self.path)

    def lines(self, wanted: Mapping[int, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
        """The raw records on the lines ``wanted`` (line number -> anything), parsing only those."""
        return runfolder.read_lines(self.path, wanted)


def _object(value: Any, what: Path) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"{what}: expected a JSON object")
    return value


def load_run(run_dir: str | Path) -> Run:
    """A run folder's name, summary and output declarations. FileNotFoundError when it is not a run folder
    (no results.jsonl), ValueError when summary.json or outputs.json is not a JSON object."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir}: not a run folder")
    results_path = run_dir / runfolder.RESULTS_FILE
    if not results_path.exists():
        raise FileNotFoundError(f"{results_path}: no results file (run `genevals run ... --out {run_dir}`)")
    return Run(name=run_dir.resolve().name or str(run_dir), path=run_dir,
               summary=_object(runfolder.read_summary(run_dir), run_dir / runfolder.SUMMARY_FILE),
               outputs=_object(runfolder.read_outputs(run_dir), run_dir / runfolder.OUTPUTS_FILE))


def unique_names(runs: Sequence[Run]) -> list[str]:
    """Each run's name, with ``#2``, ``#3`` ... added where two folders share one."""
    names: list[str] = []
    for run in runs:
        name, n = run.name, 2
        while name in names:
            name, n = f"{run.name}#{n}", n + 1
        names.append(name)
    return names


def declaration(runs: Sequence[Run], metric: str) -> Mapping[str, Any] | None:
    """The first run's outputs.json entry for ``metric``, or None when no run declares it."""
    return next((run.outputs[metric] for run in runs if isinstance(run.outputs.get(metric), Mapping)), None)
