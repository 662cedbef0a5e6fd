"""The input forms of a conversation (issue 38): the ``turns`` row, DeepEval's conversational test cases (both of
its forms), ragas' multi-turn samples and flat rows tied by ``conversation_id`` give the same per-turn samples,
and the same per-turn results in a real ``genevals run``."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conversations import forms

from genevals.input.readers import iter_samples, parse_column_map
from genevals.output import runfolder

FORMS = {"native": forms.native, "deepeval": forms.deepeval, "deepeval_test_cases": forms.deepeval_test_cases,
         "ragas": forms.ragas, "flat_jsonl": forms.flat_jsonl}


def samples(path, column_map=None):
    out = list(iter_samples(path, column_map))
    errors = [s for s in out if isinstance(s, Exception)]
    assert not errors, errors
    return out


def comparable(sample) -> dict:
    d = sample.to_dict()
    d.pop("origin")  # the file and line differ between forms
    return d


def by_id(items):
    return {s.id: comparable(s) for s in items}


def test_every_form_gives_the_same_turns(tmp_path):
    want = by_id(samples(forms.native(tmp_path / "native.jsonl")))
    assert sorted(want) == ["c1:1", "c1:2", "c1:3", "c2:1", "c2:2"]
    third = want["c1:3"]
    assert third["question"] == "How long does it take to cross it?"
    assert third["conversation_id"] == "c1" and third["turn"] == 3
    assert [m["content"] for m in third["history"]] == [
        "Where is the Varnholt Bridge?", "The Varnholt Bridge spans the river Elde.", "When did it open?",
        "It opened in 1931."]
    assert [m["role"] for m in third["history"]] == ["user", "assistant", "user", "assistant"]
    assert "history" not in want["c1:1"] and want["c1:1"]["turn"] == 1
    for name, write in FORMS.items():
        assert by_id(samples(write(tmp_path / f"{name}.jsonl"))) == want, name
    csv_map = parse_column_map(forms.FLAT_CSV_MAP)
    assert by_id(samples(forms.flat_csv(tmp_path / "flat.csv"), csv_map)) == want


def test_a_turn_is_located_at_its_conversation_row(tmp_path):
    found = samples(forms.native(tmp_path / "native.jsonl"))
    assert [s.origin.rsplit(":", 1)[1] for s in found] == ["1", "1", "1", "2", "2"]


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def results(out):
    lines = [row for _, row in runfolder.iter_rows(out)]  # one line per conversation, read per turn
    for line in lines:
        line.pop("origin")
    return {line["id"]: line for line in lines}


@pytest.mark.parametrize("form", ["ragas", "flat_csv"])
def test_a_run_scores_every_form_alike(tmp_path, form):
    """A real run per form: the same metrics per turn, byte for byte (but the origin)."""
    metrics = "token_f1,rouge,exact_match"
    native = genevals("run", str(forms.native(tmp_path / "n.jsonl")), "-o", str(tmp_path / "n"), "-q", "-m",
                      metrics, "--no-history")
    assert native.returncode == 0, native.stderr
    if form == "flat_csv":
        maps = [a for pair in forms.FLAT_CSV_MAP for a in ("--map", pair)]
        other = genevals("run", str(forms.flat_csv(tmp_path / "f.csv")), "-o", str(tmp_path / "o"), "-q", "-m",
                         metrics, "--no-history", *maps)
    else:
        other = genevals("run", str(FORMS[form](tmp_path / "f.jsonl")), "-o", str(tmp_path / "o"), "-q", "-m",
                         metrics, "--no-history")
    assert other.returncode == 0, other.stderr
    assert results(tmp_path / "o") == results(tmp_path / "n")
    assert results(tmp_path / "n")["c1:3"]["history"][0]["content"] == "Where is the Varnholt Bridge?"


def test_parquet_and_dataframes_hold_conversations_too(tmp_path):
    """A Parquet file (and a DataFrame) with a ``turns`` column of structs: the same turns; a table of
    conversations needs no answer column."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in forms.native(tmp_path / "n.jsonl").read_text().splitlines()]
    want = by_id(samples(tmp_path / "n.jsonl"))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "c.parquet")
    assert by_id(samples(tmp_path / "c.parquet")) == want
    assert by_id(samples(pd.DataFrame(rows))) == want
