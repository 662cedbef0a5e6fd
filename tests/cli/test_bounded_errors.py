"""Errors quote at most a bounded part of what they refuse (issue 34): argparse's usage errors, and the API's
whole-number arguments (a 5,000-digit seed or chunk size is refused by name, not an OverflowError later)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import genevals

ROW = '{"id": "q1", "question": "Q?", "answer": "Paris", "references": ["Paris"]}\n'


def test_a_5000_digit_option_value_is_refused_in_a_short_message(tmp_path):
    (tmp_path / "d.jsonl").write_text(ROW)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "GENEVALS_HISTORY": str(tmp_path / "h.sqlite")}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", "d.jsonl", "--out", "o", "-m", "exact_match",
                           "--seed", "9" * 5000], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    # the one checker quotes a value cut short, with the limit
    assert "argument --seed: expected a whole number from 0 to 18,446,744,073,709,551,615, got '999" in last
    assert len(last) < 500, last[:300]


@pytest.mark.parametrize("name", ["seed", "chunk_size"])
def test_the_api_refuses_a_5000_digit_count_by_name(tmp_path, name):
    (tmp_path / "d.jsonl").write_text(ROW)
    with pytest.raises(ValueError, match=f"{name}: expected a whole number from .* got a larger number"):
        genevals.evaluate(str(tmp_path / "d.jsonl"), metrics=["exact_match"], **{name: 10**5000})
