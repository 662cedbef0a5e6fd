"""Cases: history (issue 34): the run history's file as ``--history`` (and ``$GENEVALS_HISTORY``) names it,
``--baseline`` values, ``genevals history [--last N]``, ``history show RUN``, ``report --history``, names with
control characters, and working folders whose git configuration names commands.

Every case keeps the user's own history out of reach: ``GENEVALS_HISTORY`` and ``XDG_DATA_HOME`` point into
``{tmp}``. The histories are real: :func:`template` records two runs of the good rows with ``genevals run`` once
per session, and each setup copies it (damaging a row or a page with sqlite3 where the case says so).

The git cases make ``{tmp}`` a real repository whose configuration (fsmonitor, hooks, external diff, pager,
filters, textconv) runs a script; the script removes the previous run genevals moved aside (and says "Traceback"
on the case's stderr), so a command that ran fails the case through the runner's checks; the API cases
(:func:`recorded_commit`) also check that the commit is still recorded.
"""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import zlib
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, GOOD_ROWS, good_jsonl, jsonl, line

H = "{tmp}/h.sqlite"
ENV = (("GENEVALS_HISTORY", "{tmp}/env-history.sqlite"), ("XDG_DATA_HOME", "{tmp}/xdg"))
RUN = ("run", "{in}", "--out", "{out}", "--metrics", CHEAP, "-q")
EVIL = "sys\x1b[2J\x1b]0;pwned\x07\x00\u202eevil\x9b31m"
_lock = threading.Lock()
_made: dict[str, Path] = {}


