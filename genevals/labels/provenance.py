"""A labelled qrels file's provenance, written and read here only: the ``# genevals label ...`` header line of the
qrels file and its sidecar ``QRELS.json``.

Reading imports nothing of genevals, so ``genevals run --qrels`` can say, at no cost, that its qrels were
judged by a model (``qrels_judged_by`` in summary.json, a caveat in the report and the terminal).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

HEADER = "# genevals label"
#: the provenance keys that say who judged: what a run scored on these qrels records
JUDGED_BY = ("judge", "model", "prompt_hash", "depth", "date", "warning")
#: summary.json's meta key for it
META_KEY = "qrels_judged_by"


def sidecar(path: str | Path) -> Path:
    """``QRELS.json`` beside ``QRELS``."""
    return Path(f"{path}.json")


def header_line(provenance: Mapping[str, Any], path: str | Path | None = None) -> str:
    """The qrels file's first line: ``# genevals label key=value ...`` (values without spaces), naming the
    sidecar of ``path``."""
    shown = {k: provenance.get(k) for k in ("judge", "model", "prompt_hash", "depth", "pairs", "date")}
    shown["runs"] = ",".join(provenance.get("runs") or [])
    words = [f"{k}={str(v).replace(' ', '_')}" for k, v in shown.items() if v not in (None, "")]
    if path is not None:
        words.append(f"provenance={sidecar(path).name.replace(' ', '_')}")
    return f"{HEADER} {' '.join(words)}"


def parse_header(line: str) -> dict[str, str] | None:
    """The ``key=value`` words of a ``# genevals label`` line; None for any other line."""
    if not line.startswith(HEADER):
        return None
    return dict(word.split("=", 1) for word in line[len(HEADER):].split() if "=" in word)


def judged_by(qrels: str | Path) -> dict[str, Any] | None:
    """Who judged the qrels file ``qrels`` (judge, model, prompt hash, depth, date, and the sidecar's path) when
    ``genevals label`` wrote it, from its sidecar, else its header line; None for human qrels (no header)."""
    from genevals.files import read_limited, refusal

    if refusal(qrels) is not None:  # a fifo or a device would hang this read: the qrels reader refuses it, naming it
        return None
    try:
        with open(qrels, "rb") as handle:
            first = handle.readline(4096).decode("utf-8", "replace").removeprefix("\ufeff").strip()
    except OSError:
        return None
    found = parse_header(first)
    if found is None:
        return None
    try:
        side = None if refusal(sidecar(qrels)) else json.loads(read_limited(sidecar(qrels), 1 << 20, "sidecar"))
    except (OSError, ValueError):  # Refused too: a sidecar that is no small file is no provenance
        side = None
    if isinstance(side, dict):
        info = {k: side.get(k) for k in JUDGED_BY if side.get(k) is not None}
        info["provenance"] = str(sidecar(qrels))
        return info
    return {k: found[k] for k in JUDGED_BY if k in found}


def describe(info: Mapping[str, Any]) -> str:
    """One line for the terminal and the report: which model judged the qrels."""
    model = info.get("model") or "?"
    who = "the offline MiniLM model" if info.get("judge") == "offline" else f"the {info.get('judge')} judge {model}"
    prompt = f", prompt {info['prompt_hash']}" if info.get("prompt_hash") else ""
    depth = f", pool depth {info['depth']}" if info.get("depth") else ""
    return (f"relevance labels made by {who}{prompt}{depth} (genevals label), not by people: retrieval metrics "
            "measure agreement with that model")


def run_meta(qrels: str | Path | None) -> dict[str, Any]:
    """What ``genevals run --qrels QRELS`` records in summary.json's meta: ``{"qrels_judged_by": {judge, model,
    prompt_hash, depth, date, provenance, note}}`` for qrels ``genevals label`` wrote, else nothing."""
    info = judged_by(qrels) if qrels else None
    return {META_KEY: {**info, "note": describe(info)}} if info else {}
