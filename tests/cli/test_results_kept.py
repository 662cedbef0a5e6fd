"""Results are never lost or faked, as a user meets it: text that cannot be written is refused before scoring, a
re-run (even one killed mid-way) never writes over the earlier run, and --resume and report name what they
cannot trust (a missing manifest, a garbage line) instead of mixing or skipping."""
import json
import os
import subprocess
import sys
import time

import pytest


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


ROWS = [{"id": str(i), "answer": f"answer {i}", "references": [f"answer {i}"]} for i in range(4)]


def snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def big_input(path, n=30_000):
    with open(path, "w") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": i, "answer": f"answer number {i} " * 20,
                                     "references": [f"reference {i} " * 20]}) + "\n")
    return path


def wait_for_results(out, proc, seconds=300):
    """Until the run in ``proc`` has moved any earlier run aside and written results of its own."""
    results = out / "results.jsonl"
    deadline = time.time() + seconds
    while time.time() < deadline and proc.poll() is None and not (
            (out / "earlier").exists() and results.exists() and results.stat().st_size):
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()[1]


def test_a_surrogate_in_the_input_is_refused_before_scoring_and_the_earlier_run_is_untouched(tmp_path):
    out = tmp_path / "out"
    assert genevals("run", str(write(tmp_path / "good.jsonl", ROWS)), "-o", str(out), "-q").returncode == 0
    before = snapshot(out)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(ROWS[0]) + '\n{"id": "x", "answer": "a", "references": "x\\ud800"}\n')
    done = genevals("run", str(bad), "-o", str(out), "-q")
    assert done.returncode == 2, done.stderr
    assert f"{bad}:2: field 'references': invalid Unicode: lone surrogate at character 1" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("args, option", [
    (["--judge-model", "gpt\udcff"], "--judge-model"),
    (["--map", "answer=out\udcff"], "--map"),
    (["--rubric-criteria", "tone\udcff=polite"], "--rubric-criteria"),
    (["--metrics", "exact_match,rouge\udcff"], "--metrics"),
    (["INPUT"], "INPUT"),
    (["-o", "OUT\udcff"], "--out"),
])
def test_an_option_value_that_cannot_be_written_is_refused_naming_the_option(tmp_path, args, option):
    source = write(tmp_path / "d.jsonl", ROWS)
    if args == ["INPUT"]:  # a file name with a byte that is not UTF-8 reaches Python as a lone surrogate
        named = os.fsencode(str(tmp_path)) + b"/in\xff.jsonl"
        os.rename(source, named)
        source, args = os.fsdecode(named), []
    args = [a.replace("OUT", str(tmp_path / "o")) for a in args]
    done = genevals("run", str(source), *(args if "-o" in args else ["-o", str(tmp_path / "out"), *args]), "-q")
    assert done.returncode == 2, done.stderr
    assert f"genevals: error: {option}" in done.stderr and "invalid Unicode (lone surrogate" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == []  # no run folder was made


def test_a_rerun_killed_mid_way_leaves_the_earlier_run_whole_where_stderr_says(tmp_path):
    out = tmp_path / "out"
    first = genevals("run", str(write(tmp_path / "small.jsonl", ROWS)), "-o", str(out), "-q", "-m", "rouge")
    assert first.returncode == 0, first.stderr
    before = snapshot(out)
    assert {"results.jsonl", "summary.json", "report.html"} <= set(before)
    proc = subprocess.Popen([sys.executable, "-m", "genevals", "run", str(big_input(tmp_path / "big.jsonl")),
                             "-o", str(out), "-q", "-m", "rouge"], stderr=subprocess.PIPE, text=True)
    wait_for_results(out, proc)
    proc.kill()
    stderr = proc.communicate(timeout=60)[1]
    moved = [p for p in (out / "earlier").iterdir()]
    assert len(moved) == 1 and f"genevals: note: the earlier run in {out} was moved to {moved[0]}" in stderr
    assert snapshot(moved[0]) == before
    again = genevals("report", str(moved[0]), "-o", str(tmp_path / "earlier.html"))
    assert again.returncode == 0, again.stderr


