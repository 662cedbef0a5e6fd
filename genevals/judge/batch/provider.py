"""The batch provider: the OpenAI-compatible provider's requests, gathered into rounds and sent as batches
(:mod:`genevals.judge.batch` says how a run goes; this module is that sequence).

It is a :class:`~genevals.judge.protocol.Provider`: the judge client's cache, retries and redaction wrap it as
they wrap any backend, so an answer from a batch is cached as any answer, a transient per-request error
(:class:`TransientError` with ``retry_after=0``) is sent again at once by the client's retries, into the next
round's batch, and a permanent one is the call's ``judge_error``.
"""
from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from genevals.judge.backends.openai_compatible import completion_of
from genevals.judge.batch import MAX_FILE_BYTES, MAX_REQUESTS
from genevals.judge.batch.api import BatchAPI, BatchAPIError
from genevals.judge.batch.lines import MAX_LINE_BYTES, Answer, Read, custom_id, read, request_file
from genevals.judge.batch.state import BatchState
from genevals.judge.protocol import Completion, Message, PermanentError, TransientError

log = logging.getLogger("genevals.judge")
#: how long the queue stays quiet before it is sent as a round: every sample's next call is made within a few
#: milliseconds of the answers it waited for, and a batch takes minutes to hours, so half a second costs nothing
GATHER_SECONDS = 0.5
#: the statuses after which a batch changes no more
TERMINAL = ("completed", "failed", "expired", "cancelled")
#: failed status checks in a row before a batch is given up on in this run (it stays in the run folder: the same
#: command resumes it)
POLL_FAILURES = 8
#: tries of an upload or a create that fails transiently
API_TRIES = 4
#: bytes of output and error file read per request of a batch (a judge's reply line is a few kilobytes)
PER_REQUEST_BYTES = 64 * 1024


@dataclass(frozen=True)
class BatchSettings:
    """How batches are polled and where their ids are kept (None: not kept, no resume)."""

    poll: float = 10.0
    poll_max: float = 300.0
    state: BatchState | None = None
    #: the endpoint as recorded (no credentials)
    endpoint: str = ""
    #: redacts what a server said before it is printed
    redact: Callable[[str], str] = field(default=lambda text: text)


@dataclass
class _Waiting:
    body: dict[str, Any]
    messages: Sequence[Message]
    mode: str
    futures: list[asyncio.Future] = field(default_factory=list)


