"""The local judges page's command that starts llama.cpp's server with the packaged model runs as written (on a
free port instead of 8080), answers /v1/models, and is stopped by the PID of the process group it started."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from support.docs_blocks import DOCS, section_blocks
from support.llama_server import STARTUP_SECONDS, packaged_gguf

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_server_command_starts_the_packaged_model(tmp_path):
    packaged_gguf()  # skips without the llama extra
    code = section_blocks(DOCS / "how-to" / "local-judges.md", "The packaged model on llama.cpp's server", "bash")[0]
    assert code.startswith("python -m llama_cpp.server ") and "--port 8080" in code
    port = _free_port()
    # `python` as the page says it, this interpreter's (the one with the extra installed)
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(["bash", "-c", code.replace("--port 8080", f"--port {port}")], stdout=log,
                              stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline, models = time.monotonic() + STARTUP_SECONDS, None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as answer:
                    models = json.load(answer)
                break
            except OSError:
                time.sleep(0.5)
        assert models is not None, (tmp_path / "server.log").read_text()[-3000:]
        assert [m["id"] for m in models["data"]] and "gemma" in json.dumps(models).lower()
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the group this test started: bash and the server
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
        log.close()
