"""Reading DOCS: a folder of .txt/.md/.html (text by BeautifulSoup and markdown-it-py), JSONL/TSV {id, text},
pre-chunked rows; every bad input located by file, line and field."""
import json

import pytest

from genevals.generate.documents import read_docs
from genevals.input.rows import InputError


def test_a_folder_of_text_markdown_and_html(tmp_path):
    (tmp_path / "a.txt").write_text("Plain text here.\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# Pumps\n\nA **pump** moves `water`.\n\n- one\n- two\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.html").write_text(
        "<html><head><title>Valves</title><style>p{color:red}</style></head><body><h1>Valves</h1>"
        "<script>alert('x')</script><p>A valve &amp; a seat.</p><p>Closes.</p></body></html>", encoding="utf-8")
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    corpus = read_docs(tmp_path)
    docs = {d.id: d for d in corpus.documents}
    assert sorted(docs) == ["a.txt", "b.md", "sub/c.html"]
    assert docs["a.txt"].text == "Plain text here."
    assert docs["b.md"].text == "Pumps\nA pump moves water.\none\ntwo" and docs["b.md"].title == "Pumps"
    html = docs["sub/c.html"]
    assert html.title == "Valves" and "alert" not in html.text and "color" not in html.text
    assert html.text == "Valves\nA valve & a seat.\nCloses."
    assert any("notes.pdf" in s for s in corpus.skipped)


def test_html_nested_deep_comments_and_entities():
    from genevals.generate.documents import html_text

    deep = "<div>" * 20000 + "Deep <b>bold</b> words<!-- a comment --> &lt;here&gt;." + "</div>" * 20000
    assert html_text(deep) == ("Deep bold words <here>.", "")


def test_jsonl_tsv_and_prechunked_rows(tmp_path):
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text(json.dumps({"id": "d1", "text": "One.", "title": "T"}) + "\n\n"
                     + json.dumps({"id": 7, "text": "Two."}) + "\n", encoding="utf-8")
    docs = read_docs(jsonl).documents
    assert [(d.id, d.text, d.title) for d in docs] == [("d1", "One.", "T"), ("7", "Two.", "")]
    tsv = tmp_path / "d.tsv"
    tsv.write_text("id\ttext\nx\tHello there.\n", encoding="utf-8")
    assert [(d.id, d.text) for d in read_docs(tsv).documents] == [("x", "Hello there.")]
    chunked = tmp_path / "c.jsonl"
    chunked.write_text("".join(json.dumps({"doc_id": d, "text": t}) + "\n"
                               for d, t in (("a", "first"), ("a", "second"), ("b", "third"))), encoding="utf-8")
    corpus = read_docs(chunked)
    assert [d.text for d in corpus.documents] == ["first\n\nsecond", "third"]
    assert [(c.id, c.start, c.end) for c in corpus.chunks] == [("a#0", 0, 5), ("a#1", 7, 13), ("b#0", 0, 5)]
    doc = corpus.documents[0]
    assert all(doc.text[c.start:c.end] == c.text for c in corpus.chunks[:2])
    chunked.write_text("".join(json.dumps({"id": i, "doc_id": d, "text": t}) + "\n"
                               for i, d, t in (("x#7", "a", "first"), ("y", "b", "third"))), encoding="utf-8")
    assert [(c.id, c.doc_id) for c in read_docs(chunked).chunks] == [("x#7", "a"), ("y", "b")]


@pytest.mark.parametrize("content, where", [
    (b'{"id": "a", "text": "x"}\n{"text": "y"}\n', ":2: field 'id': missing id"),
    (b'{"id": "a"}\n', ":1: field 'text': missing text"),
    (b'{"id": "a", "text": 3}\n', ":1: field 'text': expected a string, got int"),
    (b'{"id": "a", "text": "x"}\n[1]\n', ":2: expected a JSON object, got list"),
    (b'{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n', ":2: field 'id': duplicate id 'a'"),
    (b'{"id": "a b", "text": "x"}\n', ":1: field 'id': 'a b': an id may hold no whitespace"),
    (b'{"id": "a", "text": "x"}\n{oops\n', ":2: not JSON"),
    (b'{"doc_id": "a", "id": "c1", "text": "x"}\n{"doc_id": "b", "id": "c1", "text": "y"}\n',
     ":2: field 'id': duplicate chunk id 'c1'"),
    (b'', ":1: field 'text': no documents"),
    (b'{"id": "a", "text": "   "}\n', ":1: field 'text': no documents"),
    (b'{"id": "a", "text": "ok"}\n{"id": "b", "text": "caf\xe9"}\n', ":2: not UTF-8 text (byte 50: b'\\xe9')"),
    (b'{"id": "a", "text": "ok"}\n\x00\x01\x02', ":2: binary file (a NUL byte at byte 26)"),
])
def test_bad_rows_are_located(tmp_path, content, where):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        read_docs(path)
    assert str(caught.value).startswith(str(path) + where), str(caught.value)


def test_a_huge_file_is_refused_unread(tmp_path, monkeypatch):
    from genevals.generate import documents

    monkeypatch.setattr(documents, "MAX_FILE", 1000)
    path = tmp_path / "big.txt"
    path.write_text("word " * 1000, encoding="utf-8")
    with pytest.raises(InputError, match=r"big.txt: the file is over 1,000 bytes"):
        read_docs(path)


def test_empty_documents_are_skipped_and_said_so_but_none_left_is_an_error(tmp_path):
    (tmp_path / "empty.txt").write_text("  \n", encoding="utf-8")
    (tmp_path / "full.txt").write_text("Some words.", encoding="utf-8")
    corpus = read_docs(tmp_path)
    assert [d.id for d in corpus.documents] == ["full.txt"]
    assert corpus.skipped == (f"{tmp_path / 'empty.txt'}:1: field 'text': empty document, skipped",)
    (tmp_path / "full.txt").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="no documents"):
        read_docs(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        read_docs(tmp_path / "missing.jsonl")
