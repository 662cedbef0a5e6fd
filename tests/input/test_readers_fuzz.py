"""Hostile and broken input through the readers (genevals.input.readers.iter_samples), fuzzed with hypothesis.

Every row must end as a Sample that says exactly what the row said, or as an InputError that names the file
(or source), the line and the field the row's first problem is in. An independent model of the documented
rules (``expect``) decides which; the readers are never trusted to grade themselves.

Case counts are printed by each fuzz test and repeated in its assertion message; run with ``-rP`` to see them:

    python -m pytest tests/test_io_fuzz.py -q -rP

Bugs the fuzzing found are kept as regression tests at the end of this file.
"""
from __future__ import annotations

import ast
import csv
import io
import json
import random
import sys
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from support.fuzz_atheris import check_bytes, check_file, parquet_template, time_limit
from support.fuzz_rows import (compare, fuzz, report,
                               rows_strategy, text)

from genevals.input.readers import HeaderError, InputError, iter_samples
from genevals.types import Sample

# ------------------------------------------------------------------ JSONL and lists of dicts

@fuzz(300)
@given(rows=rows_strategy)
def _fuzz_jsonl_rows(tmp_path, rows, counts):
    path = tmp_path / "fuzz.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with time_limit(20):
        items = list(iter_samples(path))
    compare(items, rows, str(path), counts)


def test_fuzz_jsonl_rows(tmp_path):
    counts = Counter()
    _fuzz_jsonl_rows(tmp_path, counts)
    line = report("jsonl", counts)
    assert counts["cases"] >= 300 and counts["errors"] and counts["valid"], line


@fuzz(300)
@given(rows=rows_strategy)
def _fuzz_list_of_dicts(rows, counts):
    with time_limit(20):
        items = list(iter_samples(rows))
    compare(items, rows, "<data>", counts)


def test_fuzz_list_of_dicts():
    counts = Counter()
    _fuzz_list_of_dicts(counts)
    line = report("list-of-dicts", counts)
    assert counts["cases"] >= 300 and counts["errors"] and counts["valid"], line


# ------------------------------------------------------------------ CSV: every cell is text

csv_cell = st.one_of(st.text(max_size=20), st.sampled_from(["", "nan", "NaN", "None", "null", "1", "1.5", '"',
                                                             "[", "[1, 2]", '["a", "b"]', '{"1": 2}', '{"1": "x"}',
                                                             "[[[[", "\r\n", "a\nb"]))
csv_rows = st.lists(st.fixed_dictionaries({"answer": csv_cell},
                                          optional={k: csv_cell for k in ("id", "contexts", "references",
                                                                           "relevant", "system")}),
                    min_size=1, max_size=10)


def _csv_expected_row(row: dict) -> dict:
    """What a CSV reader is documented to see: the cell text, lists and mappings as JSON text or as Python
    literals; a contexts or relevant cell that starts like one but is neither is an error (``object()``: no
    valid value), a reference that does is its text."""
    out = {}
    for key, value in row.items():
        if key in ("contexts", "references", "relevant") and value.strip()[:1] in ("[", "{"):
            try:
                value = json.loads(value)
            except ValueError:
                try:
                    parsed = ast.literal_eval(value.strip())
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    parsed = None
                if isinstance(parsed, (list, dict)):
                    value = parsed
                elif key != "references":
                    value = object()
        out[key] = value
    return out


