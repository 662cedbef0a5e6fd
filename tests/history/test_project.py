"""``--baseline latest`` looks only at this project's runs (issue 52, point 10g): one history serves every
project of a user, and another project's run of a file with the same name is never this run's baseline. Every
command is a real ``genevals`` process on a real history file (``GENEVALS_HISTORY``)."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest


def rows(n, wrong=()):
    """n questions q0.., answered with their reference except those in ``wrong``."""
    return [{"id": f"q{i}", "question": f"question {i}", "answer": "no idea at all" if i in wrong else f"answer {i}",
             "references": [f"answer {i}"], "contexts": [f"answer {i} is here"], "relevant": ["1"]} for i in range(n)]


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in data))
    return path


@pytest.fixture
def genevals(tmp_path):
    env = {**os.environ, "GENEVALS_HISTORY": str(tmp_path / "history.sqlite"), "HF_HUB_OFFLINE": "1"}
    counter = iter(range(1000))

    def run(*args, cwd=tmp_path):
        argv = [sys.executable, "-m", "genevals", *args, "-o", str(tmp_path / f"out{next(counter)}"),
                "-m", "token_f1"]
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=cwd)
    return run


def projects(tmp_path):
    db = sqlite3.connect(tmp_path / "history.sqlite")
    try:
        return db.execute("SELECT id, project FROM runs ORDER BY id").fetchall()
    finally:
        db.close()


def test_latest_never_picks_another_projects_run_of_a_file_of_the_same_name(tmp_path, genevals):
    mine = write(tmp_path / "alpha" / "answers.jsonl", rows(20))
    theirs = write(tmp_path / "beta" / "answers.jsonl", rows(20, wrong=range(12)))
    assert genevals("run", str(mine)).returncode == 0  # run 1, project alpha
    refused = genevals("run", str(theirs), "--baseline", "latest", "--fail-under", "token_f1=0.1")
    assert refused.returncode == 2, refused.stderr  # alpha's answers.jsonl is not beta's baseline
    assert "in this project (" + str((tmp_path / "beta").resolve()) + ")" in refused.stderr
    assert "another project's" in refused.stderr and "REGRESSION" not in refused.stderr
    assert genevals("run", str(theirs)).returncode == 0  # run 2, project beta: newer, same file name
    write(mine, rows(20, wrong=range(12)))  # edited in place: a new digest, the same name
    worse = genevals("run", str(mine), "--baseline", "latest", "--fail-under", "token_f1=0.1")
    assert worse.returncode == 1, worse.stderr
    assert "token_f1 0.4000 vs 1.0000 in run #1 on 20 shared ids" in worse.stderr  # alpha's, not beta's #2
    assert projects(tmp_path) == [(1, str((tmp_path / "alpha").resolve())), (2, str((tmp_path / "beta").resolve())),
                                  (3, str((tmp_path / "alpha").resolve()))]
    # the very same rows in another project are the same input (a copy): their latest run, wherever it ran
    copy = write(tmp_path / "delta" / "copy.jsonl", rows(20))
    same = genevals("run", str(copy), "--baseline", "latest")
    assert same.returncode == 0 and "token_f1 1.0000 vs 1.0000 in run #1 on 20 shared ids" in same.stderr, same.stderr


def test_the_project_is_the_git_work_tree_and_older_runs_without_one_are_the_fallback(tmp_path, genevals):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    first = write(repo / "data" / "answers.jsonl", rows(20))
    assert genevals("run", str(first), cwd=repo).returncode == 0  # run 1
    moved = write(repo / "elsewhere" / "answers.jsonl", rows(20, wrong=range(12)))  # the same project
    worse = genevals("run", "elsewhere/answers.jsonl", "--baseline", "latest", "--fail-under", "token_f1=0.1",
                     cwd=repo)
    assert worse.returncode == 1, worse.stderr
    assert "in run #1 on 20 shared ids" in worse.stderr
    assert [p for _, p in projects(tmp_path)] == [str(repo.resolve())] * 2
    # a history as a genevals before projects wrote it (no project column): its runs have none, and are used when
    # nothing of the project matches (never before a run of the project); the column comes back on the next run
    db = sqlite3.connect(tmp_path / "history.sqlite")
    db.execute("ALTER TABLE runs DROP COLUMN project")
    db.commit()
    db.close()
    other = write(tmp_path / "gamma" / "answers.jsonl", rows(20, wrong=range(5)))  # rows no run had
    old = genevals("run", str(other), "--baseline", "latest")
    assert old.returncode == 0, old.stderr
    assert "in run #2 on 20 shared ids" in old.stderr  # the latest run without a project of this file name
    again = genevals("run", str(moved), "--baseline", "latest")
    assert "in run #2 on 20 shared ids" in again.stderr, again.stderr  # the digest of run 2's rows
    mine = genevals("run", str(other), "--baseline", "latest")  # gamma now has a run of its own: #3
    assert "in run #3 on 20 shared ids" in mine.stderr, mine.stderr
    assert [p for _, p in projects(tmp_path)] == [None, None, str((tmp_path / "gamma").resolve()),
                                                  str(repo.resolve()), str((tmp_path / "gamma").resolve())]
