"""Readers: formats, column aliases, and located errors for every kind of bad row."""
import json

import pandas as pd
import pytest

from genevals.input.readers import InputError, iter_samples, parse_column_map
from genevals.types import Sample

ROW = {"id": "q1", "question": "Where?", "answer": "Paris", "contexts": ["Paris is in France."],
       "references": "Paris", "relevant": ["1"], "system": "dense"}


def write_jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def only(items):
    assert len(items) == 1
    return items[0]


def test_jsonl_row_becomes_sample(tmp_path):
    sample = only(list(iter_samples(write_jsonl(tmp_path / "d.jsonl", [ROW]))))
    assert isinstance(sample, Sample)
    assert sample.answer == "Paris" and sample.references == ("Paris",) and sample.system == "dense"
    assert sample.contexts[0].rank == 1 and sample.contexts[0].key == "1"
    assert sample.relevant == {"1": 1.0}
    assert sample.origin.endswith("d.jsonl:1")


def test_context_objects_and_graded_relevance(tmp_path):
    row = dict(ROW, contexts=[{"id": "c1", "doc_id": "https://x.org/a", "text": "A", "score": 0.9},
                              {"id": "c2", "doc_id": "https://x.org/b", "text": "B"}],
               relevant={"c1": 2, "c2": 0})
    sample = only(list(iter_samples([row])))
    assert [c.doc_id for c in sample.contexts] == ["https://x.org/a", "https://x.org/b"]
    assert sample.contexts[0].score == 0.9 and sample.contexts[1].rank == 2
    assert sample.relevant == {"c1": 2.0, "c2": 0.0}


@pytest.mark.parametrize("row", [
    {"user_input": "Q", "response": "A", "retrieved_contexts": ["c"], "reference": "R"},  # ragas
    {"input": "Q", "actual_output": "A", "retrieval_context": ["c"], "expected_output": "R"},  # DeepEval
])
def test_ragas_and_deepeval_columns(row):
    sample = only(list(iter_samples([row])))
    assert (sample.question, sample.answer, sample.contexts[0].text, sample.references) == ("Q", "A", "c", ("R",))


def test_column_map_for_other_schemas():
    sample = only(list(iter_samples([{"output": "A", "gold": ["R1", "R2"]}],
                                    parse_column_map(["answer=output", "references=gold"]))))
    assert sample.answer == "A" and sample.references == ("R1", "R2")
    with pytest.raises(InputError, match="NEW=OLD"):
        parse_column_map(["nonsense"])


def test_csv_with_json_cells_and_multiline_text(tmp_path):
    frame = pd.DataFrame([{"id": "a", "answer": "two\nlines", "contexts": json.dumps(["c1", "c2"]),
                           "references": "r"}])
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    sample = only(list(iter_samples(path)))
    assert sample.answer == "two\nlines" and [c.text for c in sample.contexts] == ["c1", "c2"]


def test_parquet_and_dataframe(tmp_path):
    frame = pd.DataFrame([dict(ROW, references=["Paris", "City of Paris"])])
    path = tmp_path / "d.parquet"
    frame.to_parquet(path)
    from_file = only(list(iter_samples(path)))
    from_frame = only(list(iter_samples(frame)))
    assert from_file.references == from_frame.references == ("Paris", "City of Paris")
    assert from_file.contexts == from_frame.contexts


def errors_of(path):
    return [e for e in iter_samples(path) if isinstance(e, InputError)]


def test_every_bad_row_is_located(tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps(ROW).encode(), b'{"id": "x", "answer": ', json.dumps({"id": "y"}).encode(),
             json.dumps(dict(ROW, id="z", answer=5)).encode(), b'{"id": "u", "answer": "\xff\xfe"}',
             json.dumps(ROW).encode(), json.dumps(dict(ROW, id="w", contexts=7)).encode()]
    path.write_bytes(b"\n".join(lines) + b"\n")
    errors = errors_of(path)
    found = [(e.line, e.field) for e in errors]
    assert found == [(2, None), (3, "answer"), (4, "answer"), (5, None), (6, "id"), (7, "contexts")]
    messages = [str(e) for e in errors]
    assert "malformed JSON" in messages[0] and f"{path}:2" in messages[0]
    assert "missing answer" in messages[1]
    assert "expected a string, got int" in messages[2]
    assert "invalid UTF-8" in messages[3]
    assert "duplicate id 'q1' for system 'dense'" in messages[4] and ":1)" in messages[4]
    assert "expected a list, got int" in messages[5]


