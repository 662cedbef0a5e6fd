"""The watch loop: every trace decided once, the scored ones gathered into windows, each window one ordinary run.

Each tick (every ``poll`` seconds):

1. traces without a root ``max_wait`` after their first span are ``incomplete``;
2. ready traces (root arrived ``grace`` ago; a session's, once the session has been quiet ``session_idle``)
   are ``filtered`` (W2's filters over the resource's and root span's attributes) or ``over_budget`` (the
   window's estimated judge calls or cost would pass ``--max-judge-calls`` or ``--max-cost``; each trace's
   estimate, and its basis, from :mod:`~genevals.watch.budget`: the judge's dry run of the tick's ready traces
   until a window has been scored, then the measured usage per trace of the scored windows), else assigned to
   the open window (opened by its first trace);
3. the open window closes after ``window_seconds`` or at ``window_traces`` traces and is run: its traces (and
   the earlier turns of their sessions, carried) written as OTLP JSON lines to ``windows/NNNN.traces.jsonl``,
   scored by :func:`genevals.evaluate` into the run folder ``windows/NNNN`` (results, summary, report, the
   history record, OTel events linked to each trace's root span), then decided ``scored`` (or ``failed``, with
   the reason the trace could not be read) in the transaction that marks the window done; then W2's alerts and
   trend page;
4. the decisions go to ``decisions.jsonl``.

Sampling and sharding are decided as spans arrive (:meth:`Watcher.triage`), so spans of traces that will not be
scored are never stored; past half a full queue, new traces are shed by the same hash (the rate falls linearly
to 0 at a full queue: ``over_budget``, the reason says so), before the receiver has to answer 429. A stop (SIGTERM, SIGINT) closes and scores the open window, then returns; a kill -9 leaves
a window ``running`` in the queue, and the next start scores it again from the spans still there: the run folder
of the killed attempt is replaced, and no trace is decided twice.
"""
from __future__ import annotations

import json
import shutil
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable

from genevals.watch import budget, decisions
from genevals.watch.config import WatchConfig, WatchError
from genevals.watch.otlp import OtlpError, filter_attributes, records_from_json
from genevals.watch.store import QueueFull, Store

#: seconds between purges of what nothing needs any more
PURGE_EVERY = 600.0
#: the queue's fill (waiting spans / --queue-limit) past which new traces are shed: the sample rate falls
#: linearly from --sample here to 0 at a full queue
SHED_AT = 0.5


