"""The command line as a user runs it: exit codes, files, messages."""
import json
import subprocess
import sys

import pytest

from conftest import DEMO


def genevals(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


GOOD = [{"id": "1", "answer": "Paris is the capital", "references": ["Paris is the capital of France"],
         "contexts": ["Paris is the capital of France."], "relevant": ["1"]}]


def test_run_writes_results_and_summary(tmp_path):
    done = genevals("run", str(write(tmp_path / "d.jsonl", GOOD)), "--out", str(tmp_path / "out"), "-q")
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["systems"]["default"]["mrr"]["mean"] == 1.0
    assert (tmp_path / "out" / "results.jsonl").read_text().count("\n") == 1


def test_short_flags_equal_the_long_ones(tmp_path):
    path = write(tmp_path / "d.jsonl", GOOD)
    long = genevals("run", str(path), "--out", str(tmp_path / "long"), "--metrics", "token_f1,mrr", "-q")
    short = genevals("run", str(path), "-o", str(tmp_path / "short"), "-m", "token_f1,mrr", "-q")
    assert long.returncode == short.returncode == 0, short.stderr
    assert (tmp_path / "short" / "results.jsonl").read_text() == (tmp_path / "long" / "results.jsonl").read_text()
    assert set(json.loads((tmp_path / "short" / "summary.json").read_text())["systems"]["default"]) >= {
        "token_f1", "mrr"}


def test_bad_input_exits_2_naming_file_line_and_field(tmp_path):
    path = write(tmp_path / "d.jsonl", GOOD + [{"id": "2", "contexts": ["x"]}])
    done = genevals("run", str(path), "--out", str(tmp_path / "out"), "-q")
    assert done.returncode == 2
    assert f"{path}:2: field 'answer': missing answer" in done.stderr


def test_skip_mode_goes_on(tmp_path):
    path = write(tmp_path / "d.jsonl", GOOD + [{"id": "2", "answer": ["not", "text"]}])
    done = genevals("run", str(path), "--out", str(tmp_path / "out"), "--on-error", "skip")
    assert done.returncode == 0, done.stderr
    assert "skipped" in done.stderr and "field" in (tmp_path / "out" / "skipped.jsonl").read_text()


def test_fail_under_exits_1(tmp_path):
    path = write(tmp_path / "d.jsonl", GOOD)
    passed = genevals("run", str(path), "--out", str(tmp_path / "a"), "-q", "--fail-under", "mrr=0.6")
    missed = genevals("run", str(path), "--out", str(tmp_path / "b"), "-q", "--fail-under", "exact_match=0.5")
    assert passed.returncode == 0 and missed.returncode == 1
    assert "exact_match = 0.0000 < 0.5" in missed.stderr


def test_map_reads_other_schemas(tmp_path):
    path = write(tmp_path / "d.jsonl", [{"uid": "a", "pred": "blue", "gold": "blue"}])
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "-q", "--map", "answer=pred",
                    "--map", "references=gold", "--map", "id=uid", "--metrics", "exact_match")
    assert done.returncode == 0, done.stderr
    line = json.loads((tmp_path / "o" / "results.jsonl").read_text())
    assert line["id"] == "a" and line["metrics"]["exact_match"]["value"] == 1.0


def test_unknown_metric_is_bad_input(tmp_path):
    done = genevals("run", str(write(tmp_path / "d.jsonl", GOOD)), "--metrics", "nonsense", "--out",
                    str(tmp_path / "o"))
    assert done.returncode == 2 and "unknown metric 'nonsense'" in done.stderr


def test_metrics_lists_definitions_and_signatures():
    done = genevals("metrics")
    assert done.returncode == 0
    for name in ("token_f1", "rougeL", "bleu", "ndcg@10", "err@5", "first_relevant_rank", "auc"):
        assert name in done.stdout
    assert "norm:mlqa-v1+unicode-nfkc" in done.stdout


def test_demo_quick_start_runs(tmp_path):
    if not DEMO.exists():
        pytest.skip("demo data not present")
    done = genevals("run", str(DEMO), "--out", str(tmp_path / "demo"), "--metrics", "all")  # as in the README
    assert done.returncode == 0, done.stderr
    summary = json.loads((tmp_path / "demo" / "summary.json").read_text())
    assert set(summary["systems"]) == {"dense", "sparse", "hybrid"}
    assert summary["n_samples"] == 90
    assert {"grounding", "bertscore", "rouge", "retrieval"} <= set(summary["signatures"])
    assert summary["systems"]["dense"]["faithfulness"]["statuses"]["refusal"] == 1
    assert (tmp_path / "demo" / "report.html").stat().st_size > 10_000


