"""Compact keys for samples: how runs remember what they have seen (duplicate ids, resume) and the order in
which paired comparisons take their ids, in 64 bits per sample."""
from __future__ import annotations

import hashlib


def id_digest(text: str) -> int:
    """The 64-bit BLAKE2b digest of a string: how runs remember the samples they have seen, compactly, and
    the order in which paired comparisons take their ids (so a caller holding only digests, like the report,
    gets exactly the same result)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


def sample_key_digest(system: str, sample_id: str) -> int:
    """:func:`id_digest` of a (system, id) pair, unambiguously joined."""
    return id_digest(f"{len(system)}:{system}{sample_id}")
