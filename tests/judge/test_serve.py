"""``python -m genevals.judge.serve``: llama_cpp.server's options pass through; the packaged model, its chat format
and a 4,096-token window are defaults that given options replace; without the server installed it says what to
install (exit 2, no traceback)."""
import os
import subprocess
import sys
from pathlib import Path

from genevals.judge.serve import server_args

PACKAGED = "/cache/gemma-3-270m-q4_k_m.gguf"


def test_defaults_are_added_only_where_nothing_is_given():
    assert server_args(["--port", "9"], PACKAGED) == ["--model", PACKAGED, "--port", "9", "--chat_format", "gemma",
                                                      "--n_ctx", "4096"]
    assert server_args(["--model", "/m/qwen.gguf", "--n_ctx=8192"], None) == ["--model", "/m/qwen.gguf", "--n_ctx=8192"]
    assert server_args(["--model=/m/gemma-3-270m-q4_k_m.gguf", "--chat_format", "x"], None) == [
        "--model=/m/gemma-3-270m-q4_k_m.gguf", "--chat_format", "x", "--n_ctx", "4096"]


def test_without_the_server_it_says_what_to_install():
    hide = Path(__file__).resolve().parents[1] / "support" / "without_llama"  # the llama extra looks uninstalled
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-m", "genevals.judge.serve", "--port", "9"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert done.returncode == 2 and "pip install 'genevals[llama]'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
