"""Every file of a run folder, of its earlier/ runs and the history get one mode: 0666 less the umask (issue 37:
summary.json and the other files written aside came out 0600 beside 0644 ones, and SQLite made the history 0644
whatever the umask). Real processes, each under its own umask."""
import json
import os
import stat
import subprocess
import sys

import pytest


@pytest.mark.parametrize("umask", [0o002, 0o077])
def test_run_files_and_the_history_respect_the_umask(tmp_path, umask):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": f"q{i}", "question": "q", "answer": f"a {i}",
                                        "references": [f"a {i}"]}) + "\n" for i in range(3)))
    env = {**os.environ, "GENEVALS_HISTORY": str(tmp_path / "h" / "history.sqlite"), "HF_HUB_OFFLINE": "1"}
    for _ in range(2):  # the second run moves the first aside, into earlier/
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "-o", str(tmp_path / "out"),
                               "-q", "-m", "token_f1"], capture_output=True, text=True, timeout=300, env=env,
                              preexec_fn=lambda: os.umask(umask))
        assert done.returncode == 0, done.stderr
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()] + list((tmp_path / "h").iterdir())
    assert any(p.parent.parent.name == "earlier" for p in files) and any(p.name == "summary.json" for p in files)
    modes = {str(p.relative_to(tmp_path)): oct(stat.S_IMODE(p.stat().st_mode)) for p in files}
    assert set(modes.values()) == {oct(0o666 & ~umask)}, modes