@fuzz(200)
@given(rows=csv_rows)
def _fuzz_csv_rows(tmp_path, rows, counts):
    header = sorted({k for r in rows for k in r})
    buffer = io.StringIO()
    # RFC 4180 line ends: with "\n" the csv module leaves a bare "\r" unquoted, which no reader can tell apart
    # from a CRLF line end.
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\r\n")
    writer.writeheader()
    lines, line = [], 2
    for r in rows:
        full = {k: r.get(k, "") for k in header}
        lines.append(line)
        start = buffer.tell()
        writer.writerow(full)
        line += buffer.getvalue()[start:].count("\n")
    path = tmp_path / "fuzz.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    with time_limit(20):
        items = list(iter_samples(path))
    # A record whose every cell is whitespace is a blank line: skipped, not an error (a documented skip).
    kept = [(r, ln) for r, ln in zip(rows, lines) if any(r.get(k, "").strip() for k in header)]
    counts["skipped"] += len(rows) - len(kept)
    counts["cases"] += len(rows) - len(kept)
    expected = [{k: v for k, v in _csv_expected_row({k: r.get(k, "") for k in header}).items()} for r, _ in kept]
    compare(items, expected, str(path), counts, lines=[ln for _, ln in kept])
    for item in items:  # a CSV "nan" is the text nan, and an empty answer cell is an empty (unscored) answer
        if isinstance(item, Sample):
            assert isinstance(item.answer, str) and isinstance(item.id, str)


def test_fuzz_csv_rows(tmp_path):
    counts = Counter()
    _fuzz_csv_rows(tmp_path, counts)
    line = report("csv", counts)
    assert counts["cases"] >= 200 and counts["valid"], line


# ------------------------------------------------------------------ Parquet: typed columns

def _column(kind: str):
    values = {
        "str": st.one_of(text, st.none()),
        "int": st.one_of(st.integers(-5, 5), st.none()),
        "float": st.one_of(st.floats(allow_infinity=False), st.none()),
        "bool": st.one_of(st.booleans(), st.none()),
        "list_str": st.one_of(st.lists(text, max_size=3), st.none()),
        "list_int": st.one_of(st.lists(st.integers(0, 5), max_size=3), st.none()),
        "list_ctx": st.one_of(st.lists(st.fixed_dictionaries({"text": text, "id": st.sampled_from(["1", "2"])}),
                                       max_size=3), st.none()),
        "struct": st.one_of(st.fixed_dictionaries({"1": st.integers(0, 3), "2": st.floats(0, 3)}), st.none()),
    }
    return values[kind]


@st.composite
def parquet_table(draw):
    n = draw(st.integers(1, 8))
    kinds = {"answer": ["str", "str", "int", "float", "list_str"], "id": ["str", "int", "float", "bool"],
             "contexts": ["list_str", "list_ctx", "str", "int"], "references": ["str", "list_str", "list_int"],
             "relevant": ["list_str", "list_int", "struct", "str"], "system": ["str", "int"]}
    columns = {}
    for name, options in kinds.items():
        if name != "answer" and draw(st.booleans()):
            continue
        kind = draw(st.sampled_from(options))
        columns[name] = draw(st.lists(_column(kind), min_size=n, max_size=n))
    return [{k: v[i] for k, v in columns.items()} for i in range(n)]


@fuzz(150)
@given(rows=parquet_table())
def _fuzz_parquet_typed_columns(tmp_path, rows, counts):
    path = tmp_path / "fuzz.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    with time_limit(20):
        items = list(iter_samples(path))
    compare(items, rows, str(path), counts)


def test_fuzz_parquet_typed_columns(tmp_path):
    counts = Counter()
    _fuzz_parquet_typed_columns(tmp_path, counts)
    line = report("parquet", counts)
    assert counts["cases"] >= 150 and counts["errors"] and counts["valid"], line


# ------------------------------------------------------------------ raw bytes (same checks as the atheris harness)

@fuzz(400)
@given(data=st.one_of(st.binary(max_size=400),
                      st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b'"answer"', b":", b",", b'"x"', b"\n",
                                                b"NaN", b"null", b"1e999", b'"\\ud800"', b"\xff", b"\xc3",
                                                b'"', b"answer,id\n", b"\r\n", b"\x00"]), max_size=40)
                      .map(lambda parts: b"".join(parts))))
def _fuzz_bytes_jsonl_csv(tmp_path, data, counts):
    """Random and token-soup bytes as JSONL or CSV: file error, located row error, or a sound Sample."""
    for suffix in (b"\x00", b"\x01"):  # FORMATS[0] = .jsonl, FORMATS[1] = .csv
        samples, located, file_level = check_bytes(suffix + data, str(tmp_path), formats=(".jsonl", ".csv"))
        counts["cases"] += 1
        counts["valid"] += samples
        counts["errors"] += located + file_level


