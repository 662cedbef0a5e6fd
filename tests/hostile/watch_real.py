"""The watch class's real processes (hostile/cases_watch.py): a ``genevals watch`` on hostile files, judged by
its decision log (every trace named gets exactly one decision, of an expected kind), its exit code (0: stopped by
SIGTERM or a backfill done) and its stderr (no traceback).

* :func:`backfill`: ``genevals watch --from`` on an export of :data:`hostile.watch_files.EXPORTS`;
* :func:`followed`: ``genevals watch --follow`` while a scenario of :data:`SCENES` appends to the file and damages
  it (truncates it, replaces it by a FIFO or a folder, writes lines that are no export, deletes and re-creates
  it), waiting after each step until the traces written so far are decided.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hostile.watch_driver import BOUND

def run_backfill(content: bytes, *args: str) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """``genevals watch --from TMP/export.jsonl ARGS`` (a real process) on ``content``: the finished process and
    its decision log's lines; RuntimeError for a hang, a traceback or an exit code other than 0 or 1."""
    tmp = Path.cwd()
    (tmp / "export.jsonl").write_bytes(content)
    argv = [sys.executable, "-m", "genevals", "watch", "--out", str(tmp / "w"), "-m", "token_f1", "--from",
            str(tmp / "export.jsonl"), "--no-history", *args]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BOUND * 2, cwd=tmp,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"}, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"hang: genevals watch --from ran past {BOUND * 2:g} s") from None
    if "Traceback" in done.stderr or done.returncode not in (0, 1):
        raise RuntimeError(f"genevals watch --from exited {done.returncode}: {done.stderr[-1500:]}")
    log = tmp / "w" / "decisions.jsonl"
    return done, [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def backfill(name: str) -> dict:
    """``genevals watch --from TMP/export.jsonl`` (a real process) on :data:`hostile.watch_files.EXPORTS`'s
    export ``name``; every trace it names must get exactly one decision, of the kind the table says."""
    from hostile.watch_files import EXPORTS

    content, decided = EXPORTS[name]()
    done, lines = run_backfill(content)
    seen: dict[str, list[str]] = {}
    for entry in lines:
        seen.setdefault(entry["trace_id"], []).append(entry["decision"])
    wrong = {trace: seen.get(trace, []) for trace, kinds in decided.items()
             if len(seen.get(trace, [])) != 1 or seen[trace][0] not in kinds}
    if wrong:
        raise RuntimeError(f"decisions {wrong}, expected one each of {decided}; stderr: {done.stderr[-600:]}")
    return {"case": name, "decisions": {t: seen[t][0] for t in decided}, "stderr": done.stderr[-300:]}


def _decided(out: Path) -> dict[str, list[str]]:
    log = out / "decisions.jsonl"
    seen: dict[str, list[str]] = {}
    for text in (log.read_text().splitlines() if log.exists() else []):
        entry = json.loads(text)
        seen.setdefault(entry["trace_id"], []).append(entry["decision"])
    return seen


def _line(n: int) -> bytes:
    from support.watch_traces import json_body, request, spans, trace_id

    return json_body(request(spans(trace_id(n)))) + b"\n"


def _append(path: Path, data: bytes, mode: str = "ab") -> None:
    with open(path, mode) as handle:
        handle.write(data)


def _truncated(path: Path, wait) -> list[int]:
    _append(path, _line(1) + _line(2))
    wait([1, 2])
    _append(path, b"", "wb")
    _append(path, _line(3))
    wait([3])
    return [1, 2, 3]


def _recreated_same_start(path: Path, wait) -> list[int]:
    _append(path, _line(1))
    wait([1])
    os.unlink(path)
    _append(path, _line(1) + _line(2))  # trace 1 again (read from the new file's start): never scored twice
    wait([2])
    return [1, 2]


def _replaced(kind: str):
    def scene(path: Path, wait) -> list[int]:
        _append(path, _line(1))
        wait([1])
        os.unlink(path)
        os.mkfifo(path) if kind == "fifo" else os.mkdir(path)
        wait([1], settle=1.0)
        (os.unlink if kind == "fifo" else shutil.rmtree)(path)
        _append(path, _line(2))
        wait([2])
        return [1, 2]
    return scene


def _bad_lines(path: Path, wait) -> list[int]:
    _append(path, _line(1) + b"\xff\xfe\n[1]\n{\"resourceSpans\": 5}\n" + b"[" * 100_000 + b"\n" + _line(2))
    wait([1, 2])
    return [1, 2]


SCENES = {"truncated": _truncated, "recreated-same-start": _recreated_same_start,
          "replaced-by-fifo": _replaced("fifo"), "replaced-by-folder": _replaced("folder"), "bad-lines": _bad_lines}


def followed(name: str) -> dict:
    """``genevals watch --follow TMP/app.jsonl`` (one trace a window, no grace) through scene ``name``, then
    SIGTERM: each trace written is scored exactly once, the exit is 0 and stderr holds no traceback."""
    import time

    from support.watch_process import Watch, wait_for
    from support.watch_traces import trace_id

    tmp = Path.cwd()
    path = tmp / "app.jsonl"
    watch = Watch(tmp / "w", "-m", "token_f1", "--follow", path, "--window", "1", "--grace", "0s", "--no-history",
                  port=False)

    def wait(numbers, settle: float = 0.0) -> None:
        time.sleep(settle)
        try:
            wait_for(lambda: all(trace_id(n) in _decided(tmp / "w") for n in numbers), limit=BOUND)
        except AssertionError:
            raise RuntimeError(f"traces {numbers} not decided within {BOUND:g} s (a hang, or lost)") from None

    try:
        written = SCENES[name](path, wait)
        code, _, err = watch.stop(timeout=BOUND)
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    if code != 0 or "Traceback" in err:
        raise RuntimeError(f"genevals watch --follow exited {code}: {err[-1500:]}")
    seen = _decided(tmp / "w")
    wrong = {n: seen.get(trace_id(n)) for n in written if seen.get(trace_id(n)) != ["scored"]}
    if wrong:
        raise RuntimeError(f"each trace written must be scored once: {wrong}")
    return {"case": name, "scored": len(written), "stderr": err[-300:]}


#: the groups of receiver bodies a real watcher gets one after another (names of hostile.cases_watch.BODIES)
GROUPS = {"protobuf": ("proto-",), "json": ("json-resource", "json-scope", "json-span", "json-time", "json-attr",
                                           "json-not", "json-list", "json-nested", "json-digits", "json-bom"),
          "ids": ("json-traceid-", "json-spanid-", "json-parentspanid-"),
          "cycles-and-sizes": ("json-own-parent", "json-cycle", "json-ring", "json-duplicate", "json-two-roots",
                               "json-10000", "gzip-", "body-over-max", "encoding-"),
          "http": ("content-", "no-content", "chunked", "path-", "method-", "header")}


def received(group: str) -> dict:
    """A real ``genevals watch --otlp-port 0`` gets every body of ``group`` (those a sender sends whole), then a
    good trace; each trace the receiver accepted gets exactly one decision, the good one ``scored``; then
    SIGTERM: exit 0, no traceback."""
    from hostile.cases_watch import BODIES
    from hostile.watch_driver import _send
    from support.watch_process import Watch, wait_for
    from support.watch_traces import post, request, spans, trace_id

    tmp = Path.cwd()
    names = [n for n in BODIES if n.startswith(GROUPS[group])]
    bodies = {n: BODIES[n]() for n in names}
    bodies = {n: b for n, b in bodies.items() if not b.dropped_ok and b.max_body <= 16 << 20}
    watch = Watch(tmp / "w", "-m", "token_f1", "--window", "1", "--grace", "0s", "--max-wait", "1s",
                  "--no-history", "--max-body", str(1 << 20))
    accepted: set[str] = set()
    try:
        for name, body in bodies.items():
            if body.max_body != 1 << 20:
                continue  # another --max-body than this watcher's
            answer = _send(watch.port, body)
            if answer is None:
                raise RuntimeError(f"{name}: the connection was closed without an answer")
            if answer[0] == 200:
                accepted |= {t for t, n in body.stored.items() if n}
            elif answer[0] >= 500 and answer[0] != 501:
                raise RuntimeError(f"{name}: HTTP {answer[0]}: {answer[1][:200]!r}")
        good = trace_id(30_000)
        if post(watch.port, request(spans(good)).SerializeToString(), timeout=BOUND)[0] != 200:
            raise RuntimeError("the good request after the hostile ones was refused")
        try:
            wait_for(lambda: {good, *accepted} <= set(_decided(tmp / "w")), limit=BOUND)
        except AssertionError:
            missing = {good, *accepted} - set(_decided(tmp / "w"))
            raise RuntimeError(f"traces accepted but not decided within {BOUND:g} s: {sorted(missing)}") from None
        code, _, err = watch.stop(timeout=BOUND)
    finally:
        if watch.proc.poll() is None:
            watch.kill()
    if code != 0 or "Traceback" in err:
        raise RuntimeError(f"genevals watch exited {code}: {err[-1500:]}")
    seen = _decided(tmp / "w")
    wrong = {t: seen.get(t) for t in accepted if len(seen.get(t, [])) != 1}
    if wrong or seen.get(good) != ["scored"]:
        raise RuntimeError(f"one decision each expected: {wrong}, the good trace: {seen.get(good)}")
    return {"group": group, "bodies": len(bodies), "accepted": len(accepted),
            "decisions": sorted({d for t in accepted for d in seen[t]})}
