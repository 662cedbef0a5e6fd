"""Exit codes and notes tell the truth, as a user meets them in a real process: a metric that scored nothing,
systems that share no question id, and a multi-system table that fits on a screen (issue 22, points 10, 13, 15)."""
import json
import subprocess
import sys

from conftest import DEMO


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=600)


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def rows(systems=("default",), references=True, relevant=True, ids=True, n=2):
    """``n`` questions answered by each system, with or without references, relevance labels and ids."""
    out = []
    for system in systems:
        for i in range(n):
            row = {"system": system, "question": f"Where is sight {i}?", "answer": f"Sight {i} is in Paris",
                   "contexts": [{"id": f"c{i}", "text": f"Sight {i} is in Paris."}]}
            if ids:
                row["id"] = f"q{i}"
            if references:
                row["references"] = [f"Sight {i} is in Paris"]
            if relevant:
                row["relevant"] = [f"c{i}"]
            out.append(row)
    return out


# --- point 10: a requested metric that scored nothing fails the run ---------------------------------------

def test_named_metric_that_scored_nothing_exits_1_and_says_why_even_quiet(tmp_path):
    path = write(tmp_path / "d.jsonl", rows(references=False))
    done = genevals("run", path, "-o", str(tmp_path / "o"), "-m", "token_f1,mrr", "-q")
    assert done.returncode == 1, done.stderr
    assert done.stdout == ""
    assert "genevals: error: token_f1 scored no sample (unscored: no_reference 2)" in done.stderr.splitlines()
    assert "mrr" not in done.stderr  # it scored both samples
    assert json.loads((tmp_path / "o" / "summary.json").read_text())["n_samples"] == 2  # results still written


def test_named_family_and_output_name_each_system_they_scored_nothing_of(tmp_path):
    data = rows(("a", "b"), relevant=False)
    data = [dict(r, references=[]) if r["system"] == "b" else r for r in data]
    done = genevals("run", write(tmp_path / "d.jsonl", data), "-o", str(tmp_path / "o"), "-m", "rouge,retrieval",
                    "-q")
    assert done.returncode == 1
    errors = [line for line in done.stderr.splitlines() if line.startswith("genevals: error:")]
    assert sorted(errors) == [
        "genevals: error: retrieval scored no sample of any system (unscored: no_relevance_labels 4)",
        "genevals: error: rouge scored no sample of system 'b' (unscored: no_reference 2)"]


def test_default_set_notes_a_family_that_scored_nothing_and_passes(tmp_path):
    """A preset is meant for any data: its members that found nothing to score are a note, not a failure."""
    done = genevals("run", write(tmp_path / "d.jsonl", rows(relevant=False)), "-o", str(tmp_path / "o"))
    assert done.returncode == 0, done.stderr
    assert "genevals: note: retrieval scored no sample (unscored: no_relevance_labels 2)" in done.stderr.splitlines()
    assert "exact_match" not in done.stderr


def test_default_set_that_scored_nothing_at_all_exits_1(tmp_path):
    done = genevals("run", write(tmp_path / "d.jsonl", rows(references=False, relevant=False)),
                    "-o", str(tmp_path / "o"), "-q")
    assert done.returncode == 1
    assert ("genevals: error: no metric scored any sample: exact_match, token_f1, rouge, bleu (no_reference 2); "
            "retrieval (no_relevance_labels 2)") in done.stderr.splitlines()


def test_an_unscored_named_metric_fails_the_run_its_thresholds_pass(tmp_path):
    done = genevals("run", write(tmp_path / "d.jsonl", rows(references=False)), "-o", str(tmp_path / "o"),
                    "-m", "exact_match,mrr", "--fail-under", "mrr=0.9", "-q")
    assert done.returncode == 1
    assert "exact_match scored no sample" in done.stderr and "threshold missed" not in done.stderr


def test_every_row_skipped_exits_1(tmp_path):
    done = genevals("run", write(tmp_path / "d.jsonl", [{"answer": 5}, {"answer": None}]), "-o", str(tmp_path / "o"),
                    "--on-error", "skip", "-q")
    assert done.returncode == 1
    assert "genevals: error: no sample was scored: every input row was skipped (2 in skipped.jsonl)" in done.stderr


# --- point 13: systems that share no question id ----------------------------------------------------------

def test_systems_without_ids_are_named_with_the_fix(tmp_path):
    path = write(tmp_path / "d.jsonl", rows(("dense", "sparse"), ids=False))
    done = genevals("run", path, "-o", str(tmp_path / "o"))  # warnings are not shown with -q
    assert done.returncode == 0, done.stderr
    warning = [line for line in done.stderr.splitlines() if "share no question id" in line]
    assert warning == ["genevals: warning: systems 'dense' and 'sparse' share no question id, so they are not "
                       "compared. A row without an id gets its row number as id: if each row holds its question, "
                       "run again with --map id=question"]
    page = (tmp_path / "o" / "report.html").read_text()
    assert '"unshared_ids":[[0,1]]' in page
    again = genevals("report", str(tmp_path / "o"), "-o", str(tmp_path / "again.html"))
    assert again.returncode == 0 and warning[0] in again.stderr.splitlines()
    fixed = genevals("run", path, "-o", str(tmp_path / "fixed"), "-q", "--map", "id=question")
    assert fixed.returncode == 0 and "share no question id" not in fixed.stderr
    assert '"unshared_ids":[]' in (tmp_path / "fixed" / "report.html").read_text()


# --- point 15: a readable multi-system table --------------------------------------------------------------

def test_multi_system_table_shows_headlines_and_groups_unscored_statuses(tmp_path):
    path = write(tmp_path / "d.jsonl", rows(("dense", "sparse", "hybrid"), references=False, n=4))
    done = genevals("run", path, "-o", str(tmp_path / "o"), "-m", "retrieval,token_f1")
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[2:6]] == ["recall@10", "ndcg@10", "mrr", "token_f1"]
    assert "29 more outputs not shown (every one: --all-outputs)" in lines
    assert "  no_reference: token_f1: 4/4 in each system" in lines  # one line, not one per system
    assert "  not_found" not in done.stdout and "precision@1 " not in done.stdout
    table = lines[:lines.index(next(line for line in lines if line.startswith("leaderboard (")))]
    assert len(table) <= 12, done.stdout  # then the leaderboard (issue 37), 7 lines for 3 systems
    assert len(lines) <= 12 + 7, done.stdout
    every = genevals("run", path, "-o", str(tmp_path / "all"), "-m", "retrieval,token_f1", "--all-outputs")
    names = [line.split()[0] for line in every.stdout.splitlines()[2:]]
    assert {"precision@1", "err@5", "auc", "first_relevant_rank"} <= set(names) and len(names) > 33


def test_headlines_follow_the_cutoffs_and_names_given(tmp_path):
    path = write(tmp_path / "d.jsonl", rows())
    done = genevals("run", path, "-o", str(tmp_path / "o"), "-m", "retrieval,precision@2", "--cutoffs", "1,3,20")
    assert done.returncode == 0, done.stderr
    shown = [line.split()[0] for line in done.stdout.splitlines()[2:] if "] 2/2" in line]
    # no cutoff 10: the nearest below it stands in; an output named in --metrics is always shown
    assert shown == ["precision@2", "recall@3", "ndcg@3", "mrr"], done.stdout


def test_demo_table_fits_a_screen(tmp_path):
    done = genevals("run", str(DEMO), "-o", str(tmp_path / "demo"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].split() == ["metric", "dense", "hybrid", "sparse"]
    assert len(lines) <= 24, done.stdout  # the table and the leaderboard (issue 37): one 80x24 screen