def test_same_id_in_different_systems_is_fine():
    rows = [dict(ROW, system="dense"), dict(ROW, system="sparse")]
    assert all(isinstance(s, Sample) for s in iter_samples(rows))


def test_nan_and_none_are_missing_not_text():
    sample = only(list(iter_samples([{"answer": "a", "question": float("nan"), "references": None}])))
    assert sample.question == "" and sample.references == ()
    assert sample.id == "1"  # no id: the row number


@pytest.mark.parametrize("field,value,message", [
    ("references", [1], "references[0]"), ("relevant", {"a": "high"}, "relevant.a"),
    ("contexts", "just text", "got a string"), ("contexts", [{"text": 3}], "contexts[0].text"),
    ("id", [1], "expected a string or integer"),
])
def test_wrong_types_name_the_field(field, value, message):
    error = only(list(iter_samples([dict(ROW, **{field: value})])))
    assert isinstance(error, InputError) and message in str(error)


def test_unknown_extension_and_missing_file(tmp_path):
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(InputError, match="unknown file type"):
        list(iter_samples(tmp_path / "x.txt"))
    with pytest.raises(InputError, match="file not found"):
        list(iter_samples(tmp_path / "missing.jsonl"))


# ------------------------------------------------------------------ CSV quoting as the csv module reads it (issue 22)

def _stray_quote_csv(path, n_rows, bad_row, bad_line_text):
    lines = ["id,answer,question\n"] + [f"{i},answer {i},question {i}\n" for i in range(n_rows)]
    lines[1 + bad_row] = bad_line_text
    path.write_text("".join(lines))
    return path


def test_a_stray_quote_inside_a_field_is_text_as_for_csv_dictreader(tmp_path):
    """100,000 rows with one quote mid-field: read in linear time (today: 108 s, then a false "unterminated
    quoted field"), every row accepted exactly as csv.DictReader reads it."""
    import csv
    import time

    path = _stray_quote_csv(tmp_path / "d.csv", 100_000, 50_000, '50000,he said "hi,question\n')
    started = time.process_time()  # CPU: the bound is about the reader, not the machine's load
    items = list(iter_samples(path))
    seconds = time.process_time() - started
    assert seconds < 5, seconds
    with open(path, newline="", encoding="utf-8") as handle:
        expected = [(r["id"], r["answer"], r["question"]) for r in csv.DictReader(handle)]
    assert all(isinstance(i, Sample) for i in items)
    assert [(s.id, s.answer, s.question) for s in items] == expected
    assert items[50_000].answer == 'he said "hi' and items[50_000].origin.endswith("d.csv:50002")


def test_a_quoted_field_that_never_closes_is_located_fast(tmp_path):
    """csv.DictReader would make the rest of the file one cell; it is refused at the line the quote opens,
    the rows before it are read, and it takes linear time."""
    import time

    path = _stray_quote_csv(tmp_path / "d.csv", 100_000, 50_000, '50000,"he said hi,question\n')
    started = time.process_time()  # CPU: the bound is about the reader, not the machine's load
    items = list(iter_samples(path))
    assert time.process_time() - started < 5
    assert all(isinstance(i, Sample) for i in items[:50_000]) and len(items) == 50_001
    assert isinstance(items[-1], InputError) and items[-1].line == 50_002
    assert "quoted field opened on this line never closes" in items[-1].message


def test_csv_quoting_and_line_ends_match_the_csv_module(tmp_path):
    import csv

    body = ('id,answer\r1,"a ""quoted"" word"\n2,"two\nlines"\n3,x"y\r\n4,"a"b\n5,last')
    path = tmp_path / "d.csv"
    path.write_bytes(body.encode())
    items = list(iter_samples(path))
    with open(path, newline="", encoding="utf-8") as handle:
        expected = [(r["id"], r["answer"]) for r in csv.DictReader(handle)]
    assert [(s.id, s.answer) for s in items] == expected
    assert [s.origin.rpartition(":")[2] for s in items] == ["1", "2", "4", "5", "6"]


