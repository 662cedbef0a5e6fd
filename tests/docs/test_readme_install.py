"""The README's Install section (issue 52, point 9) as a newcomer follows it: the virtual environment step runs as
written and activates that environment's Python and pip; torch is pinned as tools/setup-tests.sh pins it and
installed first, from a CPU index, with the reason said; Chromium comes from the system's packages, never
`playwright install`; and the headless view of a report runs as written on a report `genevals run` writes."""
import os
import re
import subprocess
import sys
from pathlib import Path

from conftest import CHROMIUM, DEMO
from support.docs_blocks import REPO, commands, section, section_blocks

README = REPO / "README.md"


def _blocks(lang: str = "bash") -> list[str]:
    return section_blocks(README, "Install", lang)


def test_the_venv_step_runs_as_written_and_activates_the_venv(tmp_path):
    [venv] = [code for code in _blocks() if "venv" in code]
    probe = 'python -c "import sys; print(sys.prefix)"; command -v pip'
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME")}
    # `python` as the page says it: this interpreter's
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    done = subprocess.run(["bash", "-c", f"{venv.strip()}\n{probe}"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    prefix, pip = done.stdout.split()
    assert Path(prefix).resolve() == (tmp_path / ".venv").resolve()
    assert Path(pip).resolve().parent == (tmp_path / ".venv" / "bin").resolve()


def test_torch_goes_first_from_a_cpu_index_with_the_reason_said():
    blocks = _blocks()
    venv = next(i for i, code in enumerate(blocks) if "python -m venv" in code)
    installs = [words for code in blocks[venv + 1:] for words in commands(code) if words[:2] == ["pip", "install"]]
    assert installs[0][2] == "torch==2.13.0" and "--index-url" in installs[0], installs  # before any extra
    assert any(w.startswith("-e") or w == "-e" for w in installs[1])
    pinned = re.search(r'pip install "?(torch==[\d.]+)', (REPO / "tools" / "setup-tests.sh").read_text())
    assert pinned and pinned[1] == installs[0][2]  # the version the tests run
    prose = " ".join(section(README, "Install").split())
    assert "CUDA" in prose and "CPU" in prose and "local CPU build" in prose


def test_chromium_comes_from_the_systems_packages():
    prose = " ".join(section(README, "Install").split())
    assert "`apt-get install chromium`" in prose and "never `playwright install`" in prose
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert text.count("playwright install") == 1  # only where it says never


def test_the_headless_view_runs_as_written_on_a_written_report(tmp_path):
    [view] = [words for code in _blocks() for words in commands(code) if words[0] == "chromium"]
    report = Path(next(w for w in view if w.endswith("report.html")))
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(DEMO), "-m", "token_f1", "--no-history",
                           "-q", "-o", str(report.parent)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # the tests' Chromium (GENEVALS_CHROMIUM); as root it needs --no-sandbox, as the tests' browser does
    sandbox = ["--no-sandbox"] if os.geteuid() == 0 else []
    shot = subprocess.run([CHROMIUM, *sandbox, *view[1:]], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    png = tmp_path / next(w.partition("=")[2] for w in view if w.startswith("--screenshot="))
    assert shot.returncode == 0 and png.is_file(), shot.stderr[-2000:]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000  # a page, not a blank
