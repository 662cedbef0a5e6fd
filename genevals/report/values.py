"""Every sample's metric values and statuses, without texts, in a few bytes of memory per sample.

The report needs all samples for its histograms and paired comparisons, but never all metrics at once, so
values and status codes live in :class:`~genevals.columns.SpillingColumns` (one float64 column per metric,
spilled to a temporary file past a small buffer) and are read back one metric at a time. What stays in
memory per sample is 29 bytes: its id's 64-bit digest, system, results.jsonl line, claim verdict counts and
a flag. Ids and origins are read back from the file only for the samples the page embeds.
"""
from __future__ import annotations

import math
from array import array
from typing import Sequence

import numpy as np

from genevals.columns import DEFAULT_BUFFER_VALUES, SpillingColumns
from genevals.keys import id_digest
from genevals.types import VERDICT_LABELS


class SampleValues:
    """Sample ``k`` (numbered in file order, run by run) has id digest ``key[k]``, system ``sys[k]``, its line in
    its run's results.jsonl ``line[k]``, claim verdict counts ``vc[3k:3k+3]`` (supported, contradicted,
    unverifiable; -1 when not judged) and ``flagged[k]``: 2 when it has a contradicted or unverifiable claim,
    else 1 when it has an unscored metric, else 0. :meth:`column` gives metric ``m``'s values (NaN: none) and
    :meth:`status_codes` its unscored statuses (codes into ``status_table``, 0: none).

    A (system, id) seen twice keeps its latest row only (:meth:`finish` drops the earlier ones).
    """

    def __init__(self, buffer_values: int = DEFAULT_BUFFER_VALUES) -> None:
        self.key = array("Q")
        self.sys = array("i")
        self.line = array("i")
        self.vc = array("i")
        self.flagged = bytearray()
        self.status_table: list[tuple[str, str]] = [("", "")]
        self._codes: dict[tuple[str, str], int] = {}
        self._values = SpillingColumns(buffer_values)
        self._status = SpillingColumns(buffer_values)
        self._keep: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.sys)

    def slot(self, system: int, sample_id: str, line: int) -> int:
        """A new sample, numbered ``k``; its values and statuses follow with :meth:`set_value` etc."""
        k = len(self.sys)
        self.key.append(id_digest(sample_id))
        self.sys.append(system)
        self.line.append(line)
        self.vc.extend((-1, -1, -1))
        self.flagged.append(0)
        return k

    @staticmethod
    def _pad(columns: SpillingColumns, m: int, n: int, fill: float) -> None:
        columns.ensure(m)
        for _ in range(n - columns.length(m)):
            columns.append(m, fill)

    def _put(self, columns: SpillingColumns, m: int, k: int, value: float, fill: float) -> None:
        self._pad(columns, m, k, fill)
        if columns.length(m) == k:  # a metric written twice in one row keeps its first value
            columns.append(m, value)

    def set_value(self, k: int, m: int, value: float) -> None:
        self._put(self._values, m, k, value, math.nan)

    def add_values(self, first: int, m: int, values: list[float]) -> None:
        """Metric ``m``'s values of samples ``first``, ``first + 1``, ... (NaN: none), in one call."""
        self._pad(self._values, m, first, math.nan)
        if self._values.length(m) == first:
            self._values.extend(m, values)

    def set_status(self, k: int, m: int, status: str, reason: str) -> None:
        key = (status, reason[:1000])
        code = self._codes.get(key)
        if code is None:
            code = self._codes[key] = len(self.status_table)
            self.status_table.append(key)
        self._put(self._status, m, k, float(code), 0.0)
        self.flagged[k] = max(1, self.flagged[k])

    def set_verdicts(self, k: int, labels: Sequence[str]) -> None:
        counts = [labels.count(label) for label in VERDICT_LABELS]
        self.vc[3 * k:3 * k + 3] = array("i", counts)
        if counts[1] or counts[2]:
            self.flagged[k] = 2

    def verdicts(self, k: int) -> list[int] | None:
        counts = self.vc[3 * k:3 * k + 3].tolist()
        return None if counts[0] < 0 else counts

    def finish(self, n_metrics: int) -> None:
        """Pad every column to one entry per sample; keep only the latest row of a repeated (system, id)."""
        n = len(self.sys)
        for m in range(n_metrics):
            self._pad(self._values, m, n, math.nan)
        for m in list(self._status.keys()):
            self._pad(self._status, m, n, 0.0)
        if n < 2:
            return
        keys, systems = np.frombuffer(self.key, dtype=np.uint64), np.frombuffer(self.sys, dtype=np.int32)
        order = np.lexsort((np.arange(n), keys, systems))
        same_as_next = (keys[order][:-1] == keys[order][1:]) & (systems[order][:-1] == systems[order][1:])
        if not same_as_next.any():
            return
        keep = np.sort(order[np.append(~same_as_next, True)])
        self._keep = keep
        vc = np.frombuffer(self.vc, dtype=np.int32).reshape(-1, 3)[keep].ravel()
        self.key = array("Q", keys[keep].tobytes())
        self.sys = array("i", systems[keep].tobytes())
        self.line = array("i", np.frombuffer(self.line, dtype=np.int32)[keep].tobytes())
        self.vc = array("i", vc.tobytes())
        self.flagged = bytearray(np.frombuffer(bytes(self.flagged), dtype=np.uint8)[keep].tobytes())

    def _read(self, columns: SpillingColumns, m: int, fill: float) -> np.ndarray:
        if m not in columns:
            return np.full(len(self), fill)
        col = columns.column(m)
        return col[self._keep] if self._keep is not None else col

    def column(self, m: int) -> np.ndarray:
        """Metric ``m``'s values for every sample (NaN: no value)."""
        return self._read(self._values, m, math.nan)

    def status_codes(self, m: int) -> np.ndarray | None:
        """Metric ``m``'s unscored-status codes for every sample (0: scored or absent); None if never unscored."""
        return self._read(self._status, m, 0.0).astype(np.int64) if m in self._status else None

    @property
    def unscored_metrics(self) -> list[int]:
        return sorted(self._status.keys())