def test_fuzz_bytes_jsonl_csv(tmp_path):
    counts = Counter()
    _fuzz_bytes_jsonl_csv(tmp_path, counts)
    line = report("bytes", counts)
    assert counts["cases"] >= 800, line


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_truncated_files(tmp_path, suffix):
    """Every prefix of a valid file (at 97 cut points): located errors or samples, never a crash."""
    rows = [{"id": f"q{i}", "answer": f"a {i}", "contexts": ["c", "d"], "references": ["r"], "relevant": ["1"]}
            for i in range(20)]
    whole = tmp_path / f"whole{suffix}"
    if suffix == ".jsonl":
        whole.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif suffix == ".csv":
        import pandas as pd

        frame = pd.DataFrame(rows)
        for col in ("contexts", "references", "relevant"):
            frame[col] = frame[col].map(json.dumps)
        frame.to_csv(whole, index=False)
    else:
        pq.write_table(pa.Table.from_pylist(rows), whole)
    data = whole.read_bytes()
    counts = Counter()
    for cut in sorted({len(data) * i // 97 for i in range(97)}):
        part = tmp_path / f"part{suffix}"
        part.write_bytes(data[:cut])
        samples, located, file_level = check_file(part, data[:cut].count(b"\n") + 1)
        counts["cases"] += 1
        counts["valid"] += samples
        counts["errors"] += located + file_level
    line = report(f"truncated {suffix}", counts)
    assert counts["cases"] >= 90, line


# ------------------------------------------------------------------ named hostile cases

def _one(items):
    assert len(items) == 1, items
    return items[0]


def test_nan_none_and_missing_answers_are_errors(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"answer": NaN}\n{"answer": null}\n{"id": "x"}\n{"answer": 1.5}\n{"answer": Infinity}\n')
    items = list(iter_samples(path))
    assert [(e.line, e.field) for e in items] == [(1, "answer"), (2, "answer"), (3, "answer"), (4, "answer"),
                                                   (5, "answer")]
    assert all(isinstance(e, InputError) for e in items)
    # never the string "nan"
    frame_rows = [{"answer": float("nan")}, {"answer": None}]
    assert all(isinstance(e, InputError) and e.field == "answer" for e in iter_samples(frame_rows))


def test_dataframe_nan_answer_is_error_and_numeric_ids_are_strings():
    import pandas as pd

    frame = pd.DataFrame({"id": [1, 2, 3], "answer": ["a", None, float("nan")]})
    items = list(iter_samples(frame))
    assert isinstance(items[0], Sample) and items[0].id == "1"
    assert [(e.line, e.field) for e in items[1:]] == [(2, "answer"), (3, "answer")]


def test_numeric_and_string_ids_collide(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"id": 7, "answer": "a"}\n{"id": "7", "answer": "b"}\n{"id": "7", "answer": "c", "system": "s"}\n'
                    '{"answer": "no id: line 4"}\n{"id": "4", "answer": "collides with the default id"}\n')
    items = list(iter_samples(path))
    assert items[0].id == "7" and isinstance(items[2], Sample) and items[3].id == "4"
    assert (items[1].line, items[1].field) == (2, "id") and "first seen at" in items[1].message
    assert (items[4].line, items[4].field) == (5, "id")


def test_contexts_that_are_not_lists(tmp_path):
    rows = [{"answer": "a", "contexts": "just a string"}, {"answer": "a", "contexts": 3},
            {"answer": "a", "contexts": {"text": "t"}}, {"answer": "a", "contexts": [["nested"]]},
            {"answer": "a", "contexts": [{"text": 5, "id": "c1"}]}, {"answer": "a", "contexts": [{"score": 0.5}]},
            {"answer": "a", "contexts": [{"text": "t", "score": "hi"}]}]
    fields = [e.field for e in iter_samples(rows)]
    assert fields == ["contexts", "contexts", "contexts", "contexts[0]", "contexts[0].text", "contexts[0]",
                      "contexts[0].score"]
    # ids only (issue 29): a context the retrieval metrics can read; the text is empty, not an error
    [ids_only] = iter_samples([{"answer": "a", "contexts": [{"id": "c1"}, {"doc_id": "https://x", "text": None}]}])
    assert [(c.text, c.id, c.doc_id) for c in ids_only.contexts] == [("", "c1", None), ("", None, "https://x")]


def test_invalid_utf8_is_located(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"answer": "ok"}\n{"answer": "\xff\xfe"}\n{"answer": "fine"}\n')
    items = list(iter_samples(path))
    assert isinstance(items[1], InputError) and items[1].line == 2 and "UTF-8" in items[1].message
    csv_path = tmp_path / "d.csv"
    csv_path.write_bytes(b"answer\nok\n\xc3\x28\nfine\n")
    items = list(iter_samples(csv_path))
    assert [type(i).__name__ for i in items] == ["Sample", "InputError", "Sample"] and items[1].line == 3


def test_deeply_nested_json_is_located(tmp_path):
    path = tmp_path / "d.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text('{"answer": "a", "contexts": ' + deep + '}\n{"answer": "b"}\n')
    with time_limit(30):
        items = list(iter_samples(path))
    assert isinstance(items[0], InputError) and items[0].line == 1 and "nested" in items[0].message
    assert isinstance(items[1], Sample)
    # the same depth as Python objects: the first item of contexts is a list, not a string or object
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    item = _one(list(iter_samples([{"answer": "a", "contexts": nested, "relevant": nested}])))
    assert isinstance(item, InputError) and item.field == "contexts[0]"
    # and in a CSV cell
    csv_path = tmp_path / "d.csv"
    csv_path.write_text('answer,contexts\na,"' + deep + '"\n')
    item = _one(list(iter_samples(csv_path)))
    assert isinstance(item, InputError) and item.line == 2


def test_gigantic_answer_is_read_and_scored(tmp_path):
    from genevals.api import evaluate

    answer = ("lorem ipsum dolor sit amet " * 200_000)[:5_000_000]
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "big", "answer": answer, "references": ["lorem ipsum"],
                                "contexts": ["lorem"], "relevant": ["1"]}) + "\n")
    with time_limit(120):
        results = evaluate(path, ["token_f1", "exact_match", "rouge", "retrieval"], out_dir=tmp_path / "out")
    sample = _one(results.samples)
    assert len(sample.sample.answer) == 5_000_000
    assert sample.metrics["exact_match"].value == 0.0 and 0 < sample.metrics["token_f1"].value < 0.01
    assert sample.metrics["mrr"].value == 1.0


