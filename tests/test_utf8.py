"""Text that cannot be written as UTF-8 (a lone surrogate) is found wherever it is, and refused before scoring
with where it was: in any field of a row, in a field name, in an API argument."""
import json
import re

import pytest

import genevals
from genevals import utf8
from genevals.input.readers import InputError, iter_samples
from genevals.judge.config import JudgeConfig


def test_find_names_the_place_at_any_depth():
    assert utf8.find({"a": ["ok", {"b": "x\ud800"}]}) == ("a[1].b", "lone surrogate at character 1")
    assert utf8.find(["é", ("fine", "\udcff")]) == ("[1][1]", "lone surrogate at character 0")
    assert utf8.find({"ok": {"bad\ud801": 1}}) == ("ok", "lone surrogate in the field name 'bad\\ud801'")
    assert utf8.find(JudgeConfig(model="m\udc80")) == ("model", "lone surrogate at character 1")
    assert utf8.find({"emoji": "😀 \U0001F600", "n": 5, "none": None}) is None
    assert utf8.shown("x\ud800y") == "x\\ud800y"


def _jsonl(tmp_path, *lines):
    path = tmp_path / "in.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="ascii")
    return path


GOOD = '{"id": "1", "answer": "a", "references": "a"}'


@pytest.mark.parametrize("line, field, what", [
    ('{"id": "2", "answer": "a", "references": "x\\ud800"}', "references", "at character 1"),
    ('{"id": "2", "answer": "a", "reference": ["ok", "\\udfff"]}', "reference[1]", "at character 0"),
    ('{"id": "2", "answer": "a", "x\\ud800": 1}', None, "in the field name 'x\\ud800'"),
    ('{"id": "2", "answer": "a", "notes": {"deep": ["\\uDBFF"]}}', "notes.deep[0]", "at character 0"),
    ('{"id": "2", "answer": "a", "contexts": [{"text": "t", "meta": "\\udc00"}]}', "contexts[0].meta", "at"),
])
def test_a_jsonl_row_with_a_lone_surrogate_anywhere_is_a_located_error(tmp_path, line, field, what):
    path = _jsonl(tmp_path, GOOD, line, '{"id": "3", "answer": "a pair \\ud83d\\ude00 is fine"}')
    got = list(iter_samples(path))
    assert [type(g).__name__ for g in got] == ["Sample", "InputError", "Sample"]
    error = got[1]
    assert (error.line, error.field) == (2, field) and "invalid Unicode: lone surrogate" in error.message
    assert what in error.message
    str(error).encode("utf-8")  # the message itself can be printed anywhere


def test_rows_in_memory_with_a_surrogate_in_a_value_or_a_field_name_are_refused():
    for row, field in [({"answer": "a", "references": "x\ud800"}, "references"),
                       ({"answer": "a", "question\udc80": "q"}, None)]:
        with pytest.raises(InputError) as caught:
            genevals.evaluate([row], ["exact_match"])
        assert caught.value.errors[0].field == field and "lone surrogate" in str(caught.value)


@pytest.mark.parametrize("argument, where", [
    ({"metrics": ["exact_match", "rouge\ud800"]}, "metrics[1]"),
    ({"column_map": {"answer": "out\udcff"}}, "column_map.answer"),
    ({"options": {"llm_rubric": {"criteria": {"tone\ud800": "polite"}}}}, "options.llm_rubric.criteria"),
    ({"judge": JudgeConfig(model="gpt\udc80")}, "judge.model"),
    ({"meta": {"note": "\ud800"}}, "meta.note"),
])
def test_api_arguments_that_cannot_be_written_are_refused_before_any_work(tmp_path, argument, where):
    with pytest.raises(InputError, match=f"^{re.escape(where)}: invalid Unicode"):
        genevals.evaluate([{"answer": "a", "references": "a"}], out_dir=tmp_path / "out", **argument)
    assert not (tmp_path / "out").exists()


def test_an_out_dir_that_cannot_be_written_is_refused(tmp_path):
    with pytest.raises(InputError, match="out_dir: invalid Unicode"):
        genevals.evaluate([{"answer": "a"}], ["exact_match"], out_dir=str(tmp_path / "o\udcff"))
    assert list(tmp_path.iterdir()) == []


def test_a_surrogate_pair_escape_is_one_character_and_is_scored(tmp_path):
    path = _jsonl(tmp_path, json.dumps({"answer": "😀", "references": ["😀"]}, ensure_ascii=True))
    results = genevals.evaluate(str(path), ["exact_match"], out_dir=tmp_path / "out")
    assert results.summary()["systems"]["default"]["exact_match"]["mean"] == 1.0
