"""``genevals review RUN_DIR`` as a real process on 127.0.0.1 (a free port), and plain HTTP calls to it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from support.runs import embedded

REPO = Path(__file__).resolve().parents[2]


class ReviewProcess:
    """A running review server: ``url``, ``token`` (read from its page, as the browser does) and ``call``."""

    def __init__(self, run_dir: Path, *options: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
        self.proc = subprocess.Popen([sys.executable, "-m", "genevals", "review", str(run_dir), "--port", "0", *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        match = re.search(r"http://[^ ]+/", line)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"review server did not start: {line!r} {self.proc.stderr.read()[-2000:]}")
        self.banner = line
        self.stderr = ""
        self.url = match.group(0)
        status, html = self.call("GET", "/", raw=True)
        assert status == 200
        self.token = embedded(html)["review"]["token"]

    def call(self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None,
             token: str | None = "page", raw: bool = False, data: bytes | None = None) -> tuple[int, Any]:
        hdrs = {"Content-Type": "application/json"}
        if token == "page":
            token = getattr(self, "token", None)
        if token:
            hdrs["X-Genevals-Token"] = token
        hdrs.update(headers or {})
        payload = data if data is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url.rstrip("/") + path, data=payload, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, content = response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            status, content = exc.code, exc.read().decode("utf-8")
        if raw:
            return status, content
        return status, json.loads(content) if content else None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.proc.stderr.closed:
            self.stderr = self.proc.stderr.read()
            self.proc.stdout.close()
            self.proc.stderr.close()
