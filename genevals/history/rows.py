"""A run as the history keeps it (:class:`RunRecord`), and its rows read back: every column checked before a
run is built from it, so a row damaged on disk (garbage JSON, a number that is text, a blob that is not what its
length says, a zlib bomb) is a :class:`RowError` naming the column, never a crash in whatever prints it.

The per-sample values are packed little-endian and zlib-compressed (:func:`pack`); :func:`unpack` inflates at
most the bytes the row's sample count says, so a small damaged blob cannot expand into gigabytes.
"""
from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: the most samples one stored column may say it holds (a damaged count is not trusted past it)
MAX_SAMPLES = 1 << 31
#: past this many bytes of values, a count is believed only if the id digests' blob could hold it: digests are
#: hashes, which zlib cannot shrink 64-fold, so a damaged count cannot make a small blob inflate into gigabytes
_PLAUSIBLE_BYTES = 1 << 26


@dataclass(frozen=True)
class RunRecord:
    """One run as the history keeps it. ``summary``: system -> metric -> {mean, ci95, scored, total, coverage};
    ``values``: system -> (sorted uint64 id digests, metric -> float64 values aligned to them, NaN unscored)."""

    started: str
    finished: str
    seconds: float | None
    out_dir: str | None
    input: str | None
    input_digest: str | None
    input_rows: int | None
    n_samples: int
    git_commit: str | None
    genevals_version: str
    seed: int | None
    systems: tuple[str, ...]
    summary: Mapping[str, Mapping[str, Mapping[str, Any]]]
    signatures: Mapping[str, str]
    thresholds: Mapping[str, Mapping[str, float]]
    headline: tuple[str, ...]
    values: Mapping[str, tuple[np.ndarray, Mapping[str, np.ndarray]]] = field(default_factory=dict, repr=False)
    #: set when read back from the history
    id: int | None = None
    #: the project folder the run was recorded in (:mod:`genevals.history.project`); None: not known
    project: str | None = None


JSON_COLUMNS = ("systems", "summary", "signatures", "thresholds", "headline")
COLUMNS = ("id", "started", "finished", "seconds", "out_dir", "input", "input_digest", "input_rows", "n_samples",
           "git_commit", "genevals_version", "seed") + JSON_COLUMNS
VALUE_COLUMNS = ("run_id", "system", "metric", "n", "keys", "vals")


class RowError(ValueError):
    """A stored row that cannot be a run: ``column`` and why."""

    def __init__(self, column: str, why: str) -> None:
        super().__init__(f"{column}: {why}")
        self.column = column


def pack(array: np.ndarray, dtype: str) -> bytes:
    return zlib.compress(np.ascontiguousarray(array, dtype=dtype).tobytes(), 1)  # level 1: values are mostly noise


def unpack(blob: Any, n: int, dtype: str, column: str) -> np.ndarray:
    """``n`` values of ``dtype`` from ``blob``; RowError unless it inflates to exactly that many."""
    if not isinstance(blob, bytes):
        raise RowError(column, f"expected a blob, found {type(blob).__name__}")
    size = n * np.dtype(dtype).itemsize
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(blob, size + 1)
    except zlib.error as exc:
        raise RowError(column, f"not zlib data ({exc})") from None
    if len(raw) != size or inflater.unconsumed_tail or not inflater.eof:
        raise RowError(column, f"does not hold the {n} values its row says")
    return np.frombuffer(raw, dtype=dtype)


# ------------------------------------------------------------------ the checks, one per kind of column