def test_wrong_schema_parquet_and_not_a_parquet(tmp_path):
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"prediction": ["a", "b"]}), path)
    # one error for the file, at its header, naming the columns found: not one per row
    header = _one(list(iter_samples(path)))
    assert isinstance(header, HeaderError) and (header.line, header.field) == (None, "answer")
    assert "columns found: prediction" in header.message and "--map answer=COLUMN" in header.message
    bogus = tmp_path / "bogus.parquet"
    bogus.write_bytes(b"PAR1 this is not parquet")
    item = _one(list(iter_samples(bogus)))
    assert isinstance(item, InputError) and item.line is None and "Parquet" in item.message
    empty = tmp_path / "empty.parquet"
    empty.write_bytes(b"")
    assert isinstance(_one(list(iter_samples(empty))), InputError)


# ------------------------------------------------------------------ bugs the fuzzing found, fixed; kept as regressions

@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_huge_integer_is_a_located_error(tmp_path, suffix):
    path = tmp_path / f"d{suffix}"
    if suffix == ".jsonl":
        path.write_text('{"answer": "a", "id": ' + "1" * 5000 + '}\n')
    else:
        path.write_text('answer,relevant\na,"[' + "1" * 5000 + ']"\n')
    item = _one(list(iter_samples(path)))
    assert isinstance(item, InputError) and item.line == (1 if suffix == ".jsonl" else 2)


