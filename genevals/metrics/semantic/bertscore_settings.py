"""BERTScore's settings checked when the metric is built, before any row is read: the layer against the model's
own config (read, never loaded), the device and the batch size, a local model folder (``--bertscore-model PATH``:
config.json, weights and a tokenizer, named in signatures by its folder name and a digest of those files), each
error naming its option."""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

# ``spec`` below is a bertscore_model.ModelSpec, typed Any: importing it here, even for typing only, would make
# the two modules import each other (the import-linter contract forbids cycles)
ModelSpec = Any

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


def no_layer(spec: ModelSpec) -> ValueError:
    """The error for a local model folder given without its layer: bert-score tuned layers for its named models
    only, and guessing one would make a number nobody chose."""
    layers = layer_count(spec)
    has = f"; this model has {layers} layers" if layers is not None else ""
    return ValueError(f"bert-score has no tuned layer for a local model folder ({spec.path}): pass layer= "
                      f"(--bertscore-layer N{has}; bert-score's tuned layers lie about three quarters deep, "
                      "e.g. 9 of 12 for bert-base-multilingual-cased)")


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


# ---------------------------------------------------------------- a local model folder (--bertscore-model PATH)
#: the weights files transformers reads from a folder (one of them, or the shards an index names)
WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")
#: the tokenizer files: a fast tokenizer's json, or a slow one's vocabulary (WordPiece, BPE, SentencePiece)
TOKENIZER = ("tokenizer.json", "vocab.txt", "vocab.json", "sentencepiece.bpe.model", "spiece.model",
             "tokenizer.model")
#: the other files that decide the tokens: hashed with the rest
TOKENIZER_SETTINGS = ("tokenizer_config.json", "special_tokens_map.json", "merges.txt", "added_tokens.json")


def looks_like_path(model: str) -> bool:
    """Whether ``model`` names a folder rather than a Hugging Face repository id ("name" or "org/name")."""
    return (os.path.isabs(model) or model.startswith((".", "~")) or model.endswith(("/", os.sep))
            or model.count("/") > 1 or (os.sep != "/" and os.sep in model) or os.path.exists(model))


def model_folder(model: str) -> Path:
    """The local model folder ``model`` names, checked: config.json, weights and a tokenizer; a ValueError
    naming --bertscore-model and what is missing otherwise."""
    path = Path(os.path.expanduser(model))
    where = f"--bertscore-model {model}"
    if not path.exists():
        raise ValueError(f"{where}: no such folder (give a local Hugging Face model folder: config.json, "
                         "weights, tokenizer; genevals never downloads)")
    if not path.is_dir():
        raise ValueError(f"{where}: not a folder (give the folder holding config.json, the weights and the "
                         "tokenizer, not one of its files)")
    missing = []
    if not (path / "config.json").is_file():
        missing.append("config.json")
    if not any((path / name).is_file() for name in WEIGHTS):
        missing.append("weights (" + " or ".join(WEIGHTS[:2]) + ")")
    if not any((path / name).is_file() for name in TOKENIZER):
        missing.append("tokenizer (" + ", ".join(TOKENIZER[:3]) + " ...)")
    if missing:
        raise ValueError(f"{where}: not a Hugging Face model folder: no {', no '.join(missing)} in it")
    try:
        json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{where}: config.json is not readable JSON ({exc})") from None
    return path.resolve()


def _files(folder: Path) -> list[Path]:
    names = {"config.json", *WEIGHTS, *TOKENIZER, *TOKENIZER_SETTINGS}
    index = next((folder / n for n in WEIGHTS if n.endswith(".index.json") and (folder / n).is_file()), None)
    if index is not None:  # a sharded checkpoint: the shards its index names
        try:
            names.update(json.loads(index.read_text(encoding="utf-8")).get("weight_map", {}).values())
        except (OSError, ValueError, AttributeError):
            pass
    return sorted(folder / n for n in names if (folder / n).is_file())


def folder_digest(folder: Path) -> str:
    """SHA-256 (first 12 hex digits) of the folder's config, weights and tokenizer files, names and bytes: the
    signature names the model by it, so two folders with the same name but other weights never compare. One
    read of the weights (about a second per GB), once per process."""
    key = (str(folder), tuple((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in _files(folder)))
    if key not in _DIGESTS:
        digest = hashlib.sha256()
        for file in _files(folder):
            digest.update(file.name.encode() + b"\0")
            with open(file, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
        _DIGESTS[key] = digest.hexdigest()[:12]
    return _DIGESTS[key]


_DIGESTS: dict[tuple, str] = {}
_UNSAFE = re.compile(r"[^A-Za-z0-9._+-]+")


def folder_name(folder: Path) -> str:
    """The signature's model name of a folder: its name (characters a signature cannot hold as '-') @ digest."""
    return f"{_UNSAFE.sub('-', folder.name) or 'model'}@{folder_digest(folder)}"
