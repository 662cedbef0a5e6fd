"""Between numpy arrays and pyarrow arrays through their buffers, without pandas.

pyarrow imports pandas (when installed) the first time it converts a numpy array (``pa.array``, ``to_numpy``) or a
Python value (``fill_null(-1)``, a string literal given to a compute function): 0.12 s on an idle machine, over a
second on a loaded one, for a TREC run whose whole arithmetic takes about as long. The columnar path converts only
here; ``tests/input/test_arrow_numpy.py`` checks that a columnar run never imports pandas.
"""
from __future__ import annotations

import numpy as np

_NUMPY = {"int8": np.int8, "int32": np.int32, "int64": np.int64, "uint64": np.uint64, "double": np.float64}


def to_numpy(array, null: int | None = None) -> np.ndarray:
    """A numeric pyarrow array (or chunked array) as numpy (zero-copy: read-only); its nulls become ``null``
    (an array with nulls and no ``null`` is refused)."""
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    dtype = np.dtype(_NUMPY[str(array.type)])
    validity, data = array.buffers()[:2]
    n = len(array)
    values = np.frombuffer(data, dtype, count=n, offset=array.offset * dtype.itemsize) if n else np.zeros(0, dtype)
    if array.null_count:
        if null is None:
            raise ValueError(f"{n} values with {array.null_count} nulls")
        bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
        values = np.where(bits[array.offset:array.offset + n].astype(bool), values, null)
    return values


def from_numpy(values: np.ndarray):
    """A numeric numpy array as a pyarrow array (no nulls)."""
    import pyarrow as pa

    values = np.ascontiguousarray(values)
    kind = {np.dtype(np.int32): pa.int32(), np.dtype(np.int64): pa.int64(), np.dtype(np.uint64): pa.uint64(),
            np.dtype(np.float64): pa.float64()}[values.dtype]
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def booleans(mask: np.ndarray):
    """A numpy bool array as a pyarrow boolean array."""
    import pyarrow as pa

    return pa.Array.from_buffers(pa.bool_(), len(mask), [None, pa.py_buffer(np.packbits(mask, bitorder="little"))])


def repeated(text: str, n: int):
    """A pyarrow string array of ``n`` times ``text`` (a literal for a compute function, as an array)."""
    import pyarrow as pa

    data = text.encode()
    offsets = (np.arange(n + 1, dtype=np.int64) * len(data)).astype(np.int32)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data * n)])


def nonzero(mask) -> np.ndarray:
    """The positions where a pyarrow boolean array is true."""
    import pyarrow.compute as pc

    return to_numpy(pc.indices_nonzero(mask))
