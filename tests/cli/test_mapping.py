"""Mapping a flat export from the command line (issue 29): nested --map targets, --map-file, --show-mapping,
Python literal list cells, contexts without text, and one error per problem rather than per row."""
import json
import subprocess
import sys


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


HEADER = "question,expected_url,retrieved_top1_url,answer,expected_answer,method\n"
ROWS = ('Where is Paris?,https://a,https://a,In France,In France,bm25\n'
        '"Where is Rome?","[\'https://b\', \'https://c\']",https://x,Italy,In Italy,bm25\n'
        'Where is Paris?,https://a,https://z,France,In France,dense\n'
        '"Where is Rome?","[\'https://b\', \'https://c\']",https://c,In Italy,In Italy,dense\n')
MAPS = ["--map", "id=question", "--map", "system=method", "--map", "relevant=expected_url",
        "--map", "contexts[].doc_id=retrieved_top1_url", "--map", "references=expected_answer"]


def test_a_flat_export_scores_through_nested_maps(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(HEADER + ROWS)
    out = tmp_path / "o"
    done = genevals("run", str(path), "--out", str(out), "--metrics", "hit_rate@1,token_f1,faithfulness",
                    *MAPS)  # not -q: the warnings are checked
    # faithfulness has no text to check in any sample: the run says so (exit 1), and never scores it 0
    assert done.returncode == 1, done.stderr
    assert "faithfulness scored no sample of any system (unscored: empty_context 4)" in done.stderr
    # the Python literal lists are read, with one warning naming the column (not one per row)
    assert done.stderr.count("column 'expected_url' holds Python literals") == 1, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["systems"]["bm25"]["hit_rate@1"]["mean"] == 0.5
    assert summary["systems"]["dense"]["hit_rate@1"]["mean"] == 0.5
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    first = next(r for r in results if r["system"] == "bm25" and r["id"] == "Where is Rome?")
    assert first["relevant"] == {"https://b": 1.0, "https://c": 1.0}
    assert first["contexts"] == [{"text": "", "rank": 1, "id": None, "doc_id": "https://x", "score": None}]
    faithful = first["metrics"]["faithfulness"]
    assert faithful["status"] == "empty_context" and faithful["value"] is None
    assert "carry ids but no text" in faithful["reason"] and "contexts[].text=COLUMN" in faithful["reason"]
    strict = genevals("run", str(path), "--out", str(tmp_path / "s"), "-q", "--metrics", "token_f1", "--strict",
                      *MAPS)
    assert strict.returncode == 2 and "list cells that are not JSON (--strict)" in strict.stderr, strict.stderr


def test_show_mapping_prints_the_first_mapped_row_and_exits(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(HEADER + ROWS)
    mapping = tmp_path / "mapping.toml"
    mapping.write_text('id = "question"\nsystem = "method"\nrelevant = "expected_url"\n'
                       '[contexts]\ndoc_id = "retrieved_top1_url"\n')
    out = tmp_path / "never"
    done = genevals("run", str(path), "--out", str(out), "--map-file", str(mapping), "--show-mapping")
    assert done.returncode == 0, done.stderr
    head, _, body = done.stdout.partition("\n")
    assert head == f"{path}:2 read through the mapping:"
    row = json.loads(body)
    assert (row["id"], row["system"], row["relevant"]) == ("Where is Paris?", "bm25", {"https://a": 1.0})
    assert row["contexts"] == [{"text": "", "rank": 1, "id": None, "doc_id": "https://a", "score": None}]
    assert not out.exists()  # nothing scored, nothing written


def test_bad_mappings_exit_2_with_did_you_mean(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(HEADER + ROWS)
    mapping = tmp_path / "mapping.toml"
    mapping.write_text('id = "questoin"\nsystem = "method"\n')
    for extra in (["--show-mapping"], ["-q", "--metrics", "token_f1"]):
        done = genevals("run", str(path), "--out", str(tmp_path / "o"), "--map-file", str(mapping), *extra)
        assert done.returncode == 2, done.stderr
        assert f"--map-file {mapping}: id = \"questoin\":" in done.stderr
        assert "did you mean 'question'?" in done.stderr and "Traceback" not in done.stderr
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "--map", "contexts[].docid=url")
    assert done.returncode == 2 and "did you mean 'contexts[].doc_id'?" in done.stderr
    mapping.write_text('[contexts]\nurl = "retrieved_top1_url"\n')
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "--map-file", str(mapping), "--show-mapping")
    assert done.returncode == 2 and "unknown part of a context" in done.stderr


def test_a_problem_every_row_shares_is_reported_once_with_the_count(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("answer,ctx\n" + "".join(f'a{i},"[{{""score"": 1}}]"\n' for i in range(300)))
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "-q", "--metrics", "token_f1",
                    "--map", "contexts=ctx")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2, done.stderr  # the headline and the one problem
    assert lines[0].startswith("genevals: error: 300 bad row(s)")
    assert lines[1] == (f"  {path}:2: field 'contexts[0]': a context needs its text, an id or a doc_id (retrieval "
                        "metrics read the ids, the others the text) [every row: 300 rows (lines 2, 3, 4, 5, 6, ...)]")
