"""Input mistakes named once, as a user meets them: unknown fields (a warning, or an error with --strict),
misspelt metric names, a --map source no row has, a missing config file."""
import json
import subprocess
import sys

from conftest import DEMO


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROWS = [{"id": str(i), "answer": f"Paris {i}", "refrences": [f"Paris {i}"], "latency_ms": i} for i in range(5)]


def test_an_unknown_field_warns_once_with_did_you_mean(tmp_path):
    path = write(tmp_path / "d.jsonl", ROWS)
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "--metrics", "exact_match")  # warnings: no -q
    # the misspelt field leaves exact_match nothing to score: the run says so and fails
    assert done.returncode == 1 and "exact_match scored no sample (unscored: no_reference 5)" in done.stderr
    assert done.stderr.count("unknown field 'refrences'") == 1  # once for five rows
    assert f"{path}:1: unknown field 'refrences' is ignored; did you mean 'references'?" in done.stderr
    assert done.stderr.count("unknown field 'latency_ms'") == 1
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert len(summary["meta"]["unknown_fields"]) == 2
    strict = genevals("run", str(path), "--out", str(tmp_path / "s"), "-q", "--metrics", "exact_match", "--strict")
    assert strict.returncode == 2 and "unknown fields (--strict)" in strict.stderr
    assert "did you mean 'references'?" in strict.stderr and not (tmp_path / "s" / "results.jsonl").exists()


def test_metric_names_get_did_you_mean(tmp_path):
    done = genevals("run", str(DEMO), "--out", str(tmp_path / "o"), "-q", "--metrics", "rogue")
    assert done.returncode == 2 and "unknown metric 'rogue'; did you mean 'rouge'?" in done.stderr


def test_a_map_source_no_row_has_exits_2(tmp_path):
    path = write(tmp_path / "d.jsonl", [{"id": "1", "prediction": "a"}])
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "-q", "--map", "answer=predictoin")
    assert done.returncode == 2
    assert "--map answer=predictoin: no row has a field 'predictoin'; did you mean 'prediction'?" in done.stderr
    assert "fields found: id, prediction" in done.stderr


def test_a_missing_config_file_is_named(tmp_path):
    run = tmp_path / "o"
    assert genevals("run", str(DEMO), "--out", str(run), "-q", "--metrics", "exact_match").returncode == 0
    done = genevals("report", str(run), "--config", "nosuch.json")
    assert done.returncode == 2 and "--config nosuch.json: file not found" in done.stderr
