"""summary.json's ``comparisons`` and ``leaderboard``: which system is better on the headline and gated metrics,
by how much, and whether it is real (:mod:`genevals.stats.comparisons` does the statistics).

The summary accumulator keeps values without their question ids, and a paired test needs the ids. So
:class:`PairedValues` gathers, for the few metrics compared, each scored value with the 64-bit digest of its
id (16 bytes a value, whatever the texts), from results.jsonl or from results in memory. Pairs are matched on
the digests and taken in digest order, systems numbered in summary.json's order, exactly as the report reads
the same files: summary.json's figures and the Compare tab's are equal by construction.
"""
from __future__ import annotations

import math
from array import array
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from genevals.stats import comparisons
from genevals.keys import id_digest
from genevals.output import runfolder
from genevals.output.thresholds import KINDS
from genevals.quote import quoted
from genevals.stats import DEFAULT_SEED
from genevals.stats.cluster import conversation_code
from genevals.types import OK, SampleResult


class PairedValues:
    """Per system and metric (of ``metrics``), each scored value and its id's digest; systems in the order
    they first come."""

    def __init__(self, metrics: Iterable[str]) -> None:
        self.metrics = list(dict.fromkeys(metrics))
        self.systems: list[str] = []
        self._columns: dict[tuple[str, str], tuple[array, array]] = {}
        #: (system, metric) -> each value's conversation code (as its digest is stored), once a conversation's
        #: turn is added: comparisons then pair conversations (:mod:`genevals.stats.cluster`)
        self._codes: dict[tuple[str, str], array] | None = None

    def add(self, system: str, sample_id: str, values: Mapping[str, float | None],
            conversation_id: str | None = None) -> None:
        """One sample's scored values (None for an unscored one), and the conversation it is a turn of."""
        if conversation_id is not None and self._codes is None:  # the values so far: each its own cluster
            self._codes = {key: array("d", (-1.0 - i for i in range(len(col[0]))))
                           for key, col in self._columns.items()}
        if system not in self.systems:
            self.systems.append(system)
        digest = None
        for metric in self.metrics:
            value = values.get(metric)
            if value is None:
                continue
            if digest is None:
                digest = id_digest(sample_id)
            column = self._columns.get((system, metric))
            if column is None:
                column = self._columns[(system, metric)] = (array("Q"), array("d"))
            column[0].append(digest)
            column[1].append(value)
            if self._codes is not None:
                # the code of a conversation does not depend on the system: two systems' turns pair up
                code = (float(conversation_code("", conversation_id)) if conversation_id is not None
                        else -1.0 - len(column[0]))
                self._codes.setdefault((system, metric), array("d")).append(code)

    def add_row(self, row: Mapping[str, Any]) -> None:
        """A results.jsonl record, read as the report reads it (an ok status with a finite number is scored)."""
        found = row.get("metrics")
        found = found if isinstance(found, Mapping) else {}
        values = {}
        for metric in self.metrics:
            entry = found.get(metric)
            if isinstance(entry, Mapping) and (entry.get("status") or OK) == OK:
                value = comparisons.num(entry.get("value"), None)
                if value is not None:
                    values[metric] = value
        system = row.get("system", "default")
        conversation = row.get("conversation_id")
        self.add("" if system is None else str(system), "" if row.get("id") is None else str(row.get("id")), values,
                 conversation if isinstance(conversation, str) else None)

    def add_result(self, result: SampleResult) -> None:
        self.add(result.sample.system, result.sample.id,
                 {m: r.value for m, r in result.metrics.items()
                  if r.value is not None and r.status == OK and math.isfinite(r.value)}, result.sample.conversation_id)

    @classmethod
    def from_folder(cls, run_dir: str | Path, metrics: Iterable[str], check_ids: bool = False) -> "PairedValues":
        """The values of a run folder's results.jsonl; with ``check_ids``, a ResultsError at the line that scores
        an id its system already scored (a hand-merged or damaged file: the pairs would be taken at random)."""
        paired = cls(metrics)
        for _, row in runfolder.iter_rows(run_dir):
            paired.add_row(row)
        if check_ids:
            paired._check_ids(run_dir)
        return paired

    def _check_ids(self, run_dir: str | Path) -> None:
        for (system, _), (digests, _) in self._columns.items():
            keys = np.frombuffer(digests, dtype=np.uint64)
            if len(np.unique(keys)) < len(keys):
                _repeated(run_dir, system)

    @classmethod
    def from_results(cls, results: Iterable[SampleResult], metrics: Iterable[str]) -> "PairedValues":
        paired = cls(metrics)
        for result in results:
            paired.add_result(result)
        return paired

    def pair(self, a: str, b: str, metric: str, other: "PairedValues | None" = None
             ) -> tuple[np.ndarray, np.ndarray] | None:
        """The values of ``a`` and ``b`` (of ``other``, when given: another run's) on the ids both scored, in
        digest order; None when either has none."""
        ca, cb = self._columns.get((a, metric)), (other or self)._columns.get((b, metric))
        if ca is None or cb is None:
            return None
        ka, kb = np.frombuffer(ca[0], dtype=np.uint64), np.frombuffer(cb[0], dtype=np.uint64)
        _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
        return np.frombuffer(ca[1], dtype=np.float64)[ia], np.frombuffer(cb[1], dtype=np.float64)[ib]

    def clusters(self, a: str, b: str, metric: str) -> np.ndarray | None:
        """The conversation code of each pair :meth:`pair` gives (in its order; a negative code: a sample of no
        conversation), or None for a run without conversations."""
        if self._codes is None:
            return None
        ca, cb = self._columns.get((a, metric)), self._columns.get((b, metric))
        codes = self._codes.get((a, metric))
        if ca is None or cb is None or codes is None:
            return None
        ka, kb = np.frombuffer(ca[0], dtype=np.uint64), np.frombuffer(cb[0], dtype=np.uint64)
        _, ia, _ = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
        return np.frombuffer(codes, dtype=np.float64)[ia]


