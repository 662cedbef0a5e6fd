"""genevals.input.rows_plain (through read_rows_columns): the block-at-once checks accept exactly the files the
row-by-row reader (``_RowReader.add`` over ``read_raw``, the reference) accepts, with the same columns, and a file
either refuses is NotPlain for both. Hostile rows, generated (seeded) and written out one by one."""
from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from genevals.engine.manifest import InputDigest
from genevals.input import jsonl_blocks, rows_columns, rows_plain
from genevals.input.readers import read_raw
from genevals.input.rows import RowValidator
from genevals.input.rows_columns import NotPlain, read_rows_columns


def reference(path: Path, column_map: dict | None = None) -> rows_columns.RowsRun:
    """The row-by-row reading: every row through _RowReader.add, as read_raw gives it."""
    validator = RowValidator(column_map)
    if set(validator.parts) - {"id"}:
        raise NotPlain("parts")
    reader = rows_columns._RowReader(validator, validator.parts.get("id"))
    reader.add_all(read_raw(path))
    if not reader.lines:
        raise NotPlain("no rows")
    return reader.run()


def outcome(read, *args) -> object:
    try:
        got = read(*args)
    except NotPlain:
        return "NotPlain"
    cols = got.columns
    return {"topics": cols.topics, "starts": cols.starts.tolist(), "docs": cols.docs.to_pylist(),
            "scores": cols.scores.tolist(), "grades": cols.grades.tolist(), "judged": cols.judged.tolist(),
            "lines": cols.first_line.tolist(), "questions": got.questions, "answers": got.answers,
            "system": got.system, "source": got.source,
            "labels": [None if lab is None else (lab[0], lab[1].tolist(), lab[1].dtype.str) for lab in cols.labels],
            "dtypes": [a.dtype.str for a in (cols.starts, cols.grades, cols.judged, cols.first_line)]}


def same(path: Path, column_map: dict | None = None) -> object:
    ours, theirs = outcome(read_rows_columns, path, column_map, None), outcome(reference, path, column_map)
    assert ours == theirs
    return ours


def plain_row(rng: random.Random, q: int) -> dict:
    docs = rng.sample(range(60), rng.randint(1, 8))
    row = {"id": f"q{q}", "answer": "", "contexts": [{"id": f"d{d}"} for d in docs]}
    if rng.random() < 0.8:
        row["relevant"] = {f"d{d}": rng.randint(0, 3) for d in rng.sample(range(60), rng.randint(0, 5))}
    if rng.random() < 0.3:
        row["question"] = "une question é"
    return row


#: values a row's field takes here: most make the file NotPlain, some keep it plain
SPOILS = {
    "id": [7, -3, 10**18 - 1, -(10**18) + 1, 10**18, -(10**18), 10**30, 2.5, True, None, "", [1], {"a": 1}, "q0", "1",
           float("nan")],
    "answer": [None, 3, ["a"], "text", "", float("nan"), True],
    "question": [None, 3, float("nan"), ["q"], "q", "", {"q": 1}],
    "system": ["default", "other", "", None, 5, ["a"], float("nan")],
    "contexts": [[], "d1", None, [{"id": "d1"}, {"id": "d1"}], ["d1"], [None], [{"id": 5}], [{"id": None}],
                 [{"doc": "d1"}], [{}], [[1]], [{"id": "d1", "text": "t"}], {"id": "d1"}, [{"id": ""}],
                 [{"id": "d1"}, {"id": "d2"}, {"id": "d1"}], [{"id": "d1"}, "d2"], [{"id": ["d1"]}]],
    "relevant": [None, [], {}, ["d1", "d2", "d1"], ["d1", 2], [None], "d1", 3, {"d1": True}, {"d1": None},
                 {"d1": "2"}, {"d1": 101}, {"d1": -100}, {"d1": 100.0}, {"d1": -100.5}, {"d1": float("nan")},
                 {"d1": float("inf")}, {"d1": 10**400}, {"d1": 2.5}, {"d1": [1]}, {"d1": {"g": 1}},
                 {"d1": 1, "d2": None}, float("nan")],
    "notes": ["x"],  # an unknown field
    "retrieved_contexts": [[{"id": "d0"}]],  # contexts twice, by name and alias
}
#: the same rows, renamed or spoiled otherwise
RENAMES = [
    lambda r: r.pop("id"),
    lambda r: r.pop("answer"),
    lambda r: r.pop("relevant", None),
    lambda r: r.__setitem__("retrieved_contexts", r.pop("contexts")),  # an alias
    lambda r: r.__setitem__("query", r.pop("question", "q")),
    lambda r: r.__setitem__("user_input", "q") or r.__setitem__("question", "q"),  # one of them is not read
]
CASES = [(f, v) for f, vs in SPOILS.items() for v in vs] + [("rename", i) for i in range(len(RENAMES))]


def spoil(row: dict, case: tuple) -> None:
    field, value = case
    if field == "rename":
        RENAMES[value](row)
    else:
        row[field] = value


