"""Bootstrap intervals made ahead of time, in a background thread, for a caller that knows its columns before it
asks for their summary (the columnar retrieval path knows every value before it writes a line).

An interval depends only on its column's values, the seed, the number of resamples and the confidence
(:func:`genevals.stats.bootstrap_cis` draws each column length's indices from a fresh generator), so one made
ahead is the one the summary would have made: it is kept under exactly those (the column's bytes included) and
taken by :func:`genevals.stats.bootstrap_cis` when asked for (it looks here only once this module is loaded); a
column it does not find is computed as always.
numpy lets the GIL go while it draws, gathers and sums, so the intervals are made while the caller builds its
files' lines in Python (0.08 s of a 2,000-topic run's 32 outputs, off the critical path when a core is free).
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Hashable, Iterable, Mapping

import numpy as np

from genevals.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, intervals

_lock = threading.Lock()
_made: dict[Hashable, Any] = {}
_working: list[threading.Thread] = []
_interval: list[float] = []  # the switch interval before start(), put back by wait()
#: the interpreter's switch interval (seconds) while a thread makes intervals ahead
SWITCH_INTERVAL = 0.0002


def key(column: np.ndarray, seed: int, resamples: int, confidence: float) -> Hashable:
    return (seed, resamples, confidence, column.dtype.str, column.tobytes())


def start(work: Callable[[], Mapping[Hashable, Any]]) -> None:
    """Run ``work`` (keys of :func:`key` -> intervals) in a daemon thread; what it returns is kept for
    :func:`take`. What an earlier start made and nobody took is dropped. A failure is dropped too: the
    summary then computes those intervals itself, and raises there if it must."""
    def run() -> None:
        try:
            made = work()
        except Exception:  # noqa: BLE001 - computed again, in the caller's thread, when asked for
            return
        with _lock:
            _made.update(made)

    wait()
    with _lock:
        _made.clear()
    thread = threading.Thread(target=run, name="genevals-bootstrap-ahead", daemon=True)
    _working.append(thread)
    # numpy lets the GIL go during each draw, gather and sum, but the thread must take it back between them, and
    # a thread running Python holds it for the switch interval (5 ms): 64 such waits for 32 columns. While the
    # thread works the interval is 0.2 ms (2,000 x 32 intervals next to results.jsonl's lines: 0.12 s to 0.08 s)
    _interval.append(sys.getswitchinterval())
    sys.setswitchinterval(min(_interval[0], SWITCH_INTERVAL))
    thread.start()


def pending() -> bool:
    """Whether anything was started (made or still being made) that :func:`take` could give."""
    return bool(_working or _made)


def wait() -> None:
    while _working:
        _working.pop().join()
    if _interval:
        sys.setswitchinterval(_interval[0])
        _interval.clear()


def take(keys: Iterable[Hashable]) -> dict[Hashable, Any]:
    """The intervals made ahead for ``keys`` (waiting for the thread), each handed out once."""
    wait()
    with _lock:
        return {k: _made.pop(k) for k in keys if k in _made}


def prefetch_summaries(columns: Iterable[Iterable[float | None]], seed: int = DEFAULT_SEED) -> None:
    """Start making, in a background thread, the bootstrap intervals :func:`genevals.stats.summarise_many` will
    need for these columns of values (None: unscored, left out), sorted as it sorts them. What the summary then
    gives is unchanged: an interval made ahead is the one it would have made."""
    sorted_columns = [np.sort(np.asarray([v for v in values if v is not None], dtype=float)) for values in columns]
    sorted_columns = [column for column in sorted_columns if column.size]

    def work() -> dict:
        made = intervals(sorted_columns, [None] * len(sorted_columns), seed, DEFAULT_RESAMPLES, 0.95)
        return {key(column, seed, DEFAULT_RESAMPLES, 0.95): interval for column, interval in zip(sorted_columns, made)}

    start(work)
