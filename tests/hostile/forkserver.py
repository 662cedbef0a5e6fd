"""A fork server for the corpus: one Python process imports genevals and warms it up once, then forks a fresh
child process per case, which runs ``python -m genevals ARGV`` as the interpreter would (``runpy`` with
``__main__``; an uncaught exception prints its traceback and exits 1) or one API call (:mod:`hostile.api_driver`),
with its own stdout, stderr, working folder, environment and process group.

Why: a cold ``python -m genevals run`` costs about a second before it reads a byte, so 500 cases would take
minutes on CI's two cores; a forked child starts in milliseconds and is still a separate process, killed as a
group when it runs past its limit (a hang). ``HOSTILE_SPAWN=1`` makes the runner start every CLI case as a
cold ``python -m genevals`` instead (the same checks; see runner.py).

Protocol, one JSON object per line: in on stdin ``{"id", "argv" | "api", "cwd", "stdout", "stderr", "env" |
"environ", "limit"}`` (``env``: changes to the server's environment; ``environ``: the whole environment; argv
items are file-system strings: bytes that are not UTF-8 travel as surrogate escapes; the child's stdin is
/dev/null), out on stdout ``{"id", "code", "hung", "seconds"}``. The loop is single-threaded (``select`` on stdin
and one pidfd per child), so no lock is ever held by another thread at a fork. Besides the corpus,
tests/support/forked.py sends the suite's ``python -m genevals`` calls here.
"""
from __future__ import annotations

import json
import os
import select
import signal
import sys
import tempfile
import time
import warnings

#: the interpreter's warning filters, as they were before the warm-up
FILTERS = list(warnings.filters)


def _child(request: dict) -> int:
    """In the forked child: become the process the request describes, run it, return its exit code."""
    os.setpgid(0, 0)
    os.chdir(request["cwd"])
    if "environ" in request:  # the whole environment (tests/support/forked.py), not changes to the server's
        os.environ.clear()
        os.environ.update(request["environ"])
    for name, value in request.get("env", {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    tempfile.tempdir = None  # chosen again from this environment's TMPDIR, as a fresh interpreter would
    warnings.filters[:] = FILTERS  # and a warning the warm-up showed once shows again
    warnings._filters_mutated()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, request["stdout"]), (2, request["stderr"])):
        if fd == 2 and path == request["stdout"]:  # stderr into stdout (2>&1): one open file, one offset
            os.dup2(1, 2)
            continue
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    # fresh text streams over the new descriptors, configured as the interpreter configures its own
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 -- the process's own streams, open until it exits
    sys.stdout = open(1, "w", encoding=sys.__stdout__.encoding, errors=sys.__stdout__.errors, closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding=sys.__stderr__.encoding,  # noqa: SIM115
                      errors=sys.__stderr__.errors, closefd=False, buffering=1)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    if "api" in request:
        from hostile.api_driver import run_api

        return run_api(request["api"], request["result"], request["cwd"])
    import runpy

    sys.argv = ["genevals", *request["argv"]]
    try:
        runpy.run_module("genevals", run_name="__main__", alter_sys=True)
        return 0
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        import traceback

        traceback.print_exc()
        return 130
    except BaseException:  # noqa: BLE001 -- what the interpreter does with an uncaught exception
        import traceback

        traceback.print_exc()
        return 1


def _run_child(request: dict) -> None:
    code = 1
    try:
        code = _child(request)
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001, S110 -- the exit code is already decided
            pass
        os._exit(code if isinstance(code, int) and 0 <= code < 256 else 1)


def warm_up() -> None:
    """Import what a run imports: a real run on a small file into a throw-away folder."""
    import contextlib
    import io
    import tempfile

    from genevals.cli import main
    from hostile.cases import CHEAP, good_jsonl

    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()):
        path = os.path.join(tmp, "warm.jsonl")
        with open(path, "wb") as handle:
            handle.write(good_jsonl())
        main(["run", path, "--out", os.path.join(tmp, "out"), "--metrics", CHEAP, "-q"])
        import pandas  # noqa: F401  (the API cases' DataFrames)
        import pyarrow.parquet  # noqa: F401


def serve() -> None:
    warm_up()
    reply = os.dup(1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # a stray print in this process must not corrupt the replies
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    running: dict[int, tuple[dict, int, float]] = {}  # pidfd -> (request, pid, start)
    buffer = b""
    open_input = True

    def send(obj: dict) -> None:
        os.write(reply, (json.dumps(obj) + "\n").encode())

    while open_input or running:
        now = time.monotonic()
        deadline = min((start + req["limit"] for req, _pid, start in running.values()), default=now + 60)
        readable, _, _ = select.select(([requests] if open_input else []) + list(running), [], [],
                                       max(0.0, deadline - now))
        for ready in readable:
            if ready is requests:
                chunk = os.read(requests.fileno(), 1 << 16)
                if not chunk:
                    open_input = False
                    continue
                buffer += chunk
                while b"\n" in buffer:
                    raw, buffer = buffer.split(b"\n", 1)
                    request = json.loads(raw)
                    pid = os.fork()
                    if pid == 0:
                        os.close(reply)
                        _run_child(request)
                    running[os.pidfd_open(pid)] = (request, pid, time.monotonic())
            else:
                request, pid, start = running.pop(ready)
                _, status = os.waitpid(pid, 0)
                os.close(ready)
                code = os.waitstatus_to_exitcode(status)
                send({"id": request["id"], "code": code, "hung": False, "seconds": time.monotonic() - start})
        now = time.monotonic()
        for pidfd, (request, pid, start) in list(running.items()):
            if now - start > request["limit"]:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                os.close(pidfd)
                del running[pidfd]
                send({"id": request["id"], "code": None, "hung": True, "seconds": now - start})


if __name__ == "__main__":
    serve()
