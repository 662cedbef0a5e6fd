"""BERTScore's settings checked when the metric is built, before any row is read: the layer against the model's
own config (read, never loaded), the device and the batch size, each error naming its option."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only a type here: the command line checks --device without loading the model code
    from genevals.metrics.semantic.bertscore_model import ModelSpec

#: where configs keep their layer count (BERT, DistilBERT, T5, GPT-2)
_LAYER_KEYS = ("num_hidden_layers", "n_layers", "num_layers", "n_layer")
#: the devices a model can be put on
DEVICE = re.compile(r"(cpu|mps|cuda(:\d+)?)\Z")


def layer_count(spec: ModelSpec) -> int | None:
    """The model's number of layers from its config.json (a local folder, or the Hugging Face cache without a
    download), without loading the model; None when no config is at hand."""
    config = Path(spec.path) / "config.json"
    if not config.is_file():
        try:
            from huggingface_hub import try_to_load_from_cache

            cached = try_to_load_from_cache(spec.path, "config.json")
        except Exception:  # not installed, or not a repository name
            return None
        if not isinstance(cached, str):
            return None
        config = Path(cached)
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for key in _LAYER_KEYS:
        if isinstance(data.get(key), int):
            return data[key]
    return None


def check_settings(spec: ModelSpec, layer: int, device: str | None, batch_size: int | None) -> None:
    """ValueError, naming the option, for a layer the model does not have, an unknown device or a batch of
    nothing: found when the metric is built, before any row is read, not at the first batch."""
    if isinstance(layer, bool) or not isinstance(layer, int) or layer < 0:
        raise ValueError(f"layer must be a whole number >= 0, got {layer!r} (--bertscore-layer)")
    layers = layer_count(spec)
    if layers is not None and layer > layers:
        raise ValueError(f"layer {layer} is beyond '{spec.name}', which has {layers} layers (--bertscore-layer "
                         f"0 to {layers})")
    if device is not None and not (isinstance(device, str) and DEVICE.match(device)):
        raise ValueError(f"unknown device {device!r}: cpu, cuda, cuda:N or mps (--device)")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1):
        raise ValueError(f"batch_size must be 1 or more, got {batch_size!r} (--batch-size)")
