"""``genevals run FILE -m retrieval`` on a retrieval-only JSONL, CSV or Parquet file (real processes): the columnar
path (:mod:`genevals.input.rows_columns`) writes the run folder the per-sample path writes, byte for byte (the
report from the values it holds, :mod:`genevals.report.held`, but for the folder's name); a file
with anything unusual (a bad row, an unknown field) runs the per-sample path, with its located error or warning."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
#: the CLI, saying on stderr whether the columnar path wrote the folder or handed the file to the per-sample path
MARKED = ("import sys; import genevals.engine.trec_columnar as t; w = t._write\n"
          "def _write(spec, progress, paths, *rest):\n"
          "    print('COLUMNAR' if paths is not None else 'FALLBACK', file=sys.stderr)\n"
          "    return w(spec, progress, paths, *rest)\n"
          "t._write = _write\n"
          "from genevals.cli import main; sys.exit(main(sys.argv[1:]))")
PER_SAMPLE = ("import sys; import genevals.engine.trec_columnar as t; t.applies = lambda spec: False; "
              "from genevals.cli import main; sys.exit(main(sys.argv[1:]))")


def rows(n: int = 50, seed: int = 4) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for q in range(n):
        docs = [f"d{d}" for d in rng.choice(300, int(rng.integers(1, 30)), replace=False)]
        row = {"id": f"q{q}", "question": f"question {q} é", "answer": "", "contexts": [{"id": d} for d in docs]}
        if q % 7 == 0:
            row["relevant"] = [docs[0], "d999"]  # a list of ids: grade 1
        elif q % 11 != 5:  # a few rows without labels: unscored
            pool = list(rng.choice(docs, min(3, len(docs)), replace=False)) + ["d1000"]
            row["relevant"] = {d: int(g) for d, g in zip(pool, rng.integers(0, 4, len(pool)))}
        out.append(row)
    out[3]["relevant"] = {docs_of(out[3])[0]: 0}  # judged, none relevant: no_relevant
    return out


def docs_of(row: dict) -> list[str]:
    return [c["id"] for c in row["contexts"]]


def write(folder: Path, kind: str, data: list[dict]) -> Path:
    if kind == "jsonl":
        path = folder / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
    elif kind == "csv":
        import csv

        path = folder / "rows.csv"
        with open(path, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "question", "answer", "retrieved", "relevant"])
            for r in data:
                writer.writerow([r["id"], r["question"], r["answer"], json.dumps(docs_of(r)),
                                 json.dumps(r["relevant"]) if "relevant" in r else ""])
    elif kind == "parquet-map":  # relevant a map<id, grade> column: pyarrow gives each row (id, grade) pairs
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = folder / "rows.parquet"
        relevant = [None if r.get("relevant") is None else
                    [(d, 1) for d in r["relevant"]] if isinstance(r["relevant"], list) else list(r["relevant"].items())
                    for r in data]
        pq.write_table(pa.table({"id": [r["id"] for r in data], "answer": [r["answer"] for r in data],
                                 "contexts": [r["contexts"] for r in data],
                                 "relevant": pa.array(relevant, pa.map_(pa.string(), pa.float64()))}), path)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = folder / "rows.parquet"
        table = pa.table({"id": [r["id"] for r in data], "query": [r["question"] for r in data],
                          "answer": [r["answer"] for r in data], "contexts": [r["contexts"] for r in data],
                          # a struct column: each row holds every key of the file, None where it has none
                          "relevant": [dict.fromkeys(r["relevant"], 1) if isinstance(r.get("relevant"), list)
                                       else r.get("relevant") for r in data]})
        pq.write_table(table, path)
    return path


def genevals(script: str, args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", script, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **env})


def both(path: Path, folder: Path, extra: list[str] = ()) -> tuple[subprocess.CompletedProcess, ...]:
    args = ["run", str(path), "-m", "retrieval", "--no-history", "-q", "--cutoffs", "1,3,10,20", *extra]
    return (genevals(MARKED, args + ["-o", str(folder / "columnar")]),
            genevals(PER_SAMPLE, args + ["-o", str(folder / "per_sample")]))


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet", "parquet-map"])
def test_the_same_run_folder_as_the_per_sample_path(tmp_path: Path, kind: str) -> None:
    path = write(tmp_path, kind, rows())
    columnar, per_sample = both(path, tmp_path, ["--map", "contexts[].id=retrieved"] if kind == "csv" else [])
    assert columnar.returncode == 0, columnar.stderr
    assert per_sample.returncode == 0, per_sample.stderr
    assert "COLUMNAR" in columnar.stderr
    for name in ("results.jsonl", "summary.json", "manifest.json", "outputs.json", "skipped.jsonl"):
        assert (tmp_path / "columnar" / name).read_bytes() == (tmp_path / "per_sample" / name).read_bytes(), name
    lines = [json.loads(line) for line in (tmp_path / "columnar" / "results.jsonl").read_text().splitlines()]
    statuses = {line["metrics"]["map"]["status"] for line in lines}
    assert statuses == {"ok", "no_relevant", "no_relevance_labels"}
    # the page, from the values the columnar path still held (genevals.report.held), is the one results.jsonl gives
    ours = (tmp_path / "columnar" / "report.html").read_text().replace("columnar", "FOLDER")
    theirs = (tmp_path / "per_sample" / "report.html").read_text().replace("per_sample", "FOLDER")
    assert ours == theirs


def test_a_bad_row_gets_the_per_sample_paths_located_error(tmp_path: Path) -> None:
    data = rows(10)
    data[6]["relevant"] = {"d1": "high"}
    columnar, per_sample = both(write(tmp_path, "jsonl", data), tmp_path)
    assert columnar.returncode == per_sample.returncode == 2, columnar.stderr
    assert "FALLBACK" in columnar.stderr and "Traceback" not in columnar.stderr
    assert "rows.jsonl:7: field 'relevant.d1'" in columnar.stderr
    said = [line for line in columnar.stderr.splitlines() if line not in ("FALLBACK", "COLUMNAR")]
    assert said == per_sample.stderr.splitlines()


def test_a_bad_grade_in_a_parquet_map_gets_the_per_sample_paths_located_error(tmp_path: Path) -> None:
    data = rows(10)
    data[4]["relevant"] = {docs_of(data[4])[0]: 1e9}  # past the grades' range (-100 to 100)
    columnar, per_sample = both(write(tmp_path, "parquet-map", data), tmp_path)
    assert columnar.returncode == per_sample.returncode == 2, columnar.stderr
    assert "FALLBACK" in columnar.stderr and "Traceback" not in columnar.stderr
    assert f"rows.parquet:5: field 'relevant.{docs_of(data[4])[0]}'" in columnar.stderr
    said = [line for line in columnar.stderr.splitlines() if line not in ("FALLBACK", "COLUMNAR")]
    assert said == per_sample.stderr.splitlines()


def test_an_unusual_row_is_scored_by_the_per_sample_path(tmp_path: Path) -> None:
    """A context with text, an unknown field: the per-sample path reads the file, its warning included."""
    data = rows(10)
    data[2]["contexts"][0]["text"] = "a chunk"
    data[5]["notes"] = "x"
    columnar, per_sample = both(write(tmp_path, "jsonl", data), tmp_path)
    assert columnar.returncode == per_sample.returncode == 0, columnar.stderr
    assert "FALLBACK" in columnar.stderr
    for name in ("results.jsonl", "summary.json"):
        assert (tmp_path / "columnar" / name).read_bytes() == (tmp_path / "per_sample" / name).read_bytes(), name
    assert "notes" in (tmp_path / "columnar" / "summary.json").read_text()


def test_a_baseline_from_history(tmp_path: Path) -> None:
    """--baseline checks the run's ids before writing: the columnar path hands them over too (it had none)."""
    path = write(tmp_path, "jsonl", rows(10))
    history = {"GENEVALS_HISTORY": str(tmp_path / "h.sqlite")}
    first = genevals(MARKED, ["run", str(path), "-m", "retrieval", "-q", "-o", str(tmp_path / "a")], **history)
    assert first.returncode == 0, first.stderr
    again = genevals(MARKED, ["run", str(path), "-m", "retrieval", "-q", "-o", str(tmp_path / "b"), "--baseline",
                              "latest"], **history)
    assert again.returncode == 0, again.stderr
    assert "COLUMNAR" in again.stderr