def test_csv_empty_relevant_cell_means_no_labels(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('id,answer,contexts,relevant\n1,a,,\n2,b,"[""x""]","[""x""]"\n')
    first, second = list(iter_samples(path))
    assert isinstance(first, Sample) and first.relevant is None and first.contexts == ()
    assert second.relevant == {"x": 1.0}


def test_numpy_grades_and_scores_are_numbers():
    np = pytest.importorskip("numpy")
    row = dict(ROW, contexts=[{"id": "c1", "text": "A", "score": np.float32(0.5)}, {"id": "c2", "text": "B",
                                                                                    "score": np.int64(3)}],
               relevant={"c1": np.int64(2), "c2": np.float32(0.5), "c3": np.float64(1)})
    sample = only(list(iter_samples([row])))
    assert sample.relevant == {"c1": 2.0, "c2": 0.5, "c3": 1.0}
    assert [c.score for c in sample.contexts] == [0.5, 3] and type(sample.contexts[0].score) is float
    frame = pd.DataFrame([{"answer": "a", "relevant": {"c1": np.int64(1)}}])
    assert only(list(iter_samples(frame))).relevant == {"c1": 1.0}
    listed = only(list(iter_samples([dict(ROW, relevant=[np.int64(7), "x"])])))
    assert listed.relevant == {"7": 1.0, "x": 1.0}
    bad = only(list(iter_samples([dict(ROW, relevant={"c1": np.bool_(True)})])))
    assert isinstance(bad, InputError) and bad.field == "relevant.c1"


@pytest.mark.parametrize("score", [float("nan"), float("inf"), "NaN"])
def test_a_nan_context_score_is_refused_with_its_place(tmp_path, score):
    item = only(list(iter_samples([dict(ROW, contexts=["a", {"text": "b", "score": score}])])))
    assert isinstance(item, InputError) and item.field == "contexts[1].score" and item.line == 1
    # JSON text with a bare NaN token (Python's json reads it) is refused too
    path = tmp_path / "d.jsonl"
    path.write_text('{"answer": "a", "contexts": [{"text": "b", "score": NaN}]}\n')
    item = only(list(iter_samples(path)))
    assert isinstance(item, InputError) and "finite" in item.message


def test_an_input_path_with_a_trailing_slash_is_refused(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", [ROW])
    with pytest.raises(InputError, match="ends in '/'"):
        list(iter_samples(str(path) + "/"))


def test_numpy_integer_ids_are_read_as_integer_ids():
    np = pytest.importorskip("numpy")
    rows = [{"id": np.int64(i), "answer": "a"} for i in (7, 8)] + [{"id": np.uint8(9), "answer": "a"}]
    assert [s.id for s in iter_samples(rows)] == ["7", "8", "9"]  # refused as "got int64" before


def test_integers_past_what_can_be_read_are_refused_located(tmp_path):
    huge = "1" + "0" * 400  # a double cannot hold it: the checks raised OverflowError, a traceback
    lines = ['{"answer": "a", "relevant": {"c1": %s}}' % huge,
             '{"answer": "a", "contexts": [{"text": "t", "score": %s}]}' % huge,
             '{"id": %s, "answer": "a"}' % huge]
    errors = list(iter_samples(write_jsonl(tmp_path / "d.jsonl", lines)))
    assert isinstance(errors[0], InputError) and (errors[0].line, errors[0].field) == (1, "relevant.c1")
    assert "expected a finite number grade, got an integer of about 401 digits" in str(errors[0])
    assert isinstance(errors[1], InputError) and (errors[1].line, errors[1].field) == (2, "contexts[0].score")
    assert errors[2].id == "1" + "0" * 400  # a 400-digit id is still an id
    # in memory, an int id of 5,000 digits cannot be written as a string at all (ValueError from str())
    [error] = list(iter_samples([{"id": 10**5000, "answer": "x"}]))
    assert isinstance(error, InputError) and str(error).startswith("<data>:1: field 'id': expected an id of at most")
