"""A reader of stdout that goes away (``genevals metrics | head -1``) ends the command quietly, as `yes | head -1`
ends: no BrokenPipeError traceback, exit status 141 (a shell's 128 + SIGPIPE) or 0 when all was written."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def env():
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}


@pytest.mark.parametrize("args", [["metrics"], ["metrics", "rouge"], ["--help"], ["run", "--help"],
                                  ["history", "--help"]])
def test_a_stdout_closed_before_the_first_line_is_no_traceback(args):
    # the pipe's read end is closed before the command starts: every write to stdout fails, deterministically
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "genevals", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, env=env(), timeout=120)
    finally:
        os.close(write)
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr
    assert done.stderr == ""
    assert done.returncode in (0, 141)  # argparse writes --help and ignores the OSError itself


def test_genevals_metrics_piped_into_head():
    done = subprocess.run(["bash", "-c", f"set -o pipefail; '{sys.executable}' -m genevals metrics | head -1"],
                          capture_output=True, text=True, env=env(), timeout=120)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.returncode in (0, 141)
    assert done.stdout.count("\n") == 1