class BatchProvider:
    """``inner`` (an :class:`~genevals.judge.backends.openai_compatible.OpenAIProvider`) through the Batch API."""

    backend = "openai"

    def __init__(self, inner: Any, api: BatchAPI, settings: BatchSettings) -> None:
        self.inner = inner
        self.model = inner.model
        self.base_url = inner.base_url
        self.api = api
        self.settings = settings
        self._queue: dict[str, _Waiting] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._rounds: set[asyncio.Task] = set()
        #: batches polled in this process: never resumed again by it (a request that failed in one is retried in
        #: a new batch, not answered by the same error line again)
        self._followed: set[str] = set()
        self.created = 0

    def __repr__(self) -> str:
        return f"BatchProvider({self.inner!r})"

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        mode = self.inner.mode
        body = self.inner.request_body(messages, schema, params, mode)
        cid = custom_id(body)
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._queue.setdefault(cid, _Waiting(body, messages, mode)).futures.append(future)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(GATHER_SECONDS, self._flush)
        return await future

    def _flush(self) -> None:
        self._timer, (queue, self._queue) = None, (self._queue, {})
        if queue:
            task = asyncio.ensure_future(self._round(queue))
            self._rounds.add(task)
            task.add_done_callback(self._rounds.discard)

    async def _round(self, queue: dict[str, _Waiting]) -> None:
        """Answer every call in ``queue``: from the recorded batches that hold its request, else new ones."""
        try:
            jobs = []
            left = list(queue)
            for batch_id, ids, expected in self._recorded(left):
                jobs.append(self._follow(batch_id, ids, expected, queue))
                taken = set(ids)
                left = [cid for cid in left if cid not in taken]
            for chunk in _chunks(left, queue):
                try:
                    batch_id = await self._create(chunk, queue)
                except BatchAPIError as exc:
                    self._answer_all(chunk, queue, PermanentError(
                        f"the batch could not be created (does {self.settings.endpoint} serve the Batch API?): {exc}"))
                    continue
                jobs.append(self._follow(batch_id, chunk, set(chunk), queue))
            await asyncio.gather(*jobs)
        finally:  # nothing waits forever, whatever went wrong
            self._answer_all(list(queue), queue, PermanentError("the batch round ended without an answer"))

    def _recorded(self, ids: list[str]) -> list[tuple[str, list[str], set[str]]]:
        """(batch id, the ids of ``ids`` it holds, all its ids) of each recorded batch to resume."""
        state = self.settings.state
        if state is None:
            return []
        found, left = [], set(ids)
        records = state.records()
        if state.note:
            self._say(state.note)
            state.note = None
        for record in records:
            if record["id"] in self._followed or record["endpoint"] != self.settings.endpoint or \
                    record.get("model") != self.model:
                continue
            recorded = set(record["custom_ids"])
            held = [cid for cid in ids if cid in left and cid in recorded]
            if held:
                self._followed.add(record["id"])
                left.difference_update(held)
                found.append((record["id"], held, recorded))
        return found

    async def _create(self, ids: list[str], queue: dict[str, _Waiting]) -> str:
        content = request_file({cid: queue[cid].body for cid in ids})
        file_id = await self._call(self.api.upload, content, "genevals-batch.jsonl")
        batch = await self._call(self.api.create, file_id, {"tool": "genevals"})
        batch_id = batch["id"]
        self._followed.add(batch_id)
        self.created += 1
        if self.settings.state is not None:  # at once: a run killed from here on resumes this batch
            self.settings.state.add(batch_id, self.settings.endpoint, self.model, ids)
        return batch_id

    async def _call(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` in a thread, tried again after a transient failure."""
        wait = max(0.05, self.settings.poll)
        for attempt in range(1, API_TRIES + 1):
            try:
                return await asyncio.to_thread(call, *args)
            except BatchAPIError as exc:
                if not exc.transient or attempt == API_TRIES:
                    raise
            await asyncio.sleep(wait)
            wait = min(wait * 2, max(self.settings.poll_max, 0.05))
        raise AssertionError("unreachable")

    async def _follow(self, batch_id: str, ids: list[str], expected: set[str], queue: dict[str, _Waiting]) -> None:
        """Poll batch ``batch_id`` until it is done, then answer the calls of ``ids`` from its files."""
        batch = await self._wait(batch_id, ids, queue)
        if batch is None:
            return
        status = batch["status"]
        if status == "failed":
            self._answer_all(ids, queue, PermanentError(f"batch {batch_id} failed: {_errors(batch)}"))
            return
        found = Read()
        budget = len(expected) * PER_REQUEST_BYTES + MAX_LINE_BYTES
        for key in ("output_file_id", "error_file_id"):
            file_id = batch.get(key)
            if not isinstance(file_id, str) or not file_id:
                continue
            try:
                lines, cut = await asyncio.to_thread(self.api.lines, file_id, budget, MAX_LINE_BYTES)
            except BatchAPIError as exc:
                found.problems.append(f"its {key.removesuffix('_id').replace('_', ' ')} could not be read: {exc}")
                continue
            read(lines, expected, found, key)
            if cut:
                found.problems.append(f"its {key.removesuffix('_id').replace('_', ' ')} is over {budget:,} bytes "
                                      f"({PER_REQUEST_BYTES // 1024} KiB a request); read up to there")
        odd = [f"{n} {what}" for n, what in ((found.malformed, "malformed line(s)"),
               (found.unknown, "line(s) for requests never sent"), (found.repeated, "repeated line(s)")) if n]
        if odd or found.problems:
            self._say(f"batch {batch_id}: " + "; ".join(odd + found.problems) + " (ignored; the requests without "
                      "an answer are sent again)")
        for cid in ids:
            self._answer(cid, queue, batch_id, status, found.answers.get(cid), found.problems)

    async def _wait(self, batch_id: str, ids: list[str], queue: dict[str, _Waiting]) -> dict[str, Any] | None:
        """The batch once it is done; None (its calls answered with the error) when it cannot be followed."""
        wait, failures = max(0.01, self.settings.poll), 0
        while True:
            try:
                batch = await asyncio.to_thread(self.api.get, batch_id)
                failures = 0
                if batch["status"] in TERMINAL:
                    return batch
            except BatchAPIError as exc:
                failures += 1
                if not exc.transient or failures >= POLL_FAILURES:
                    self._answer_all(ids, queue, PermanentError(
                        f"batch {batch_id} could not be followed: {exc}; it stays recorded in the run folder: the "
                        "same command again resumes it"))
                    return None
            await asyncio.sleep(wait)
            wait = min(wait * 2, max(self.settings.poll_max, 0.01))

    def _answer(self, cid: str, queue: dict[str, _Waiting], batch_id: str, status: str, answer: Answer | None,
                problems: list[str]) -> None:
        waiting = queue[cid]
        if answer is None:
            why = f"; {problems[0]}" if problems else ""
            return self._answer_all([cid], queue, TransientError(
                f"batch {batch_id} ({status}) gave no answer to this request{why}", retry_after=0))
        if answer.body is not None:
            try:
                completion = completion_of(answer.body, waiting.messages)
            except TransientError as exc:
                return self._answer_all([cid], queue, TransientError(f"batch {batch_id}: {exc}", retry_after=0))
            for future in waiting.futures:
                if not future.done():
                    future.set_result(completion)
            return None
        message = f"batch {batch_id}: {answer.error}"
        if answer.status is not None and 400 <= answer.status < 500 and "response_format" in waiting.body and \
                self.inner.refused_format(waiting.mode, answer.error or ""):
            error: Exception = TransientError(message, retry_after=0, status=answer.status)  # a simpler format next
        elif answer.transient:
            error = TransientError(message, retry_after=0, status=answer.status)
        else:
            error = PermanentError(message)
        return self._answer_all([cid], queue, error)

    @staticmethod
    def _answer_all(ids: list[str], queue: dict[str, _Waiting], error: Exception) -> None:
        for cid in ids:
            for future in queue[cid].futures:
                if not future.done():
                    future.set_exception(error)

    def _say(self, line: str) -> None:
        # the judge's logger, as the limiter's notes: a few lines a run at most
        log.warning("genevals: note: %s", self.settings.redact(line))


def _chunks(ids: list[str], queue: dict[str, _Waiting]) -> list[list[str]]:
    """``ids`` cut into batches the API takes: at most :data:`MAX_REQUESTS` requests and
    :data:`MAX_FILE_BYTES` bytes of requests file each."""

    found: list[list[str]] = []
    size = 0
    for cid in ids:
        line = len(json.dumps(queue[cid].body, ensure_ascii=False).encode()) + 200
        if not found or len(found[-1]) >= MAX_REQUESTS or size + line > MAX_FILE_BYTES:
            found.append([])
            size = 0
        found[-1].append(cid)
        size += line
    return found


def _errors(batch: Mapping[str, Any]) -> str:
    """What a failed batch says went wrong (its ``errors.data[].message``), briefly."""
    errors = batch.get("errors")
    data = errors.get("data") if isinstance(errors, dict) else None
    messages = [str(e.get("message"))[:200] for e in data or () if isinstance(e, dict) and e.get("message")]
    return "; ".join(messages[:3]) or "no reason given"


def build(inner: Any, config: Any, redact: Callable[[str | None], str | None]) -> BatchProvider:
    """The batch provider around ``inner`` for ``config`` (a :class:`~genevals.judge.config.JudgeConfig`)."""
    import os

    from genevals.judge.backends.openai_compatible import DEFAULT_BASE_URL
    from genevals.judge.config import public_url

    url = inner.base_url or DEFAULT_BASE_URL
    api = BatchAPI(url, config.api_key or os.environ.get("OPENAI_API_KEY"), config.request_timeout)
    state = BatchState(config.batch_dir) if config.batch_dir else None
    return BatchProvider(inner, api, BatchSettings(config.batch_poll, config.batch_poll_max, state,
                                                   public_url(url) or url, lambda t: redact(t) or ""))