def _mutated_parquet_outcomes(tmp_path, n: int) -> Counter:
    template = parquet_template()
    rnd = random.Random(1234)
    crashes = Counter()
    for i in range(n):
        data = bytearray(template)
        for _ in range(rnd.randint(1, 6)):
            data[rnd.randrange(4, len(data) - 8)] = rnd.randrange(256)
        path = tmp_path / "m.parquet"
        path.write_bytes(bytes(data))
        try:
            check_file(path)
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001 - an uncaught crash is what this test counts
            crashes[type(exc).__name__] += 1
    return crashes


def test_corrupt_parquet_pages_are_located_errors(tmp_path):
    crashes = _mutated_parquet_outcomes(tmp_path, 60)
    assert not crashes, f"fuzz parquet-mutations: 60 cases tried, uncaught: {dict(crashes)}"


def test_lone_surrogate_is_a_located_error(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"answer": "ok"}\n{"answer": "bad \\udc80 text", "references": "bad"}\n')
    items = list(iter_samples(path))
    assert isinstance(items[1], InputError) and (items[1].line, items[1].field) == (2, "answer")


def test_infinite_relevance_grade_is_an_error(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text('{"answer": "a", "contexts": ["c", "d"], "relevant": {"1": Infinity, "2": 1}}\n')
    item = _one(list(iter_samples(path)))
    assert isinstance(item, InputError) and item.field == "relevant.1"


@pytest.mark.parametrize("kind", ["struct", "map"])
def test_graded_relevance_from_parquet(tmp_path, kind):
    path = tmp_path / "d.parquet"
    if kind == "struct":
        import pandas as pd

        pd.DataFrame([{"answer": "a", "relevant": {"c1": 2}}, {"answer": "b", "relevant": {"c2": 1}}]).to_parquet(path)
    else:
        pq.write_table(pa.table({"answer": ["a", "b"], "relevant": pa.array(
            [[("c1", 2)], [("c2", 1)]], type=pa.map_(pa.string(), pa.int64()))}), path)
    items = list(iter_samples(path))
    assert [i.relevant for i in items] == [{"c1": 2.0}, {"c2": 1.0}], items


def test_json_looking_text_in_jsonl_stays_text(tmp_path):
    """Only CSV cells are decoded as JSON: in JSONL the reference text "[]" is a reference, not an empty list."""
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"answer": "a", "references": "[]"}) + "\n")
    assert _one(list(iter_samples(path))).references == ("[]",)


# ------------------------------------------------------------------ the atheris harness, bounded (opt-in)

def test_atheris_harness_bounded(tmp_path):
    """Runs tests/support/fuzz_atheris.py for 1,500 inputs (JSONL and CSV; Parquet mutation is pinned above as a bug),
    without coverage instrumentation to keep it short; run the script by hand for a real, instrumented campaign.
    Skips when atheris is not installed (``pip install atheris``)."""
    pytest.importorskip("atheris")
    import os
    import subprocess

    env = dict(os.environ, GENEVALS_FUZZ_FORMATS="jsonl,csv", GENEVALS_FUZZ_INSTRUMENT="0")
    done = subprocess.run([sys.executable, str(Path(__file__).parents[1] / "support" / "fuzz_atheris.py"), "-atheris_runs=1500",
                           "-max_len=512", "-seed=1",
                           # libFuzzer's RSS limit reads getrusage's peak, which a spawned child inherits from
                           # pytest (vfork + exec): past 2 GB of tests it reported this 47 MB harness out of memory
                           "-rss_limit_mb=0"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    summary = [line for line in done.stdout.splitlines() if line.startswith("fuzz (atheris)")]
    print(*summary)
    assert done.returncode == 0 and summary, (summary, done.stderr[-3000:])
    assert "1500 inputs tried" in summary[0], summary
