"""genevals.input.rows.values: each structured field read on its own, its fault named with the field's path (the
same messages RowValidator gives for a whole row, tests/input/test_readers.py)."""
import pytest

from genevals.input.rows import InputError, values


def err(field, message):
    return InputError("data.jsonl", 3, field, message)


def refused(read, *args):
    with pytest.raises(InputError) as caught:
        read(*args, err)
    return str(caught.value)


def test_contexts_read_strings_and_objects_with_ranks_ids_and_scores():
    got = values.contexts(["a", {"text": "b", "id": 7, "doc_id": "d", "score": 2}], err)
    assert [(c.text, c.rank, c.id, c.doc_id, c.score) for c in got] == [("a", 1, None, None, None),
                                                                        ("b", 2, "7", "d", 2)]
    assert values.contexts(None, err) == () and values.contexts("", err) == ()


@pytest.mark.parametrize("value,message", [
    (["a", "b\ud800"], "data.jsonl:3: field 'contexts[1]': invalid Unicode: lone surrogate at character 1"),
    ([{"score": 1}], "data.jsonl:3: field 'contexts[0]': a context needs its text, an id or a doc_id"),
    ([{"text": "t", "score": float("nan")}], "data.jsonl:3: field 'contexts[0].score': expected a finite number"),
    ([{"text": "t", "id": 10**1001}], "data.jsonl:3: field 'contexts[0].id': expected at most 1,000 digits, got an "
                                      "integer of about 1002 digits"),
    ("a, b", "data.jsonl:3: field 'contexts': expected a list of strings or objects, got a string"),
])
def test_a_bad_context_is_refused_naming_its_place(value, message):
    assert refused(values.contexts, value).startswith(message)


def test_relevant_ids_and_grades():
    assert values.relevant(["d1", 2], err) == {"d1": 1.0, "2": 1.0}
    assert values.relevant({"d1": 3, "d2": None}, err) == {"d1": 3.0}
    assert values.relevant([("d1", 2)], err) == {"d1": 2.0}  # a Parquet map column
    assert refused(values.relevant, {"d1": 1e6}) == ("data.jsonl:3: field 'relevant.d1': relevance grade 1000000.0 "
                                                    "is outside the supported range [-100, 100]")


def test_citations_per_sentence_and_per_claim():
    assert values.citations([[1, "c2"], {"text": "claim", "contexts": "c3"}], err) == (
        (None, ("1", "c2")), ("claim", ("c3",)))
    assert refused(values.citations, [[True]]).startswith("data.jsonl:3: field 'citations[0][0]': expected a context id")


def test_references_and_language():
    assert values.references("Paris", err) == ("Paris",) and values.references(["a", "b"], err) == ("a", "b")
    assert values.language(" AUTO ", err) is None and values.language("pt-BR", err) == "pt"
    assert refused(values.references, [1]) == "data.jsonl:3: field 'references[0]': expected a string, got int"


def test_relevant_as_json_text_is_read_as_csvs_cells_are():
    # a Parquet or DataFrame string column: read as one id, every retrieval value of the row was a silent 0
    assert values.relevant('{"d1": 3, "d2": 1}', err) == {"d1": 3.0, "d2": 1.0}
    assert values.relevant('["d1", "d2"]', err) == {"d1": 1.0, "d2": 1.0}
    assert values.relevant("d1", err) == {"d1": 1.0}  # an id stays an id
    assert "starts like JSON but is not JSON" in refused(values.relevant, '{"d1": 3')