@pytest.mark.parametrize("at", [0, 3, "all"])
def test_one_hostile_field(tmp_path: Path, at) -> None:
    """Each field's wrong (or unusual) values, in one row of a file of plain rows or in all of them: read as
    row by row reads them."""
    rng = random.Random(7)
    for n, case in enumerate(CASES):
        rows = [plain_row(rng, q) for q in range(6)]
        for row in rows:
            row["relevant"] = {"d1": 1, **row.get("relevant", {})}
        for row in rows if at == "all" else [rows[at]]:
            spoil(row, case)
        path = tmp_path / f"r{n}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        same(path)


@pytest.mark.parametrize("ids", ["abc", ["a", 5], [], ["a", "a"], None, [["a"]], {"a": 1}, [None], [""], 3])
@pytest.mark.parametrize("at", [1, "all"])
def test_a_hostile_mapped_id_column(tmp_path: Path, ids, at) -> None:
    rows = [{"qid": f"q{i}", "answer": "", "ids": [f"d{i}", "e"], "relevant": {"e": 1}} for i in range(4)]
    for row in rows if at == "all" else [rows[at]]:
        row["ids"] = ids
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    same(path, {"id": "qid", "contexts[].id": "ids"})
    rows[2]["contexts"] = [{"id": "x"}]  # contexts by name and by --map: not plain
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert same(path, {"id": "qid", "contexts[].id": "ids"}) == "NotPlain"


def write_lines(path: Path, rows: list, rng: random.Random) -> None:
    """Rows as JSONL, with the odd line: blank, spaces, CRLF, a BOM, escapes, a bad line, a non-object."""
    lines = []
    for row in rows:
        text = json.dumps(row, ensure_ascii=rng.random() < 0.5)
        if rng.random() < 0.5:  # keys in another order
            text = json.dumps(dict(sorted(row.items(), reverse=True)) if isinstance(row, dict) else row)
        lines.append(text)
    extra = rng.random()
    if extra < 0.05:
        lines.insert(rng.randrange(len(lines) + 1), "")
    elif extra < 0.1:
        lines.insert(rng.randrange(len(lines) + 1), "  \t ")
    elif extra < 0.15:
        lines[-1] = lines[-1][:-3]  # a bad line last
    elif extra < 0.2:
        lines[rng.randrange(len(lines))] = "   " + lines[0]  # leading space: json.loads takes it
    elif extra < 0.25:
        lines[rng.randrange(len(lines))] = lines[0].replace('"q', '"\\ud83d\\ude00q', 1)  # a valid pair
    elif extra < 0.3:
        lines[rng.randrange(len(lines))] = lines[0].replace('"q', '"\\ud800q', 1)  # a lone surrogate
    elif extra < 0.33:
        lines.append("[1, 2]")
    elif extra < 0.36:
        lines.append('{"answer": "", "contexts": [{"id": "x"}]} {"answer": ""}')  # two values on a line
    ending = "\r\n" if rng.random() < 0.1 else "\n"
    data = ending.join(lines) + ("" if rng.random() < 0.2 else ending)
    raw = data.encode("utf-8")
    if rng.random() < 0.1:
        raw = b"\xef\xbb\xbf" + raw
    if rng.random() < 0.03:
        raw = raw.replace(b"answer", b"answ\xffer", 1)  # invalid UTF-8
    path.write_bytes(raw)


@pytest.mark.parametrize("size", [None, 97, 4096])
def test_generated_files_read_as_row_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size) -> None:
    monkeypatch.setattr(jsonl_blocks, "BLOCK", size or jsonl_blocks.BLOCK)  # small: rows cross many blocks
    plain = 0
    for seed in range(150):
        rng = random.Random(seed)
        rows = [plain_row(rng, q) for q in range(rng.randint(1, 14))]
        for row in rows:
            if rng.random() < 0.12:
                spoil(row, rng.choice(CASES))
        path = tmp_path / f"r{seed}.jsonl"
        write_lines(path, rows, rng)
        plain += same(path) != "NotPlain"
    assert 20 < plain < 140  # both kinds of file were tried


def test_mixed_shapes_aliases_and_a_mapped_id_column(tmp_path: Path) -> None:
    rows = [{"id": "a", "answer": "", "contexts": [{"id": "x"}], "relevant": {"x": 1}},
            {"answer": "b", "retrieved_contexts": [{"id": "y"}, {"id": "x"}]},  # no id: its line
            {"user_input": "q", "id": 3, "response": "", "contexts": [{"id": "z"}], "relevant": ["z", "y", "z"]},
            {"relevant": {"y": 2.5, "w": -1}, "contexts": [{"id": "y"}], "answer": "", "system": "default"}]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = same(path)
    assert got["topics"] == ["a", "2", "3", "4"] and got["grades"] == [1.0, 0.0, 0.0, 1.0, 2.5]
    mapped = tmp_path / "m.jsonl"
    mapped.write_text("".join(json.dumps({"qid": f"q{i}", "answer": "", "ids": [f"d{i}", "e"],
                                          "relevant": {"e": i}}) + "\n" for i in range(5)))
    got = same(mapped, {"id": "qid", "contexts[].id": "ids"})
    assert got["docs"][:4] == ["d0", "e", "d1", "e"] and got["judged"][:2] == [False, True]
    spoiled = tmp_path / "s.jsonl"
    spoiled.write_text(mapped.read_text().replace('"e"]', '5]', 1))
    assert same(spoiled, {"id": "qid", "contexts[].id": "ids"}) == "NotPlain"


