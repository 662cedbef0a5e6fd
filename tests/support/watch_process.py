"""``genevals watch`` as a real process for the watch tests: started with Popen (its own interpreter: it serves
until signalled), its port read from DIR/watch.json, stopped with SIGTERM or killed with SIGKILL."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


class Watch:
    def __init__(self, out: Path, *args: object, port: bool = True) -> None:
        self.out = Path(out)
        (self.out / "watch.json").unlink(missing_ok=True)
        argv = [sys.executable, "-m", "genevals", "watch", "--out", str(out), *map(str, args)]
        if port:
            argv += ["--otlp-port", "0"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.port = self._port() if port else None

    def _port(self, limit: float = 60.0) -> int:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"genevals watch exited {self.proc.returncode}: {self.proc.stderr.read()}")
            try:
                return json.loads((self.out / "watch.json").read_text())["port"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
        raise AssertionError("genevals watch did not start listening")

    def stop(self, timeout: float = 120.0) -> tuple[int, str, str]:
        """SIGTERM, then (exit code, stdout, stderr) once it finished its open window."""
        self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def kill(self) -> None:
        self.proc.kill()
        self.proc.communicate(timeout=30)


def wait_for(check, limit: float = 60.0, step: float = 0.05):
    """``check()``'s first true value, polled; an AssertionError after ``limit`` seconds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not reached in {limit} s")


def scored_ids(out: Path) -> list[str]:
    """The trace of every row (a conversation's: of every turn) in every window's results.jsonl, from the row's
    trace link (a trace scored twice appears twice)."""
    ids = []
    for results in sorted((Path(out) / "windows").glob("*/results.jsonl")):
        for row in map(json.loads, results.read_text().splitlines()):
            ids += [turn["trace"]["trace_id"] for turn in row.get("turns", [row])]
    return ids
