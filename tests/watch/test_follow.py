"""``--follow``: a real file appended to, rotated, truncated, deleted and re-created, with a partial last line,
read as ``tail -F`` reads it. The lines are a real OTLP JSON export (the OpenTelemetry SDK's spans, one
ExportTraceServiceRequest a line); every wait is bounded, so a follower that hangs fails the test."""
from __future__ import annotations

import json
import os
import threading
import time

import pytest
from support.otlp_spans import write_rag_traces

from genevals.watch.follow import Follower, OffsetFile, Position

#: seconds any one test may wait for the follower before it counts as hung
BOUND = 20.0


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """Nine lines of a real export (three traces, three spans each), as bytes with their newline."""
    path = tmp_path_factory.mktemp("export") / "spans.jsonl"
    write_rag_traces(path, [{"question": f"q{i}", "answer": f"a{i}", "docs": [(f"d{i}", f"text {i}", 1.0)]}
                            for i in range(3)], hex_ids=True)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 9 and all(line.endswith(b"\n") for line in lines)
    return lines


def obj(line: bytes) -> dict:
    return json.loads(line)


def append(path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


def test_appended_lines_come_in_order_and_a_partial_last_line_waits(tmp_path, export):
    path = tmp_path / "app.jsonl"
    append(path, export[0] + export[1] + export[2][:25])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert list(f.available()) == [(1, obj(export[0])), (2, obj(export[1]))]
    assert list(f.available()) == []  # the half line is left for its writer
    append(path, export[2][25:] + export[3])
    assert list(f.available()) == [(3, obj(export[2])), (4, obj(export[3]))]
    assert list(f.refusals) == []
    f.close()


def test_rotation_finishes_the_old_file_then_reads_the_new_from_its_start(tmp_path, export):
    path = tmp_path / "app.jsonl"
    append(path, export[0])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert list(f.available()) == [(1, obj(export[0]))]
    # written to the old file after the last look, its last line without a newline, then rotated away
    append(path, export[1] + export[2].rstrip(b"\n"))
    os.rename(path, tmp_path / "app.jsonl.1")
    append(path, export[3] + export[4])
    assert list(f.available()) == [(2, obj(export[1])), (3, obj(export[2])), (1, obj(export[3])),
                                   (2, obj(export[4]))]
    append(path, export[5])
    assert list(f.available()) == [(3, obj(export[5]))]
    f.close()


def test_truncation_reads_again_from_the_start(tmp_path, export):
    path = tmp_path / "app.jsonl"
    append(path, export[0] + export[1] + export[2])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert len(list(f.available())) == 3
    with open(path, "wb") as out:  # truncated in place (copytruncate), then a shorter content
        out.write(export[6])
    assert list(f.available()) == [(1, obj(export[6]))]
    f.close()


def test_truncated_and_written_past_the_position_between_two_looks(tmp_path, export):
    """copytruncate on a busy log: by the next look the file is longer than before, yet its start has changed."""
    path = tmp_path / "app.jsonl"
    append(path, export[0] + export[1])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert len(list(f.available())) == 2
    with open(path, "r+b") as out:
        out.truncate(0)
    append(path, export[5] + export[6] + export[7])
    assert os.path.getsize(path) > len(export[0]) + len(export[1])
    assert list(f.available()) == [(1, obj(export[5])), (2, obj(export[6])), (3, obj(export[7]))]
    f.close()


def test_deleted_then_recreated(tmp_path, export):
    path = tmp_path / "app.jsonl"
    append(path, export[0])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert len(list(f.available())) == 1
    path.unlink()
    assert list(f.available()) == []  # missing: waited for, no error
    assert list(f.available()) == []
    append(path, export[1] + export[2])
    assert list(f.available()) == [(1, obj(export[1])), (2, obj(export[2]))]
    assert list(f.refusals) == []
    f.close()


def test_a_file_missing_at_the_start_is_waited_for(tmp_path, export):
    path = tmp_path / "later.jsonl"
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"))
    assert list(f.available()) == []
    append(path, export[0])
    assert list(f.available()) == [(1, obj(export[0]))]
    f.close()


def test_a_restart_resumes_where_the_last_run_stopped(tmp_path, export):
    path, state = tmp_path / "app.jsonl", OffsetFile(tmp_path / "offsets.json")
    append(path, export[0] + export[1])
    first = list(Follower(path, state, interval=0.01).lines(idle=0.05))
    assert [n for n, _ in first] == [1, 2]
    saved = state.load(str(path))
    assert (saved.offset, saved.line) == (len(export[0]) + len(export[1]), 2)
    append(path, export[2])
    again = list(Follower(path, state, interval=0.01).lines(idle=0.05))
    assert again == [(3, obj(export[2]))]


def test_a_restart_after_rotation_or_truncation_reads_the_new_file_whole(tmp_path, export):
    path, state = tmp_path / "app.jsonl", OffsetFile(tmp_path / "offsets.json")
    append(path, export[0] + export[1])
    assert len(list(Follower(path, state, interval=0.01).lines(idle=0.05))) == 2
    os.rename(path, tmp_path / "app.jsonl.1")  # rotated while no watcher ran
    append(path, export[2])
    assert list(Follower(path, state, interval=0.01).lines(idle=0.05)) == [(1, obj(export[2]))]
    path.write_bytes(export[3] + export[4] + export[5])  # same file, rewritten longer than the position
    assert [n for n, _ in Follower(path, state, interval=0.01).lines(idle=0.05)] == [1, 2, 3]


def test_an_offset_on_another_file_with_the_same_inode_is_not_trusted(tmp_path, export):
    """A deleted file's inode number is often given to the next file: the digest of its start tells them apart."""
    path, state = tmp_path / "app.jsonl", OffsetFile(tmp_path / "offsets.json")
    path.write_bytes(export[0] + export[1])
    st = os.stat(path)
    state.save(str(path), Position(st.st_dev, st.st_ino, len(export[0]), 1, head="0" * 32))
    assert [n for n, _ in Follower(path, state, interval=0.01).lines(idle=0.05)] == [1, 2]


def test_unreadable_lines_are_refused_by_place_and_following_goes_on(tmp_path, export):
    path = tmp_path / "app.jsonl"
    append(path, b"{not json\n" + b"[1, 2]\n" + b"\n" + b"\xff\xfe\n" + b"[" * 200_000 + b"\n" + export[0])
    seen = []
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"), refused=lambda w, r: seen.append((w, r)))
    assert list(f.available()) == [(6, obj(export[0]))]
    assert [w for w, _ in seen] == [f"{path}:1", f"{path}:2", f"{path}:4", f"{path}:5"]
    assert "not JSON" in seen[0][1] and "not a JSON object" in seen[1][1] and "not JSON" in seen[2][1]
    assert seen[3][1] == "nested too deeply"  # json.loads's RecursionError, caught
    f.close()


def test_a_line_over_the_limit_is_skipped_to_its_end(tmp_path, export):
    path = tmp_path / "app.jsonl"
    assert len(export[0]) < 4000
    append(path, b'{"x": "' + b"y" * 9000 + b'"}\n' + export[0])
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"), max_line=4000)
    assert list(f.available()) == [(2, obj(export[0]))]
    assert list(f.refusals) == [(f"{path}:1", "a line over 4,000 bytes; skipped")]
    f.close()


def test_a_fifo_at_the_path_is_refused_without_blocking(tmp_path, export):
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"), interval=0.01)
    done = []
    worker = threading.Thread(target=lambda: done.append(list(f.lines(idle=0.1))), daemon=True)
    worker.start()
    worker.join(BOUND)
    assert not worker.is_alive(), "the follower blocked on a FIFO"
    assert done == [[]] and list(f.refusals) == [(str(path), "not a regular file; waiting for one")]


def test_lines_follows_a_live_writer_through_every_change(tmp_path, export):
    """A writer thread appends (a line in two writes), rotates, truncates, deletes and re-creates the file while
    the follower runs; every line arrives once, in order, each within the bound."""
    path = tmp_path / "app.jsonl"
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"), interval=0.01)
    got: list[tuple[int, dict]] = []
    stop = threading.Event()

    def wait_for(n: int) -> None:
        deadline = time.monotonic() + BOUND
        while len(got) < n:
            assert time.monotonic() < deadline, f"{len(got)} of {n} lines after {BOUND} s: the follower hung"
            time.sleep(0.01)

    reader = threading.Thread(target=lambda: got.extend(x for x in f.lines(stop)), daemon=True)
    reader.start()
    try:
        append(path, export[0] + export[1][:30])
        wait_for(1)
        time.sleep(0.1)
        assert len(got) == 1  # the partial second line is held
        append(path, export[1][30:])
        wait_for(2)
        os.rename(path, tmp_path / "app.jsonl.1")
        append(path, export[2] + export[3])
        wait_for(4)
        with open(path, "r+b") as out:
            out.truncate(0)
        append(path, export[4])
        wait_for(5)
        path.unlink()
        time.sleep(0.1)
        append(path, export[5])
        wait_for(6)
    finally:
        stop.set()
        reader.join(BOUND)
    assert not reader.is_alive()
    assert got == [(1, obj(export[0])), (2, obj(export[1])), (1, obj(export[2])), (2, obj(export[3])),
                   (1, obj(export[4])), (1, obj(export[5]))]
    assert list(f.refusals) == []


def test_a_long_line_still_being_written_is_dropped_not_held(tmp_path, export):
    """Over the limit before its newline has come: refused at once, its bytes dropped as they arrive."""
    path = tmp_path / "app.jsonl"
    append(path, b'{"x": "' + b"y" * 9000)
    f = Follower(path, OffsetFile(tmp_path / "offsets.json"), max_line=4000)
    assert list(f.available()) == []
    assert list(f.refusals) == [(f"{path}:1", "a line over 4,000 bytes; skipped")]
    append(path, b"y" * 9000 + b'"}\n' + export[0])
    assert list(f.available()) == [(2, obj(export[0]))]
    assert len(f.refusals) == 1
    f.close()


def test_a_caller_that_keeps_the_position_itself(tmp_path, export):
    """The watcher's store keeps ``state`` (JSON) and hands it back on a restart; nonsense there starts afresh."""
    path = tmp_path / "app.jsonl"
    append(path, export[0] + export[1])
    f = Follower(path, None)
    assert f.state == {}
    assert [n for n, _ in f.poll()] == [1, 2]
    kept = json.loads(json.dumps(f.state))
    assert (kept["offset"], kept["line"]) == (len(export[0]) + len(export[1]), 2)
    f.close()
    append(path, export[2])
    again = Follower(path, kept)
    assert list(again.poll()) == [(3, obj(export[2]))]
    assert again.state["line"] == 3
    again.close()
    for nonsense in ({"offset": "x"}, {"device": 1}, {"device": -1, "inode": 1, "offset": 0, "line": 0}):
        fresh = Follower(path, nonsense)
        assert [n for n, _ in fresh.poll()] == [1, 2, 3]
        fresh.close()


def test_without_a_callback_refusals_are_said_on_stderr_and_the_latest_kept(tmp_path, export, capfd):
    path = tmp_path / "app.jsonl"
    append(path, b"x\n" * 250 + export[0])
    f = Follower(path, None)
    assert list(f.poll()) == [(251, obj(export[0]))]
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 250 and err[0].startswith(f"genevals watch: {path}:1: not JSON")
    assert len(f.refusals) == 100 and f.refusals[0][0] == f"{path}:151"  # memory stays bounded
    f.close()
