"""The plugin is found by pytest after a plain ``pip install`` (issue 26): a fresh virtual environment (with the
system's site-packages, so torch and the rest need no download), the checkout installed into it offline
(``--no-deps --no-build-isolation``), and pytest run there with no ``-p``: the ``genevals`` fixture and marker
work, and ``--trace-config`` lists the plugin under its entry point."""
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

TEST = '''
import pytest

@pytest.mark.genevals(metrics=["token_f1"], fail_under={"token_f1": 0.5})
def test_fixture(genevals):
    results = genevals([{"id": "1", "answer": "Paris", "references": ["Paris"]}])
    assert results.summary()["systems"]["default"]["token_f1"]["mean"] == 1.0
'''


def test_pip_install_registers_the_pytest_plugin(tmp_path):
    env_dir = tmp_path / "venv"
    try:
        venv.EnvBuilder(system_site_packages=True, with_pip=False, symlinks=True).create(env_dir)
    except (OSError, subprocess.CalledProcessError) as exc:  # a stripped Python or a read-only tmp: nothing to test
        pytest.skip(f"a virtual environment cannot be created here: {exc}")
    python = env_dir / "bin" / "python"
    # pip comes from the system site-packages; the source is a copy, so the checkout gets no build/ or egg-info
    src = tmp_path / "src"
    for tree in ("genevals", "prompts"):  # prompts/: the judge prompts, installed as genevals/prompts/
        shutil.copytree(REPO / tree, src / tree, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy(REPO / name, src / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_INDEX_URL", "VIRTUAL_ENV")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")  # offline: nothing may be fetched
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(src)],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "test_installed.py").write_text(TEST)
    done = subprocess.run([str(python), "-m", "pytest", "-q", "--trace-config", "--strict-markers", "-p",
                           "no:cacheprovider", "test_installed.py"], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path / "t")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
    installed = env_dir / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    assert "genevals.testing.plugin" in done.stdout and str(installed / "genevals" / "testing") in done.stdout
