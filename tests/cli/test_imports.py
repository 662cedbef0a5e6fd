"""Startup stays light: each heavy library is imported only by the runs that use it (nltk for --stem, torch for
model-backed metrics, numpy not even for --help)."""
import json
import subprocess
import sys

from conftest import DEMO

PROBE = """
import runpy, sys
sys.argv = ["genevals", *{args!r}]
try:
    runpy.run_module("genevals", run_name="__main__")
except SystemExit as stop:
    code = stop.code
print("\\n" + __import__("json").dumps({{"code": code, "loaded": sorted(m for m in {heavy!r} if m in sys.modules)}}))
"""
HEAVY = ("nltk", "torch", "transformers", "numpy", "openai", "jinja2")


def loaded(*args):
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=list(args), heavy=HEAVY)], capture_output=True,
                          text=True, timeout=300)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["code"] in (0, None), done.stderr
    return set(got["loaded"])


def test_help_imports_no_heavy_library():
    assert loaded("--help") == set()
    assert loaded("run", "--help") == set()


def test_lexical_run_imports_neither_nltk_nor_torch(tmp_path):
    got = loaded("run", str(DEMO), "--metrics", "exact_match,token_f1,rouge,bleu,retrieval", "--out",
                 str(tmp_path / "out"), "-q")
    assert not got & {"nltk", "torch", "transformers", "openai"}, got
    assert "numpy" in got  # the probe can see a library that is loaded


def test_stemming_loads_nltk(tmp_path):
    got = loaded("run", str(DEMO), "--metrics", "rouge", "--stem", "--out", str(tmp_path / "out"), "-q")
    assert "nltk" in got and "torch" not in got
