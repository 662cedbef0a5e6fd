"""The run history against hostile folders and files (issue 34, points 2, 9 and 15), each through ``genevals`` in
a real process: a working folder whose git configuration names commands runs none of them and still has its
commit recorded; another program's SQLite file is refused and left byte for byte as it was; a history this user
may only read is read; names with control characters are shown escaped."""
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROWS = ('{"id": "q1", "question": "Q?", "answer": "Paris", "references": ["Paris"], "system": "%s"}\n'
        '{"id": "q2", "question": "Q2?", "answer": "eight legs", "references": ["eight"], "system": "%s"}\n')


def genevals(*args, cwd=None, env=None, **kw):
    base = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    base["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parents[2]), base.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**base, **(env or {})}, **kw)


def git(folder, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c",
                           "core.hooksPath=/dev/null", "-C", str(folder), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def marker_script(folder: Path, name: str, body: str = "") -> str:
    path = folder / "scripts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch '{folder}/MARKER-{name}'\n{body}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def hostile_repo(tmp_path):
    """A real repository: data committed, then one tracked file changed and the data touched; its config runs
    a marker script for fsmonitor, hooks, an external diff, the pager, a filter and a textconv."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "d.jsonl").write_text(ROWS % ("a", "a"))
    (repo / "notes.txt").write_text("one\n")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "data")
    head = git(repo, "rev-parse", "HEAD")
    (repo / "notes.txt").write_text("two\n")
    later = (repo / "d.jsonl").stat().st_mtime + 5
    os.utime(repo / "d.jsonl", (later, later))
    hooks = repo / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "reference-transaction", "pre-commit"):
        shutil.copy(marker_script(repo, f"hook-{hook}"), hooks / hook)
    for key, value in (("core.fsmonitor", marker_script(repo, "fsmonitor")), ("core.hooksPath", str(hooks)),
                       ("diff.external", marker_script(repo, "diff-external")),
                       ("core.pager", marker_script(repo, "pager", "cat\n")),
                       ("pager.diff", marker_script(repo, "pager-diff", "cat\n")),
                       ("filter.evil.clean", marker_script(repo, "clean", "cat\n")),
                       ("filter.evil.smudge", marker_script(repo, "smudge", "cat\n")),
                       ("diff.evil.textconv", marker_script(repo, "textconv", 'cat "$1"\n'))):
        git(repo, "config", key, value)
    return repo, head


def recorded_commit(history):
    with sqlite3.connect(history) as db:
        return db.execute("SELECT git_commit FROM runs ORDER BY id DESC").fetchone()[0]


def test_no_git_setting_of_the_working_folder_runs_and_the_commit_is_recorded(hostile_repo, tmp_path):
    repo, head = hostile_repo
    history = tmp_path / "h.sqlite"
    done = genevals("run", "d.jsonl", "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history",
                    str(history), cwd=repo)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in repo.glob("MARKER-*")) == []
    assert recorded_commit(history) == f"{head}+dirty"
    # clean again: the commit without the mark (the filter's clean command would have been the way to know)
    (repo / "notes.txt").write_text("one\n")
    done = genevals("run", "d.jsonl", "-o", str(tmp_path / "out2"), "-q", "-m", "exact_match", "--history",
                    str(history), cwd=repo)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in repo.glob("MARKER-*")) == []
    assert recorded_commit(history) == head


def test_a_linked_worktree_and_packed_refs_are_read_without_git(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "d.jsonl").write_text(ROWS % ("a", "a"))
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "data")
    git(repo, "pack-refs", "--all")
    git(repo, "worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    head = git(repo, "rev-parse", "HEAD")
    history = tmp_path / "h.sqlite"
    done = genevals("run", "d.jsonl", "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history",
                    str(history), cwd=tmp_path / "wt")
    assert done.returncode == 0, done.stderr
    assert recorded_commit(history) == head


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a repository to another user needs root")
def test_a_repository_another_user_owns_is_not_read(hostile_repo, tmp_path):
    repo, _ = hostile_repo
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 65534, 65534)
    history = tmp_path / "h.sqlite"
    done = genevals("run", "d.jsonl", "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history",
                    str(history), cwd=repo)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in repo.glob("MARKER-*")) == []
    assert recorded_commit(history) is None


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(ROWS % ("a", "a"))
    cache = tmp_path / "judge_cache.sqlite"
    with sqlite3.connect(cache) as db:
        db.execute("CREATE TABLE replies (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO replies VALUES ('k', '{}')")
    db.close()
    before = cache.read_bytes()
    for argv in (("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history", str(cache)),
                 ("history", "--history", str(cache))):
        done = genevals(*argv)
        assert done.returncode == 2 and "judge cache" in done.stderr and str(cache) in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert cache.read_bytes() == before
    assert not (tmp_path / "out" / "results.jsonl").exists()
    (tmp_path / "out").mkdir(exist_ok=True)
    from genevals.review.store import ReviewStore

    ReviewStore(tmp_path / "out")
    done = genevals("history", "--history", str(tmp_path / "out" / "review.sqlite"))
    assert done.returncode == 2 and "review store" in done.stderr and "upgrade" not in done.stderr, done.stderr


def test_an_empty_history_path_is_refused_not_the_default(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(ROWS % ("a", "a"))
    env = {"GENEVALS_HISTORY": str(tmp_path / "default.sqlite")}
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history", "",
                    env=env)
    assert done.returncode == 2 and "--history ''" in done.stderr, done.stderr
    assert not (tmp_path / "default.sqlite").exists() and not (tmp_path / "out" / "results.jsonl").exists()


def _read_only_mount(folder: Path, *command: str) -> subprocess.CompletedProcess | None:
    """``command`` with ``folder`` remounted read-only in a mount namespace of its own (None where that is not
    allowed: no root, no unshare)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return None
    script = (f"mount --bind '{folder}' '{folder}' && mount -o remount,ro,bind '{folder}' '{folder}' && "
              + " ".join(f"'{part}'" for part in command))
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[2]),
                                                                             os.environ.get("PYTHONPATH", "")])})
    return None if "mount:" in done.stderr or "unshare:" in done.stderr else done


