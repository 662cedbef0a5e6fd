"""``genevals run --print-config`` prints what the run uses (issue 52, point 10c), in real processes: an older flag
left at its default (``--stem``) beside the run file's ``[options.rouge] use_stemmer`` says that the file's value is
used; a flag and the file that disagree say which wins, on both lines; the seed printed is the one the run
records; and a ``--set`` wins over the file even when it sets a setting's default value."""
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import DEMO, REPO

RUN_FILE = """\
data = "d.jsonl"
metrics = ["rouge", "retrieval"]
language = "en"
no-history = true

[options.rouge]
use_stemmer = true

[options.retrieval]
cutoffs = [1, 5]
"""


def genevals(*args, cwd):
    environ = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, env=environ)


@pytest.fixture()
def folder(tmp_path):
    (tmp_path / "d.jsonl").write_text("".join(DEMO.read_text().splitlines(keepends=True)[:12]))
    (tmp_path / "genevals.toml").write_text(RUN_FILE)
    return tmp_path


def _printed(folder, *flags) -> list[str]:
    done = genevals("run", "-c", "genevals.toml", *flags, "--print-config", cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_an_older_flag_left_at_its_default_says_the_files_setting_is_used(folder):
    lines = _printed(folder)
    assert "stem = false  # default, not given: options.rouge.use_stemmer = true from genevals.toml:7 is used" \
        in lines, lines
    assert "cutoffs = null  # default, not given: options.retrieval.cutoffs = [1, 5] from genevals.toml:10 is used" \
        in lines, lines
    assert "options.rouge.use_stemmer = true  # genevals.toml:7" in lines
    assert 'level = "auto"  # default' in lines  # a flag whose setting nobody else gives says nothing more


def test_a_flag_and_the_file_that_disagree_say_which_wins(folder):
    lines = _printed(folder, "--cutoffs", "3", "--set", "rouge.use_stemmer=false")
    assert "cutoffs = [3]  # flag, wins over options.retrieval.cutoffs = [1, 5] at genevals.toml:10" in lines, lines
    assert "options.retrieval.cutoffs = [3]  # flag (--cutoffs), wins over genevals.toml:10's [1, 5]" in lines
    assert "options.rouge.use_stemmer = false  # flag (--set), wins over genevals.toml:7's true" in lines, lines
    both = _printed(folder, "--stem", "--set", "rouge.use_stemmer=false")
    assert "stem = true  # flag, not used: --set rouge.use_stemmer=false wins" in both, both


def test_the_printed_seed_and_settings_are_the_ones_the_run_uses(folder):
    lines = _printed(folder, "--set", "rouge.use_stemmer=false")
    [seed] = [int(m[1]) for line in lines if (m := re.fullmatch(r"seed = (\d+)  # default", line))]
    assert "judge-seed = 0  # default" in lines
    done = genevals("run", "--set", "rouge.use_stemmer=false", "-o", "out", "-q", cwd=folder)
    assert done.returncode == 0, done.stderr
    summary = json.loads((folder / "out" / "summary.json").read_text())
    assert summary["seed"] == seed
    assert "|stemmer:no|" in summary["signatures"]["rouge"]  # the --set, not the file's use_stemmer = true
    stemmed = genevals("run", "-o", "out2", "-q", cwd=folder)
    assert stemmed.returncode == 0, stemmed.stderr
    assert "|stemmer:porter-en-only|" in json.loads((folder / "out2" / "summary.json").read_text())["signatures"]["rouge"]