def _repeated(run_dir: str | Path, system: str) -> None:
    """ResultsError at the first line of results.jsonl that holds an id ``system`` already scored."""
    seen: dict[str, int] = {}
    for number, _, row in runfolder.records(run_dir):
        row_system = row.get("system", "default")
        if ("" if row_system is None else str(row_system)) != system:
            continue
        sample_id = "" if row.get("id") is None else str(row.get("id"))
        if sample_id in seen:
            raise runfolder.ResultsError(
                str(runfolder.results_path(run_dir)), number,
                f"the id {quoted(sample_id)} of system {quoted(system)} is already scored on line {seen[sample_id]}: "
                "a system scores each id once (a hand-merged or damaged file); remove one of the two lines")
        seen[sample_id] = number


def gated(meta: Mapping[str, Any]) -> list[str]:
    """The metrics a run's thresholds (``--fail-under``, ``--fail-over``, recorded in its meta) gate on."""
    names: list[str] = []
    for kind in KINDS:
        limits = meta.get(kind)
        names += list(limits) if isinstance(limits, Mapping) else []
    return list(dict.fromkeys(names))


def compared_metrics(systems: Mapping[str, Mapping[str, Any]], meta: Mapping[str, Any]) -> list[str]:
    """The headline metrics (gated first) of a summary's ``systems`` block."""
    names = list(dict.fromkeys(name for per_system in systems.values() for name in per_system))
    return comparisons.headline_metrics(names, gated(meta))


def block(systems: Mapping[str, Mapping[str, Any]], paired: PairedValues, seed: int = DEFAULT_SEED,
          directions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``{"comparisons": [...], "leaderboard": {...}}`` for a summary whose per-system block is ``systems``,
    on ``paired.metrics`` (see :func:`compared_metrics`), systems in ``systems``' order (as the report numbers
    them: pair (a, b) is the same pair, the same way round)."""
    order = list(systems) + [s for s in paired.systems if s not in systems]
    found = comparisons.compare_named(paired.pair, order, paired.metrics, seed, clusters=paired.clusters)
    board = comparisons.leaderboard(order, systems, found, paired.metrics, directions)
    return {"comparisons": found, "leaderboard": board}


def families_of(declarations: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Output name -> the metric family that wrote it (summary.json's signatures are keyed by family)."""
    return {name: d["family"] for name, d in declarations.items()
            if isinstance(d, Mapping) and isinstance(d.get("family"), str)}


