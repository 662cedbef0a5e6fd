"""``python -m genevals ARGS`` started by fork from a warm process instead of by a cold interpreter.

Why: a cold ``python -m genevals run`` spends about 0.8 s of CPU importing and warming up before it reads a byte,
and the suite starts well over a thousand of them (the hostile corpus alone 4,400): on CI's two cores that was
most of the suite's time. A child forked from :mod:`hostile.forkserver` (which has imported genevals and made one
small run) starts in milliseconds and is still its own process: its own pid and process group, stdin, stdout,
stderr, working folder and environment, killed as a group when it runs past its time limit.

Two users: the hostile corpus's runner (:class:`ForkClient` directly), and :func:`install`, which the suite's
conftest calls so that every ``subprocess.run([sys.executable, "-m", "genevals", ...])`` a test makes goes through
the fork server when nothing about the call needs a fresh interpreter (:func:`forkable`); anything else (other
interpreter flags, ``-c`` probes of what gets imported, a ``PYTHONPATH`` or locale of the test's own, output not
captured, ``Popen``) starts a real interpreter as before. ``GENEVALS_TEST_SPAWN=1`` turns the fork server off for
the tests (and ``HOSTILE_SPAWN=1`` for the corpus), so any behaviour that differs can be checked both ways.
"""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TESTS = str(REPO / "tests")
#: variables read once when an interpreter starts: a forked child inherits the server's reading of them, so a call
#: whose value differs from the server's needs a real interpreter (PYTHONPATH by its entries, in order)
STARTUP = ("PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONWARNINGS", "PYTHONSAFEPATH", "PYTHONHOME",
           "PYTHONNOUSERSITE", "PYTHONOPTIMIZE", "PYTHONDEVMODE", "PYTHONFAULTHANDLER", "PYTHONMALLOC",
           "PYTHONINSPECT", "PYTHONSTARTUP", "PYTHONPLATLIBDIR", "PYTHONINTMAXSTRDIGITS", "PYTHONTRACEMALLOC",
           "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_MESSAGES", "LC_COLLATE", "LC_TIME")
#: keyword arguments of ``subprocess.run`` a forked call reproduces
KEYWORDS = {"capture_output", "text", "universal_newlines", "encoding", "errors", "timeout", "env", "cwd", "check",
            "stdout", "stderr"}
#: no test waits this long; the limit a call without a timeout gets
NO_TIMEOUT = 3600.0


def server_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The fork server's environment: ``base`` (this process's), with tests/ last on PYTHONPATH so that
    ``hostile.forkserver`` imports (last: it must not change where genevals itself is imported from)."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join([*_path_entries(env.get("PYTHONPATH")), TESTS])
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


class ForkClient:
    """One running fork server; :meth:`request` may be called from several threads at once."""

    def __init__(self, env: dict[str, str], cwd: str | Path) -> None:
        self.env = env
        self.server = subprocess.Popen([sys.executable, "-m", "hostile.forkserver"], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, env=env, cwd=cwd)
        self.pending: dict[str, Future] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._read_replies, daemon=True).start()

    def _read_replies(self) -> None:
        assert self.server.stdout is not None
        for raw in self.server.stdout:
            reply = json.loads(raw)
            with self.lock:
                future = self.pending.pop(reply["id"])
            future.set_result(reply)
        with self.lock:  # the server died: every request still waiting fails rather than waits forever
            for future in self.pending.values():
                future.set_result({"code": None, "hung": False, "seconds": 0.0, "died": True})
            self.pending.clear()

    def request(self, request: dict) -> dict:
        """Send one request (:mod:`hostile.forkserver`'s protocol) and wait for its reply."""
        future: Future = Future()
        with self.lock:
            if self.server.poll() is not None:
                return {"code": None, "hung": False, "seconds": 0.0, "died": True}
            self.pending[request["id"]] = future
            assert self.server.stdin is not None
            self.server.stdin.write((json.dumps(request) + "\n").encode())
            self.server.stdin.flush()
        return future.result()

    def close(self) -> None:
        assert self.server.stdin is not None
        try:
            self.server.stdin.close()
        except OSError:
            pass
        try:
            self.server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()


# ---------------------------------------------------------------------------------------- subprocess.run, forked

_REAL_RUN = subprocess.run
_CLIENT: ForkClient | None = None
_CLIENT_LOCK = threading.Lock()
_IDS = itertools.count()
_SCRATCH: str | None = None


