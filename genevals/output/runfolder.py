"""The run folder: the one owner of its file names, the writer and the readers.

A run folder holds ``results.jsonl`` (appended and flushed as samples finish), ``summary.json``, ``skipped.jsonl``, ``outputs.json`` (what each output means, for the report),
``manifest.json`` (what the run was made from, checked by ``--resume``) and ``report.html``, and under
``earlier/<date-time>/`` the files of the runs made in it before. The summary, the report, ``--resume`` and
``Results.load`` all read through here, so the schema has one definition. Every file but results.jsonl is
written aside and renamed into place (:func:`replacing`): a crash leaves the old file or the new one whole.

results.jsonl has one JSON object per line: a :meth:`SampleResult.to_dict` for a sample that is no conversation's
turn, and for a conversation one line holding all its turns' results, in turn order::

    {"conversation_id": "c1", "system": "default", "messages": [{"role": ..., "content": ...}, ...],
     "turns": [<SampleResult.to_dict of turn 1>, ...]}

Its turns' histories are slices of its ``messages`` (:mod:`genevals.output.conversation_line`).

A conversation's line is written once every turn of it is scored, so the file never holds half a conversation
(written by this version: a folder of the earlier format, one line per turn, still reads, and resumes). The
readers (:func:`iter_rows`, :func:`read_lines`, :func:`read_results`) give every consumer one record per turn,
as before, with a **locator**: an int that is the line number in a file of one result per line, and past a
conversation line counts each of its turns once (a 3-turn line 5 holds locators 5, 6 and 7, and the next line
is locator 8). :func:`read_lines` finds a record again by it.
"""
from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from genevals import files
from genevals.atomic import replacing, write_whole  # noqa: F401  (the run folder's writers, by name)
from genevals.output.conversation_line import conversation_line, with_histories
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
#: what was sent to an OpenTelemetry backend, and what could not be (:mod:`genevals.output.otel`)
OTEL_FILE = "otel.json"
#: the files of one run, moved together into ``EARLIER_DIR/<date-time>/`` when a new run starts in the folder
RUN_FILES = (RESULTS_FILE, SUMMARY_FILE, SKIPPED_FILE, REPORT_FILE, OUTPUTS_FILE, MANIFEST_FILE, OTEL_FILE)
EARLIER_DIR = "earlier"
#: what commands that read a written run read from its folder (the review store too), which no output they write
#: may replace (:func:`inputs_of`)
READ_FILES = (RESULTS_FILE, SUMMARY_FILE, SKIPPED_FILE, OUTPUTS_FILE, MANIFEST_FILE, OTEL_FILE, "review.sqlite")


def inputs_of(run_dir: str | Path) -> list[tuple[str, Path]]:
    """``(what, path)`` for each file a command reading ``run_dir`` reads, as
    :func:`genevals.files.clobber_refusal` takes them."""
    return [("the run folder's file", Path(run_dir) / name) for name in READ_FILES]
#: the largest summary.json, outputs.json, manifest.json a reader takes (a summary of 50 systems is some 100 KB)
MAX_JSON_BYTES = 64 << 20


class ResultsError(ValueError):
    """A results file with a line that is not a result, and not a last line cut short by a crash; ``str()``
    reads ``file:line: not a result: ...``."""

    def __init__(self, source: str, line: int, message: str):
        self.source, self.line, self.message = source, line, message
        super().__init__(f"{source}:{line}: {message}")


def results_path(where: str | Path) -> Path:
    """A run folder's results file, or ``where`` itself when it names a file."""
    where = Path(where)
    return where / RESULTS_FILE if where.is_dir() else where


#: the key of a conversation line's turns (:func:`results_text`)
TURNS = "turns"
def results_text(units: Iterable[Sequence[SampleResult]]) -> str:
    """The results.jsonl lines of ``units``, one line each: a sample that is no conversation's turn (a unit
    alone) as its record, a conversation's turns (the engine keeps them together as one unit) as one line."""
    lines: list[str] = []
    for unit in units:
        first = unit[0].sample
        if first.conversation_id is None:
            lines.extend(json.dumps(result.to_dict(), ensure_ascii=False) + "\n" for result in unit)
            continue
        lines.append(json.dumps(conversation_line(unit, TURNS), ensure_ascii=False) + "\n")
    return "".join(lines)


