"""Append-only float columns that spill to one temporary file, so a run's memory does not grow with its size.

The summary's bootstrap needs every scored value of each (system, metric), but never more than one column at
a time. Each column keeps a small buffer in memory; a full buffer is appended to a shared temporary file and
remembered as a block, and a column is read back whole only when it is summarised.
"""
from __future__ import annotations

import tempfile
from array import array
from typing import Hashable, Iterator

import numpy as np

DEFAULT_BUFFER_VALUES = 4096  # 32 KB per column in memory


class SpillingColumns:
    def __init__(self, buffer_values: int = DEFAULT_BUFFER_VALUES) -> None:
        self.buffer_values = buffer_values
        self._buffers: dict[Hashable, array] = {}
        self._blocks: dict[Hashable, list[tuple[int, int]]] = {}
        self._lengths: dict[Hashable, int] = {}
        self._file = None
        self._end = 0

    def ensure(self, key: Hashable) -> None:
        """Create an empty column (a metric with no scored value still has a column)."""
        if key not in self._buffers:
            self._buffers[key] = array("d")
            self._blocks[key] = []
            self._lengths[key] = 0

    def append(self, key: Hashable, value: float) -> None:
        self.ensure(key)
        buffer = self._buffers[key]
        buffer.append(value)
        self._lengths[key] += 1
        if len(buffer) >= self.buffer_values:
            self._spill(key, buffer)

    def extend(self, key: Hashable, values: list[float]) -> None:
        """:meth:`append` each of ``values``, in one call per column (a batch's values, recorded together)."""
        self.ensure(key)
        buffer = self._buffers[key]
        room = self.buffer_values - len(buffer)
        self._lengths[key] += len(values)
        while len(values) >= room:  # fill and spill exactly as one append at a time would
            buffer.extend(values[:room])
            self._spill(key, buffer)
            values = values[room:]
            room = self.buffer_values
        buffer.extend(values)

    def _spill(self, key: Hashable, buffer: array) -> None:
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="genevals-values-")
        data = buffer.tobytes()
        self._file.seek(self._end)
        self._file.write(data)
        self._blocks[key].append((self._end, len(data)))
        self._end += len(data)
        del buffer[:]

    def __contains__(self, key: Hashable) -> bool:
        return key in self._buffers

    def keys(self) -> Iterator[Hashable]:
        return iter(self._buffers)

    def length(self, key: Hashable) -> int:
        return self._lengths[key]

    def column(self, key: Hashable) -> np.ndarray:
        """Every value of ``key`` in the order appended, as a float64 array."""
        parts = []
        for offset, size in self._blocks[key]:
            self._file.seek(offset)
            parts.append(np.frombuffer(self._file.read(size), dtype=np.float64))
        parts.append(np.frombuffer(self._buffers[key].tobytes(), dtype=np.float64))
        return np.concatenate(parts) if len(parts) > 1 else parts[0].copy()

    @property
    def spilled_bytes(self) -> int:
        return self._end

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __del__(self) -> None:
        self.close()
