"""Byte-level fuzzing of the readers: every input must end in a located InputError, a skip, or a Sample.

Run standalone (needs ``pip install atheris``):

    python tests/support/fuzz_atheris.py -atheris_runs=20000

The first byte picks the format (JSONL, CSV, or a mutation of a valid Parquet file); the rest is the file.
``check_bytes`` is also used by the hypothesis tests in ``tests/test_io_fuzz.py``, so it must import without
atheris.
"""
from __future__ import annotations

import io
import math
import os
import signal
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # when run as a script

from genevals.input.readers import InputError, iter_samples  # noqa: E402
from genevals.types import Sample  # noqa: E402

FORMATS = (".jsonl", ".csv", ".parquet")
# GENEVALS_FUZZ_FORMATS=jsonl,csv restricts the formats (e.g. to keep going past a known Parquet bug).
ACTIVE_FORMATS = tuple(f".{f.strip().lstrip('.')}" for f in os.environ.get("GENEVALS_FUZZ_FORMATS", "").split(",")
                       if f.strip()) or FORMATS
PER_INPUT_SECONDS = 20


@contextmanager
def time_limit(seconds: float):
    """Fail with TimeoutError instead of hanging (main thread, Unix)."""
    if not hasattr(signal, "setitimer"):
        yield
        return

    def on_alarm(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


_PARQUET_TEMPLATE: bytes | None = None


def parquet_template() -> bytes:
    """A small valid Parquet file (uncompressed, so mutations reach values rather than only the codec)."""
    global _PARQUET_TEMPLATE
    if _PARQUET_TEMPLATE is None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = [{"id": f"q{i}", "answer": f"answer {i}", "contexts": [f"ctx {i}", "other"],
                 "references": [f"ref {i}"], "relevant": ["1"], "system": "s"} for i in range(40)]
        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows), sink, compression="none")
        _PARQUET_TEMPLATE = sink.getvalue()
    return _PARQUET_TEMPLATE


def mutate_parquet(data: bytes) -> bytes:
    """Overwrite bytes of the template: ``data`` is read as (2-byte offset, 1-byte value) triples."""
    out = bytearray(parquet_template())
    for i in range(0, len(data) - 2, 3):
        out[int.from_bytes(data[i:i + 2], "little") % len(out)] = data[i + 2]
    if data[:1] == b"\xff":  # sometimes truncate as well
        out = out[: max(1, len(out) - (data[-1] if data else 1) * 7)]
    return bytes(out)


def check_file(path: Path, n_lines: int | None = None) -> tuple[int, int, int]:
    """Read ``path`` through genevals.input.readers and check every outcome. Returns (samples, located errors, file errors).

    Raises AssertionError when an outcome is unlocated or wrong; any other exception is an uncaught crash.
    """
    samples = located = file_level = 0
    with time_limit(PER_INPUT_SECONDS):
        try:
            items = list(iter_samples(path))
        except InputError as exc:  # file-level: raised before any row, names the file
            assert exc.line is None and str(path) in str(exc), exc
            return 0, 0, 1
    for item in items:
        if isinstance(item, InputError):
            assert str(path) in str(item) and item.message, item
            if item.line is None:
                file_level += 1
                assert "Parquet" in item.message or "file" in item.message, item
            else:
                located += 1
                assert item.line >= 1 and (n_lines is None or item.line <= n_lines), (item, n_lines)
            continue
        assert isinstance(item, Sample), type(item)
        samples += 1
        assert isinstance(item.answer, str) and isinstance(item.id, str) and isinstance(item.system, str)
        assert item.id != "" and item.system != ""
        assert all(isinstance(r, str) for r in item.references)
        assert all(isinstance(c.text, str) for c in item.contexts)
        assert [c.rank for c in item.contexts] == list(range(1, len(item.contexts) + 1))
        if item.relevant is not None:
            assert all(isinstance(k, str) and isinstance(v, float) and not math.isnan(v)
                       for k, v in item.relevant.items())
        # everything that reaches scoring must be writable to results.jsonl (UTF-8)
        item.answer.encode("utf-8")
    return samples, located, file_level


def check_bytes(data: bytes, workdir: str | None = None, formats: tuple[str, ...] | None = None
                ) -> tuple[int, int, int]:
    """Write one fuzz input to a file of the format its first byte picks, and check it."""
    formats = formats or ACTIVE_FORMATS
    if not data:
        data = b"\x00"
    suffix = formats[data[0] % len(formats)]
    body = data[1:]
    if suffix == ".parquet":
        body = mutate_parquet(body)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_bytes(body)
        n_lines = None if suffix == ".parquet" else body.count(b"\n") + 1
        return check_file(path, n_lines)


def main() -> None:
    import atheris

    counts = {"inputs": 0, "samples": 0, "located": 0, "file": 0}

    def test_one(data: bytes) -> None:
        samples, located, file_level = check_bytes(data)
        counts["inputs"] += 1
        counts["samples"] += samples
        counts["located"] += located
        counts["file"] += file_level

    import atexit

    atexit.register(lambda: print(
        f"fuzz (atheris): {counts['inputs']} inputs tried, {counts['located']} row errors located, "
        f"{counts['file']} file-level errors, {counts['samples']} valid samples", flush=True))
    if os.environ.get("GENEVALS_FUZZ_INSTRUMENT", "1") != "0":
        # coverage feedback from every loaded Python function (slow to set up: ~1 minute on 2 cores)
        atheris.instrument_all()
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
