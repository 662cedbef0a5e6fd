"""Hints for two input mistakes, in real processes: a column that holds the reference answers under another name
(``gold``, ``answer_gold``, ``expected``...) when the rows have no references gets ``--map references=COLUMN`` (in
its warning, and with the error of a metric that then scored nothing, which ``-q`` still shows); a misspelt
``--from`` format gets a did-you-mean."""
import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def genevals(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def rows_with(path, column, references=False):
    rows = [{"id": f"q{i}", "question": f"What is {i}?", "answer": f"It is {i} things", column: f"{i} things",
             **({"references": f"{i} things"} if references else {})} for i in range(3)]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


@pytest.mark.parametrize("column", ["gold", "answer_gold", "gold_answer", "expected", "expected_answer"])
def test_a_reference_column_under_another_name_gets_the_mapping(tmp_path, column):
    data = rows_with(tmp_path / "d.csv", column)
    hint = f"--map references={column} reads it"
    done = genevals("run", data, "-o", str(tmp_path / "o"), "-m", "token_f1", "--no-history")
    assert done.returncode == 1
    [warning] = [line for line in done.stderr.splitlines() if f"unknown field '{column}'" in line]
    assert f"it may hold the references: {hint}" in warning and "did you mean" not in warning
    quiet = genevals("run", data, "-o", str(tmp_path / "q"), "-m", "token_f1", "--no-history", "-q")
    assert quiet.returncode == 1
    assert quiet.stderr.splitlines() == [f"genevals: error: token_f1 scored no sample (unscored: "
                                         f"no_reference 3); {hint}"], quiet.stderr
    fixed = genevals("run", data, "-o", str(tmp_path / "f"), "-m", "token_f1", "--no-history", "-q",
                     "--map", f"references={column}")
    assert fixed.returncode == 0 and fixed.stderr == "", fixed.stderr


def test_no_hint_when_the_rows_have_references(tmp_path):
    data = rows_with(tmp_path / "d.csv", "gold", references=True)
    done = genevals("run", data, "-o", str(tmp_path / "o"), "-m", "token_f1", "--no-history")
    assert done.returncode == 0 and "unknown field 'gold'" in done.stderr and "--map references" not in done.stderr


def test_a_misspelt_trace_format_gets_a_did_you_mean(tmp_path):
    done = genevals("run", str(tmp_path / "x.json"), "--from", "langsmth", "-o", str(tmp_path / "o"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--from: unknown trace format 'langsmth' (did you mean 'langsmith'?)" in done.stderr, done.stderr
    assert "openinference, langfuse, langsmith" in done.stderr
