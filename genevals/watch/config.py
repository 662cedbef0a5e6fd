"""Every option of ``genevals watch`` as one frozen :class:`WatchConfig`, and the parsers of its texts
(durations, windows, shards). A bad value is a :class:`WatchError` naming the option."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

#: the decisions a trace can get, one each (decisions.jsonl)
DECISIONS = ("scored", "sampled_out", "filtered", "over_budget", "incomplete", "failed", "out_of_shard")
_DURATION = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\Z")
_UNIT = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


class WatchError(ValueError):
    """A watch option or input that cannot be used: the message names it."""


class StoreError(RuntimeError):
    """The queue cannot be written (disk full, read-only, locked): the receiver answers 503. (Here rather than
    in the store, so the command line can catch it before the OTLP packages are imported.)"""


def duration(text: str, option: str) -> float:
    """Seconds from ``300``, ``300s``, ``5m``, ``1h`` or ``250ms``."""
    match = _DURATION.match(str(text).strip())
    if match is None:
        raise WatchError(f"{option} {text!r}: expected a duration such as 30s, 5m, 1h or 250ms")
    return float(match.group(1)) * _UNIT[match.group(2)]


def window(text: str) -> tuple[float | None, int | None]:
    """``--window``: ``60s`` (a window closes that long after it opened) or ``500`` / ``500 traces`` (after that
    many scored traces); returns (seconds, traces), one of them None."""
    text = str(text).strip()
    match = re.fullmatch(r"([0-9]+)\s*(traces?)?", text)  # a bare number counts traces
    if match is None:
        return duration(text, "--window"), None
    count = int(match.group(1))
    if count < 1:
        raise WatchError(f"--window {text!r}: expected at least 1 trace")
    return None, count


def shard(text: str) -> tuple[int, int]:
    """``--shard i/n``: this watcher scores the traces whose shard (sampling.shard_of) is i of n."""
    match = re.fullmatch(r"([0-9]+)/([0-9]+)", str(text).strip())
    if match is None or not 0 <= int(match.group(1)) < int(match.group(2)):
        raise WatchError(f"--shard {text!r}: expected i/n with 0 <= i < n (0/2 and 1/2 split the traces in two)")
    return int(match.group(1)), int(match.group(2))


@dataclass(frozen=True)
class WatchConfig:
    """What ``genevals watch`` does. Durations are seconds; caps are per window (None: no cap).

    out: the watch folder (queue.sqlite, decisions.jsonl, windows/NNNN, trend.html, alerts.jsonl);
    metrics: the names given to ``genevals.evaluate``; sample: the share of traces scored (hash rule);
    filter: W2's filter text over the resource's and the root span's attributes; window_seconds /
    window_traces: when a window closes; otlp_port: the receiver's port on 127.0.0.1 (0: any free one; None:
    no receiver); follow: a file followed as ``tail -F``; backfill / until: a past export scored once, spans
    starting after ``until`` (seconds since 1970) left out; grace: a trace is ready this long after its root
    span arrived; max_wait: a trace without a root after this long is ``incomplete``; session_idle: a session is
    scored when no trace of it arrived for this long; max_judge_calls: per window, counted as one call per
    judge-backed metric named per trace (``judge_metrics``, which the command line counts) only when no estimate
    can be made; else each trace's estimated calls (:mod:`~genevals.watch.budget`); max_cost: US dollars of judge
    calls per window, estimated the same way (the price table must price the judge's model); history: the history file each window is recorded
    in (True: the default one; None or False: none); queue_limit: spans waiting in the queue before
    the receiver answers 429; max_body: bytes of a request body (after gzip) before 413; shard: (i, n);
    judge, options, max_judge_errors: as :func:`genevals.evaluate` takes them, for every window.
    """

    out: Path
    metrics: tuple[str, ...]
    sample: float = 1.0
    filter: str | None = None
    window_seconds: float | None = 60.0
    window_traces: int | None = None
    otlp_port: int | None = None
    follow: Path | None = None
    backfill: Path | None = None
    until: float | None = None
    grace: float = 2.0
    max_wait: float = 600.0
    session_idle: float = 300.0
    max_judge_calls: int | None = None
    judge_metrics: int = 0
    max_cost: float | None = None
    queue_limit: int = 200_000
    max_body: int = 16 << 20
    socket_timeout: float = 10.0
    alerts: tuple[str, ...] = ()
    alert_command: str | None = None
    alert_url: str | None = None
    min_coverage: float | None = None
    otel_endpoint: str | None = None
    history: str | bool | None = None
    baseline_window: int | None = None
    shard: tuple[int, int] = (0, 1)
    judge: Any = None
    options: Mapping[str, Mapping[str, Any]] | None = None
    max_judge_errors: float | None = None
    poll: float = 0.2

    def __post_init__(self) -> None:
        if not self.metrics:
            raise WatchError("-m/--metrics: name at least one metric")
        if not 0.0 <= self.sample <= 1.0:
            raise WatchError(f"--sample {self.sample:g}: expected a share from 0 to 1")
        if self.window_seconds is None and self.window_traces is None:
            raise WatchError("--window: expected a duration or a number of traces")
        if self.window_seconds is not None and self.window_seconds <= 0:
            raise WatchError("--window: expected a duration above 0")
        if sum(x is not None for x in (self.otlp_port, self.follow, self.backfill)) == 0:
            raise WatchError("nothing to watch: give --otlp-port, --follow FILE or --from FILE")
        if self.backfill is not None and (self.otlp_port is not None or self.follow is not None):
            raise WatchError("--from: a backfill reads its file and ends; it takes no --otlp-port or --follow")
        if self.otlp_port is not None and not 0 <= self.otlp_port <= 65535:
            raise WatchError(f"--otlp-port {self.otlp_port}: expected 0 to 65535")
        for name in ("grace", "max_wait", "session_idle"):
            if getattr(self, name) < 0:
                raise WatchError(f"--{name.replace('_', '-')}: expected a duration of 0 or more")
        if self.queue_limit < 1 or self.max_body < 1:
            raise WatchError("--queue-limit and --max-body: expected at least 1")
        if self.max_judge_calls is not None and self.max_judge_calls < 0:
            raise WatchError("--max-judge-calls: expected 0 or more")
        if self.max_cost is not None:
            from genevals.watch.budget import price_problem

            if not (self.max_cost >= 0 and math.isfinite(self.max_cost)):
                raise WatchError(f"--max-cost {self.max_cost}: expected US dollars, 0 or more")
            problem = price_problem(self.judge)
            if problem is not None:
                raise WatchError(f"--max-cost: {problem}")

    @property
    def queue(self) -> Path:
        return self.out / "queue.sqlite"

    @property
    def windows(self) -> Path:
        return self.out / "windows"