def _lines(data: list[dict]) -> list[str]:
    return [json.dumps(r) for r in data]


#: hostile JSONL files (issue 40's sixth pass reads JSONL in blocks, checked at once): each reads as the per-sample
#: path reads it, the columnar path writing the same folder where the file is plain, else the same located error
HOSTILE = {
    "bom_blank_crlf": lambda ls: "\ufeff" + "\r\n".join(ls[:3] + ["", "   "] + ls[3:]) + "\r\n",
    "escaped_pair": lambda ls: "\n".join([ls[0].replace('"question 0', '"\\ud83d\\ude00 question 0', 1), *ls[1:]]),
    "lone_surrogate": lambda ls: "\n".join([*ls[:4], ls[4].replace('"question 4', '"\\udc80', 1), *ls[5:]]) + "\n",
    "bad_line_last": lambda ls: "\n".join(ls) + '\n{"id": "last", "answer": "", "contexts": [{"id": "d1"}\n',
    "huge_id": lambda ls: "\n".join([*ls[:2], ls[2].replace('"id": "q2"', '"id": ' + "9" * 30, 1), *ls[3:]]),
    "non_dict_context": lambda ls: "\n".join([*ls[:5], ls[5].replace('"contexts": [', '"contexts": ["d7", ', 1),
                                             *ls[6:]]),
    "answer_a_number": lambda ls: "\n".join([*ls[:6], ls[6].replace('"answer": ""', '"answer": 3', 1), *ls[7:]]),
    "question_a_list": lambda ls: "\n".join([*ls[:1], ls[1].replace('"question 1 \\u00e9"', '["q"]', 1), *ls[2:]]),
    "id_a_float": lambda ls: "\n".join([*ls[:3], ls[3].replace('"id": "q3"', '"id": 3.5', 1), *ls[4:]]),
    "system_a_number": lambda ls: "\n".join(line.replace('{"id"', '{"system": 5, "id"', 1) for line in ls),
    "context_id_a_number": lambda ls: "\n".join([*ls[:8], ls[8].replace('"contexts": [{"id": "',
                                                                        '"contexts": [{"id": 8}, {"id": "', 1), *ls[9:]]),
    "grade_a_bool": lambda ls: "\n".join([*ls[:2], ls[2].replace('"relevant": {"', '"relevant": {"dX": true, "', 1),
                                          *ls[3:]]),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_jsonl_file_reads_as_the_per_sample_path_reads_it(tmp_path: Path, case: str) -> None:
    lines = _lines(rows(12))
    text = HOSTILE[case](lines)
    assert text != "\n".join(lines), case  # the case changed the file
    path = tmp_path / "rows.jsonl"
    path.write_bytes(text.encode("utf-8"))
    columnar, per_sample = both(path, tmp_path)
    assert columnar.returncode == per_sample.returncode, columnar.stderr
    assert "Traceback" not in columnar.stderr
    said = [line for line in columnar.stderr.splitlines() if line not in ("FALLBACK", "COLUMNAR")]
    assert said == per_sample.stderr.splitlines()
    if columnar.returncode == 0:
        assert ("COLUMNAR" in columnar.stderr) == (case in ("bom_blank_crlf", "escaped_pair")), case
        for name in ("results.jsonl", "summary.json", "manifest.json", "outputs.json", "skipped.jsonl"):
            assert (tmp_path / "columnar" / name).read_bytes() == (tmp_path / "per_sample" / name).read_bytes()
    else:  # the per-sample path's error: the file, the line and the field
        assert "FALLBACK" in columnar.stderr and "rows.jsonl:" in columnar.stderr
