"""What ``genevals label`` reads: topics and documents as TSV or JSONL, runs as TREC or genevals rows; each
problem names the file, the line and the field."""
import json

from genevals.labels.inputs import read_runs, read_texts


def test_topics_as_tsv_and_documents_as_jsonl_with_a_title(tmp_path):
    topics = tmp_path / "queries.tsv"
    topics.write_text("q1\twhat is lift\nq2\tturbulent flow\n\n")
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "d1", "title": "Wings", "text": "lift of wings"}) + "\n"
                    + json.dumps({"_id": 7, "contents": "flow"}) + "\n")
    assert read_texts(str(topics), "--topics") == ({"q1": "what is lift", "q2": "turbulent flow"}, [])
    assert read_texts(str(docs), "--docs") == ({"d1": "Wings. lift of wings", "7": "flow"}, [])


def test_bad_lines_are_errors_naming_file_line_and_field(tmp_path):
    topics = tmp_path / "queries.tsv"
    topics.write_text("q1\tok\nq2 no tab here\nq1\tagain\n")
    _, errors = read_texts(str(topics), "--topics")
    assert [(e.line, e.field) for e in errors] == [(2, None), (3, "id")]
    assert "expected 'id<TAB>text'" in str(errors[0]) and f"{topics}:2" in str(errors[0])
    assert "id 'q1' is given twice" in str(errors[1])
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "d1", "text": "x"}\n{"text": "no id"}\n{"id": "d3", "text": 5}\nnot json\n')
    _, errors = read_texts(str(docs), "--docs")
    assert [(e.line, e.field) for e in errors] == [(2, "id"), (3, "text"), (4, None)]


def test_a_genevals_file_is_one_run_per_system_with_its_questions_and_texts(tmp_path):
    rows = tmp_path / "runs.jsonl"
    rows.write_text("\n".join(json.dumps(r) for r in [
        {"id": "q1", "system": "a", "question": "Q one?", "answer": "", "contexts": [
            {"id": "c2", "text": "two"}, {"id": "c1", "text": "one"}]},
        {"id": "q1", "system": "b", "question": "Q one?", "answer": "", "contexts": [{"id": "c3", "text": "three"}]},
    ]) + "\n")
    runs, errors = read_runs([str(rows)])
    assert errors == []
    assert runs.rankings == {"a": {"q1": ["c2", "c1"]}, "b": {"q1": ["c3"]}}
    assert runs.topics == {"q1": "Q one?"} and runs.documents == {"c2": "two", "c1": "one", "c3": "three"}
    assert runs.where[("b", "q1")] == (str(rows), 2)
