"""genevals.history.gitstate: the commit read from .git's files (loose and packed refs, detached, linked
worktrees), nothing read where it cannot be trusted, and no hang on a FIFO."""
import os
import subprocess

import pytest

from genevals.history.gitstate import find, git_commit, head


def git(folder, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-C", str(folder), *args],
                          capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "f.txt").write_text("one\n")
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "one")
    return folder


def test_the_commit_from_loose_packed_and_detached_heads(repo):
    commit = git(repo, "rev-parse", "HEAD")
    assert git_commit(repo) == commit
    assert git_commit(repo / ".git" / "..") == commit
    git(repo, "pack-refs", "--all")
    assert git_commit(repo) == commit
    git(repo, "checkout", "-q", "--detach")
    assert git_commit(repo) == commit
    (repo / "f.txt").write_text("two\n")
    assert git_commit(repo) == commit + "+dirty"


def test_nothing_where_there_is_no_commit_to_trust(repo, tmp_path):
    assert git_commit("/") is None
    _, gitdir, common = find(repo)
    (gitdir / "HEAD").write_text("ref: refs/heads/../../../../etc/hostname\n")
    assert head(gitdir, common) is None
    (gitdir / "HEAD").write_text("ref: refs/heads/a\n")
    (gitdir / "refs" / "heads" / "a").write_text("ref: refs/heads/a\n")
    assert head(gitdir, common) is None
    (gitdir / "HEAD").unlink()
    os.mkfifo(gitdir / "HEAD")
    assert git_commit(repo) is None  # returns at once: a FIFO is not read


def test_a_linked_worktree(repo, tmp_path):
    git(repo, "worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    assert find(tmp_path / "wt")[2] == (repo / ".git").resolve()
    assert git_commit(tmp_path / "wt") == git(repo, "rev-parse", "HEAD")
