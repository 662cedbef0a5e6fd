"""The commit a run was made from, read without letting the working folder's git configuration run anything.

A folder's ``.git/config`` (or its ``.gitattributes``) can name commands git starts by itself: an fsmonitor
(``core.fsmonitor``), a filter's clean command, an external diff (``diff.external``), a pager, hooks
(``core.hooksPath``). A run in a folder someone else prepared must not start them, so:

- nothing is read from a repository another user owns (the worktree, its .git folder and the common folder must
  belong to this process's user: git's own ``safe.directory`` rule);
- the commit is read from the files themselves (HEAD, the loose ref, packed-refs): no git process;
- only whether tracked files changed is asked of git (``git diff --quiet COMMIT``), with git's variables cleared
  from its environment, no system or global configuration, and every setting that names a command overridden
  on the command line (fsmonitor, hooks, external diff, pager, attributes file, textconv, each filter the
  configuration declares). When that cannot be made safe (no git, a filter name git's ``-c`` cannot override),
  the commit is recorded without the dirty mark.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

#: the most a file git keeps a name or a reference in may hold before it is not trusted (packed-refs aside)
_SMALL = 4096
#: packed-refs past this size is not read
_PACKED_MAX = 64 << 20
_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF = re.compile(r"refs/[^\x00-\x20~^:?*\[\\]+")
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=", "-c",
         "core.pager=cat", "-c", "pager.diff=false", "-c", "core.attributesFile=/dev/null", "-c",
         "core.untrackedCache=false")


def _read(path: Path, limit: int = _SMALL) -> bytes | None:
    """The bytes of regular file ``path``, if it is one and holds at most ``limit``; else None (never hangs on
    a FIFO, never reads a device)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = b""
        while len(data) <= limit:
            chunk = os.read(fd, 65536)
            if not chunk:
                return data
            data += chunk
        return None
    except OSError:
        return None
    finally:
        os.close(fd)


def _plain(*paths: Path) -> bool:
    """Each of ``paths`` a regular file or absent: git would block reading a FIFO there (the config, the index)."""
    for path in paths:
        try:
            if not stat.S_ISREG(path.stat().st_mode):
                return False
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return True


def _owned(*paths: Path) -> bool:
    try:
        return all(path.stat().st_uid == os.geteuid() for path in paths)
    except OSError:
        return False


def find(where: str | Path = ".") -> tuple[Path, Path, Path] | None:
    """(worktree top, git folder, common folder) of the repository holding ``where``; None outside one."""
    try:
        start = Path(where).resolve()
    except (OSError, RuntimeError):
        return None
    for folder in (start, *start.parents):
        dotgit = folder / ".git"
        try:
            mode = dotgit.lstat().st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            gitdir = dotgit
        else:  # a linked worktree or a submodule: "gitdir: PATH"
            text = (_read(dotgit) or b"").decode("utf-8", "replace").strip()
            if not text.startswith("gitdir:"):
                return None
            gitdir = (folder / text[len("gitdir:"):].strip()).resolve()
        common = (_read(gitdir / "commondir") or b"").decode("utf-8", "replace").strip()
        return folder, gitdir, (gitdir / common).resolve() if common else gitdir
    return None


def _ref(name: str, gitdir: Path, common: Path) -> str | None:
    """The commit reference ``name`` points to, from its loose file or packed-refs."""
    for folder in (gitdir, common):
        raw = _read(folder / name)
        if raw is not None:
            return raw.decode("ascii", "replace").strip()
    packed = _read(common / "packed-refs", _PACKED_MAX)
    for line in (packed or b"").decode("utf-8", "replace").splitlines():
        found, _, ref = line.partition(" ")
        if ref == name and _HASH.fullmatch(found):
            return found
    return None


def head(gitdir: Path, common: Path) -> str | None:
    """The commit HEAD names (following at most five symbolic references); None when it names none."""
    text = (_read(gitdir / "HEAD") or b"").decode("ascii", "replace").strip()
    for _ in range(5):
        if _HASH.fullmatch(text):
            return text
        if not text.startswith("ref:"):
            return None
        name = text[4:].strip()
        if not _REF.fullmatch(name) or ".." in name or "/." in name:
            return None
        text = _ref(name, gitdir, common) or ""
    return None


def _git(args: list[str], top: Path, gitdir: Path, timeout: float) -> subprocess.CompletedProcess | None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_DIR=str(gitdir), GIT_WORK_TREE=str(top), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               GIT_ATTR_NOSYSTEM="1", GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0", GIT_NO_REPLACE_OBJECTS="1",
               GIT_PAGER="cat", PAGER="cat")
    try:
        return subprocess.run(["git", "--no-pager", *_SAFE, *args], cwd=top, env=env, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None


def _filters(top: Path, gitdir: Path, timeout: float) -> list[str] | None:
    """``-c`` options emptying every filter the configuration declares (None: one git cannot override)."""
    listed = _git(["config", "--list", "--name-only", "-z"], top, gitdir, timeout)
    if listed is None or listed.returncode not in (0, 1):
        return None
    names = {key[len("filter."):key.rindex(".")] for key in listed.stdout.decode("utf-8", "replace").split("\0")
             if key.lower().startswith("filter.") and key.count(".") >= 2}
    if any("=" in name or "\n" in name for name in names):
        return None
    return [option for name in sorted(names) for var in ("clean", "smudge", "process")
            for option in ("-c", f"filter.{name}.{var}=")] + [
        option for name in sorted(names) for option in ("-c", f"filter.{name}.required=false")]


def dirty(top: Path, gitdir: Path, common: Path, commit: str, timeout: float = 10.0) -> bool | None:
    """Whether tracked files differ from ``commit`` (None: not known)."""
    if shutil.which("git") is None or not _plain(gitdir / "index", gitdir / "config", gitdir / "config.worktree",
                                                  common / "config"):
        return None
    overrides = _filters(top, gitdir, timeout)
    if overrides is None:
        return None
    done = _git([*overrides, "diff", "--quiet", "--no-ext-diff", "--no-textconv", "--ignore-submodules=all",
                 commit, "--"], top, gitdir, timeout)
    if done is None or done.returncode not in (0, 1):
        return None
    return done.returncode == 1


def git_commit(where: str | Path = ".") -> str | None:
    """The commit checked out in the git repository holding ``where`` (with ``+dirty`` appended when tracked
    files are modified); None outside a repository, in one another user owns, or on an unborn branch."""
    found = find(where)
    if found is None:
        return None
    top, gitdir, common = found
    if not _owned(top, gitdir, common):
        return None
    commit = head(gitdir, common)
    if commit is None:
        return None
    return commit + ("+dirty" if dirty(top, gitdir, common, commit) else "")