def _genevals(*argv: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    from hostile.runner import child_env

    return subprocess.run([sys.executable, "-m", "genevals", *argv], capture_output=True, cwd=cwd, timeout=120,
                          env=child_env(env), check=False)


def _in_process(*argv: str, cwd: Path) -> tuple[int, str, str]:
    """``genevals ARGV`` in this process (an API case's own forked process: no cold start): exit code, stdout,
    stderr."""
    import contextlib
    import io

    from genevals.cli import main

    os.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def template(kind: str = "good") -> Path:
    """A real history of two runs of the good rows, made once (``evil``: the same, its system renamed
    :data:`EVIL`)."""
    with _lock:
        if "good" not in _made:
            folder = Path(tempfile.mkdtemp(prefix="genevals-hostile-history-"))
            (folder / "in.jsonl").write_bytes(good_jsonl())
            for n in (1, 2):
                done = _genevals("run", str(folder / "in.jsonl"), "--out", str(folder / f"o{n}"), "--metrics",
                                 CHEAP, "-q", "--history", str(folder / "h.sqlite"), cwd=folder)
                assert done.returncode == 0, done.stderr
            _made["good"] = folder / "h.sqlite"
        if kind == "evil" and "evil" not in _made:
            _made["evil"] = _made["good"].with_name("evil.sqlite")
            shutil.copyfile(_made["good"], _made["evil"])
            db = sqlite3.connect(_made["evil"], isolation_level=None)
            for run_id, systems, summary in db.execute("SELECT id, systems, summary FROM runs").fetchall():
                rename = {"default": EVIL}
                db.execute("UPDATE runs SET systems = ?, summary = ? WHERE id = ?",
                           (json.dumps([rename.get(x, x) for x in json.loads(systems)]),
                            json.dumps({rename.get(k, k): v for k, v in json.loads(summary).items()}), run_id))
            db.execute("UPDATE sample_values SET system = ?", (EVIL,))
            db.close()
        return _made[kind]


def _copy(folder: Path, kind: str = "good") -> Path:
    target = folder / "h.sqlite"
    shutil.copyfile(template(kind), target)
    return target


def _sql(path: Path, *statements: str, args: tuple = ()) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            db.execute(statement, args if "?" in statement else ())
    finally:
        db.close()


# ------------------------------------------------------------------ setups: the file --history names

def _fifo(folder, out, inp):
    os.mkfifo(folder / "h.sqlite")


def _loop(folder, out, inp):
    os.symlink(folder / "h2.sqlite", folder / "h.sqlite")
    os.symlink(folder / "h.sqlite", folder / "h2.sqlite")


def _dangling(folder, out, inp):
    os.symlink(folder / "nowhere.sqlite", folder / "h.sqlite")


def _folder(folder, out, inp):
    (folder / "h.sqlite").mkdir()


def _text(folder, out, inp):
    (folder / "h.sqlite").write_text("this is not a database\n" * 50)


def _garbage(folder, out, inp):
    (folder / "h.sqlite").write_bytes(bytes(range(256)) * 64)


def _fake_header(folder, out, inp):
    (folder / "h.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)


def _empty_file(folder, out, inp):
    (folder / "h.sqlite").write_bytes(b"")


def _empty_sqlite(folder, out, inp):
    _sql(folder / "h.sqlite", "PRAGMA user_version = 0", "VACUUM")


def _good(folder, out, inp):
    _copy(folder)


def _truncated(folder, out, inp):
    path = _copy(folder)
    path.write_bytes(path.read_bytes()[:6000])


def _pages(folder, out, inp):
    """Every page after the first two overwritten with garbage."""
    path = _copy(folder)
    data = bytearray(path.read_bytes())
    size = int.from_bytes(data[16:18], "big") or 65536
    for start in range(2 * size, len(data), size):
        data[start:start + size] = (b"\xde\xad\xbe\xef" * (size // 4))[: len(data) - start]
    path.write_bytes(bytes(data))


def _first_page(folder, out, inp):
    path = _copy(folder)
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\x00\x13" * 1998
    path.write_bytes(bytes(data))


def _foreign(folder, out, inp):
    _sql(folder / "h.sqlite", "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
         "INSERT INTO notes (text) VALUES ('mine')")


def _foreign_runs(folder, out, inp):
    """Another program's file that happens to have a table called runs."""
    _sql(folder / "h.sqlite", "CREATE TABLE runs (name TEXT)", "INSERT INTO runs VALUES ('x')")


def _foreign_empty_tables(folder, out, inp):
    _sql(folder / "h.sqlite", "CREATE TABLE t (x)")


def _judge_cache(folder, out, inp):
    from genevals.judge.cache import JudgeCache

    cache = JudgeCache(folder / "cache")
    cache.put("k", {"reply": "cached"})


def _review(folder, out, inp):
    from genevals.review.store import ReviewStore

    ReviewStore(out)


def _newer(folder, out, inp):
    _sql(_copy(folder), "PRAGMA user_version = 7")


def _readonly(folder, out, inp):
    (folder / "ro").mkdir()
    shutil.copyfile(template(), folder / "ro" / "h.sqlite")
    (folder / "ro" / "h.sqlite").chmod(0o444)
    (folder / "ro").chmod(0o555)


def _companion_fifo(folder, out, inp):
    _copy(folder)
    os.mkfifo(folder / "h.sqlite-wal")


def _evil(folder, out, inp):
    _copy(folder, "evil")


def _evil_input(folder, out, inp):
    inp.write_bytes(jsonl(*(line({**r, "system": EVIL}) for r in GOOD_ROWS)))


# damaged rows of run #2 (run #1 stays whole): column -> SQL value
ROWS = {
    "summary-garbage": ("summary", "'{not json'"),
    "summary-list": ("summary", "'[]'"),
    "summary-mean-text": ("summary", "'{\"default\": {\"token_f1\": {\"mean\": \"high\"}}}'"),
    "summary-mean-huge": ("summary", "'{\"default\": {\"token_f1\": {\"mean\": 1e999}}}'"),
    "summary-mean-5000-digits": ("summary", "'{\"default\": {\"token_f1\": {\"mean\": " + "9" * 5000 + "}}}'"),
    "summary-ci-short": ("summary", "'{\"default\": {\"token_f1\": {\"mean\": 0.5, \"ci95\": [0.1]}}}'"),
    "summary-deep": ("summary", "'" + "[" * 100000 + "]" * 100000 + "'"),
    "systems-text": ("systems", "'\"default\"'"),
    "systems-numbers": ("systems", "'[1, 2]'"),
    "headline-object": ("headline", "'{}'"),
    "signatures-list": ("signatures", "'[1]'"),
    "thresholds-text": ("thresholds", "'{\"fail_under\": {\"token_f1\": \"x\"}}'"),
    "finished-blob": ("finished", "x'ff00'"),
    "started-blob": ("started", "x'00ff'"),
    "seed-text": ("seed", "'abc'"),
    "seconds-text": ("seconds", "'fast'"),
    "n-samples-blob": ("n_samples", "x'01'"),
    "input-rows-text": ("input_rows", "'many'"),
    "git-commit-blob": ("git_commit", "x'1b5b32'"),
}
VALUES = {
    "keys-garbage": "UPDATE sample_values SET keys = x'0102030405' WHERE run_id = 2",
    "vals-not-blob": "UPDATE sample_values SET vals = 'text' WHERE run_id = 2",
    "n-wrong": "UPDATE sample_values SET n = n + 1 WHERE run_id = 2",
    "n-negative": "UPDATE sample_values SET n = -1 WHERE run_id = 2",
    "n-huge": "UPDATE sample_values SET n = 9223372036854775807 WHERE run_id = 2",
    "zlib-bomb": "UPDATE sample_values SET vals = ? WHERE run_id = 2",
    "zlib-bomb-count": "UPDATE sample_values SET keys = ?, vals = ?, n = 2147483647 WHERE run_id = 2",
    "keys-unsorted": "UPDATE sample_values SET keys = ? WHERE run_id = 2",
    "system-blob": "UPDATE sample_values SET system = x'00' WHERE run_id = 2",
}


def _damage_row(column: str, value: str):
    def step(folder, out, inp):
        _sql(_copy(folder), f"UPDATE runs SET {column} = {value} WHERE id = 2")
    return step


def _damage_values(statement: str):
    def step(folder, out, inp):
        if "zlib" in step.__name__:
            blob = zlib.compress(b"\x00" * (200 << 20), 9)
        else:  # three ids, in descending order
            blob = zlib.compress((3).to_bytes(8, "little") + (2).to_bytes(8, "little") + (1).to_bytes(8, "little"))
        _sql(_copy(folder), statement, args=(blob,) * statement.count("?"))
    return step


# ------------------------------------------------------------------ setups: a git repository in {tmp}

# what a script does when git runs it: says so on the case's stderr, and removes the previous run that genevals
# moved aside before recording the run (the runner fails a case whose earlier results are lost)
_MARK = ("#!/bin/sh\necho 'Traceback: git ran {what} from the working folder' >> '{stderr}'\n"
         "touch '{folder}/RAN-{what}'\nrm -rf '{folder}/out/earlier'\n{tail}")


def _script(folder: Path, what: str, tail: str = "exit 0\n") -> Path:
    path = folder / "git-scripts" / what
    path.parent.mkdir(exist_ok=True)
    path.write_text(_MARK.format(what=what, stderr=folder / "_stderr", folder=folder, tail=tail))
    path.chmod(0o755)
    return path


def _git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=h", "-c", "user.email=h@example.org", "-c", "core.hooksPath=/dev/null",
                    "-C", str(folder), *args], check=True, capture_output=True, timeout=30,
                   env={k: v for k, v in os.environ.items() if not k.startswith("GIT_")})


def repo(folder: Path) -> str:
    """``folder`` as a git repository with in.jsonl and notes.txt committed, then notes.txt changed and in.jsonl
    touched (so git must look at their contents); returns the commit."""
    _git(folder, "init", "-q")
    (folder / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (folder / "notes.txt").write_text("first\n")
    _git(folder, "add", "in.jsonl", "notes.txt", ".gitattributes")
    _git(folder, "commit", "-q", "-m", "data")
    head = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    (folder / "notes.txt").write_text("changed\n")
    later = (folder / "in.jsonl").stat().st_mtime + 10
    os.utime(folder / "in.jsonl", (later, later))
    return head


def _config(folder: Path, *pairs: tuple[str, str]) -> None:
    with open(folder / ".git" / "config", "a", encoding="utf-8") as handle:
        for key, value in pairs:
            section, _, name = key.rpartition(".")
            head, _, sub = section.partition(".")
            handle.write(f"[{head}" + (f' "{sub}"' if sub else "") + f"]\n\t{name} = {value}\n")


def configure(folder: Path, kind: str) -> None:
    """Makes the git configuration of the repository in ``folder`` run a script (or its files hostile)."""
    s = lambda what, tail="exit 0\n": str(_script(folder, what, tail))  # noqa: E731
    if kind == "fsmonitor":
        _config(folder, ("core.fsmonitor", s("fsmonitor")))
    elif kind == "hooks":
        hooks = folder / "hooks"
        hooks.mkdir()
        for name in ("post-index-change", "reference-transaction", "pre-commit", "post-checkout",
                     "pre-auto-gc", "fsmonitor-watchman"):
            shutil.copy(s(name), hooks / name)
        _config(folder, ("core.hooksPath", str(hooks)))
    elif kind == "diff-external":
        _config(folder, ("diff.external", s("diff-external")))
    elif kind == "pager":
        _config(folder, ("core.pager", s("pager")), ("pager.diff", s("pager-diff")))
    elif kind == "filter":
        _config(folder, ("filter.evil.clean", s("clean", "cat\n")), ("filter.evil.smudge", s("smudge", "cat\n")))
    elif kind == "filter-process":
        _config(folder, ("filter.evil.process", s("process")), ("filter.evil.required", "true"))
    elif kind == "textconv":
        _config(folder, ("diff.evil.textconv", s("textconv", "cat \"$1\"\n")), ("diff.evil.command", s("cmd")))
    elif kind == "all":
        _config(folder, ("core.fsmonitor", s("fsmonitor")), ("core.hooksPath", str(folder / "git-scripts")),
                ("diff.external", s("diff-external")), ("core.pager", s("pager")),
                ("filter.evil.clean", s("clean", "cat\n")), ("diff.evil.textconv", s("textconv")),
                ("core.sshCommand", s("ssh")), ("core.editor", s("editor")), ("core.askPass", s("askpass")),
                ("credential.helper", "!" + s("credential")), ("gpg.program", s("gpg")),
                ("alias.diff", "!" + s("alias")))
    elif kind == "include":  # the commands come from a file the config includes
        extra = folder / "extra.gitconfig"
        extra.write_text(f"[core]\n\tfsmonitor = {s('fsmonitor')}\n[filter \"evil\"]\n\tclean = "
                         f"{s('clean', 'cat')}\n")
        _config(folder, ("include.path", str(extra)))
    elif kind == "other-owner":
        _config(folder, ("core.fsmonitor", s("fsmonitor")))
        for path in [folder / ".git", *(folder / ".git").rglob("*")]:
            os.lchown(path, 65534, 65534)
        os.chown(folder, 65534, 65534)
    elif kind == "head-fifo":
        (folder / ".git" / "HEAD").unlink()
        os.mkfifo(folder / ".git" / "HEAD")
    elif kind == "head-garbage":
        (folder / ".git" / "HEAD").write_bytes(b"\xff\xfe ref: ../../../../etc/passwd\n" * 1000)
    elif kind == "head-traversal":
        (folder / ".git" / "HEAD").write_text("ref: refs/../../../../etc/hostname\n")
    elif kind == "ref-loop":
        (folder / ".git" / "HEAD").write_text("ref: refs/heads/a\n")
        (folder / ".git" / "refs" / "heads" / "a").write_text("ref: refs/heads/b\n")
        (folder / ".git" / "refs" / "heads" / "b").write_text("ref: refs/heads/a\n")
    elif kind == "ref-fifo":
        branch = (folder / ".git" / "HEAD").read_text().split()[-1]
        (folder / ".git" / branch).unlink()
        os.mkfifo(folder / ".git" / branch)
    elif kind == "gitdir-file":  # .git is a file naming a FIFO
        shutil.rmtree(folder / ".git")
        os.mkfifo(folder / "gitfifo")
        (folder / ".git").write_text(f"gitdir: {folder / 'gitfifo'}\n")
    elif kind in ("config-fifo", "index-fifo"):
        name = kind.split("-")[0]
        (folder / ".git" / name).unlink()
        os.mkfifo(folder / ".git" / name)
    elif kind == "packed":
        _git(folder, "pack-refs", "--all")
        _config(folder, ("core.fsmonitor", s("fsmonitor")))


def git_setup(kind: str):
    def step(folder, out, inp):
        repo(folder)
        configure(folder, kind)
    step.__name__ = f"history_git_{kind}"
    return step


GIT_KINDS = ("fsmonitor", "hooks", "diff-external", "pager", "filter", "filter-process", "textconv", "all",
             "include", "other-owner", "head-fifo", "head-garbage", "head-traversal", "ref-loop", "ref-fifo",
             "gitdir-file", "config-fifo", "index-fifo", "packed")

SETUPS = {f"history_{name}": step for name, step in (
    ("fifo", _fifo), ("loop", _loop), ("dangling", _dangling), ("folder", _folder), ("text", _text),
    ("garbage", _garbage), ("fake_header", _fake_header), ("empty_file", _empty_file),
    ("empty_sqlite", _empty_sqlite), ("good", _good), ("truncated", _truncated), ("pages", _pages),
    ("first_page", _first_page), ("foreign", _foreign), ("foreign_runs", _foreign_runs),
    ("foreign_empty_tables", _foreign_empty_tables), ("judge_cache", _judge_cache), ("review", _review),
    ("newer", _newer), ("readonly", _readonly), ("companion_fifo", _companion_fifo), ("evil", _evil),
    ("evil_input", _evil_input))}
SETUPS.update({f"history_row_{slug}": _damage_row(*spec) for slug, spec in ROWS.items()})
for _slug, _statement in VALUES.items():
    _step = _damage_values(_statement)
    _step.__name__ = _slug
    SETUPS[f"history_values_{_slug}"] = _step
SETUPS.update({f"history_git_{kind}": git_setup(kind) for kind in GIT_KINDS})


# ------------------------------------------------------------------ API checks, each in its own process

def recorded_commit(tmp: str, kind: str) -> bool:
    """Runs ``genevals run`` (in this, the case's own process) in a repository set up as ``kind``: no script of
    its git configuration may run, and the run must record the commit (and +dirty: notes.txt was changed)."""
    folder = Path(tmp) / "repo"
    folder.mkdir()
    (folder / "in.jsonl").write_bytes(good_jsonl())
    head = repo(folder)
    configure(folder, kind)
    code, _, stderr = _in_process("run", "in.jsonl", "--out", "o", "--metrics", CHEAP, "-q", "--history",
                                  "h.sqlite", cwd=folder)
    ran = sorted(p.name for p in folder.glob("RAN-*"))
    if ran:
        raise AssertionError(f"the folder's git configuration ran: {ran}")
    if code != 0:
        raise AssertionError(f"exit {code}: {stderr[-400:]!r}")
    with sqlite3.connect(folder / "h.sqlite") as db:
        commit = db.execute("SELECT git_commit FROM runs").fetchone()[0]
    if commit != head + "+dirty":
        raise AssertionError(f"recorded commit {commit!r}, expected {head}+dirty")
    return True


def clean_terminal(tmp: str, *argv: str) -> bool:
    """Runs ``genevals ARGV`` ({tmp} filled in) in this (the case's) process; no raw control or bidi character
    of the data may reach stdout or stderr (they must show escaped, as \\x1b)."""
    argv = tuple(a.replace("{tmp}", tmp) for a in argv)
    code, stdout, stderr = _in_process(*argv, cwd=Path(tmp))
    for name, text in (("stdout", stdout), ("stderr", stderr)):
        raw = sorted({f"U+{ord(c):04X}" for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
                      or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"})
        if raw:
            raise AssertionError(f"raw control characters on {name}: {raw}")
    if "\\x1b" not in stdout + stderr:
        raise AssertionError(f"the name is not shown escaped (exit {code}): {stdout[-300:]!r}")
    return True


# ------------------------------------------------------------------ the cases

def _case(slug: str, expect: str, *argv: str, setup: str = "", where=(), limit: float = 15.0, env=ENV) -> Case:
    return Case(id=f"history-{slug}", cls="history", expect=expect, where=tuple(where),
                files=(("in.jsonl", good_jsonl()),), argv=tuple(argv), setup=setup, limit=limit, env=env)


#: --history PATH: slug -> (path, setup, expect for `run`, expect for reading, where)
PATHS = {
    "empty": ("", "", REFUSED, REFUSED, ("--history",)),
    "blank": ("   ", "", REFUSED, REFUSED, ("--history",)),
    "folder": ("{tmp}", "", REFUSED, REFUSED, ("{tmp}", "folder")),
    "fifo": (H, "history_fifo", REFUSED, REFUSED, ("h.sqlite", "FIFO")),
    "dev-null": ("/dev/null", "", REFUSED, REFUSED, ("/dev/null",)),
    "dev-zero": ("/dev/zero", "", REFUSED, REFUSED, ("/dev/zero",)),
    "dev-full": ("/dev/full", "", REFUSED, REFUSED, ("/dev/full",)),
    "dev-stdin": ("/dev/stdin", "", REFUSED, REFUSED, ("/dev/stdin",)),
    "proc-status": ("/proc/self/status", "", REFUSED, REFUSED, ("/proc/self/status",)),
    "proc-mem": ("/proc/self/mem", "", REFUSED, REFUSED, ("/proc/self/mem",)),
    "proc-new": ("/proc/genevals-history.sqlite", "", REFUSED, REFUSED, ("/proc/genevals-history.sqlite",)),
    "proc-new-folder": ("/proc/genevals/h.sqlite", "", REFUSED, REFUSED, ("/proc/genevals/h.sqlite",)),
    "proc-fd": ("/proc/self/fd/0", "", REFUSED, REFUSED, ("/proc/self/fd/0",)),
    "sys-new": ("/sys/genevals-history.sqlite", "", REFUSED, REFUSED, ("/sys/genevals-history.sqlite",)),
    "symlink-loop": (H, "history_loop", REFUSED, REFUSED, ("h.sqlite",)),
    "dangling-link": (H, "history_dangling", REFUSED, REFUSED, ("h.sqlite", "nowhere.sqlite")),
    "under-a-file": ("{in}/h.sqlite", "", REFUSED, REFUSED, ("in.jsonl",)),
    "name-too-long": ("{tmp}/" + "h" * 300, "", REFUSED, REFUSED, ("hhhh",)),
    "text-file": (H, "history_text", REFUSED, REFUSED, ("h.sqlite", "not a genevals history")),
    "the-input": ("{in}", "", REFUSED, REFUSED, ("in.jsonl", "not a genevals history")),
    "the-summary": ("{out}/summary.json", "", REFUSED, REFUSED, ("summary.json",)),
    "garbage": (H, "history_garbage", REFUSED, REFUSED, ("h.sqlite",)),
    "fake-header": (H, "history_fake_header", REFUSED, REFUSED, ("h.sqlite",)),
    "truncated": (H, "history_truncated", ANY, ANY, ("h.sqlite",)),
    "damaged-pages": (H, "history_pages", ANY, REFUSED, ("h.sqlite",)),
    "damaged-first-page": (H, "history_first_page", REFUSED, REFUSED, ("h.sqlite",)),
    "foreign": (H, "history_foreign", REFUSED, REFUSED, ("h.sqlite", "notes")),
    "foreign-runs-table": (H, "history_foreign_runs", REFUSED, REFUSED, ("h.sqlite", "runs")),
    "foreign-empty-table": (H, "history_foreign_empty_tables", REFUSED, REFUSED, ("h.sqlite",)),
    "judge-cache": ("{tmp}/cache/judge_cache.sqlite", "history_judge_cache", REFUSED, REFUSED,
                    ("judge_cache.sqlite", "judge cache")),
    "review-store": ("{out}/review.sqlite", "history_review", REFUSED, REFUSED, ("review.sqlite", "review store")),
    "newer": (H, "history_newer", REFUSED, REFUSED, ("h.sqlite", "newer genevals")),
    "wal-fifo": (H, "history_companion_fifo", REFUSED, REFUSED, ("h.sqlite-wal",)),
    "empty-file": (H, "history_empty_file", OK, OK, ()),
    "empty-sqlite": (H, "history_empty_sqlite", OK, OK, ()),
    "new-nested": ("{tmp}/a/b/c/h.sqlite", "", OK, REFUSED, ("h.sqlite",)),
    "unicode-name": ("{tmp}/histoire-données-日本.sqlite", "", OK, REFUSED, ("données",)),
    "escape-name": ("{tmp}/h\x1b[31m.sqlite", "", OK, REFUSED, ("\\x1b",)),
    "good": (H, "history_good", OK, OK, ()),
}


#: the paths ``report --history`` is given too
REPORTED = ("folder", "fifo", "dev-null", "proc-status", "symlink-loop", "dangling-link", "text-file", "truncated",
            "damaged-pages", "foreign", "judge-cache", "review-store", "newer", "wal-fifo", "empty-file", "good")


def paths() -> list[Case]:
    out = []
    for slug, (path, setup, run_expect, read_expect, where) in PATHS.items():
        out.append(_case(f"run-path-{slug}", run_expect, *RUN, "--history", path, setup=setup, where=where))
        out.append(_case(f"list-path-{slug}", read_expect, "history", "--history", path, setup=setup, where=where,
                         limit=8))
        if slug not in REPORTED:
            continue  # report --history '' is the default history (a bare --history); the rest: a sample
        out.append(_case(f"report-path-{slug}", read_expect, "report", "{out}", "-o", "{tmp}/r.html", "--history",
                         path, setup=setup, where=where, limit=10))
    out += [
        _case("run-path-readonly-folder", ANY, *RUN, "--history", "{tmp}/ro/new.sqlite", setup="history_readonly",
              where=("new.sqlite",)),
        _case("list-readonly-history", OK, "history", "--history", "{tmp}/ro/h.sqlite", setup="history_readonly"),
        _case("show-readonly-history", OK, "history", "show", "latest", "--history", "{tmp}/ro/h.sqlite",
              setup="history_readonly"),
        _case("baseline-readonly-history", OK, *RUN, "--no-history", "--baseline", "latest",
              setup="history_readonly", env=(("GENEVALS_HISTORY", "{tmp}/ro/h.sqlite"), ("XDG_DATA_HOME", "{tmp}/x"))),
        _case("run-no-history-and-history", REFUSED, *RUN, "--no-history", "--history", H, where=("--no-history",)),
        _case("run-no-history-and-empty-history", REFUSED, *RUN, "--no-history", "--history", "",
              where=("--no-history",)),
        _case("run-env-fifo", REFUSED, *RUN, setup="history_fifo", where=("h.sqlite",),
              env=(("GENEVALS_HISTORY", H), ("XDG_DATA_HOME", "{tmp}/xdg"))),
        _case("run-env-review", REFUSED, *RUN, setup="history_review", where=("review store",),
              env=(("GENEVALS_HISTORY", "{out}/review.sqlite"), ("XDG_DATA_HOME", "{tmp}/xdg"))),
        _case("run-env-empty-uses-xdg", OK, *RUN, env=(("GENEVALS_HISTORY", ""), ("XDG_DATA_HOME", "{tmp}/xdg"))),
        _case("list-env-judge-cache", REFUSED, "history", setup="history_judge_cache", where=("judge cache",),
              env=(("GENEVALS_HISTORY", "{tmp}/cache/judge_cache.sqlite"), ("XDG_DATA_HOME", "{tmp}/xdg"))),
    ]
    return out


#: --baseline values against the good history of two runs: value -> expect
BASELINES = {
    "latest": ("latest", OK), "latest-1": ("latest~1", OK), "latest-0": ("latest~0", OK), "id-1": ("1", OK),
    "id-2": ("2", OK), "spaces": (" 1 ", OK), "id-3": ("3", REFUSED), "id-0": ("0", REFUSED),
    "negative": ("-1", REFUSED), "superscript": ("²", REFUSED), "arabic-digit": ("\u0661", REFUSED),
    "fullwidth-digit": ("\uff11", REFUSED), "5000-digits": ("9" * 5000, REFUSED), "20-digits": ("9" * 20, REFUSED),
    "float": ("1.5", REFUSED), "exponent": ("1e3", REFUSED), "hex": ("0x1", REFUSED), "plus": ("+1", REFUSED),
    "underscore": ("1_0", REFUSED), "inf": ("inf", REFUSED), "nan": ("nan", REFUSED), "empty": ("", REFUSED),
    "latest-tilde": ("latest~", REFUSED), "latest-huge": ("latest~" + "9" * 23, REFUSED),
    "latest-5000": ("latest~" + "9" * 5000, REFUSED), "latest-negative": ("latest~-1", REFUSED),
    "latest-superscript": ("latest~²", REFUSED), "latest-2": ("latest~2", REFUSED), "tilde-1": ("~1", REFUSED),
    "upper": ("LATEST", REFUSED), "head": ("HEAD~1", REFUSED), "name": ("my-good-run", REFUSED),
    "escape": ("\x1b[31mred", REFUSED), "bidi": ("\u202e1", REFUSED),
}


def baselines() -> list[Case]:
    out = []
    for slug, (value, expect) in BASELINES.items():
        where = ("--baseline", "\\x1b") if slug == "escape" else ("--baseline",)
        out.append(_case(f"baseline-{slug}", expect, *RUN, "--history", H, "--baseline", value,
                         setup="history_good", where=where))
    out += [
        _case("baseline-no-history-file", REFUSED, *RUN, "--history", "{tmp}/new.sqlite", "--baseline", "latest",
              where=("--baseline", "no runs")),
        _case("baseline-env-only", OK, *RUN, "--no-history", "--baseline", "1", setup="history_good",
              env=(("GENEVALS_HISTORY", H), ("XDG_DATA_HOME", "{tmp}/xdg"))),
        _case("baseline-gated", OK, *RUN, "--history", H, "--baseline", "latest", "--fail-under", "token_f1=0.1",
              setup="history_good"),
    ]
    return out


def listing() -> list[Case]:
    out = [_case(f"list-last-{slug}", expect, "history", "--history", H, "--last", value, setup="history_good",
                 where=("--last",), limit=8)
           for slug, value, expect in (
               ("0", "0", OK), ("1", "1", OK), ("5", "5", OK), ("huge", "9" * 23, OK), ("2-63", str(2**63), OK),
               ("negative", "-1", REFUSED), ("superscript", "²", REFUSED), ("5000-digits", "9" * 5000, REFUSED),
               ("float", "1.5", REFUSED), ("text", "abc", REFUSED), ("empty", "", REFUSED))]
    out += [_case(f"show-{slug}", expect, "history", "show", value, "--history", H, setup="history_good",
                  where=where, limit=8)
            for slug, value, expect, where in (
                ("latest", "latest", OK, ()), ("1", "1", OK, ()), ("latest-1", "latest~1", OK, ()),
                ("0", "0", REFUSED, ("run '0'",)), ("3", "3", REFUSED, ("run '3'",)),
                ("superscript", "²", REFUSED, ("²",)), ("5000-digits", "9" * 5000, REFUSED, ("9999",)),
                ("latest-huge", "latest~" + "9" * 23, REFUSED, ("latest~",)), ("empty", "", REFUSED, ("run ''",)),
                ("escape", "\x1b]0;x\x07", REFUSED, ("\\x1b",)), ("negative", "-1", REFUSED, ("-1",)))]
    out += [
        _case("list-missing", REFUSED, "history", "--history", "{tmp}/none.sqlite", where=("none.sqlite",), limit=8),
        _case("show-missing", REFUSED, "history", "show", "1", "--history", "{tmp}/none.sqlite",
              where=("none.sqlite",), limit=8),
        _case("list-evil-names", OK, "history", "--history", H, setup="history_evil", limit=8),
        _case("show-evil-names", OK, "history", "show", "latest", "--history", H, setup="history_evil", limit=8),
        # its runs' systems are all evil names, the input's none: nothing to compare, refused naming them escaped
        _case("baseline-evil-names", REFUSED, *RUN, "--history", H, "--baseline", "latest", setup="history_evil",
              where=("--baseline", "no system in common", "\\x1b[2J")),
        _case("run-evil-system-names", OK, *RUN, "--history", H, setup="history_evil_input"),
    ]
    return out


#: the damaged rows ``--baseline latest`` is given
BASELINED = ("row_summary_garbage", "row_summary_mean_text", "row_summary_deep", "row_systems_numbers",
             "row_seed_text", "row_thresholds_text", "values_keys_garbage", "values_n_wrong", "values_zlib_bomb",
             "values_keys_unsorted", "values_n_huge", "values_system_blob", "values_zlib_bomb_count")


def damaged() -> list[Case]:
    out = []
    steps = [f"row_{slug}" for slug in ROWS] + [f"values_{slug}" for slug in VALUES]
    for step in steps:
        slug, key = step.replace("_", "-"), step.replace("-", "_")
        setup = f"history_{step}"
        values = step.startswith("values_")
        out += [
            _case(f"{slug}-list", OK, "history", "--history", H, setup=setup, limit=8),
            _case(f"{slug}-show", OK if values else REFUSED, "history", "show", "latest", "--history", H,
                  setup=setup, where=("run #2",), limit=8),
        ]
        if key in BASELINED:
            out.append(_case(f"{slug}-baseline", REFUSED, *RUN, "--history", H, "--baseline", "latest", setup=setup,
                             where=("--baseline", "run #2")))
        if key in ("row_summary_garbage", "values_zlib_bomb", "row_summary_deep"):
            out += [_case(f"{slug}-show-1", OK, "history", "show", "1", "--history", H, setup=setup, limit=8),
                    _case(f"{slug}-baseline-1", OK, *RUN, "--history", H, "--baseline", "1", setup=setup),
                    _case(f"{slug}-report", OK, "report", "{out}", "-o", "{tmp}/r.html", "--history", H,
                          setup=setup, limit=10)]
    return out


def git() -> list[Case]:
    out = [_case(f"git-{kind}", OK, *RUN, "--history", H, setup=f"history_git_{kind}") for kind in GIT_KINDS]
    out += [Case(id=f"history-git-recorded-{kind}", cls="history", expect=OK, files=(("in.jsonl", good_jsonl()),),
                 api=f"__import__('hostile.cases_history', fromlist=['_']).recorded_commit(TMP, {kind!r})",
                 limit=30, env=ENV)
            for kind in ("fsmonitor", "filter", "all")]
    return out


def terminal() -> list[Case]:
    def check(slug, *argv, setup=""):
        return Case(id=f"history-terminal-{slug}", cls="history", expect=OK, files=(("in.jsonl", good_jsonl()),),
                    api="__import__('hostile.cases_history', fromlist=['_']).clean_terminal(TMP, "
                        + ", ".join(repr(a) for a in argv) + ")", setup=setup, limit=30, env=ENV)
    return [check("show", "history", "show", "latest", "--history", "{tmp}/h.sqlite", setup="history_evil"),
            check("list", "history", "--history", "{tmp}/h.sqlite", setup="history_evil"),
            check("run-table", "run", "{tmp}/in.jsonl", "--out", "{tmp}/o", "--metrics", CHEAP, "--no-history",
                  setup="history_evil_input"),
            check("run-table-verbose", "run", "{tmp}/in.jsonl", "--out", "{tmp}/o", "--metrics", CHEAP, "-v",
                  "--no-history", setup="history_evil_input")]


def cases() -> list[Case]:
    return [*paths(), *baselines(), *listing(), *damaged(), *git(), *terminal()]
