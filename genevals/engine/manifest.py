"""What a run is made from, so that ``--resume`` only ever continues the same run.

The manifest (``manifest.json`` in the run folder, owned by :mod:`genevals.output.runfolder`) holds a digest of the
input's rows, the metrics with the outputs kept and each one's signature (its settings, model, prompt and
library versions), the options that change results (column map, bootstrap seed), and the genevals version.
It is written before the first sample is scored. Resuming compares the manifest a run would write with the
one in the folder and refuses, naming every difference, when they differ: results of another input or other
settings must never be mixed into the folder's results.

The input digest is BLAKE2b over a file's bytes (moving or renaming it changes nothing); for in-memory data
(a DataFrame, a list of dicts) over each row as validated (``Sample.to_dict()`` without its origin) and each bad
row's message, in input order. Hashing the bytes costs a fraction of reading the rows.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping, Sequence

from genevals.conversations.history import HISTORY_TOKENS
from genevals.input.readers import InputError
from genevals.types import Sample


class InputDigest:
    """A running digest of the rows of an input, fed in order during the planning pass."""

    def __init__(self) -> None:
        self._hash = hashlib.blake2b(digest_size=16)
        self.rows = 0

    def add(self, item: Sample | InputError) -> None:
        self.rows += 1
        if isinstance(item, InputError):
            record: Any = ["error", item.line, item.field, item.message]
        else:
            record = item.to_dict()
            record.pop("origin", None)
        self._hash.update(json.dumps(record, sort_keys=True, ensure_ascii=True, default=str).encode("ascii"))
        self._hash.update(b"\n")

    def update(self, data: bytes) -> None:
        """Digest a file's bytes instead of its rows, as they are read (the reader sets :attr:`rows`)."""
        self._hash.update(data)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def _signature(metric: Any) -> str:
    try:
        return metric.signature()
    except Exception as exc:  # a signature that needs what scoring sets up: compare what can be compared
        return f"unavailable ({type(exc).__name__})"


def build(selected: Sequence[Any], digest: InputDigest, *, input_name: str, column_map: Mapping[str, str] | None,
          seed: int, history_tokens: int = HISTORY_TOKENS.default) -> dict[str, Any]:
    """The manifest of a run about to start (``selected``: the registry's Selected metrics)."""
    from genevals._version import __version__

    return {
        "genevals_version": __version__,
        "input": input_name,
        "input_rows": digest.rows,
        "input_digest": digest.hexdigest(),
        "metrics": {sel.family: {"outputs": sorted(n for n in sel.metric.output_names() if sel.keep(n)),
                                 "signature": _signature(sel.metric)} for sel in selected},
        "options": {"column_map": dict(sorted((column_map or {}).items())), "seed": seed,
                    "history_tokens": history_tokens},
    }


def _listing(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


def differences(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between the manifest in the folder (``old``) and the run asked for (``new``), one line
    each; [] when they describe the same run."""
    out = []
    if old.get("input_digest") != new.get("input_digest"):
        out.append(f"the input: {old.get('input')} ({old.get('input_rows')} rows) was scored, now "
                   f"{new.get('input')} ({new.get('input_rows')} rows) has different rows")
    old_metrics, new_metrics = old.get("metrics") or {}, new.get("metrics") or {}
    if set(old_metrics) != set(new_metrics):
        out.append(f"the metrics: {_listing(old_metrics)} were scored, now {_listing(new_metrics)}")
    for family in sorted(set(old_metrics) & set(new_metrics)):
        was, now = old_metrics[family] or {}, new_metrics[family] or {}
        if was.get("outputs") != now.get("outputs"):
            out.append(f"the outputs of {family}: {_listing(was.get('outputs') or [])} were scored, now "
                       f"{_listing(now.get('outputs') or [])}")
        if was.get("signature") != now.get("signature"):
            out.append(f"the settings of {family}: {was.get('signature')} were used, now {now.get('signature')}")
    old_options, new_options = old.get("options") or {}, new.get("options") or {}
    # a folder from before the budget was recorded was read with the default one
    old_options = {"history_tokens": HISTORY_TOKENS.default, **old_options} if old_options else old_options
    for name in sorted(set(old_options) | set(new_options)):
        if old_options.get(name) != new_options.get(name):
            out.append(f"the option {name}: {old_options.get(name)!r} was used, now {new_options.get(name)!r}")
    if old.get("genevals_version") != new.get("genevals_version"):
        out.append(f"the genevals version: {old.get('genevals_version')} scored it, now "
                   f"{new.get('genevals_version')}")
    return out
