"""The run folder: the one owner of its file names, the writer and the readers.

A run folder holds ``results.jsonl`` (one :meth:`SampleResult.to_dict` per line, appended and flushed as
samples finish), ``summary.json``, ``skipped.jsonl``, ``outputs.json`` (what each output means, for the report), ``manifest.json`` (what the run was made from, checked
by ``--resume``) and ``report.html``. The summary, the report, ``--resume``
and ``Results.load`` all read through here, so the schema has one definition.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from genevals.types import SampleResult, SkippedRow

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
SKIPPED_FILE = "skipped.jsonl"
REPORT_FILE = "report.html"
#: the declarations (definition, direction, range) of the outputs the run wrote, for the report
OUTPUTS_FILE = "outputs.json"
#: what the run was made from (input digest, metrics and their settings, options, genevals version), written
#: before scoring starts, so ``--resume`` can refuse to mix a different run into this folder
MANIFEST_FILE = "manifest.json"


def _results_path(where: str | Path) -> Path:
    """A run folder's results file, or ``where`` itself when it names a file."""
    where = Path(where)
    return where / RESULTS_FILE if where.is_dir() else where


def results_text(results: Iterable[SampleResult]) -> str:
    """The results.jsonl lines of ``results``, one JSON object per line."""
    return "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in results)


class ResultsWriter:
    """Appends results to a run folder's results.jsonl, one flushed write per batch."""

    def __init__(self, run_dir: str | Path) -> None:
        run_dir = Path(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        self._handle = open(run_dir / RESULTS_FILE, "a", encoding="utf-8")

    def write(self, results: Iterable[SampleResult]) -> None:
        self.write_text(results_text(results))

    def write_text(self, text: str) -> None:
        """Append lines made by :func:`results_text` (in a worker process, say) and flush."""
        self._handle.write(text)
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def iter_rows(where: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each record of a results file, one at a time; a last line cut short by a
    crash (no newline, or not JSON) ends the file. Line numbers count from 1 and include blank lines."""
    path = _results_path(where)
    if not path.exists():
        return
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.endswith("\n"):
                break
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(row, dict):
                yield number, row


def read_lines(where: str | Path, wanted: Mapping[int, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records on the lines ``wanted`` (line number -> anything), parsing only those lines."""
    if not wanted:
        return
    last = max(wanted)
    with open(_results_path(where), encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if number in wanted:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:  # the file changed since the first pass
                    row = None
                if isinstance(row, dict):
                    yield number, row
            if number >= last:
                break


def read_results(where: str | Path) -> Iterator[SampleResult]:
    """The results of a run folder (or results file), tolerating a last line cut short by a crash."""
    for _number, row in iter_rows(where):
        try:
            yield SampleResult.from_dict(row)
        except (KeyError, TypeError, ValueError):
            return


def read_summary(run_dir: str | Path) -> dict[str, Any]:
    """summary.json, or {} when the run wrote none (yet)."""
    path = Path(run_dir) / SUMMARY_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_summary(run_dir: str | Path, summary: Mapping[str, Any], skipped: Iterable[SkippedRow]) -> None:
    """summary.json and skipped.jsonl, written whole at the end of a run (also an interrupted one)."""
    run_dir = Path(run_dir)
    (run_dir / SUMMARY_FILE).write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    with open(run_dir / SKIPPED_FILE, "w", encoding="utf-8") as handle:
        for row in skipped:
            handle.write(json.dumps(row.to_dict(), ensure_ascii=False) + "\n")


def write_outputs(run_dir: str | Path, declarations: Mapping[str, Any]) -> None:
    (Path(run_dir) / OUTPUTS_FILE).write_text(json.dumps(declarations, indent=2, ensure_ascii=False),
                                             encoding="utf-8")


def read_outputs(run_dir: str | Path) -> dict[str, Any]:
    """outputs.json: output name -> {family, kind, definition, direction, range}; {} for a run without one."""
    path = Path(run_dir) / OUTPUTS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_manifest(run_dir: str | Path, manifest: Mapping[str, Any]) -> None:
    (Path(run_dir) / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")


def read_manifest(run_dir: str | Path) -> dict[str, Any] | None:
    """manifest.json, or None for a run folder written before it existed (or whose manifest is not JSON)."""
    path = Path(run_dir) / MANIFEST_FILE
    if not path.exists():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def has_results(run_dir: str | Path) -> bool:
    path = Path(run_dir) / RESULTS_FILE
    return path.exists() and path.stat().st_size > 0


def prepare(run_dir: Path | None, resume: bool) -> None:
    """Make the run folder; when resuming, drop a last line cut short by a crash, else keep any earlier
    results file beside the new run (results are never lost)."""
    if run_dir is None:
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    results_path = run_dir / RESULTS_FILE
    if resume:
        truncate_partial_line(results_path)
    elif results_path.exists() and results_path.stat().st_size:
        results_path.rename(run_dir / f"results.{time.strftime('%Y%m%d-%H%M%S')}.jsonl")


def truncate_partial_line(path: Path, block: int = 1 << 16) -> None:
    """Drop a last line cut short by a crash, so appended results start on a fresh line.

    Reads backwards from the end in blocks: a results file can be far larger than memory should hold."""
    if not path.exists():
        return
    with open(path, "rb+") as handle:
        end = handle.seek(0, os.SEEK_END)
        position = end
        while position > 0:
            start = max(0, position - block)
            handle.seek(start)
            newline = handle.read(position - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            position = start
        else:
            keep = 0
        if keep != end:
            handle.truncate(keep)