def _path_entries(value: str | None) -> list[str]:
    return [entry for entry in (value or "").split(os.pathsep) if entry]


def forkable(args: Any, popenargs: tuple, kwargs: dict, server: dict[str, str]) -> bool:
    """Whether a ``subprocess.run`` call is ``python -m genevals ...`` with nothing a forked child would get
    differently from a fresh interpreter: only :data:`KEYWORDS`, output captured, argv plain strings, and the
    same interpreter start-up environment as the server's."""
    if popenargs or not isinstance(args, (list, tuple)) or len(args) < 3:
        return False
    if list(args[:3]) != [sys.executable, "-m", "genevals"] or not all(isinstance(a, str) for a in args):
        return False
    if set(kwargs) - KEYWORDS:
        return False
    captured = kwargs.get("capture_output") or (kwargs.get("stdout") == subprocess.PIPE
                                                and kwargs.get("stderr") in (subprocess.PIPE, subprocess.STDOUT))
    if not captured or (kwargs.get("capture_output") and ("stdout" in kwargs or "stderr" in kwargs)):
        return False
    env = os.environ if kwargs.get("env") is None else kwargs["env"]
    if any(env.get(name) != server.get(name) for name in STARTUP):
        return False
    # the same entries in the same order: the genevals a fresh interpreter would import is the one the server has
    return ([e for e in _path_entries(env.get("PYTHONPATH")) if e != TESTS]
            == [e for e in _path_entries(server.get("PYTHONPATH")) if e != TESTS])


def _client() -> ForkClient:
    global _CLIENT, _SCRATCH
    with _CLIENT_LOCK:
        if _CLIENT is None or _CLIENT.server.poll() is not None:
            _SCRATCH = _SCRATCH or tempfile.mkdtemp(prefix="genevals-forked-")
            _CLIENT = ForkClient(server_env(), _SCRATCH)
        return _CLIENT


def _decode(data: bytes, kwargs: dict) -> str | bytes:
    if not (kwargs.get("text") or kwargs.get("universal_newlines") or kwargs.get("encoding") or kwargs.get("errors")):
        return data
    import locale

    text = data.decode(kwargs.get("encoding") or locale.getpreferredencoding(False), kwargs.get("errors") or "strict")
    return text.replace("\r\n", "\n").replace("\r", "\n")  # what text mode's universal newlines do


def forked_run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run(args, **kwargs)`` for a :func:`forkable` call, through the fork server."""
    client = _client()
    env = dict(os.environ if kwargs.get("env") is None else kwargs["env"])
    with tempfile.TemporaryDirectory(dir=_SCRATCH) as tmp:
        stdout, stderr = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        merged = kwargs.get("stderr") == subprocess.STDOUT
        request = {"id": f"run-{next(_IDS)}", "argv": list(args[3:]), "cwd": str(kwargs.get("cwd") or os.getcwd()),
                   "stdout": stdout, "stderr": stdout if merged else stderr, "environ": env,
                   "limit": float(kwargs["timeout"]) if kwargs.get("timeout") is not None else NO_TIMEOUT}
        reply = client.request(request)
        out = _decode(Path(stdout).read_bytes(), kwargs)
        err = None if merged else _decode(Path(stderr).read_bytes() if os.path.exists(stderr) else b"", kwargs)
    if reply.get("died"):
        raise RuntimeError("the fork server of tests/support/forked.py died; GENEVALS_TEST_SPAWN=1 runs without it")
    if reply["hung"]:
        raise subprocess.TimeoutExpired(args, kwargs["timeout"], output=out, stderr=err)
    done = subprocess.CompletedProcess(args, reply["code"], out, err)
    if kwargs.get("check"):
        done.check_returncode()
    return done


def _run(args: Any, *popenargs: Any, **kwargs: Any) -> subprocess.CompletedProcess:
    if forkable(args, popenargs, kwargs, (_CLIENT.env if _CLIENT is not None else server_env())):
        return forked_run(args, **kwargs)
    return _REAL_RUN(args, *popenargs, **kwargs)


def install() -> None:
    """Route the forkable ``subprocess.run`` calls of this process through the fork server (started at first use)."""
    if os.environ.get("GENEVALS_TEST_SPAWN") != "1":
        subprocess.run = _run


def uninstall() -> None:
    """Put ``subprocess.run`` back and stop the fork server."""
    global _CLIENT
    subprocess.run = _REAL_RUN
    with _CLIENT_LOCK:
        if _CLIENT is not None:
            _CLIENT.close()
            _CLIENT = None
