"""Every code block in the docs that is neither ``{.skip}`` nor ``{.own-test}`` runs as written, in a real
process, from a folder holding what the pages name (the repository's datasets/ and the trace exports, and a
``data.jsonl``: the demo file, standing for the reader's own); and every block follows the rule in
CONTRIBUTING.md ("Code blocks in the docs")."""
import os
import shutil
import subprocess
import sys

import pytest
from support.docs_blocks import CLASSES, REPO, SHOWN, blocks, commands, pages

RUN = {"bash", "python"}
_PAGES = [p for p in pages() if any(b.lang in RUN and not b.mark for b in blocks(p))]


def test_every_block_follows_the_rule():
    """A known language and class, and every runnable shell block made of genevals commands only."""
    bad = []
    for page in pages():
        for b in blocks(page):
            if b.lang not in RUN | SHOWN or b.mark not in CLASSES:
                bad.append(f"{b.where}: ```{b.lang} {b.mark}: not a language or class the rule knows")
            elif b.lang == "bash" and not b.mark and any(w[0] != "genevals" for w in commands(b.code)):
                bad.append(f"{b.where}: a runnable shell block runs only genevals commands (else mark it {{.skip}})")
    assert not bad, "\n".join(bad)


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """The folder the examples run in, and the results of each distinct command (the README and Getting started
    share the demo's command; it runs once)."""
    where = tmp_path_factory.mktemp("docs-examples")
    shutil.copytree(REPO / "datasets", where / "datasets")
    shutil.copytree(REPO / "tests" / "data" / "traces", where / "tests" / "data" / "traces")
    shutil.copy(REPO / "datasets" / "demo" / "demo.jsonl", where / "data.jsonl")
    env = dict(os.environ, GENEVALS_HISTORY=str(where / "history.sqlite"), HF_HUB_OFFLINE="1")
    return where, env, {}


def _run(sandbox, lang: str, code: str) -> subprocess.CompletedProcess:
    where, env, done = sandbox
    if code not in done:
        argv = [sys.executable, "-c", code] if lang == "python" else None
        if argv is None:
            runs = [subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=where, env=env,
                                   capture_output=True, text=True, timeout=900) for words in commands(code)]
            done[code] = next((r for r in runs if r.returncode != 0), runs[-1])
        else:
            done[code] = subprocess.run(argv, cwd=where, env=env, capture_output=True, text=True, timeout=900)
    return done[code]


@pytest.mark.parametrize("page", _PAGES, ids=[str(p.relative_to(REPO)) for p in _PAGES])
def test_the_examples_run_as_written(page, sandbox):
    for b in blocks(page):
        if b.lang in RUN and not b.mark:
            done = _run(sandbox, b.lang, b.code)
            if done.returncode == 2 and "pip install 'genevals[" in done.stderr:  # an extra not installed here
                pytest.skip(f"{b.where} needs an extra this environment lacks: {done.stderr.strip()[-300:]}")
            assert done.returncode == 0, f"{b.where}: exit {done.returncode}\n{done.stderr[-3000:]}"