def test_resume_refuses_a_different_run(tmp_path):
    """--resume continues the same run only: another input, metric set or option exits 2 naming what differs,
    and leaves the folder's results as they were."""
    path = write(tmp_path / "d.jsonl", GOOD + [{"id": "2", "answer": "Lyon", "references": ["Lyon"]}])
    out = tmp_path / "out"
    assert genevals("run", str(path), "--out", str(out), "-q", "--metrics", "exact_match").returncode == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["input_rows"] == 2 and list(manifest["metrics"]) == ["exact_match"]
    before = (out / "results.jsonl").read_text()
    same = genevals("run", str(path), "--out", str(out), "-q", "--metrics", "exact_match", "--resume")
    assert same.returncode == 0, same.stderr
    changed = write(tmp_path / "d2.jsonl", GOOD + [{"id": "2", "answer": "Nice", "references": ["Lyon"]}])
    cases = [
        ([str(changed), "--metrics", "exact_match"], "the input: "),
        ([str(path), "--metrics", "exact_match,token_f1"], "the metrics: exact_match were scored, now exact_match, "
                                                           "token_f1"),
        ([str(path), "--metrics", "exact_match", "--seed", "7"], "the option seed: 12345 was used, now 7"),
        ([str(path), "--metrics", "exact_match", "--map", "question=answer"], "the option column_map"),
    ]
    for args, message in cases:
        done = genevals("run", *args, "--out", str(out), "-q", "--resume")
        assert done.returncode == 2, (args, done.stderr)
        assert "--resume would mix two different runs" in done.stderr and message in done.stderr, done.stderr
        assert "use another --out, or leave out --resume" in done.stderr
        assert (out / "results.jsonl").read_text() == before
    fresh = genevals("run", str(changed), "--out", str(out), "-q", "--metrics", "exact_match")
    assert fresh.returncode == 0 and list(out.glob("earlier/*/results.jsonl"))  # the earlier results are kept


def test_one_compact_table_with_coverage_and_integer_counts(tmp_path):
    rows = [{"id": str(i), "answer": "Paris is nice", "references": ["Paris is nice"] if i == 0 else []}
            for i in range(5)]
    path = write(tmp_path / "d.jsonl", rows)
    done = genevals("run", str(path), "--out", str(tmp_path / "o"), "--metrics", "exact_match,bleu")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "5 samples, 1 system(s); each mean: [95% CI] scored/total"
    assert lines[1].split() == ["metric", "default"]
    assert lines[2].split() == ["exact_match", "1.0000", "[1.00,", "1.00]", "1/5*"]
    assert "* covers less than 80% of its samples (no band)" in lines
    assert "  no_reference: exact_match, bleu: 4/5" in lines  # one line for both outputs
    assert not [line for line in lines if line.startswith("corpus bleu_sys_len")]  # a detail of corpus bleu
    assert "4 more corpus details not shown (every one: --all-outputs)" in lines
    every = genevals("run", str(path), "--out", str(tmp_path / "a"), "--metrics", "exact_match,bleu",
                     "--all-outputs")
    corpus = [line.split() for line in every.stdout.splitlines() if line.startswith("corpus bleu_sys_len")]
    assert corpus == [["corpus", "bleu_sys_len", "3"]]  # a count, not 3.0000
    assert "sample [" not in done.stderr and "0sample" not in done.stderr  # no progress bar off a terminal
    assert len(lines) < 20
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    em = summary["systems"]["default"]["exact_match"]
    assert (em["scored"], em["total"], em["coverage"], em["statuses"]) == (1, 5, 0.2, {"ok": 1, "no_reference": 4})
    assert summary["meta"]["min_coverage"] == 0.8
    verbose = genevals("run", str(path), "--out", str(tmp_path / "v"), "--metrics", "exact_match", "-v")
    assert "system: default" in verbose.stdout and "no_reference 4" in verbose.stdout
    lenient = genevals("run", str(path), "--out", str(tmp_path / "l"), "--metrics", "exact_match",
                       "--min-coverage", "0.2")
    assert "1/5\n" in lenient.stdout and "1/5*" not in lenient.stdout
    assert json.loads((tmp_path / "l" / "summary.json").read_text())["meta"]["min_coverage"] == 0.2
    bad = genevals("run", str(path), "--out", str(tmp_path / "b"), "--min-coverage", "80")
    assert bad.returncode == 2 and "argument --min-coverage: expected a number in [0, 1], got 80" in bad.stderr