def _finite(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _text(column: str, value: Any, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise RowError(column, f"expected text, found {type(value).__name__}")
    return value


def _whole(column: str, value: Any, optional: bool = True) -> int | None:
    if value is None and optional:
        return None
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,40}", value):  # a seed past SQLite's INTEGER
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RowError(column, f"expected a whole number, found {type(value).__name__}")
    return value


def _json(column: str, value: Any) -> Any:
    if not isinstance(value, (str, bytes)):
        raise RowError(column, f"expected JSON text, found {type(value).__name__}")
    try:
        return json.loads(value)
    except (ValueError, RecursionError) as exc:
        raise RowError(column, f"not JSON ({str(exc)[:80]})") from None


def _names(column: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RowError(column, "expected a list of names")
    return tuple(value)


def _mapping(column: str, value: Any, check) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RowError(column, f"expected an object, found {type(value).__name__}")
    return {key: check(f"{column}.{key}", v) for key, v in value.items()}


def _metric(column: str, m: Any) -> dict[str, Any]:
    if not isinstance(m, dict):
        raise RowError(column, f"expected an object, found {type(m).__name__}")
    if m.get("mean") is not None and not _finite(m["mean"]):
        raise RowError(f"{column}.mean", "not a finite number")
    ci = m.get("ci95")
    if ci is not None and not (isinstance(ci, list) and len(ci) == 2 and all(v is None or _finite(v) for v in ci)):
        raise RowError(f"{column}.ci95", "expected two finite numbers")
    for name in ("scored", "total", "coverage"):
        if m.get(name) is not None and not _finite(m[name]):
            raise RowError(f"{column}.{name}", "not a finite number")
    return m


def _limit(column: str, value: Any) -> float:
    if not _finite(value):
        raise RowError(column, "not a finite number")
    return value


def _signature(column: str, value: Any) -> str:
    if not isinstance(value, str):
        raise RowError(column, f"expected text, found {type(value).__name__}")
    return value


def record_of(row: tuple) -> RunRecord:
    """The run a ``runs`` row (its :data:`COLUMNS`, in order) holds; RowError naming the first damaged column."""
    d = dict(zip(COLUMNS, row))
    seconds = d["seconds"]
    if seconds is not None and not _finite(seconds):
        raise RowError("seconds", "not a finite number")
    if not isinstance(d["id"], int):
        raise RowError("id", "not a whole number")
    return RunRecord(
        id=d["id"], started=_text("started", d["started"], False), finished=_text("finished", d["finished"], False),
        seconds=seconds, out_dir=_text("out_dir", d["out_dir"]), input=_text("input", d["input"]),
        input_digest=_text("input_digest", d["input_digest"]), input_rows=_whole("input_rows", d["input_rows"]),
        n_samples=_whole("n_samples", d["n_samples"], False), git_commit=_text("git_commit", d["git_commit"]),
        genevals_version=_text("genevals_version", d["genevals_version"]) or "", seed=_whole("seed", d["seed"]),
        systems=_names("systems", _json("systems", d["systems"])),
        headline=_names("headline", _json("headline", d["headline"])),
        summary=_mapping("summary", _json("summary", d["summary"]),
                         lambda c, v: _mapping(c, v, _metric)),
        signatures=_mapping("signatures", _json("signatures", d["signatures"]), _signature),
        thresholds=_mapping("thresholds", _json("thresholds", d["thresholds"]),
                            lambda c, v: _mapping(c, v, _limit)))


def values_of(rows: list[tuple]) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]:
    """A run's per-sample values from its ``sample_values`` rows (:data:`VALUE_COLUMNS`, without run_id): per
    system, its id digests (strictly ascending, the same for each of its metrics) and each metric's values."""
    found: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    for system, metric, n, keys, vals in rows:
        where = f"sample_values of {system!r}/{metric!r}" if isinstance(system, str) and isinstance(metric, str) \
            else "sample_values"
        if not isinstance(system, str) or not isinstance(metric, str):
            raise RowError(where, "system and metric must be text")
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= MAX_SAMPLES:
            raise RowError(f"{where}.n", "not a sample count")
        if n * 8 > _PLAUSIBLE_BYTES and (not isinstance(keys, bytes) or len(keys) * 64 < n * 8):
            raise RowError(f"{where}.n", f"{n} values, more than its blobs could hold")
        ids = unpack(keys, n, "<u8", f"{where}.keys")
        column = unpack(vals, n, "<f8", f"{where}.vals")
        if n > 1 and not bool(np.all(ids[1:] > ids[:-1])):
            raise RowError(f"{where}.keys", "the id digests are not in ascending order")
        held = found.setdefault(system, (ids, {}))
        if not np.array_equal(held[0], ids):
            raise RowError(f"{where}.keys", "not the ids of the system's other metrics")
        held[1][metric] = column
    return found
