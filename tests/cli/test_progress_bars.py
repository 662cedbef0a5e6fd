"""Progress bars are drawn on a terminal only: ``run`` and ``validate`` with stderr going to a file or a pipe (a
CI log) write no bar, and on a terminal (a pseudo-terminal here) they still draw one."""
import os
import fcntl
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from conftest import DEMO, SHARED

ROOT = Path(__file__).resolve().parents[2]
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


def env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
            "HF_HUB_OFFLINE": "1", "COLUMNS": "100"}


def commands(tmp_path):
    few = tmp_path / "few.jsonl"
    few.write_text("".join(DEMO.read_text().splitlines(keepends=True)[:6]))
    yield "run", ["run", str(few), "-m", "rouge", "-o", str(tmp_path / "run"), "--no-history"], "sample"
    if RAGTRUTH.is_file():
        yield "validate", ["validate", str(RAGTRUTH), "--judge", "local", "--limit", "1", "--resamples", "20",
                           "-o", str(tmp_path / "validate")], "answer"


def on_terminal(args):
    """stderr of ``genevals ARGS`` written to a pseudo-terminal, as bytes."""
    main, secondary = pty.openpty()
    # a terminal 100 columns wide: on one of 0 columns (a fresh pty's size) tqdm draws nothing
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        process = subprocess.Popen([sys.executable, "-m", "genevals", *args], stdout=subprocess.DEVNULL,
                                   stderr=secondary, env=env())
        os.close(secondary)
        chunks = []
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the process closed its side
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait(timeout=300) == 0
    finally:
        os.close(main)
    return b"".join(chunks).decode(errors="replace")


def test_no_bar_into_a_pipe(tmp_path):
    for name, args, unit in commands(tmp_path):
        done = subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env(),
                              timeout=300)
        assert done.returncode == 0, (name, done.stderr)
        assert "\r" not in done.stderr and f"{unit}/s" not in done.stderr and "%|" not in done.stderr, (name,
                                                                                                       done.stderr)


@pytest.mark.skipif(not RAGTRUTH.is_file(), reason="../shared is not present")
def test_a_bar_on_a_terminal(tmp_path):
    for name, args, unit in commands(tmp_path):
        shown = on_terminal(args)
        assert f"{unit}/s" in shown or f"s/{unit}" in shown, (name, shown[-500:])
