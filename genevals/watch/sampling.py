r"""Which traces a watcher scores and which shard owns a trace: one hash rule.

A trace id (its lower-case hex form, the form OTLP JSON carries) is mapped to a number in :math:`[0, 1)`:

.. math::

    h_s(id) = \operatorname{int}_{be}(\mathrm{BLAKE2b}_{8}(id;\ person = s)), \qquad
    u_s(id) = \frac{\lfloor h_s(id) / 2^{11} \rfloor}{2^{53}}

(an 8-byte BLAKE2b digest with the salt as its personalisation, read as a big-endian integer, then its top 53
bits: :math:`h / 2^{64}` as a float would round the largest digests up to 1.0). Each question gets a salt of its
own, so their answers do not correlate:

* sampled: :math:`u_{sample}(id) < rate`. Nested rates give nested samples (every trace sampled at 0.05 is
  sampled at 0.1), and a restart, another machine or a backfill picks the same traces.
* shard: :math:`\lfloor h_{shard}(id) \cdot n / 2^{64} \rfloor` (integer arithmetic), in :math:`0 \ldots n-1`: shards are disjoint and cover
  every trace, and which shard a trace lands in tells nothing about whether it is sampled.
* overload narrows the sample by the same rule (:mod:`genevals.watch.loop`: :math:`u_{sample}(id) < rate \cdot
  keep`), so what is shed is a replayable, nested subset, never a random one.

No random generator and no process state are involved (Python's ``hash`` is salted per process; BLAKE2b is not).
"""
from __future__ import annotations

import hashlib
import math
import string

SAMPLE_SALT = b"sample"
SHARD_SALT = b"shard"
_HEX = frozenset(string.hexdigits)


def unit(trace_id: str, salt: bytes) -> float:
    """:math:`u_s(id)` of the module's docstring; ValueError when ``trace_id`` is not a hex string (the receiver
    and the follow mode refuse such ids, with a reason, before they reach here) or ``salt`` is over 16 bytes."""
    return (digest(trace_id, salt) >> 11) / 2**53


def digest(trace_id: str, salt: bytes) -> int:
    """:math:`h_s(id)`: the 64-bit integer behind :func:`unit` (ValueError as there)."""
    if not isinstance(trace_id, str) or not trace_id or not _HEX.issuperset(trace_id):
        raise ValueError(f"trace id {str(trace_id)[:80]!r}: not a hex string")
    return int.from_bytes(hashlib.blake2b(trace_id.lower().encode("ascii"), digest_size=8, person=salt).digest(), "big")


def _fraction(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} {value!r}: expected a number from 0 to 1")
    return float(value)


def sampled(trace_id: str, rate: float) -> bool:
    """Whether the trace is in the sample at ``rate`` (0: none, 1: all)."""
    return unit(trace_id, SAMPLE_SALT) < _fraction("sample rate", rate)


def shard_of(trace_id: str, n: int) -> int:
    """The shard (``0`` to ``n - 1``) that owns the trace among ``n``."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"shard count {n!r}: expected a whole number of at least 1")
    return (digest(trace_id, SHARD_SALT) * n) >> 64