def test_a_history_on_a_read_only_file_system_is_read(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(ROWS % ("a", "a"))
    shared = tmp_path / "shared"
    history = shared / "h.sqlite"
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "exact_match", "--history",
                    str(history))
    assert done.returncode == 0, done.stderr
    listed = _read_only_mount(shared, sys.executable, "-m", "genevals", "history", "--history", str(history))
    if listed is None:
        pytest.skip("no read-only mount here (needs root and unshare)")
    assert listed.returncode == 0 and "1 run in" in listed.stdout, listed.stderr
    shown = _read_only_mount(shared, sys.executable, "-m", "genevals", "history", "show", "latest", "--history",
                             str(history))
    assert shown.returncode == 0 and "run #1" in shown.stdout, shown.stderr
    recorded = _read_only_mount(shared, sys.executable, "-m", "genevals", "run", str(data), "-o",
                                str(tmp_path / "out2"), "-q", "-m", "exact_match", "--history", str(history))
    assert recorded.returncode == 2 and "Traceback" not in recorded.stderr and str(history) in recorded.stderr


def test_damaged_rows_and_numbers_past_any_id_are_clear_errors(tmp_path):
    data = tmp_path / "d.jsonl"
    data.write_text(ROWS % ("a", "a"))
    history = tmp_path / "h.sqlite"
    for n in (1, 2):
        assert genevals("run", str(data), "-o", str(tmp_path / f"o{n}"), "-q", "-m", "exact_match", "--history",
                        str(history)).returncode == 0
    with sqlite3.connect(history) as db:
        db.execute("UPDATE runs SET summary = '{not json' WHERE id = 2")
        db.execute("UPDATE sample_values SET vals = x'789c' WHERE run_id = 1")
    db.close()
    listed = genevals("history", "--history", str(history))
    assert listed.returncode == 0 and "#1 " in listed.stdout and "run #2 (summary: not JSON" in listed.stderr
    shown = genevals("history", "show", "2", "--history", str(history))
    assert shown.returncode == 2 and "run #2 is damaged (summary: not JSON" in shown.stderr
    base = genevals("run", str(data), "-o", str(tmp_path / "o3"), "-q", "-m", "exact_match", "--history",
                    str(history), "--baseline", "1")
    assert base.returncode == 2 and "--baseline" in base.stderr and "run #1 is damaged" in base.stderr
    for argv in (("history", "show", "²"), ("history", "show", "9" * 5000), ("history", "--last", "9" * 23)):
        done = genevals(*argv, "--history", str(history))
        assert "Traceback" not in done.stderr and done.returncode in (0, 2), (argv[:2], done.stderr)


def test_control_characters_in_names_are_shown_escaped(tmp_path):
    evil = "s\\u001b]0;owned\\u0007\\u001b[2J\\u0000\\u202e"
    data = tmp_path / "d.jsonl"
    data.write_text(ROWS % (evil, evil))
    history = tmp_path / "h.sqlite"
    run = genevals("run", str(data), "-o", str(tmp_path / "out"), "-m", "exact_match", "--history", str(history))
    listed = genevals("history", "--history", str(history))
    shown = genevals("history", "show", "latest", "--history", str(history))
    for done in (run, listed, shown):
        assert done.returncode == 0, done.stderr
        for raw in ("\x1b", "\x00", "\x07", "\u202e"):
            assert raw not in done.stdout + done.stderr
        assert "\\x1b]0;owned\\x07\\x1b[2J\\x00\\u202e" in done.stdout


def test_report_refuses_an_empty_history_path_and_reads_the_default_with_none(tmp_path):
    (tmp_path / "d.jsonl").write_text(ROWS % ("a", "a"))
    env = {"GENEVALS_HISTORY": str(tmp_path / "h.sqlite")}
    assert genevals("run", "d.jsonl", "--out", "o", "-m", "exact_match", "-q", cwd=tmp_path, env=env).returncode == 0
    empty = genevals("report", "o", "--history", "", cwd=tmp_path, env=env)
    assert empty.returncode == 2 and "--history: an empty path" in empty.stderr, empty.stderr
    default = genevals("report", "o", "--history", cwd=tmp_path, env=env)
    assert default.returncode == 0, default.stderr
