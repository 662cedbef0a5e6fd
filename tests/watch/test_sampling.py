"""The hash rule: golden values worked through an independent BLAKE2b (RFC 7693, written out below from the RFC,
not hashlib), and the properties sampling and sharding rest on, over 100,000 ids: rates within binomial bounds,
nested rates give nested samples, shards disjoint and complete and independent of sampling."""
from __future__ import annotations

import math
import random

import pytest

from genevals.watch.sampling import SAMPLE_SALT, SHARD_SALT, digest, sampled, shard_of, unit

# RFC 7693, section 2.6 and appendix C: BLAKE2b's initialisation vector and message schedule
IV = (0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1,
      0x510E527FADE682D1, 0x9B05688C2B3E6C1F, 0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179)
SIGMA = ((0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), (14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3),
         (11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4), (7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8),
         (9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13), (2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9),
         (12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11), (13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10),
         (6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5), (10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0))
M64 = (1 << 64) - 1


def rfc7693_blake2b(data: bytes, digest_size: int, person: bytes) -> bytes:
    """BLAKE2b of a message under 128 bytes, no key, with a personalisation (the parameter block's bytes 48-63)."""
    assert len(data) < 128 and len(person) <= 16

    def rotr(x: int, n: int) -> int:
        return ((x >> n) | (x << (64 - n))) & M64

    h = list(IV)
    h[0] ^= 0x01010000 ^ digest_size  # depth 1, fanout 1, no key, digest length
    person = person.ljust(16, b"\0")
    h[6] ^= int.from_bytes(person[:8], "little")
    h[7] ^= int.from_bytes(person[8:], "little")
    block = data.ljust(128, b"\0")
    m = [int.from_bytes(block[8 * i:8 * i + 8], "little") for i in range(16)]
    v = h + list(IV)
    v[12] ^= len(data)
    v[14] ^= M64  # the last block
    for r in range(12):
        s = SIGMA[r % 10]
        for i, (a, b, c, d) in enumerate(((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                                          (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14))):
            x, y = m[s[2 * i]], m[s[2 * i + 1]]
            v[a] = (v[a] + v[b] + x) & M64
            v[d] = rotr(v[d] ^ v[a], 32)
            v[c] = (v[c] + v[d]) & M64
            v[b] = rotr(v[b] ^ v[c], 24)
            v[a] = (v[a] + v[b] + y) & M64
            v[d] = rotr(v[d] ^ v[a], 16)
            v[c] = (v[c] + v[d]) & M64
            v[b] = rotr(v[b] ^ v[c], 63)
    h = [h[i] ^ v[i] ^ v[i + 8] for i in range(8)]
    return b"".join(x.to_bytes(8, "little") for x in h)[:digest_size]


def test_the_reference_blake2b_is_blake2b():
    """RFC 7693 appendix A: BLAKE2b-512("abc") begins ba 80 a5 3f 98 1c 4d 0d."""
    assert rfc7693_blake2b(b"abc", 64, b"").hex().startswith("ba80a53f981c4d0d")


#: (trace id as received, salt): each checked against the reference above
GOLDEN = [
    ("0af7651916cd43dd8448eb211c80319c", SAMPLE_SALT),
    ("0AF7651916CD43DD8448EB211C80319C", SAMPLE_SALT),  # upper-case hex: the same trace
    ("0af7651916cd43dd8448eb211c80319c", SHARD_SALT),
    ("4bf92f3577b34da6a3ce929d0e0e4736", SAMPLE_SALT),
    ("4bf92f3577b34da6a3ce929d0e0e4736", b"another salt"),
]
#: the integers for one id, worked with the reference above and kept here: a change of the rule shows here first
GOLDEN_SAMPLE = 8571524861506837962  # / 2**64 = 0.46466...: sampled at 0.47, not at 0.46
GOLDEN_SHARD = 11845760048853960670  # * 4 // 2**64 = 2: shard 2 of 4


@pytest.mark.parametrize("trace_id,salt", GOLDEN)
def test_the_hash_is_blake2b_of_the_lower_case_id_personalised_by_the_salt(trace_id, salt):
    expected = int.from_bytes(rfc7693_blake2b(trace_id.lower().encode(), 8, salt), "big")
    assert digest(trace_id, salt) == expected
    assert unit(trace_id, salt) == (expected >> 11) / 2**53


def test_golden_values():
    assert digest("0af7651916cd43dd8448eb211c80319c", SAMPLE_SALT) == GOLDEN_SAMPLE
    assert unit("0af7651916cd43dd8448eb211c80319c", SAMPLE_SALT) == pytest.approx(GOLDEN_SAMPLE / 2**64, abs=2**-53)
    assert sampled("0af7651916cd43dd8448eb211c80319c", 0.47) and not sampled("0af7651916cd43dd8448eb211c80319c", 0.46)
    assert digest("0af7651916cd43dd8448eb211c80319c", SHARD_SALT) == GOLDEN_SHARD
    assert shard_of("0af7651916cd43dd8448eb211c80319c", 4) == 2


def test_a_bad_id_or_rate_is_refused_by_name():
    for bad in ("", "xyz", "0x12", None, 12):
        with pytest.raises(ValueError, match="not a hex string"):
            unit(bad, SAMPLE_SALT)
    for rate in (-0.1, 1.5, math.nan, True, "0.5"):
        with pytest.raises(ValueError, match="sample rate"):
            sampled("ab", rate)
    for n in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="shard count"):
            shard_of("ab", n)


