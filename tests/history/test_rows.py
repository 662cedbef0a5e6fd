"""A history's rows read back (genevals.history.rows): each damaged column is a RowError naming it, and a blob
never inflates past the count its row gives."""
import zlib

import numpy as np
import pytest

from genevals.history.rows import COLUMNS, RowError, pack, record_of, unpack, values_of

GOOD = dict(id=1, started="2026-01-01T00:00:00+00:00", finished="2026-01-01T00:00:01+00:00", seconds=1.0,
            out_dir="/o", input="in.jsonl", input_digest="d", input_rows=3, n_samples=3, git_commit=None,
            genevals_version="1", seed=7, systems='["a"]', summary='{"a": {"m": {"mean": 0.5, "ci95": [0.1, 0.9]}}}',
            signatures='{"m": "sig"}', thresholds='{"fail_under": {"m": 0.2}}', headline='["m"]')


def row(**changes):
    return tuple({**GOOD, **changes}[name] for name in COLUMNS)


def test_a_whole_row_is_a_run():
    run = record_of(row(seed=str(2**70)))
    assert run.systems == ("a",) and run.summary["a"]["m"]["mean"] == 0.5 and run.seed == 2**70


@pytest.mark.parametrize("column, value", [
    ("summary", "{not json"), ("summary", "[]"), ("summary", '{"a": {"m": {"mean": "x"}}}'),
    ("summary", '{"a": {"m": {"mean": 1e999}}}'), ("summary", '{"a": {"m": {"mean": ' + "9" * 5000 + "}}}"),
    ("summary", '{"a": {"m": {"ci95": [1]}}}'), ("summary", "[" * 100000 + "]" * 100000),
    ("systems", '"a"'), ("systems", "[1]"), ("headline", "{}"), ("signatures", "[1]"),
    ("thresholds", '{"fail_under": {"m": "x"}}'), ("finished", b"\xff"), ("seed", "abc"), ("seconds", "fast"),
    ("n_samples", b"\x01"), ("input_rows", "many"), ("git_commit", b"\x1b")])
def test_each_damaged_column_is_named(column, value):
    with pytest.raises(RowError) as caught:
        record_of(row(**{column: value}))
    assert str(caught.value).startswith(column)


def test_values_are_checked_and_never_inflate_past_their_count():
    keys = np.array([1, 2, 3], dtype=np.uint64)
    ok = values_of([("a", "m", 3, pack(keys, "<u8"), pack(np.array([0.1, 0.2, 0.3]), "<f8"))])
    assert ok["a"][0].tolist() == [1, 2, 3]
    bomb = zlib.compress(b"\0" * (64 << 20), 9)
    with pytest.raises(RowError, match="does not hold the 3 values"):
        unpack(bomb, 3, "<f8", "vals")
    for bad in ([("a", "m", 3, pack(keys[::-1], "<u8"), pack(np.zeros(3), "<f8"))],
                [("a", "m", 4, pack(keys, "<u8"), pack(np.zeros(3), "<f8"))],
                [("a", "m", 3, b"garbage", pack(np.zeros(3), "<f8"))],
                [("a", "m", -1, b"", b"")],
                [("a", "m", 1 << 30, zlib.compress(b"\0" * (8 << 20)), zlib.compress(b"\0" * (8 << 20)))],
                [("a", "m", 3, pack(keys, "<u8"), pack(np.zeros(3), "<f8")),
                 ("a", "n", 3, pack(keys + 1, "<u8"), pack(np.zeros(3), "<f8"))]):
        with pytest.raises(RowError):
            values_of(bad)
