"""A row's ``language`` field, ``--map language=COLUMN`` and ``--language`` / ``language=``, through a real
``genevals run`` process and through ``genevals.evaluate``: what each value becomes in results.jsonl, and that each
bad one is a clear error (exit 2, or a ValueError) naming the file, line and field, or the option.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import genevals
from genevals.input.readers import InputError

REPO = Path(__file__).resolve().parents[2]


def genevals_run(tmp_path: Path, name: str, content: str, *extra: str) -> tuple[subprocess.CompletedProcess, list]:
    data = tmp_path / name
    data.write_text(content, encoding="utf-8")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics",
                           "exact_match", "--no-history", "-q", *extra], capture_output=True, text=True, env=env,
                          timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if done.returncode == 0 else []
    return done, rows


def jsonl(*rows: dict) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def row(i: int, **extra) -> dict:
    return {"id": f"r{i}", "answer": "Paris", "references": ["Paris"], **extra}


# each value, and the language results.jsonl records for its row (None: no field; the run's setting decides)
READ = [("zh", "zh"), ("ZH", "zh"), ("zh-Hant", "zh"), ("zh_Hant_TW", "zh"), ("pt-BR", "pt"), ("PT_br", "pt"),
        ("ｚｈ", "zh"), ("iw", "he"), ("auto", None), ("AUTO", None), ("", None), ("   ", None), (None, None)]


def test_each_value_as_read_from_jsonl(tmp_path):
    done, rows = genevals_run(tmp_path, "in.jsonl", jsonl(*(row(i, language=v) for i, (v, _) in enumerate(READ))))
    assert done.returncode == 0, done.stderr
    assert [r.get("language") for r in rows] == [want for _, want in READ]


def test_each_value_as_read_from_a_mapped_csv_column(tmp_path):
    lines = ["id,answer,references,lang"] + [f"r{i},Paris,Paris,{v or ''}" for i, (v, _) in enumerate(READ)]
    done, rows = genevals_run(tmp_path, "in.csv", "\n".join(lines) + "\n", "--map", "language=lang")
    assert done.returncode == 0, done.stderr
    assert [r.get("language") for r in rows] == [want for _, want in READ]


def test_a_mapped_jsonl_field_wins_over_its_own_language_field(tmp_path):
    content = jsonl(row(1, Sprache="de", language="fr"), row(2, Sprache=None))
    done, rows = genevals_run(tmp_path, "in.jsonl", content, "--map", "language=Sprache")
    assert done.returncode == 0, done.stderr
    assert [r.get("language") for r in rows] == ["de", None]


@pytest.mark.parametrize("literal, said", [
    ("5", "expected an ISO 639-1 code such as 'en' or 'zh', got int"),
    ("1.5", "got float"),
    ("true", "got bool"),
    ('["zh"]', "got list"),
    ('{"code": "zh"}', "got dict"),
    ('"zz"', "'zz' is not an ISO 639-1 language code"),
    ('"english"', "did you mean 'en'?"),
    ('"auto:de"', "'auto:de' is not an ISO 639-1 language code"),
    ('"' + "x" * 1000 + '"', "'" + "x" * 40 + "...' is not"),
    ('"z\\ud800"', "invalid Unicode"),
])
def test_a_bad_field_names_the_file_line_and_field(tmp_path, literal, said):
    middle = json.dumps(row(2, language="@@")).replace('"@@"', literal)
    done, _ = genevals_run(tmp_path, "in.jsonl", jsonl(row(1)) + middle + "\n" + jsonl(row(3)))
    assert done.returncode == 2
    assert "in.jsonl:2: field 'language': " in done.stderr and said in done.stderr, done.stderr
    assert len(done.stderr) < 1000


def test_a_bad_mapped_cell_names_its_column(tmp_path):
    content = "id,answer,references,lang\nr1,Paris,Paris,de\nr2,Paris,Paris,klingon\n"
    done, _ = genevals_run(tmp_path, "in.csv", content, "--map", "language=lang")
    assert done.returncode == 2
    assert "in.csv:3: field 'language': column 'lang': 'klingon' is not an ISO 639-1 language code" in done.stderr


def test_bad_rows_can_be_skipped_with_their_reason(tmp_path):
    done, rows = genevals_run(tmp_path, "in.jsonl", jsonl(row(1, language="zh"), row(2, language=7)),
                              "--on-error", "skip")
    assert done.returncode == 0, done.stderr
    assert [r["id"] for r in rows] == ["r1"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["skipped"][0]["field"] == "language" and "got int" in summary["skipped"][0]["reason"]


@pytest.mark.parametrize("value, said", [
    ("xx", "--language: 'xx' is not an ISO 639-1 language code"),
    ("english", "--language: 'english' is not an ISO 639-1 language code (did you mean 'en'?)"),
    ("", "--language: empty"),
    ("auto:", "--language: 'auto:' needs the language of unsure samples"),
    ("auto:xx", "--language: 'xx' is not"),
    ("e" * 1000, "--language: '" + "e" * 40 + "...' is not"),
])
def test_a_bad_option_is_refused_naming_it_before_anything_is_written(tmp_path, value, said):
    done, _ = genevals_run(tmp_path, "in.jsonl", jsonl(row(1)), "--language", value)
    assert done.returncode == 2
    assert done.stderr.startswith("genevals: error: ") and said in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value, recorded", [("zh-Hant", "zh"), ("auto:pt-BR", "auto:pt"), (" AUTO ", "auto")])
def test_the_option_is_recorded_as_parsed(tmp_path, value, recorded):
    done, _ = genevals_run(tmp_path, "in.jsonl", jsonl(row(1)), "--language", value)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["meta"]["language"] == recorded


# ------------------------------------------------------------------ the API

def test_the_api_reads_the_field_and_records_the_setting():
    results = genevals.evaluate([row(1, language="pt-BR"), row(2, language="auto"), row(3)], ["exact_match"],
                                language="zh-Hant")
    assert [r.sample.language for r in results] == ["pt", None, None]
    assert results.summary()["meta"]["language"] == "zh"


@pytest.mark.parametrize("value, said", [(5, "got int"), ("xx", "'xx' is not"), ("", "empty"),
                                         (["en"], "got list"), ("auto:", "'auto:' needs")])
def test_a_bad_api_argument_names_it(value, said):
    with pytest.raises(InputError) as caught:
        genevals.evaluate([row(1)], ["exact_match"], language=value)
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith("language: ") and said in str(caught.value)


def test_a_bad_api_row_names_its_position_and_field():
    with pytest.raises(ValueError) as caught:
        genevals.evaluate([row(1), row(2, language=["zh"])], ["exact_match"])
    assert "<data>:2" in str(caught.value) and "language" in str(caught.value)
