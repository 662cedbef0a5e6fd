"""BERTScore's embedding of texts: token ids and last-layer embeddings, each distinct text embedded once per
call, with an LRU cache for the texts that repeat across calls (references), in batches cut for the least padding
(the model itself: ``bertscore_model``).

Everything numeric is bert-score's own code (``bert_score.utils.sent_encode``, the model's forward pass); this
module only decides *what* to embed and *when*:

* each distinct text is embedded once per call, and references are kept in a bounded LRU cache keyed by
  text across calls, so three systems answering the same questions embed the shared references once;
* texts are sorted by token length and cut into batches under a token budget (little padding), and the
  batch is halved and retried when the device runs out of memory.
"""
from __future__ import annotations

from collections import OrderedDict
from contextlib import nullcontext
from typing import Any, Iterable, Sequence

from genevals.metrics.semantic.bertscore_model import Loaded, one_torch_thread

#: what one more forward pass costs, in token positions. Each pass runs ~100 operators, each a parallel region
#: whose threads must all be scheduled: on a busy CPU a pass costs far more than its arithmetic. Measured on 2
#: loaded cores (300 long texts): passes of <= 8,192 tokens cut for the least padding took 73-76 s, passes of
#: <= 16,384 tokens with this cost 42-47 s (6% more padded positions), bert_score's 64 texts a pass 63-72 s.
BATCH_COST = 512


def padded_batch(batch: Sequence[Sequence[int]], width: int, pad: int):
    """Right-padded ids and their attention mask, int64 tensors [len(batch), width]."""
    import torch

    ids = torch.full((len(batch), width), pad, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
        mask[row, :len(seq)] = 1
    return ids, mask


class Embedder:
    """Token ids and last-layer embeddings of texts, with an LRU cache for texts that repeat (references)."""

    def __init__(self, loaded: Loaded, batch_size: int | None = None, cache_mb: float = 512,
                 token_budget: int | None = None) -> None:
        self.loaded = loaded
        self.batch_size = batch_size or 64
        self.token_budget = token_budget or self._default_budget()
        self.cache_bytes = int(cache_mb * 2**20)
        self._cache: OrderedDict[str, tuple[list[int], Any]] = OrderedDict()
        self._cached_bytes = 0
        self._ids: OrderedDict[str, list[int]] = OrderedDict()
        #: texts run through the model (a test hook: shared references must be embedded once)
        self.texts_embedded = 0
        #: token positions run through the model, padding included (what the forward pass costs)
        self.padded_tokens = 0

    def _default_budget(self) -> int:
        import torch

        if self.loaded.device.startswith("cuda") and torch.cuda.is_available():
            free, _ = torch.cuda.mem_get_info(torch.device(self.loaded.device))
            hidden = self.loaded.model.config.hidden_size
            # activations are roughly (layers * 12 * hidden) floats per token; keep a quarter of free memory
            per_token = 4 * 12 * hidden * max(1, self.loaded.layer)
            return max(512, int(free * 0.25 / per_token))
        return 16384

    def ids(self, text: str) -> list[int]:
        """bert-score's ``sent_encode`` (strip, special tokens, truncation), memoised."""
        got = self._ids.get(text)
        if got is None:
            from bert_score.utils import sent_encode

            got = sent_encode(self.loaded.tokenizer, text)
            self._ids[text] = got
            if len(self._ids) > 50_000:
                self._ids.popitem(last=False)
        else:
            self._ids.move_to_end(text)
        return got

    def embed(self, texts: Iterable[str], keep: set[str] | frozenset[str] = frozenset()) -> dict[str, tuple]:
        """text -> (token ids, embedding [n_tokens, hidden] on CPU) for each distinct text.

        Texts in ``keep`` go into the LRU cache for later calls; the others are embedded but not cached.
        """
        out: dict[str, tuple] = {}
        todo: list[str] = []
        for text in dict.fromkeys(texts):
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                out[text] = hit
            else:
                todo.append(text)
        if todo:
            encoded = {t: self.ids(t) for t in todo}
            todo.sort(key=lambda t: len(encoded[t]), reverse=True)
            for text, emb in zip(todo, self._run([encoded[t] for t in todo])):
                out[text] = (encoded[text], emb)
                if text in keep:
                    self._remember(text, out[text])
        return out

    def _remember(self, text: str, item: tuple) -> None:
        size = item[1].numel() * item[1].element_size() + 8 * len(item[0]) + len(text)
        if size > self.cache_bytes:
            return
        self._cache[text] = item
        self._cached_bytes += size
        while self._cached_bytes > self.cache_bytes:
            old, (ids, emb) = self._cache.popitem(last=False)
            self._cached_bytes -= emb.numel() * emb.element_size() + 8 * len(ids) + len(old)

    def _batches(self, lengths: Sequence[int]) -> list[tuple[int, int]]:
        """[start, end) ranges over length-sorted (longest first) sequences, under the batch and token caps,
        cut where they cost least: padded tokens plus :data:`BATCH_COST` token-equivalents per forward pass.

        A padded position costs as much as a real one, and so does every extra pass (:data:`BATCH_COST`); the
        cheapest cuts are found exactly by dynamic programming over the sorted lengths (n x batch_size steps)."""
        n = len(lengths)
        best = [0.0] + [float("inf")] * n  # best[j]: least cost of the first j sequences
        cut = [0] * (n + 1)
        for end in range(1, n + 1):
            for start in range(end - 1, max(0, end - self.batch_size) - 1, -1):
                size = end - start
                if size > 1 and size * lengths[start] > self.token_budget:
                    break  # longer batches starting earlier are wider still
                cost = best[start] + size * lengths[start] + BATCH_COST
                if cost < best[end]:
                    best[end], cut[end] = cost, start
        ranges, end = [], n
        while end > 0:
            ranges.append((cut[end], end))
            end = cut[end]
        return ranges[::-1]

    def _run(self, seqs: list[list[int]]) -> list:
        # ONNX Runtime has its own threads; torch then only pads and copies
        with one_torch_thread() if self.loaded.encoder is not None else nullcontext():
            return self._run_batches(seqs)

    def _run_batches(self, seqs: list[list[int]]) -> list:
        import torch

        loaded = self.loaded
        pad = loaded.tokenizer.pad_token_id
        results: list = []
        lengths = [len(s) for s in seqs]
        ranges = self._batches(lengths)
        k = 0
        while k < len(ranges):
            start, end = ranges[k]
            batch = seqs[start:end]
            width = lengths[start]
            ids, mask = padded_batch(batch, width, pad)
            try:
                with torch.inference_mode():
                    hidden = loaded.forward(ids, mask).float().cpu()
            except RuntimeError as exc:  # torch.cuda.OutOfMemoryError is a RuntimeError
                message = str(exc).lower()
                if ("out of memory" not in message and "can't allocate" not in message) or end - start == 1:
                    raise
                if loaded.device.startswith("cuda"):
                    torch.cuda.empty_cache()
                # halve this batch size for the rest of the run and redo the remaining ranges
                self.batch_size = max(1, (end - start) // 2)
                self.token_budget = max(width, self.token_budget // 2)
                ranges = ranges[:k] + [(s + start, e + start) for s, e in self._batches(lengths[start:])]
                continue
            for row, seq in enumerate(batch):
                results.append(hidden[row, :len(seq)].clone())
            self.texts_embedded += len(batch)
            self.padded_tokens += len(batch) * width
            k += 1
        return results
