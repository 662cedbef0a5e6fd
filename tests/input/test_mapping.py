"""The mapping language (genevals.input.mapping, issue 29): targets, mapping files, list cells; and the readers
applying it to CSV, JSONL, Parquet and DataFrames alike."""
import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from genevals.input import mapping
from genevals.engine.arguments import check_column_map
from genevals.input.fields import FieldTracker
from genevals.input.readers import ALIASES, KNOWN_FIELDS, InputError, iter_samples, parse_column_map
from genevals.types import Sample

# ------------------------------------------------------------------ the language


def test_nested_targets_parse_and_unknown_ones_get_did_you_mean():
    assert parse_column_map(["contexts[].doc_id=url", "contexts[].text = chunk", "relevant=expected_url"]) == {
        "contexts[].doc_id": "url", "contexts[].text": "chunk", "relevant": "expected_url"}
    with pytest.raises(InputError, match=r"--map: 'contexts\[\].docid=url': unknown field 'contexts\[\].docid'; "
                                         r"did you mean 'contexts\[\].doc_id'\?"):
        parse_column_map(["contexts[].docid=url"])
    with pytest.raises(InputError, match="mapped whole .* and in parts"):
        parse_column_map(["contexts=ctx", "contexts[].doc_id=url"])
    # the API's column_map: the same language, the same errors, naming the argument
    check_column_map({"contexts[].score": "s", "id": "question"})
    with pytest.raises(InputError, match=r"column_map: unknown field 'contexts\[\].scor'; did you mean "
                                         r"'contexts\[\].score'\?"):
        check_column_map({"contexts[].scor": "s"})


