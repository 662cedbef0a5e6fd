"""Judge requests through the OpenAI Batch API (``genevals run --judge-batch``): about half the price of the same
calls made one by one, answered within the batch's 24-hour window.

How a run goes (:class:`~genevals.judge.batch.provider.BatchProvider`, in place of the OpenAI-compatible
provider's one request per call):

1. Every judge call the cache cannot answer waits in a queue; once no new call has come for
   :data:`~genevals.judge.batch.provider.GATHER_SECONDS`, the queue is one *round*: a faithfulness run has two
   (every decomposition, then every verification), a one-call judge one.
2. A round is written as a requests file (:mod:`genevals.judge.batch.lines`: one line per distinct request, its
   ``custom_id`` the sha256 of the request's body, so the same request has the same id in every run), uploaded
   (``POST /files``, purpose ``batch``) and made a batch (``POST /batches``, endpoint ``/v1/chat/completions``,
   window ``24h``); the batch's id is written to the run folder at once (:mod:`genevals.judge.batch.state`).
3. The batch is polled (``GET /batches/{id}``) every ``batch_poll`` seconds, doubling up to ``batch_poll_max``;
   once it is completed, expired, cancelled or failed, its output and error files are read
   (``GET /files/{id}/content``) and each line matched to its request by ``custom_id``.
4. Each answer goes back to the call that waits for it, so the judge client stores it in the reply cache as
   any answer: a re-run makes no request at all.

Errors, per request: a line the server marks transient (HTTP 429, 5xx, 408, 409; ``batch_expired`` or
``batch_cancelled``: the window closed before it was done), a line that is not a reply (malformed JSON, too long,
no choices) and a request neither file mentions are retried in the next round's batch (a follow-up batch), up
to ``--judge-retries`` times; any other error (a 400 naming the request's fault) is the sample's
``judge_error``, with the server's message as the reason. A batch that fails as a whole (its file refused) gives
every request in it that reason. Lines for ids that were never sent are ignored and counted.

Resume: a run killed after a batch was created (Ctrl-C, SIGKILL, a lost machine) leaves its id in the run
folder; the same command again sends the same requests, finds them in that batch and polls it instead of creating
another, so nothing is paid twice. (A run killed between the create call and the write of its id, a few
milliseconds, creates the batch again.)

A file's lines are read one at a time, each at most :data:`~genevals.judge.batch.lines.MAX_LINE_BYTES`, a file
at most that much per request it answers: a hostile or broken server cannot fill memory.
"""
from __future__ import annotations

from genevals.judge.config import BATCH_IN_FLIGHT as IN_FLIGHT

__all__ = ["IN_FLIGHT", "MAX_REQUESTS", "MAX_FILE_BYTES"]
#: the Batch API's limits on one batch: requests, and bytes of its requests file
MAX_REQUESTS = 50_000
MAX_FILE_BYTES = 200 * 1024 * 1024
