"""genevals.input.rows_columns: plain retrieval rows become columns; anything the per-sample reader would read
another way, warn about or refuse is NotPlain (the caller then runs the per-sample path)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genevals.engine.manifest import InputDigest
from genevals.input.rows_columns import NotPlain, is_row_file, read_rows_columns


def jsonl(folder: Path, rows: list[dict], name: str = "r.jsonl") -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_rows_become_columns_and_the_file_is_digested(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [
        {"id": "a", "question": "q", "answer": "", "contexts": [{"id": "x"}, {"id": "y"}], "relevant": {"y": 2}},
        {"answer": "b", "contexts": [{"id": "z"}], "relevant": ["z", "w"]},
        {"id": 7, "answer": "", "retrieved_contexts": [{"id": "x"}]},
    ])
    digest = InputDigest()
    got = read_rows_columns(path, None, digest)
    cols = got.columns
    assert cols.topics == ["a", "2", "7"] and got.system == "default" and got.source == str(path)
    assert cols.starts.tolist() == [0, 2, 3, 4] and cols.docs.to_pylist() == ["x", "y", "z", "x"]
    assert cols.grades.tolist() == [0.0, 2.0, 1.0, 0.0] and cols.judged.tolist() == [False, True, True, False]
    assert cols.first_line.tolist() == [1, 2, 3] and cols.labels[2] is None
    assert cols.labels[1][0] == ["z", "w"] and np.array_equal(cols.labels[1][1], [1.0, 1.0])
    assert got.questions == ["q", "", ""] and got.answers == ["", "b", ""]
    whole = InputDigest()
    whole.update(path.read_bytes())
    assert digest.hexdigest() == whole.hexdigest()


def test_a_mapped_list_of_ids(tmp_path: Path) -> None:
    path = jsonl(tmp_path, [{"qid": "a", "answer": "", "retrieved": ["x", "y"], "relevant": {"x": 1}}])
    got = read_rows_columns(path, {"id": "qid", "contexts[].id": "retrieved"}, None)
    assert got.columns.topics == ["a"] and got.columns.docs.to_pylist() == ["x", "y"]


@pytest.mark.parametrize("row", [
    {"answer": "", "contexts": [{"id": "x", "text": "t"}]},  # text: the other metrics' business
    {"answer": "", "contexts": [{"id": "x"}, {"id": "x"}]},  # listed twice
    {"answer": "", "contexts": []},  # nothing retrieved: a note in details
    {"answer": "", "contexts": ["x"]},  # a string is a chunk's text, ranked by position
    {"contexts": [{"id": "x"}]},  # no answer: an error
    {"answer": "", "contexts": [{"id": "x"}], "notes": 1},  # an unknown field: a warning
    {"answer": "", "contexts": [{"id": "x"}], "relevant": {"x": True}},
    {"answer": "", "contexts": [{"id": "x"}], "relevant": {"x": 1000}},  # out of range
    {"answer": "", "contexts": [{"id": "x"}], "system": "b"},  # a second system
])
def test_not_plain(tmp_path: Path, row: dict) -> None:
    path = jsonl(tmp_path, [{"id": "a", "answer": "", "contexts": [{"id": "x"}]}, row])
    with pytest.raises(NotPlain):
        read_rows_columns(path, None, None)


def test_a_bad_line_or_a_python_literal_cell_is_not_plain(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"answer": "", "contexts": [{"id": "x"}]}\n{"answer": \n')
    with pytest.raises(NotPlain):
        read_rows_columns(bad, None, None)
    cells = tmp_path / "r.csv"
    cells.write_text("answer,contexts\n,\"[{'id': 'x'}]\"\n")  # the per-sample path notes a Python literal
    with pytest.raises(NotPlain):
        read_rows_columns(cells, None, None)


def test_is_row_file() -> None:
    assert is_row_file("a.jsonl") and is_row_file(Path("a.PARQUET")) and is_row_file("a.csv")
    assert not is_row_file("a.txt") and not is_row_file("") and not is_row_file(["a.jsonl"])
