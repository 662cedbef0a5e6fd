"""Issue 52, point 16b: an error that quotes what the user gave (a run file's key, a --profile, a folder's name for
`compare`) reaches the terminal with its control characters escaped (an ESC would recolour or rewrite the
terminal), through one helper, genevals.output.terminal.visible_message."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ESC = "\x1b[31m"


def _genevals(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


@pytest.mark.parametrize("case", ["toml-key", "profile", "compare"])
def test_an_escape_in_an_error_is_shown_escaped(tmp_path, case):
    data = str(REPO / "datasets" / "demo" / "demo.jsonl")
    (tmp_path / "g.toml").write_text(r'metrics = "exact_match"' + '\n"bad\\u001b[31mkey" = 1\n' if case == "toml-key"
                                     else 'metrics = "exact_match"\n', encoding="utf-8")
    args = {"toml-key": ("run", data, "-c", "g.toml", "--out", "o"),
            "profile": ("run", data, "-c", "g.toml", "--profile", f"x{ESC}y", "--out", "o"),
            "compare": ("compare", f"a{ESC}b", "c")}[case]
    done = _genevals(tmp_path, *args)
    assert done.returncode == 2, done.stderr
    assert "\x1b" not in done.stderr and "\\x1b[31m" in done.stderr and "Traceback" not in done.stderr


def test_a_note_and_a_wrote_line_naming_an_escaped_folder_are_shown_escaped(tmp_path):
    """The notes the engine prints (an earlier run moved aside) and the lines naming what was written go through
    the same helper (terminal.say), on stderr and on stdout."""
    data = str(REPO / "datasets" / "demo" / "demo.jsonl")
    out = f"o{ESC}red"
    first = _genevals(tmp_path, "run", data, "-m", "exact_match", "--out", out, "--no-history")
    again = _genevals(tmp_path, "run", data, "-m", "exact_match", "--out", out, "--no-history")
    report = _genevals(tmp_path, "report", out)
    for done in (first, again, report):
        assert done.returncode in (0, 1), done.stderr
        assert "\x1b" not in done.stderr + done.stdout, done.stderr + done.stdout
    assert "the earlier run in o\\x1b[31mred was moved" in again.stderr
    assert "wrote o\\x1b[31mred/report.html" in report.stdout
