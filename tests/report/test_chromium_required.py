"""A missing browser fails the browser tests with the instruction that fixes it; it never skips them."""
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_a_missing_chromium_fails_with_the_setup_instruction(tmp_path):
    env = {**os.environ, "GENEVALS_CHROMIUM": str(tmp_path / "no-chromium-here")}
    # -n 0: in the pytest process itself (the repository's addopts would start workers; -x then stops with exit 2)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-n", "0",
                           str(TESTS / "report" / "test_browser.py::test_run_with_no_samples_still_renders")],
                          capture_output=True, text=True, env=env, cwd=TESTS.parent, timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    assert "1 error" in done.stdout and "skipped" not in done.stdout, done.stdout[-3000:]
    assert "run `bash tools/setup-tests.sh`" in done.stdout and "no-chromium-here not found" in done.stdout
