"""``--set FAMILY.KEY=VALUE`` imports the module of the family it names and no other (issue 48): the metric
index (:mod:`genevals.metric_index`) says which module declares the family, so checking one setting does not
import every metric family (the judges' with their client among them). Checked on a real process."""
import json
import os
import subprocess
import sys

from conftest import DEMO
from support.cli import IMPORTS_PROBE

_RUN = IMPORTS_PROBE


def modules_of(argv, cwd) -> tuple[int, set[str]]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", _RUN, json.dumps(argv)], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return got["exit"], set(got["modules"])


def families(modules: set[str]) -> set[str]:
    """The metric families' packages imported (lexical, triad, ...), the shared plumbing left out."""
    return {m.split(".")[2] for m in modules if m.startswith("genevals.metrics.") and m.count(".") >= 3} \
        - {"base", "judging"}


def _three_rows(tmp_path):
    data = tmp_path / "three.jsonl"
    data.write_text("".join(DEMO.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    return ["run", str(data), "-m", "rouge", "-q", "--no-history"]


def test_a_set_for_the_runs_family_imports_no_other_module_of_genevals(tmp_path):
    run = _three_rows(tmp_path)
    code, plain = modules_of([*run, "--out", str(tmp_path / "a")], tmp_path)
    assert code == 0
    code, with_set = modules_of([*run, "--out", str(tmp_path / "b"), "--set", "rouge.use_stemmer=true"], tmp_path)
    assert code == 0
    # stemming loads its own library (nltk), but no module of genevals beyond the run's own
    added = sorted(m for m in with_set - plain if m.startswith("genevals"))
    assert not added, added


def test_a_set_for_another_family_imports_that_family_alone(tmp_path):
    run = _three_rows(tmp_path)
    code, plain = modules_of([*run, "--out", str(tmp_path / "a")], tmp_path)
    assert code == 0
    code, modules = modules_of([*run, "--out", str(tmp_path / "b"), "--set", "pairwise_local.margin=0.2"], tmp_path)
    assert code == 0
    assert families(modules) - families(plain) == {"triad"}, sorted(families(modules) - families(plain))
    assert not {"genevals.judge.client", "genevals.metrics.triad.pairwise"} & modules