@pytest.mark.parametrize("name,text", [
    ("m.toml", 'id = "question"\nsystem = "method"\n"contexts[].text" = "chunk"\n[contexts]\ndoc_id = "url"\n'),
    ("m.json", json.dumps({"id": "question", "system": "method", "contexts[].text": "chunk",
                           "contexts": {"doc_id": "url"}})),
    ("m.yaml", 'id: question\nsystem: method\n"contexts[].text": chunk\ncontexts:\n  doc_id: url\n'),
    ("m.yml", 'id: question\nsystem: method\ncontexts[].text: chunk\ncontexts: {doc_id: url}\n'),
])
def test_mapping_files_in_toml_yaml_and_json(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    assert mapping.read_file(tmp_path / name) == {"id": "question", "system": "method", "contexts[].text": "chunk",
                                                  "contexts[].doc_id": "url"}


def test_bad_mapping_files_name_the_file_and_the_problem(tmp_path):
    cases = {"a.toml": ('sytem = "method"\n', "unknown field 'sytem'; did you mean 'system'?"),
             "b.toml": ('[contexts]\ndocid = "u"\n', "[contexts] 'docid': unknown part of a context; did you mean"),
             "c.toml": ("id = \n", "malformed TOML"),
             "d.json": ('{"id": 3}', "'id': expected a column name, got 3"),
             "e.yaml": ("id: [question\n", "malformed YAML"),
             "f.yml": ("id: yes\n", "'id': expected a column name, got True"),  # YAML 1.1's booleans
             "g.yaml": ("!!python/object:os.system {}\n", "malformed YAML"),  # safe_load builds no objects
             "h.ini": ("id=question\n", "unknown mapping file type '.ini' (use .toml, .yaml or .json)")}
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(mapping.MapError) as caught:
            mapping.read_file(tmp_path / name)
        assert str(caught.value).startswith(str(tmp_path / name)) and message in str(caught.value), caught.value


def test_list_cells_are_json_or_python_literals_never_evaluated():
    assert mapping.literal('["a", "b"]') == (["a", "b"], False)
    assert mapping.literal("['a', 'b']") == (["a", "b"], True)
    assert mapping.literal(" {'a': 2} ") == ({"a": 2}, True)
    assert mapping.literal("https://x") is None and mapping.literal("[unclosed") is None
    assert mapping.literal("[__import__('os').system('false')]") is None  # a call: refused, never run
    assert mapping.literal("{1, 2}") is None  # a set has no order: not a list


# ------------------------------------------------------------------ the same mapping, every input kind

FLAT = [  # one row per question and system, as a results export writes it
    {"question": "Q1", "method": "bm25", "answer": "A1", "expected_url": "https://a",
     "urls": ["https://a", "https://b"], "chunks": ["text a", "text b"], "scores": [0.9, 0.5]},
    {"question": "Q2", "method": "bm25", "answer": "A2", "expected_url": ["https://c", "https://d"],
     "urls": ["https://d"], "chunks": ["text d"], "scores": [0.7]},
]
MAP = {"id": "question", "system": "method", "relevant": "expected_url", "contexts[].doc_id": "urls",
       "contexts[].text": "chunks", "contexts[].score": "scores"}


def _as_csv(path, rows, literal):
    cell = (lambda v: str(v)) if literal else (lambda v: json.dumps(v))
    pd.DataFrame([{k: cell(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows]).to_csv(
        path, index=False)
    return path


def _source(kind, tmp_path, rows=FLAT):
    if kind == "jsonl":
        path = tmp_path / "d.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        return path
    if kind in ("csv-json", "csv-python"):
        return _as_csv(tmp_path / "d.csv", rows, literal=kind == "csv-python")
    if kind == "parquet":
        path = tmp_path / "d.parquet"
        frame = pd.DataFrame(rows)
        if "expected_url" in frame:
            frame["expected_url"] = frame["expected_url"].map(lambda v: v if isinstance(v, list) else [v])
        pq.write_table(pa.Table.from_pandas(frame), path)  # Parquet columns have one type: lists here
        return path
    return pd.DataFrame(rows)  # "dataframe": mixed cells, as pandas holds them


@pytest.mark.parametrize("kind", ["jsonl", "csv-json", "csv-python", "parquet", "dataframe"])
def test_nested_maps_line_up_by_position_in_every_input_kind(tmp_path, kind):
    tracker = FieldTracker(KNOWN_FIELDS, ALIASES, MAP)
    first, second = iter_samples(_source(kind, tmp_path), MAP, tracker)
    assert isinstance(first, Sample) and isinstance(second, Sample), (first, second)
    assert (first.id, first.system, first.question) == ("Q1", "bm25", "Q1")
    assert [(c.text, c.doc_id, c.score, c.rank) for c in first.contexts] == [
        ("text a", "https://a", 0.9, 1), ("text b", "https://b", 0.5, 2)]
    assert first.relevant == {"https://a": 1.0}  # a scalar: a one-element list
    assert second.relevant == {"https://c": 1.0, "https://d": 1.0}
    assert [(c.text, c.doc_id, c.score) for c in second.contexts] == [("text d", "https://d", 0.7)]
    # Python literals are read with one warning naming the column, JSON silently
    literal = [w for w in tracker.warnings() if "Python literals" in w]
    # urls, chunks, expected_url (str() of a list of numbers is JSON already)
    assert len(literal) == (3 if kind == "csv-python" else 0), literal
    if kind == "csv-python":
        assert any("column 'expected_url'" in w and w.startswith(f"{tmp_path / 'd.csv'}:3:") for w in literal)


@pytest.mark.parametrize("kind", ["jsonl", "csv-json", "parquet", "dataframe"])
def test_a_context_of_ids_only_is_read(tmp_path, kind):
    rows = [{"q": "Q1", "answer": "A", "top1": "https://a", "gold": "https://a"},
            {"q": "Q2", "answer": "B", "top1": None, "gold": "https://b"}]  # retrieved nothing: no context
    found = list(iter_samples(_source(kind, tmp_path, rows),
                              {"id": "q", "contexts[].doc_id": "top1", "relevant": "gold"}))
    assert [[(c.text, c.doc_id) for c in s.contexts] for s in found] == [[("", "https://a")], []]
    assert [s.relevant for s in found] == [{"https://a": 1.0}, {"https://b": 1.0}]


def test_part_lists_of_different_lengths_and_unreadable_cells_are_errors(tmp_path):
    rows = [{"answer": "a", "urls": ["u1", "u2"], "chunks": ["only one"]}]
    [error] = iter_samples(rows, {"contexts[].doc_id": "urls", "contexts[].text": "chunks"})
    assert isinstance(error, InputError) and error.field == "contexts[]"
    assert "line up by position" in error.message and "'urls' (doc_id) 2, 'chunks' (text) 1" in error.message
    path = tmp_path / "d.csv"
    path.write_text('answer,relevant,contexts,urls\na,"[\'x\', ",,\nb,,not a list,\nc,,,[u1\n')
    items = list(iter_samples(path, {"contexts[].doc_id": "urls"}))  # the parts replace the contexts column
    bad = [e for e in items if isinstance(e, InputError)]
    assert [(e.line, e.field) for e in bad] == [(2, "relevant"), (4, "contexts[].doc_id")]
    assert all("JSON ([\"a\", \"b\"] or {\"a\": 2}) or a Python literal (['a', 'b'] or {'a': 2})" in e.message
               for e in bad)
    # a contexts cell that is plain text is no list: the error says how to write one, and how to map one chunk
    plain = list(iter_samples(path))[1]
    assert plain.field == "contexts" and "--map contexts[].text=COLUMN" in plain.message and "JSON" in plain.message


def test_a_chunk_text_that_starts_with_a_bracket_is_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('answer,chunk,score\na,[Section 2] The limit is 2 GB.,0.25\n')
    [sample] = iter_samples(path, {"contexts[].text": "chunk", "contexts[].score": "score"})
    assert [(c.text, c.score) for c in sample.contexts] == [("[Section 2] The limit is 2 GB.", 0.25)]


def test_the_api_column_map_takes_the_same_targets():
    import genevals

    frame = pd.DataFrame([{"q": "Q1", "m": "bm25", "answer": "A", "top1": "https://a", "gold": "https://a"},
                          {"q": "Q1", "m": "dense", "answer": "A", "top1": "https://z", "gold": "https://a"}])
    results = genevals.evaluate(frame, metrics=["hit_rate@1"], column_map={
        "id": "q", "system": "m", "contexts[].doc_id": "top1", "relevant": "gold"})
    systems = results.summary()["systems"]
    assert (systems["bm25"]["hit_rate@1"]["mean"], systems["dense"]["hit_rate@1"]["mean"]) == (1.0, 0.0)


# ------------------------------------------------------------------ mapping files within bounds (issue 34)


def _laughs(levels: int) -> str:
    """A YAML "billion laughs": nine lists of nine aliases, ``levels`` deep, as the value of ``answer``."""
    return "answer:\n  - &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"  - &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(levels))


def _limited_run(tmp_path, *args, memory=1 << 30):
    """``genevals run`` on one good row with ``args``, in a process allowed ``memory`` bytes more than it
    starts with (so a blow-up is a MemoryError, not the machine's memory)."""
    import resource
    import subprocess
    import sys

    (tmp_path / "in.jsonl").write_text(json.dumps({"id": "q1", "question": "q", "answer": "a",
                                                   "references": ["a"]}) + "\n")

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run([sys.executable, "-m", "genevals", "run", str(tmp_path / "in.jsonl"), "--out",
                           str(tmp_path / "o"), "--metrics", "exact_match", "-q", *args], capture_output=True,
                          text=True, timeout=120, preexec_fn=limit)


@pytest.mark.parametrize("levels", [5, 7])
def test_a_yaml_alias_bomb_is_refused_at_its_first_alias_with_a_short_message(tmp_path, levels):
    # issue 34, point 4: 7 levels (333 bytes) took 2.5 GB to quote in an error; 5 printed a 39 MB message
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(_laughs(levels))
    assert len(bomb.read_bytes()) < 400
    done = _limited_run(tmp_path, "--map-file", str(bomb))
    assert done.returncode == 2, done.stderr[-500:]
    assert f"{bomb}:3: a YAML alias (*a) repeats a part of the file" in done.stderr
    assert len(done.stderr) < 1000 and "Traceback" not in done.stderr


@pytest.mark.parametrize("suffix,opening,closing", [
    (".json", '{"answer": ' + "[" * 100_000, "]" * 100_000 + "}"),
    (".json", '{"answer": ' + '{"a": ' * 20_000, "1" + "}" * 20_001),
    (".toml", "answer = " + "[" * 30_000, "]" * 30_000 + "\n"),
    (".toml", "answer = " + "{a = " * 20_000, "1" + "}" * 20_000 + "\n"),
    (".yaml", "answer: " + "[" * 30_000, "]" * 30_000 + "\n"),
    (".yml", "answer: " + "{a: " * 20_000, "1" + "}" * 20_000 + "\n"),
], ids=["json-lists-100000", "json-objects-20000", "toml-arrays-30000", "toml-tables-20000", "yaml-lists-30000",
        "yml-mappings-20000"])
def test_mapping_files_nested_past_the_parsers_recursion_are_refused(tmp_path, suffix, opening, closing):
    # issue 34, point 12: 20,000 to 100,000 levels were a RecursionError in every format
    path = tmp_path / f"deep{suffix}"
    path.write_text(opening + closing)
    with pytest.raises(mapping.MapError) as caught:
        mapping.read_file(path)
    message = str(caught.value)
    assert message.startswith(str(path)) and ("nested more than 32 levels deep" in message or "bytes" in message)


def test_deep_mapping_files_end_in_a_located_error_in_a_real_process(tmp_path):
    for name, text in (("d.json", '{"answer": ' + "[" * 20_000 + "]" * 20_000 + "}"),
                       ("d.toml", "answer = " + "[" * 20_000 + "]" * 20_000),
                       ("d.yaml", "answer: " + "[" * 20_000 + "]" * 20_000)):
        (tmp_path / name).write_text(text)
        done = _limited_run(tmp_path, "--map-file", str(tmp_path / name))
        assert done.returncode == 2 and f"{tmp_path / name}:1: nested more than 32 levels deep" in done.stderr, \
            done.stderr[-300:]


def test_mapping_files_refuse_what_a_mapping_cannot_be(tmp_path):
    cases = {
        "big.json": (json.dumps({"answer": "x" * 70_000}), "over 65,536 bytes"),
        "long.json": (json.dumps({"answer": "x" * 5_000}), "'answer': the column name 'xxxxxxxxxx"),
        "dup.json": ('{"answer": "a",\n"answer": "b"}', "the key 'answer' is given twice"),
        "dup.yaml": ("answer: a\nanswer: b\n", ":2: the key 'answer' is given twice (first on line 1)"),
        "nul.toml": ('\nanswer = "a\x00"\n', ":2: a NUL character"),
        "latin.yaml": ("\n\nanswer: caf\xe9\n", ":3: invalid UTF-8 at byte"),
        "empty.yaml": ("  \n", "the file is empty"),
        "comment.yaml": ("# nothing\n", "got nothing"),
        "escape.yaml": ('"\\e[2J": answer\n', "unknown field '\\x1b[2J'"),
        "digits.json": ('{"answer": ' + "9" * 5000 + "}", "malformed JSON: Exceeds the limit"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_bytes(text.encode("latin-1" if name.startswith("latin") else "utf-8"))
        with pytest.raises(mapping.MapError) as caught:
            mapping.read_file(tmp_path / name)
        shown = str(caught.value)
        assert shown.startswith(str(tmp_path / name)) and message in shown and len(shown) < 400, shown


def test_a_byte_order_mark_and_an_anchor_without_alias_are_fine(tmp_path):
    (tmp_path / "bom.json").write_bytes(b'\xef\xbb\xbf{"answer": "output"}')
    (tmp_path / "anchor.yaml").write_text("answer: &c output\n")
    assert mapping.read_file(tmp_path / "bom.json") == mapping.read_file(tmp_path / "anchor.yaml") == {
        "answer": "output"}


def test_messages_quote_at_most_a_hundred_characters_of_a_value():
    huge = "y" * 1_000_000
    for pairs in (["answer=" + huge], [huge + "=answer"], [huge]):
        with pytest.raises(InputError) as caught:
            parse_column_map(pairs)
        assert len(str(caught.value)) < 500 and "1,000,00" in str(caught.value)
    shared = ["lol"] * 9
    for _ in range(8):  # 43 million strings, if a message quoted them whole
        shared = [shared] * 9
    with pytest.raises(mapping.MapError) as caught:
        mapping.check({"answer": shared})
    assert len(str(caught.value)) < 200
