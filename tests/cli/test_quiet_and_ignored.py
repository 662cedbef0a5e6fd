"""``-q`` prints errors and gate results only, and ``--ignore-fields`` (or a mapping file's ``ignore`` list)
silences the unknown-column warnings for the columns it names; the warnings stay in summary.json. In real
processes, on a seed-like CSV: three systems, extra columns, lists written as Python literals."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXTRA = ("latency_ms", "retriever", "gold_note")


def genevals(*args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "genevals", *args, "--no-history"], capture_output=True, text=True,
                          env=env, timeout=300)


def seed_csv(path, literals=True):
    rows = []
    for i in range(4):
        for system in ("dense", "sparse", "hybrid"):
            lists = {"contexts": [f"{i} is a number", "other"], "references": [f"{i} things"]}
            rows.append({"id": f"q{i}", "question": f"What is {i}?", "answer": f"It is {i} things", "system": system,
                         **{k: str(v) if literals else json.dumps(v) for k, v in lists.items()},
                         "latency_ms": 12, "retriever": "bm25", "gold_note": "x"})
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def warnings(stderr):
    return [line for line in stderr.splitlines() if line.startswith("genevals: warning:")]


def test_quiet_prints_no_warning_and_summary_keeps_them(tmp_path):
    data = seed_csv(tmp_path / "seed.csv")
    loud = genevals("run", data, "-o", str(tmp_path / "loud"), "-m", "token_f1")
    assert loud.returncode == 0, loud.stderr
    assert len(warnings(loud.stderr)) == 5  # three extra columns, two columns of Python literals
    quiet = genevals("run", data, "-o", str(tmp_path / "quiet"), "-m", "token_f1", "-q")
    # the answer only: with two systems, the finding (docs/how-to/compare-systems.md), no table, no warning
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    assert quiet.stdout == "finding: no single leader on token_f1\n"
    meta = json.loads((tmp_path / "quiet" / "summary.json").read_text())["meta"]
    assert len(meta["unknown_fields"]) == 5


def test_quiet_still_prints_gate_results_and_errors(tmp_path):
    data = seed_csv(tmp_path / "seed.csv")
    missed = genevals("run", data, "-o", str(tmp_path / "o"), "-m", "token_f1", "-q", "--fail-under", "token_f1=0.99")
    assert missed.returncode == 1
    assert [line for line in missed.stderr.splitlines() if line.startswith("genevals: threshold missed:")]
    assert not warnings(missed.stderr)
    bad = genevals("run", data, "-o", str(tmp_path / "b"), "-m", "tokn_f1", "-q")
    assert bad.returncode == 2 and "genevals: error:" in bad.stderr


def test_ignore_fields_silences_those_columns_only(tmp_path):
    data = seed_csv(tmp_path / "seed.csv")
    done = genevals("run", data, "-o", str(tmp_path / "o"), "-m", "token_f1", "--ignore-fields", ",".join(EXTRA))
    assert done.returncode == 0, done.stderr
    shown = warnings(done.stderr)
    assert not [line for line in shown if "unknown field" in line], done.stderr
    assert len(shown) == 2 and all("holds Python literals" in line for line in shown)  # not an extra column
    meta = json.loads((tmp_path / "o" / "summary.json").read_text())["meta"]
    assert meta["ignored_fields"] == list(EXTRA) and len(meta["unknown_fields"]) == 2
    verbose = genevals("run", data, "-o", str(tmp_path / "v"), "-m", "token_f1", "-v", "--ignore-fields",
                       ",".join(EXTRA))
    assert f"genevals: note: ignored fields (no warning names them): {', '.join(EXTRA)}" in verbose.stderr


def test_strict_passes_with_the_extra_columns_ignored(tmp_path):
    data = seed_csv(tmp_path / "seed.csv", literals=False)
    refused = genevals("run", data, "-o", str(tmp_path / "a"), "-m", "token_f1", "--strict", "-q")
    assert refused.returncode == 2 and "unknown fields (--strict)" in refused.stderr
    passed = genevals("run", data, "-o", str(tmp_path / "b"), "-m", "token_f1", "--strict", "-q",
                      "--ignore-fields", ",".join(EXTRA))
    assert passed.returncode == 0 and passed.stderr == "", passed.stderr


def test_a_mapping_file_s_ignore_list(tmp_path):
    data = seed_csv(tmp_path / "seed.csv", literals=False)
    mapfile = tmp_path / "map.toml"
    mapfile.write_text('ignore = ["latency_ms", "retriever"]\n')
    done = genevals("run", data, "-o", str(tmp_path / "o"), "-m", "token_f1", "--map-file", str(mapfile),
                    "--ignore-fields", "gold_note")
    assert done.returncode == 0 and warnings(done.stderr) == [], done.stderr
    mapfile.write_text('ignore = "latency_ms"\n')
    bad = genevals("run", data, "-o", str(tmp_path / "b"), "-m", "token_f1", "--map-file", str(mapfile))
    assert bad.returncode == 2
    assert f"{mapfile}: ignore: expected a list of column names" in bad.stderr and "Traceback" not in bad.stderr


def test_ignoring_a_read_column_is_refused_and_a_misspelt_one_warns(tmp_path):
    data = seed_csv(tmp_path / "seed.csv", literals=False)
    read = genevals("run", data, "-o", str(tmp_path / "a"), "-m", "token_f1", "--ignore-fields", "answer")
    assert read.returncode == 2 and "--ignore-fields: 'answer' is a field genevals reads" in read.stderr
    misspelt = genevals("run", data, "-o", str(tmp_path / "b"), "-m", "token_f1", "--ignore-fields",
                        "latncy_ms,retriever,gold_note")
    assert misspelt.returncode == 0
    assert "genevals: warning: ignored field 'latncy_ms': no row has it; did you mean 'latency_ms'?" \
        in misspelt.stderr.splitlines(), misspelt.stderr
