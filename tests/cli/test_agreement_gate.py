"""``genevals run --require-agreement LABELS [--min-kappa K]`` in real processes, with the offline grounding
checker as the judge (no server): labels that agree pass and show the figure; labels that disagree, or too few
to tell, exit 3 naming the figure and its CI with every file written; a bad labels file is exit 2 naming its
line and field; thresholds on outputs the judge does not decide are checked as always."""
import json
import os
import subprocess
import sys

import pytest
from support.agreement_data import labels, rows, write_jsonl

pytestmark = pytest.mark.slow  # a real `genevals run` each, about 10 s on 2 busy cores


def genevals(*args, cwd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}  # the offline judge
    return subprocess.run([sys.executable, "-m", "genevals", "run", *args], capture_output=True, text=True,
                          timeout=600, env=env, cwd=cwd, check=False)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("gate")
    data = rows(30)
    for row in data:
        row["references"] = [row["contexts"][0]]  # token_f1: a threshold the judge does not decide
    return {"root": root, "data": write_jsonl(root / "data.jsonl", data),
            "agree": write_jsonl(root / "agree.jsonl", labels(data)),
            "disagree": write_jsonl(root / "disagree.jsonl", labels(data, flip=12)),
            "few": write_jsonl(root / "few.jsonl", labels(data)[:4])}


def summary_of(out):
    return json.loads((out / "summary.json").read_text())


def test_agreeing_labels_pass_and_the_figure_is_shown_and_recorded(files):
    out = files["root"] / "agree"
    done = genevals(str(files["data"]), "-o", str(out), "-m", "faithfulness,token_f1", "--require-agreement",
                    str(files["agree"]), "--fail-under", "faithfulness=0.4", "-q")
    assert done.returncode == 0, done.stderr
    line = (f"genevals: judge agreement with {files['agree']}: kappa 1.00 [95% CI 0.77, 1.00], accuracy 1.00 on "
            "30 labelled samples; at least 0.6: the judge may gate")
    assert line in done.stderr.splitlines()
    recorded = summary_of(out)["meta"]["judge_agreement"]
    assert recorded["passed"] and recorded["n"] == 30 and recorded["kappa"] == 1.0
    assert recorded["kappa_ci95"][0] == pytest.approx(0.773, abs=1e-3) and recorded["min_kappa"] == 0.6
    assert line.removeprefix("genevals: ") in (out / "report.html").read_text()  # the report's run details


def test_disagreeing_labels_exit_3_naming_the_figure_with_every_file_written(files):
    out = files["root"] / "disagree"
    done = genevals(str(files["data"]), "-o", str(out), "-m", "faithfulness,token_f1", "--require-agreement",
                    str(files["disagree"]), "--fail-under", "faithfulness=0.4", "--fail-under", "token_f1=0.99")
    assert done.returncode == 3, done.stderr
    assert (f"genevals: error: judge agreement with {files['disagree']}: kappa 0.20 [95% CI -0.20, 0.53], "
            "accuracy 0.60 on 30 labelled samples; below the minimum 0.6; exit 3 (results are written)"
            in done.stderr.splitlines())
    # the judge's threshold is set aside, the lexical one is checked as always
    assert ("genevals: threshold not checked: --fail-under faithfulness=0.4: the judge did not pass "
            "--require-agreement") in done.stderr
    assert "genevals: threshold missed: default: token_f1 = 0.8333 < 0.99 (--fail-under)" in done.stderr
    assert len((out / "results.jsonl").read_text().splitlines()) == 30
    assert summary_of(out)["meta"]["judge_agreement"]["outcome"] == "below_minimum"
    assert "below the minimum 0.6" in (out / "report.html").read_text()


def test_too_few_labels_exit_3_with_the_ci(files):
    done = genevals(str(files["data"]), "-o", str(files["root"] / "few"), "-m", "faithfulness",
                    "--require-agreement", str(files["few"]), "--min-kappa", "0.5", "-q")
    assert done.returncode == 3, done.stderr
    assert ("kappa 1.00 [95% CI 0.02, 1.00], accuracy 1.00 on 4 labelled samples; too few labels to tell whether "
            "it reaches the minimum 0.5; exit 3") in done.stderr


def test_a_lower_minimum_lets_the_same_labels_pass_and_a_lexical_miss_is_exit_1(files):
    """The run file's keys are the flags' long names; a threshold the judge does not decide still decides."""
    (files["root"] / "genevals.toml").write_text(
        f'require-agreement = "{files["disagree"].name}"\nmin_kappa = -0.5\n')
    done = genevals(str(files["data"]), "-o", "low", "-m", "faithfulness,token_f1", "--fail-under",
                    "token_f1=0.99", "-q", cwd=files["root"])
    assert done.returncode == 1, done.stderr
    assert "at least -0.5: the judge may gate" in done.stderr
    assert "threshold missed: default: token_f1 = 0.8333 < 0.99" in done.stderr


def test_bad_labels_and_options_are_exit_2_before_scoring(files):
    bad = files["root"] / "bad.jsonl"
    bad.write_text(json.dumps(labels(rows(2))[0]) + "\n" + json.dumps({**labels(rows(2))[1], "response": 7}) + "\n")
    out = files["root"] / "bad-out"
    done = genevals(str(files["data"]), "-o", str(out), "-m", "faithfulness", "--require-agreement", str(bad))
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [f"genevals: error: --require-agreement: 1 bad row(s) in {bad}:",
                                             "  bad.jsonl:2: field 'response': missing or not a string"]
    assert not out.exists()  # refused before anything was scored or written
    done = genevals(str(files["data"]), "-o", str(out), "-m", "token_f1", "--require-agreement",
                    str(files["agree"]))
    assert done.returncode == 2 and "add -m faithfulness" in done.stderr
    done = genevals(str(files["data"]), "-o", str(out), "--min-kappa", "0.7")
    assert done.returncode == 2
    assert "--min-kappa: applies to --require-agreement LABELS, which is not given" in done.stderr
    done = genevals(str(files["data"]), "-o", str(out), "--require-agreement", str(files["agree"]),
                    "--min-kappa", "1.5")
    assert done.returncode == 2 and "argument --min-kappa: expected a number in [-1, 1], got 1.5" in done.stderr


def test_labels_of_no_sample_in_the_run_exit_3_with_the_reason(files):
    other = write_jsonl(files["root"] / "other.jsonl", [{**row, "id": "x" + row["id"]} for row in labels(rows(5))])
    done = genevals(str(files["data"]), "-o", str(files["root"] / "none"), "-m", "faithfulness",
                    "--require-agreement", str(other), "-q")
    assert done.returncode == 3
    assert (f"genevals: error: no labelled sample of {other} is in this run (left out: 5 not in this run): the "
            "judge's agreement cannot be measured") in done.stderr