def test_blocks_keep_line_numbers_and_the_digest(tmp_path: Path) -> None:
    lines = ['{"answer": "", "contexts": [{"id": "%s"}]}' % ("d" * n) for n in range(1, 40)]
    lines[5] = ""
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode())
    for size in (7, 64, 1 << 20):
        digest = InputDigest()
        with open(path, "rb") as handle:
            got = list(jsonl_blocks.blocks(str(path), handle, digest, size))
        assert all(isinstance(b, jsonl_blocks.Parsed) for b in got)
        assert [n for b in got for n in b.lines] == [n for n in range(1, 40) if n != 6]
        whole = InputDigest()
        whole.update(path.read_bytes())
        assert digest.hexdigest() == whole.hexdigest()
    assert same(path)["lines"][:6] == [1, 2, 3, 4, 5, 7]


def test_a_block_the_scanner_cannot_take_is_read_line_by_line(tmp_path: Path) -> None:
    """A lone surrogate, bad UTF-8, a bad line: the block comes back as read_raw's rows and errors."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"answer": "\\ud800"}\n\n{"answer": "\xff"}\n{"a"\n')
    with open(path, "rb") as handle:
        (block,) = jsonl_blocks.blocks(str(path), handle)
    assert [str(x) for x in block] == [str(x) for x in read_raw(path)]
    assert [getattr(x, "line", None) for x in block] == [1, 3, 4]


def test_a_huge_file_is_read_block_by_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many blocks (a small BLOCK): the columns are those of one block, in order."""
    monkeypatch.setattr(jsonl_blocks, "BLOCK", 1000)
    rng = random.Random(3)
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(plain_row(rng, q)) + "\n" for q in range(300)))
    got = same(path)
    assert len(got["topics"]) == 300 and got["lines"] == list(range(1, 301))


def test_grades_are_the_rows_numbers_as_floats(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"answer": "", "contexts": [{"id": "a"}, {"id": "b"}], "relevant": {"b": 3, "a": -0.5, '
                    '"c": 100}}\n')
    got = same(path)
    assert got["grades"] == [-0.5, 3.0] and got["labels"][0][:2] == (["b", "a", "c"], [3.0, -0.5, 100.0])
    assert not any(math.isnan(g) for g in got["grades"])


def test_plans_are_made_once_per_set_of_names() -> None:
    plans = rows_plain.Plans(RowValidator(None)._rename, rows_columns.PLAIN, None)
    assert plans[("id", "answer", "contexts")] == {"id": "id", "answer": "answer", "contexts": "contexts"}
    assert plans[("answer", "contexts", "notes")] is None  # an unknown field
    assert plans[("answer", "contexts", "retrieved_contexts")] is None  # one of the two is not read
    assert plans[("answer", "contexts", "é")] is None
    assert len(plans.known) == 4


@pytest.mark.parametrize("texts", [["d1", "", "d22"], ["é", "x", "日本", "🙂"], [], ["a"] * 5])
def test_string_array_is_pa_array(texts: list[str]) -> None:
    import pyarrow as pa

    for parts in ([rows_plain.encoded(texts)], [rows_plain.encoded(texts[:1]), rows_plain.encoded(texts[1:])]):
        ours = rows_plain.string_array(parts)
        ours.validate(full=True)
        assert ours.equals(pa.array(texts, pa.string())) and ours.type == pa.string()
    with pytest.raises(TypeError):
        rows_plain.encoded([*texts, None])


def test_non_ascii_context_ids(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({"answer": "", "contexts": [{"id": d} for d in ids], "relevant": {"日本": 2}},
                                       ensure_ascii=False) + "\n" for ids in (["é", "日本"], ["日本", "🙂", "e"])))
    assert same(path)["docs"] == ["é", "日本", "日本", "🙂", "e"]


def test_reading_rows_does_not_import_pandas(tmp_path: Path) -> None:
    """pa.array looks for pandas objects, importing pandas (some 0.15 s) into a run with no use for it, and
    pyarrow.compute costs 0.03 s more: a real process reads a file and says whether either came in."""
    import subprocess
    import sys

    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(plain_row(random.Random(q), q)) + "\n" for q in range(50)))
    code = ("import sys; from genevals.input.rows_columns import read_rows_columns; "
            f"got = read_rows_columns({str(path)!r}, None, None); "
            "print(len(got.columns.topics), 'pandas' in sys.modules, 'pyarrow.compute' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.stdout.split() == ["50", "False", "False"], done.stderr