def not_comparable(metrics: Sequence[str], summary_a: Mapping[str, Any], summary_b: Mapping[str, Any],
                   families: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The ``metrics`` two runs scored under signatures that differ (:func:`genevals.signature.signature_difference`):
    metric -> {"why", "signatures": [a's, b's]}. Such a metric is never compared across the runs."""
    from genevals.signature import signature_difference, signature_of

    out = {}
    for metric in metrics:
        sa = signature_of(metric, summary_a.get("signatures"), families)
        sb = signature_of(metric, summary_b.get("signatures"), families)
        why = signature_difference(sa, sb)
        if why is not None:
            out[metric] = {"why": why, "signatures": [sa, sb]}
    return out


def directions_of(declarations: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Output name -> declared direction, from outputs.json's declarations."""
    return {name: d["direction"] for name, d in declarations.items()
            if isinstance(d, Mapping) and isinstance(d.get("direction"), str)}


def for_folder(run_dir: str | Path, summary: Mapping[str, Any],
               declarations: Mapping[str, Mapping[str, Any]] | None = None,
               metrics: Sequence[str] | None = None, seed: int | None = None) -> dict[str, Any]:
    """:func:`block` of a run folder's results.jsonl and ``summary`` (the headline metrics, or ``metrics``)."""
    systems = summary.get("systems") or {}
    wanted = list(metrics) if metrics is not None else compared_metrics(systems, summary.get("meta") or {})
    paired = PairedValues.from_folder(run_dir, wanted, check_ids=True)
    return block(systems, paired, summary.get("seed", DEFAULT_SEED) if seed is None else seed,
                 directions_of(declarations or runfolder.read_outputs(run_dir)))


def across_runs(run_a: str | Path, summary_a: Mapping[str, Any], label_a: str, run_b: str | Path,
                summary_b: Mapping[str, Any], label_b: str, systems: Sequence[str], metrics: Sequence[str],
                seed: int = DEFAULT_SEED, directions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Each of ``systems`` (in both runs) in run B against itself in run A, on the ids both runs scored:
    comparisons named ``label_b/system`` (a) and ``label_a/system`` (b), so ``mean_difference`` is B minus A;
    the leaderboard has a row per run and system. ``{"comparisons", "leaderboard", "not_compared"}``: as
    :func:`block`, and each metric the runs scored under different signatures (:func:`not_comparable`), which is
    left out of the comparisons: ``[{"metric", "why", "signatures"}]``."""
    families = {**families_of(runfolder.read_outputs(run_a)), **families_of(runfolder.read_outputs(run_b))}
    apart = not_comparable(metrics, summary_a, summary_b, families)
    compared = [m for m in metrics if m not in apart]
    paired_a = PairedValues.from_folder(run_a, compared, check_ids=True)
    paired_b = PairedValues.from_folder(run_b, compared, check_ids=True)
    names = {f"{label_a}/{s}": (paired_a, s) for s in systems}
    names.update({f"{label_b}/{s}": (paired_b, s) for s in systems})

    def pair(a: str, b: str, metric: str) -> tuple[np.ndarray, np.ndarray] | None:
        (pa, sa), (pb, sb) = names[a], names[b]
        return pa.pair(sa, sb, metric, pb)

    found: list[dict[str, Any]] = []
    rows: list[str] = []
    summaries: dict[str, Mapping[str, Any]] = {}
    for s in systems:
        a, b = f"{label_a}/{s}", f"{label_b}/{s}"
        found += comparisons.compare_named(pair, [b, a], compared, seed)
        rows += [a, b]
        summaries[a] = (summary_a.get("systems") or {}).get(s) or {}
        summaries[b] = (summary_b.get("systems") or {}).get(s) or {}
    board = comparisons.leaderboard(rows, summaries, found, metrics, directions,
                                    {m: entry["why"] for m, entry in apart.items()})
    return {"comparisons": found, "leaderboard": board,
            "not_compared": [{"metric": m, **entry} for m, entry in apart.items()]}
