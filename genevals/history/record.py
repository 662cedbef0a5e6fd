"""A finished run as the history keeps it, built from what the run already holds when it ends: its summary, its
manifest, and each sample's values of the stored metrics as the report's pass over the results gathered them
(:func:`columns_of`), never from results.jsonl read again.

Every string goes through the judge's :class:`~genevals.judge.redact.Redactor` first (its API key and the
credentials of its base URL, in every form), so no secret reaches the history.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np

from genevals.history.store import RunRecord

#: what the history keeps of each metric's summary
SUMMARY_FIELDS = ("mean", "ci95", "scored", "total", "coverage")

Values = Mapping[str, tuple[np.ndarray, Mapping[str, np.ndarray]]]


def now() -> str:
    """The time now, UTC, ISO 8601 to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def columns_of(store: Any, systems: Sequence[tuple[Any, str]], metrics: Sequence[str],
               wanted: Collection[str]) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]:
    """Per system, its samples' id digests in ascending order and, per metric in ``wanted``, their values in that
    order (NaN: unscored), from the report's :class:`~genevals.report.values.SampleValues` ``store`` (``systems``:
    each system's (run, name) by its number there; ``metrics``: each metric's name by its column)."""
    owners = np.frombuffer(store.sys, dtype=np.int32) if len(store) else np.empty(0, dtype=np.int32)
    keys = np.frombuffer(store.key, dtype=np.uint64) if len(store) else np.empty(0, dtype=np.uint64)
    orders = []
    out: dict[str, tuple[np.ndarray, dict[str, np.ndarray]]] = {}
    for s, (_run, system) in enumerate(systems):
        members = np.flatnonzero(owners == s)
        order = members[np.argsort(keys[members], kind="stable")]
        orders.append(order)
        out[system] = (keys[order].copy(), {})
    for m, name in enumerate(metrics):
        if name not in wanted:
            continue
        column = store.column(m)
        for s, (_run, system) in enumerate(systems):
            values = column[orders[s]]
            if values.size and not np.isnan(values).all():
                out[system][1][name] = values.astype(np.float64, copy=True)
    return out


def build(summary: Mapping[str, Any], manifest: Mapping[str, Any] | None, values: Values, *,
          headline: Collection[str], started: str, seconds: float | None, out_dir: str | None,
          git: str | None, redact: Callable[[Any], Any] = lambda x: x, project: str | None = None) -> RunRecord:
    """The :class:`RunRecord` of a run that ended now (``project``: its project folder,
    :func:`genevals.history.project.project_of`)."""
    systems = summary.get("systems") or {}
    kept = {system: {name: {k: m.get(k) for k in SUMMARY_FIELDS} for name, m in metrics.items()}
            for system, metrics in systems.items()}
    meta = summary.get("meta") or {}
    manifest = manifest or {}
    thresholds = {kind: dict(meta.get(kind) or {}) for kind in ("fail_under", "fail_over")}
    record = RunRecord(
        started=started, finished=now(), seconds=seconds, out_dir=redact(out_dir),
        input=redact(str(meta.get("input") or manifest.get("input") or "")) or None,
        input_digest=manifest.get("input_digest"), input_rows=manifest.get("input_rows"),
        n_samples=int(summary.get("n_samples") or 0), git_commit=git,
        genevals_version=str(summary.get("genevals_version") or ""), seed=summary.get("seed"),
        systems=tuple(redact(list(systems))), summary=redact(kept), signatures=redact(dict(summary.get("signatures")
                                                                                          or {})),
        thresholds=thresholds, headline=tuple(sorted(headline)), project=redact(project),
        values={redact(system): (keys, dict(columns)) for system, (keys, columns) in values.items()})
    return record