def _hold_lock(out: Path):
    """An exclusive lock on ``out/watch.lock`` for this process's life: two watchers on one folder would score
    the same windows (shards each take a folder of their own)."""
    import fcntl

    handle = open(out / "watch.lock", "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise WatchError(f"--out {out}: another genevals watch is using this folder") from None
    return handle


class Watcher:
    """One watcher over ``config``; :meth:`run` until ``stop`` is set. ``clock`` gives seconds since 1970."""

    def __init__(self, config: WatchConfig, clock: Callable[[], float] = time.time,
                 say: Callable[[str], None] | None = None) -> None:
        from genevals.watch import alerts, filters

        self.config, self.clock = config, clock
        self.say = say or (lambda text: print(f"genevals watch: {text}", flush=True))
        try:
            self.filter = filters.Filter.parse(config.filter) if config.filter else None
        except ValueError as exc:
            raise WatchError(f"--filter: {exc}") from None
        try:
            self.alerts = [alerts.Alert.parse(text) for text in config.alerts]
        except ValueError as exc:
            raise WatchError(f"--alert: {exc}") from None
        config.windows.mkdir(parents=True, exist_ok=True)
        self._lock = _hold_lock(config.out)
        self.store = Store(config.queue, config.queue_limit)
        self.receiver = None
        self._last_purge = 0.0
        #: whether a cap needs each trace's estimate (a call cap binds only when a judge metric is named)
        self._capped = config.max_cost is not None or (config.max_judge_calls is not None and
                                                       config.judge_metrics > 0)
        #: the measured basis (None: no window scored yet) and each open window's admitted estimates, summed
        self._basis = budget.measured(config.windows) if self._capped else None
        self._spent: dict[int, budget.Spent] = {}

    # decided on arrival ----------------------------------------------------------------------------------------

    def triage(self, trace: str) -> tuple[str, str] | None:
        """``out_of_shard`` or ``sampled_out`` for a trace seen the first time (W2's hash rules), else None."""
        from genevals.watch import sampling

        index, count = self.config.shard
        if count > 1:
            mine = sampling.shard_of(trace, count)
            if mine != index:
                return "out_of_shard", f"shard {mine} of {count}; this watcher takes shard {index}"
        if not sampling.sampled(trace, self.config.sample):
            return "sampled_out", (f"hash unit {sampling.unit(trace, b'sample'):.6f} >= --sample "
                                   f"{self.config.sample:g}")
        fill = self.store.waiting / self.config.queue_limit  # read without the store's lock: add() holds it
        if fill > SHED_AT:
            # overload: the sample narrows by the same hash (nested rates nest), never at random
            rate = self.config.sample * max(0.0, (1.0 - fill) / (1.0 - SHED_AT))
            if not sampling.sampled(trace, rate):
                return "over_budget", (f"shed under overload: the queue is {fill:.0%} full, so only hash units "
                                       f"below {rate:.6f} are kept")
        return None

    # the loop --------------------------------------------------------------------------------------------------

    def run(self, stop: threading.Event) -> int:
        """Serves until ``stop`` (a backfill: until its file is scored); returns the exit code (0)."""
        for number in self.store.running():  # a window a kill -9 interrupted
            self.say(f"window {number} was interrupted: scoring it again")
            self.run_window(number)
        if self.config.backfill is not None:
            return self._backfill()
        if self.config.otlp_port is not None:
            from genevals.watch.receiver import Receiver

            self.receiver = Receiver(self.config, self.store, self.triage, self.clock)
            port = self.receiver.start()
            (self.config.out / "watch.json").write_text(json.dumps({"port": port}), encoding="utf-8")
            self.say(f"listening on http://127.0.0.1:{port}/v1/traces")
        follower = self._follower() if self.config.follow is not None else None
        try:
            while not stop.is_set():
                if follower is not None:
                    self._feed_follow(follower)
                self.tick(self.clock())
                stop.wait(self.config.poll)
        finally:
            if self.receiver is not None:
                self.receiver.stop()
            self.tick(self.clock())  # what became ready while stopping joins the open window
            self._close_open(force=True)
            decisions.sync(self.store, self.config.out)
            self.store.close()
        return 0

    def tick(self, now: float, grace: float | None = None, idle: float | None = None,
             max_wait: float | None = None) -> None:
        config = self.config
        grace = config.grace if grace is None else grace
        idle = config.session_idle if idle is None else idle
        max_wait = config.max_wait if max_wait is None else max_wait
        rootless = self.store.rootless(now, max_wait)
        if rootless:
            self.store.decide([(t, "incomplete", f"no root span {max_wait:g} s after its first span")
                               for t in rootless], now)
        ready = [trace for trace, _session in self.store.ready(now, grace, idle) if self._passes(trace, now)]
        prices = self._price(ready)
        for trace in ready:
            self._decide(trace, now, prices)
        self._close_open(force=False)
        decisions.sync(self.store, config.out)
        if now - self._last_purge >= PURGE_EVERY:
            self.store.purge(now)
            self._last_purge = now

    def _passes(self, trace: str, now: float) -> bool:
        """Whether ``trace`` passes --filter (if not, it is decided ``filtered``)."""
        if self.filter is not None:
            body = self.store.root_body(trace) or {}
            if not self.filter.matches(filter_attributes(body)):
                self.store.decide([(trace, "filtered", f"--filter {self.config.filter!r} does not match")], now)
                return False
        return True

    def _price(self, traces: list[str]) -> dict[str, budget.Estimate]:
        """The judge's dry-run estimate of each of ``traces`` while no window has been measured (else none)."""
        config = self.config
        if not self._capped or self._basis is not None or not traces:
            return {}
        if config.judge is None:
            return {t: budget.Estimate(float(config.judge_metrics), None, "no judge configured to price this "
                                       "trace: calls counted as 1 a judge metric, a floor") for t in traces}
        staging = config.out / "pricing.traces.jsonl"
        try:
            lines = self._write_lines(((t, json.loads(b)) for t, b in self.store.trace_spans(traces)), staging)
            return budget.dry_run(staging, lines, config.metrics, config.judge, config.options)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - as a window's: an estimate that fails caps its traces
            why = f"the dry run failed: {type(exc).__name__}: {str(exc)[:200]}"
            return {t: budget.Estimate(float(config.judge_metrics), None,
                                       f"{why}; calls counted as 1 a judge metric, a floor") for t in traces}
        finally:
            staging.unlink(missing_ok=True)

    def _decide(self, trace: str, now: float, prices: dict[str, budget.Estimate]) -> None:
        number, _, count = self.store.open_window(now)
        config = self.config
        if self._capped:
            estimate = self._basis or prices.get(trace) or budget.Estimate(
                float(config.judge_metrics), None, "not priced: calls counted as 1 a judge metric, a floor")
            # after a restart the open window's earlier traces are counted at this trace's estimate
            spent = self._spent.get(number) or budget.Spent(count * estimate.calls, count * (estimate.cost or 0.0))
            reason = budget.admit(spent, estimate, config.max_judge_calls if config.judge_metrics else None,
                                  config.max_cost, number)
            if reason is not None:
                self.store.decide([(trace, "over_budget", reason)], now)
                return
            self._spent[number] = spent + estimate
        self.store.assign([trace], number)
        if config.window_traces is not None and count + 1 >= config.window_traces:
            self.store.close_window(number)
            self.run_window(number)

    def _close_open(self, force: bool) -> None:
        found = self.store.current_window()
        if found is None or found[2] == 0:
            return
        number, opened, count = found
        config = self.config
        due = (config.window_traces is not None and count >= config.window_traces) or \
              (config.window_seconds is not None and self.clock() - opened >= config.window_seconds)
        if force or due:
            self.store.close_window(number)
            self.run_window(number)

    # a window --------------------------------------------------------------------------------------------------

    def run_window(self, number: int) -> None:
        """Scores window ``number`` (closed: state running) as one run folder and decides its traces."""
        import genevals
        from genevals.input.traces import TraceSource

        config = self.config
        traces = self.store.window_traces(number)
        folder = config.windows / f"{number:04d}"
        if folder.exists():  # what a killed attempt left: scored again from the queue, whole
            self._forget(folder)
            shutil.rmtree(folder)
        # beside the run folder, which names it as each row's origin (kept: the window's input, for curate)
        staging = config.windows / f"{number:04d}.traces.jsonl"
        lines = self._write_traces(number, staging)
        failed = self._unreadable(staging, lines)
        decided: list[tuple[str, str, str]] = []
        if len(failed) < len(traces):
            try:
                results = genevals.evaluate(
                    TraceSource(staging, "openinference"), list(config.metrics), out_dir=folder, report=True,
                    history=config.history, otel_endpoint=config.otel_endpoint, min_coverage=config.min_coverage,
                    on_error="skip", meta={"watch": {"window": number, "traces": len(traces)}}, judge=config.judge,
                    options=config.options, max_judge_errors=config.max_judge_errors)
            except (KeyboardInterrupt, SystemExit):
                raise
            # BaseException: the judge's JudgeUnavailable is one (it stops a run), and a window that cannot run
            # fails its traces, not the watcher
            except BaseException as exc:  # noqa: BLE001
                reason = f"window {number} could not be scored: {type(exc).__name__}: {str(exc)[:300]}"
                failed.update({t: reason for t in traces if t not in failed})
                results = None
            if results is None:
                staging.unlink(missing_ok=True)
        decided += [(t, "failed", failed[t]) if t in failed else (t, "scored", f"window {number}") for t in traces]
        self.store.finish_window(number, decided, self.clock())
        decisions.sync(self.store, config.out)
        scored = sum(d == "scored" for _, d, _ in decided)
        self.say(f"window {number}: {scored} scored, {len(decided) - scored} failed -> {folder}")
        if scored:
            self._after_window(folder)
        self._spent.pop(number, None)
        if self._capped:
            self._basis = budget.measured(config.windows) or self._basis

    def _forget(self, folder: Path) -> None:
        """The history's record of a killed attempt at this window (killed after the run was recorded, before its
        traces were decided), deleted before the window is scored again: each window is recorded once."""
        if self.config.history is not False:
            from genevals.lifecycle.history import forget_folder

            given = self.config.history
            forget_folder(str(given) if isinstance(given, (str, Path)) else None, folder)

    def _write_traces(self, number: int, path: Path) -> dict[int, str]:
        """The window's traces as OTLP JSON lines, one trace a line (a session's earlier turns included);
        returns line number -> trace."""
        return self._write_lines(self.store.window_spans(number), path)

    @staticmethod
    def _write_lines(pairs, path: Path) -> dict[int, str]:
        """(trace, span body) pairs as OTLP JSON lines, one trace a line; returns line number -> trace."""
        spans: dict[str, list[dict]] = defaultdict(list)
        for trace, body in pairs:
            spans[trace].append(body)
        lines = {}
        with open(path, "w", encoding="utf-8") as out:
            for line, (trace, bodies) in enumerate(spans.items(), 1):
                by_resource: dict[str, list[dict]] = defaultdict(list)
                for body in bodies:
                    by_resource[json.dumps(body["resource"], sort_keys=True)].append(body["span"])
                blocks = [{"resource": json.loads(r), "scopeSpans": [{"spans": s}]} for r, s in by_resource.items()]
                out.write(json.dumps({"resourceSpans": blocks}, ensure_ascii=False) + "\n")
                lines[line] = trace
        return lines

    @staticmethod
    def _unreadable(path: Path, lines: dict[int, str]) -> dict[str, str]:
        """trace -> why the trace reader refuses it (no answer, a span cycle, no known convention, a convention's
        value not of its form), with the field it names (the attribute, as it lies in the window's traces file)."""
        from genevals.input.traces import TraceSource

        out = {}
        for row in TraceSource(path, "openinference").rows():
            if isinstance(row, ValueError) and getattr(row, "line", None) in lines:
                field, message = getattr(row, "field", None), getattr(row, "message", str(row))
                out[lines[row.line]] = f"field '{field}': {message}" if field else message
        return out

    def _after_window(self, folder: Path) -> None:
        """W2's alerts over the window's summary, and the trend page over every window: a failure here is said,
        and the watcher goes on."""
        try:
            from genevals.watch import alerts, trend

            summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
            for alert in self.alerts:
                outcome = alerts.check(alert, summary, self.config.min_coverage,
                                       window=folder.name)
                if isinstance(outcome, alerts.Firing):
                    alerts.deliver(outcome, command=self.config.alert_command, url=self.config.alert_url,
                                   log=self.config.out)
                elif outcome is not None:  # Skipped: said in alerts.jsonl, with why (coverage, no such metric)
                    alerts.record(self.config.out, outcome)
            trend.write(self.config.out, baseline_window=self.config.baseline_window)
        except Exception as exc:  # noqa: BLE001
            self.say(f"after {folder.name}: {type(exc).__name__}: {str(exc)[:300]}")

    # sources other than the receiver ---------------------------------------------------------------------------

    def _add(self, records: list, now: float) -> None:
        """Adds records, scoring what is ready while the queue is full (a backfill or a followed file waits;
        it is never refused)."""
        while True:
            try:
                self.store.add(records, self.triage, now)
                return
            except QueueFull:
                self.tick(now, grace=0.0, idle=0.0, max_wait=float("inf"))
                self._close_open(force=True)
                if self.store.waiting + len(records) > self.config.queue_limit and not self.store.ready(
                        now, 0.0, 0.0):
                    raise WatchError(f"--queue-limit {self.config.queue_limit}: the queue is full of traces "
                                     "without a root span; raise the limit") from None

    def _backfill(self) -> int:
        """Reads the --from file into the queue (spans starting after --until left out), then scores every
        trace in it: no grace, no idle wait (the file is complete)."""
        from genevals.input.traces.records import records

        until = None if self.config.until is None else int(self.config.until * 1e9)
        source = str(self.config.backfill)
        for item in records(self.config.backfill, None, "openinference"):
            if isinstance(item, ValueError):
                print(f"genevals watch: {item}", file=sys.stderr)
                continue
            line, message = item
            rejected: list[str] = []
            try:
                found = records_from_json(message, rejected)
            except OtlpError as exc:
                print(f"genevals watch: {source}:{line}: {exc.reason}", file=sys.stderr)
                continue
            for reason in rejected:
                print(f"genevals watch: {source}:{line}: {reason}", file=sys.stderr)
            self._add([r for r in found if until is None or r.start_ns <= until], self.clock())
        now = self.clock()
        self.tick(now, grace=0.0, idle=0.0, max_wait=0.0)
        self._close_open(force=True)
        decisions.sync(self.store, self.config.out)
        self.store.close()
        return 0

    def _follower(self):
        from genevals.watch.follow import Follower

        return Follower(self.config.follow, self.store.follow_state(str(self.config.follow)),
                        refused=lambda where, reason: print(f"genevals watch: {where}: {reason}", file=sys.stderr))

    def _feed_follow(self, follower) -> None:
        """New complete lines of the followed file (W2's Follower: ``poll()`` yields (line, dict), ``state``
        the offsets to persist), added to the queue, then the offsets saved."""
        for line, message in follower.poll():
            rejected: list[str] = []
            try:
                found = records_from_json(message, rejected)
            except OtlpError as exc:
                print(f"genevals watch: {self.config.follow}:{line}: {exc.reason}", file=sys.stderr)
                continue
            self._add(found, self.clock())
        self.store.save_follow_state(str(self.config.follow), follower.state)