class ResultsWriter:
    """Appends results to a run folder's results.jsonl, one flushed write per batch."""

    def __init__(self, run_dir: str | Path) -> None:
        run_dir = Path(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        self._handle = open(run_dir / RESULTS_FILE, "a", encoding="utf-8")
        #: characters appended by this writer (0: this run has written no result)
        self.written = 0

    def write(self, units: Iterable[Sequence[SampleResult]]) -> None:
        """Append the lines of ``units`` (:func:`results_text`) and flush."""
        self.write_text(results_text(units))

    def write_text(self, text: str) -> None:
        """Append lines made by :func:`results_text` (in a worker process, say) and flush."""
        self._handle.write(text)
        self._handle.flush()
        self.written += len(text)

    def close(self) -> None:
        self._handle.close()


def iter_rows(where: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(locator, record)`` for each sample's record of a results file, one at a time: a conversation line
    gives each of its turns (the locator: see the module's docstring; in a file without conversation lines, the
    line number). A last line without its newline was cut short by a crash (results are written whole lines at
    a time) and ends the file; any other line that is not a JSON object raises :class:`ResultsError` naming it:
    skipping it would hide results (and ``--resume`` would score them again). Line numbers count from 1 and
    include blank lines."""
    for _, locator, row in _records(results_path(where)):
        yield locator, row


def records(where: str | Path) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """``(line number, locator, record)`` of each sample's record of a results file (:func:`iter_rows`, with the
    line that holds it: a conversation line's turns share theirs)."""
    return _records(results_path(where))


def _records(path: Path) -> Iterator[tuple[int, int, dict[str, Any]]]:
    """``(line number, locator, record)`` of each sample's record (:func:`iter_rows`)."""
    extra = 0  # the turns past the first of the conversation lines read so far
    for number, row in _lines(path):
        turns = _turns(path, number, row)
        if turns is None:
            yield number, number + extra, row
            continue
        for i, turn in enumerate(turns):
            yield number, number + extra + i, turn
        extra += max(len(turns) - 1, 0)


def _turns(path: Path, number: int, row: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A conversation line's turn records (None: the line is one sample's); ResultsError naming the line when
    its turns are not a list of objects."""
    if TURNS not in row or "conversation_id" not in row or "metrics" in row:
        return None
    turns = row[TURNS]
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise _not_a_result(path, number, f"a conversation line whose {TURNS!r} is not a list of result objects")
    problem = with_histories(row, turns)
    if problem:
        raise _not_a_result(path, number, f"a conversation line {problem}")
    return turns


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, JSON object)`` of each whole line (see :func:`iter_rows`)."""
    if not path.exists():
        return
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.endswith(b"\n"):
                break
            if not raw.strip():
                continue
            try:
                row = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                raise _not_a_result(path, number, f"invalid UTF-8 at byte {exc.start}") from None
            except ValueError as exc:  # JSONDecodeError, or an integer over the int max str digits limit
                raise _not_a_result(path, number, f"not JSON ({exc})") from None
            except RecursionError:
                raise _not_a_result(path, number, "not JSON (nested too deeply)") from None
            if not isinstance(row, dict):
                raise _not_a_result(path, number, f"a JSON {type(row).__name__}, not an object")
            yield number, row


def _not_a_result(path: Path, number: int, what: str) -> ResultsError:
    return ResultsError(str(path), number, f"not a result: {what}. Only a last line cut short by a crash "
                        "is passed over; fix or delete this line (or start the run afresh without --resume)")


def read_lines(where: str | Path, wanted: Mapping[int, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records at the locators ``wanted`` (locator -> anything), parsing only the lines that hold them
    and the conversation lines before them (to count their turns)."""
    if not wanted:
        return
    last = max(wanted)
    extra = 0
    path = results_path(where)
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            at = number + extra
            if at > last:
                break
            # A key is the only place the text "turns": can be in a line (a quote in a value is escaped).
            maybe_turns = f'"{TURNS}":' in line
            if not (maybe_turns or at in wanted):
                continue
            row = _parsed(line)
            try:
                turns = _turns(path, number, row) if maybe_turns and row is not None else None
            except ResultsError:  # the file changed since the first pass
                continue
            if turns is None:
                if at in wanted and row is not None:
                    yield at, row
                continue
            for i, turn in enumerate(turns):
                if at + i in wanted:
                    yield at + i, turn
            extra += max(len(turns) - 1, 0)


def _parsed(line: str) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except json.JSONDecodeError:  # the file changed since the first pass
        return None
    return row if isinstance(row, dict) else None


def read_results(where: str | Path) -> Iterator[SampleResult]:
    """The results of a run folder (or results file), one per sample (a conversation line gives each turn),
    tolerating a last line cut short by a crash."""
    path = results_path(where)
    for number, _, row in _records(path):
        try:
            yield SampleResult.from_dict(row)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
            raise _not_a_result(path, number, f"not a result record ({what})") from None


def _read_object(path: Path) -> dict[str, Any]:
    """A JSON object file, or {} when there is none; ValueError naming the file when it is a folder, not JSON
    or not a JSON object (a report or summary read from it would otherwise fail deep inside, unnamed)."""
    if not path.exists():
        return {}
    if path.is_dir():
        raise ValueError(f"{path}: a folder, not a file")
    try:  # a FIFO there would block the read, /dev/zero never end: refused before a byte is read
        found = json.loads(files.read_limited(path, MAX_JSON_BYTES, f"run folder's {path.name}"))
    except files.Refused as exc:
        raise ValueError(f"{path}: {exc}") from None
    except RecursionError:
        found = None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(found, dict):
        raise ValueError(f"{path}: not a JSON object")
    return found


def read_summary(run_dir: str | Path) -> dict[str, Any]:
    """summary.json, or {} when the run wrote none (yet); ValueError naming it when it is not a JSON object."""
    return _read_object(Path(run_dir) / SUMMARY_FILE)


def write_summary(run_dir: str | Path, summary: Mapping[str, Any], skipped: Iterable[SkippedRow]) -> None:
    """summary.json and skipped.jsonl, written whole at the end of a run (also an interrupted one)."""
    run_dir = Path(run_dir)
    # Encoded first: a summary that cannot be written must not replace the earlier skipped rows either.
    data = json.dumps(summary, indent=2, ensure_ascii=False).encode("utf-8")
    with replacing(run_dir / SKIPPED_FILE) as handle:
        for row in skipped:
            handle.write(json.dumps(row.to_dict(), ensure_ascii=False) + "\n")
    write_whole(run_dir / SUMMARY_FILE, data)


def write_outputs(run_dir: str | Path, declarations: Mapping[str, Any]) -> None:
    write_whole(Path(run_dir) / OUTPUTS_FILE, json.dumps(declarations, indent=2, ensure_ascii=False))


def read_outputs(run_dir: str | Path) -> dict[str, Any]:
    """outputs.json: output name -> {family, kind, definition, direction, range}; {} for a run without one."""
    return _read_object(Path(run_dir) / OUTPUTS_FILE)


def write_manifest(run_dir: str | Path, manifest: Mapping[str, Any]) -> None:
    write_whole(Path(run_dir) / MANIFEST_FILE, json.dumps(manifest, indent=2, ensure_ascii=False))


def read_manifest(run_dir: str | Path) -> dict[str, Any] | None:
    """manifest.json, or None when the folder has none; ValueError naming the file when it is empty, not JSON,
    or not a JSON object."""
    path = Path(run_dir) / MANIFEST_FILE
    if not path.exists():
        return None
    if path.is_file() and not path.stat().st_size:
        raise ValueError(f"{path}: empty")
    return _read_object(path)


def has_results(run_dir: str | Path) -> bool:
    path = Path(run_dir) / RESULTS_FILE
    return path.exists() and path.stat().st_size > 0


def prepare(run_dir: Path | None, resume: bool) -> Path | None:
    """Make the run folder; when resuming, drop a last line cut short by a crash, else move an earlier run's
    files aside (:func:`move_earlier_run`; results are never lost) and return where they went."""
    if run_dir is None:
        return None
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:
        truncate_partial_line(run_dir / RESULTS_FILE)
        return None
    return move_earlier_run(run_dir)


def move_earlier_run(run_dir: Path) -> Path | None:
    """Move the files of the run already in ``run_dir`` (when it has results or a summary) together into a new
    folder ``earlier/<date-time>/`` (``-2``, ``-3`` ... when that exists: created exclusively, so two runs never
    share one), itself a run folder ``genevals report`` reads; return it, or None when there was no run.

    Each file is renamed whole, so a crash at any point leaves every earlier file intact, here or there; the
    new run's summary and report are then written beside its results, never over the earlier ones."""
    results = run_dir / RESULTS_FILE
    if not ((results.exists() and results.stat().st_size) or (run_dir / SUMMARY_FILE).exists()):
        return None
    (run_dir / EARLIER_DIR).mkdir(exist_ok=True)
    stamp, n = time.strftime("%Y%m%d-%H%M%S"), 1
    while True:
        backup = run_dir / EARLIER_DIR / (stamp if n == 1 else f"{stamp}-{n}")
        try:
            backup.mkdir()
            break
        except FileExistsError:
            n += 1
    for name in RUN_FILES:
        if (run_dir / name).exists():
            os.replace(run_dir / name, backup / name)
    return backup


def put_back(run_dir: Path, earlier: Path | None, present: Iterable[str]) -> None:
    """Undo the start of a run that ends before writing any result (its judge cannot answer, say), so the
    folder is as it was: remove the run files it wrote (those of :data:`RUN_FILES` not in ``present``, the
    names already there once the earlier run was moved aside), then move the earlier run's files back from
    ``earlier`` (what :func:`prepare` returned) and remove that folder, and ``earlier/`` when it is left empty.

    Only for a run with no result: its own files then hold nothing computed, and each earlier file is renamed
    back whole, as it was moved."""
    present = set(present)
    for name in RUN_FILES:
        path = run_dir / name
        if name not in present and path.is_file():
            path.unlink()
    if earlier is None:
        return
    for name in RUN_FILES:
        if (earlier / name).exists() and not (run_dir / name).exists():
            os.replace(earlier / name, run_dir / name)
    for folder in (earlier, run_dir / EARLIER_DIR):
        with contextlib.suppress(OSError):  # not empty: something else is in it, and stays
            folder.rmdir()


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