N = 100_000


@pytest.fixture(scope="module")
def ids():
    rng = random.Random(20261202)
    return [format(rng.getrandbits(128), "032x") for _ in range(N)]


def binomial_bound(n: int, p: float) -> float:
    """Five standard deviations of a Binomial(n, p) count: a correct rule leaves it about once in 1.7 million (normal approximation)."""
    return 5 * math.sqrt(n * p * (1 - p))


@pytest.mark.slow  # 100,000 ids hashed: about a second of CPU
@pytest.mark.parametrize("rate", [0.01, 0.05, 0.1, 0.5])
def test_sampled_share_is_within_binomial_bounds(ids, rate):
    count = sum(sampled(t, rate) for t in ids)
    assert abs(count - N * rate) <= binomial_bound(N, rate), count


@pytest.mark.slow  # 100,000 ids hashed: about a second of CPU
def test_nested_rates_give_nested_samples_and_the_edges_are_none_and_all(ids):
    at_05 = {t for t in ids if sampled(t, 0.05)}
    at_10 = {t for t in ids if sampled(t, 0.1)}
    assert at_05 and at_05 < at_10
    assert not any(sampled(t, 0.0) for t in ids) and all(sampled(t, 1.0) for t in ids)


@pytest.mark.slow  # 100,000 ids hashed: about a second of CPU
def test_shards_are_disjoint_complete_and_even(ids):
    n = 3
    owners = [shard_of(t, n) for t in ids]
    assert set(owners) == {0, 1, 2}  # every id has exactly one owner: disjoint and complete by construction
    for k in range(n):
        assert abs(owners.count(k) - N / n) <= binomial_bound(N, 1 / n)


@pytest.mark.slow  # 100,000 ids hashed: about a second of CPU
def test_sharding_does_not_correlate_with_sampling(ids):
    """Each shard's sampled share at 0.1 is the overall rate, within binomial bounds of the shard's size."""
    for k in range(4):
        members = [t for t in ids if shard_of(t, 4) == k]
        count = sum(sampled(t, 0.1) for t in members)
        assert abs(count - 0.1 * len(members)) <= binomial_bound(len(members), 0.1)


@pytest.mark.slow  # 100,000 ids hashed: about a second of CPU
def test_the_rule_is_the_same_in_another_process(ids):
    """No per-process state (Python's str hash is salted per process): a fresh interpreter picks the same ids."""
    import json
    import subprocess
    import sys

    probe = ids[:2000]
    code = ("import json,sys; from genevals.watch.sampling import sampled, shard_of; ids=json.load(sys.stdin); "
            "print(json.dumps([[sampled(t, 0.1), shard_of(t, 2)] for t in ids]))")
    done = subprocess.run([sys.executable, "-c", code], input=json.dumps(probe), capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(done.stdout) == [[sampled(t, 0.1), shard_of(t, 2)] for t in probe]