def test_each_rerun_moves_the_earlier_one_to_its_own_folder_and_says_where(tmp_path):
    out, moved = tmp_path / "out", []
    for run in range(3):
        rows = [dict(r, answer=f"run {run}") for r in ROWS]
        done = genevals("run", str(write(tmp_path / f"d{run}.jsonl", rows)), "-o", str(out), "-q", "-m",
                        "exact_match")
        assert done.returncode == 0, done.stderr
        moved += [line.rsplit(" was moved to ", 1)[1] for line in done.stderr.splitlines() if "was moved to" in line]
    assert len(moved) == len(set(moved)) == 2
    assert [json.loads(open(f"{m}/results.jsonl").readline())["answer"] for m in moved] == ["run 0", "run 1"]
    assert json.loads((out / "summary.json").read_text())["meta"]["earlier_run"] == moved[1]


def test_resume_refuses_a_folder_without_a_manifest(tmp_path):
    out = tmp_path / "out"
    assert genevals("run", str(write(tmp_path / "d.jsonl", ROWS)), "-o", str(out), "-q").returncode == 0
    (out / "manifest.json").unlink()
    before = snapshot(out)
    changed = write(tmp_path / "other.jsonl", [dict(r, answer="changed") for r in ROWS])
    done = genevals("run", str(changed), "-o", str(out), "-q", "--resume")
    assert done.returncode == 2, done.stderr
    assert "--resume cannot check what this folder's results were made from: it has no manifest.json" in done.stderr
    assert snapshot(out) == before


def test_a_garbage_line_in_results_is_named_by_report_and_by_resume(tmp_path):
    path, out = write(tmp_path / "d.jsonl", ROWS), tmp_path / "out"
    assert genevals("run", str(path), "-o", str(out), "-q", "-m", "exact_match").returncode == 0
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text(lines[0] + "garbage\n" + "".join(lines[1:3]))  # sample 4 to resume
    before = snapshot(out)
    for args in (["report", str(out)], ["run", str(path), "-o", str(out), "-q", "-m", "exact_match", "--resume"]):
        done = genevals(*args)
        assert done.returncode == 2, (args, done.stderr)
        assert f"{out / 'results.jsonl'}:2: not a result: not JSON" in done.stderr and "Traceback" not in done.stderr
        assert snapshot(out) == before


@pytest.mark.parametrize("folder", ["manifest.json", "results.jsonl"])
def test_resume_refuses_a_manifest_or_results_that_is_a_folder_naming_it(tmp_path, folder):
    path, out = write(tmp_path / "d.jsonl", ROWS), tmp_path / "out"
    assert genevals("run", str(path), "-o", str(out), "-q", "-m", "exact_match").returncode == 0
    (out / folder).rename(out / f"{folder}.moved")
    (out / folder).mkdir()
    before = snapshot(out)
    done = genevals("run", str(path), "-o", str(out), "-q", "-m", "exact_match", "--resume")
    assert done.returncode == 2, done.stderr
    assert f"genevals: error: {out}" in done.stderr and f"{out / folder}" in done.stderr, done.stderr
    assert "not a file" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(out) == before


@pytest.mark.parametrize("summary, message", [("{not json", "summary.json: not valid JSON"),
                                              ("[]", "summary.json: not a JSON object")])
def test_report_names_a_summary_that_is_not_a_json_object(tmp_path, summary, message):
    out = tmp_path / "out"
    assert genevals("run", str(write(tmp_path / "d.jsonl", ROWS)), "-o", str(out), "-q", "-m",
                    "exact_match").returncode == 0
    (out / "summary.json").write_text(summary)
    before = snapshot(out)
    done = genevals("report", str(out))
    assert done.returncode == 2, done.stderr
    assert f"genevals: error: {out}/{message}" in done.stderr and "Traceback" not in done.stderr
    assert snapshot(out) == before


def test_report_to_a_path_under_a_file_is_exit_2_naming_the_file(tmp_path):
    path, out = write(tmp_path / "d.jsonl", ROWS), tmp_path / "out"
    assert genevals("run", str(path), "-o", str(out), "-q", "-m", "exact_match").returncode == 0
    done = genevals("report", str(out), "-o", str(path / "r.html"))
    assert done.returncode == 2, done.stderr
    assert f"cannot write the report to {path}/r.html: {path} is a file, not a folder" in done.stderr
    assert "Traceback" not in done.stderr
