"""Runs corpus cases in real processes and says, for each, what is wrong with its outcome (an empty list when
nothing is).

Each case gets its own folder: its ``files``, and ``out/``, a copy of one good run made once per session by a
cold ``python -m genevals run``. After the case, the runner checks the exit code against the case's class, that
stderr holds no traceback, that the case ended within its limit, and that the previous run's results.jsonl,
summary.json and report.html are intact: in place, or (after a run that scored) byte for byte in a backup whose
name stderr gives; a ``--resume`` that scored keeps results.jsonl's complete lines as its start and may rewrite
summary.json and report.html, and ``report DIR`` may rewrite DIR's report.html (:data:`REWRITTEN`). A refused
case must leave them in place, untouched.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from hostile.cases import ANY, CHEAP, OK, REFUSED, Case, good_jsonl
from hostile.setups import ROOT_BYPASSES, SETUPS
from support.forked import ForkClient

REPO = Path(__file__).resolve().parents[2]
#: the previous run's files a case must never lose
KEPT = ("results.jsonl", "summary.json", "report.html")
#: the files a run that scored may rewrite in place, by what it was asked to do: ``--resume`` continues the same
#: run (its results.jsonl grows, its summary and report are written again for all of its results), and
#: ``genevals report DIR`` makes DIR's report.html again; both replace the file whole (written aside, renamed).
#: Everything else that changes one of KEPT must move it aside first.
REWRITTEN = {"resume": ("summary.json", "report.html"), "report": ("report.html",)}
#: exit codes of a run that scored and wrote (0 ok, 1 a threshold missed, 3 too many judge errors): only such a
#: run may replace the previous run's files, and only after moving them aside
SCORED = (0, 1, 3)
SPAWN = os.environ.get("HOSTILE_SPAWN") == "1"
#: the session's corpus, started by tests/hostile/conftest.py when collection ends (or by the first test)
CORPUS: Corpus | None = None


#: the environment the corpus's processes start from: this process's, as it was when the corpus started (set by
#: :class:`Runner`; the tests that run alongside the corpus may set variables of their own for a while)
ENVIRON: dict[str, str] | None = None


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ if ENVIRON is None else ENVIRON)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests"), env.get("PYTHONPATH", "")]).rstrip(":")
    env.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONUNBUFFERED": "1"})
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GENEVALS_JUDGE_BASE_URL"):
        env.pop(name, None)  # the corpus runs without a judge unless a case names one
    env.update(extra or {})
    return env


@dataclass
class Outcome:
    case: Case
    code: int | None = None
    hung: bool = False
    seconds: float = 0.0
    stderr: str = ""
    api: dict | None = None
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.api is not None:
            got = (f"raised {self.api['type']}: {self.api.get('message', '')[:300]}" if self.api["kind"] == "raised"
                   else f"returned {self.api['type']} ({self.api.get('samples')} samples)")
        else:
            got = "hang" if self.hung else f"exit {self.code}"
        return f"{got} in {self.seconds:.1f} s"


def make_base(root: Path, env: dict | None = None) -> Path:
    """One good run, by a cold ``python -m genevals run``: the previous run every case starts next to."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "good.jsonl").write_bytes(good_jsonl())
    base = root / "base"
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(root / "good.jsonl"), "--out", str(base),
                           "--metrics", CHEAP, "-q"], capture_output=True, text=True, timeout=120, env=env or child_env(),
                          check=False)
    assert done.returncode == 0 and all((base / name).exists() for name in KEPT), done.stderr
    return base


def remove(folder: Path) -> None:
    """rmtree, after giving back the permissions a setup step took away (as a user other than root)."""
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(folder, ignore_errors=True)


def digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    except OSError:
        return None


def fill(text: str, where: dict) -> str:
    for key, value in where.items():
        text = text.replace("{" + key + "}", value)
    return text


class Runner:
    """Runs cases, two at a time, through a fork server (or cold processes with HOSTILE_SPAWN=1).

    ``ahead``: how many at a time until :meth:`full_speed` (the corpus starts in the background while the rest of
    the suite runs; see :class:`Corpus`). The environment the cases get is the one at creation (:data:`ENVIRON`):
    a test running alongside may set variables of its own for a while (monkeypatch), and no case must see them."""

    def __init__(self, root: Path, judge_url: str = "http://127.0.0.1:9/v1", workers: int = 2,
                 ahead: int | None = None) -> None:
        global ENVIRON
        self.root = root
        if ENVIRON is None:
            ENVIRON = dict(os.environ)
        self.env = child_env()
        self.base = make_base(root / "_base", self.env)
        self.judge_url = judge_url
        self.workers = workers
        self.ahead = min(workers, ahead or workers)
        self.gate = threading.Semaphore(self.ahead)
        self.stopped = False
        self.server: ForkClient | None = None
        self.lock = threading.Lock()

    def full_speed(self) -> None:
        """From now on ``workers`` cases at a time (once; later calls do nothing)."""
        with self.lock:
            more, self.ahead = self.workers - self.ahead, self.workers
        if more > 0:
            self.gate.release(more)

    def stop(self) -> None:
        """Start no more cases (those running finish); the rest fail as not run."""
        self.stopped = True
        self.full_speed()

    # ------------------------------------------------------------------ the fork server

    def _start_server(self) -> None:
        self.server = ForkClient(self.env, self.root)

    def _forked(self, request: dict) -> dict:
        assert self.server is not None
        return self.server.request(request)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    # ------------------------------------------------------------------ one case

    def run_all(self, cases: list[Case]) -> dict[str, Outcome]:
        if not SPAWN or any(c.api for c in cases):
            self._start_server()
        try:
            with ThreadPoolExecutor(self.workers) as pool:
                return {o.case.id: o for o in pool.map(self.run_one, cases)}
        finally:
            self.close()

    def run_one(self, case: Case) -> Outcome:
        with self.gate:
            if self.stopped:
                return Outcome(case, problems=["not run: the test session ended before this case started"])
            return self._run_one_safely(case)

    def _run_one_safely(self, case: Case) -> Outcome:
        try:
            return self._run_one(case)
        except Exception as exc:  # noqa: BLE001 -- a broken case (its setup, say) fails alone, not the whole corpus
            import traceback

            return Outcome(case, problems=[f"the runner failed on this case: {exc!r}"],
                           stderr=traceback.format_exc())

    def _run_one(self, case: Case) -> Outcome:
        folder = self.root / case.id
        if folder.exists():
            remove(folder)
        folder.mkdir(parents=True)
        for name, content in case.files:
            (folder / name).write_bytes(content)
        out = folder / "out"
        shutil.copytree(self.base, out)
        names = {"in": str(folder / case.files[0][0]) if case.files else str(folder / "in.jsonl"),
                 "out": str(out), "tmp": str(folder), "judge": self.judge_url}
        expect = case.expect
        rerun = case.setup == "rerun_first"
        if case.setup and not rerun:
            SETUPS[case.setup](folder, out, Path(names["in"]))
            if case.setup in ROOT_BYPASSES and os.geteuid() == 0:
                expect = ANY  # root reads and writes through the permission bits this case sets up
        before = {name: (out / name).read_bytes() if (out / name).is_file() else None for name in KEPT}
        outcome = Outcome(case)
        for _ in range(2 if rerun else 1):
            self._execute(case, folder, names, outcome)
        outcome.problems = self.check(case, expect, folder, out, names, before, outcome)
        if not outcome.problems and os.environ.get("HOSTILE_KEEP") != "1":
            remove(folder)
        return outcome

    def _execute(self, case: Case, folder: Path, names: dict, outcome: Outcome) -> None:
        stdout, stderr = folder / "_stdout", folder / "_stderr"
        request = {"id": case.id, "cwd": str(folder), "stdout": str(stdout), "stderr": str(stderr),
                   "limit": case.limit, "env": {k: fill(v, names) for k, v in case.env}}
        if case.api:
            request["api"] = fill(case.api, names)
            request["result"] = str(folder / "_api.json")
        else:
            request["argv"] = [fill(arg, names) for arg in case.argv]
        if SPAWN and not case.api:
            reply = self._spawned(request, self.env)
        else:
            reply = self._forked(request)
        outcome.code, outcome.hung, outcome.seconds = reply["code"], reply["hung"], reply["seconds"]
        if reply.get("died"):
            outcome.problems.append("the fork server died")
        # each run's stderr is kept (rerun_first runs twice): each names where its own earlier run went
        outcome.stderr += stderr.read_bytes().decode("utf-8", "replace") if stderr.exists() else ""
        if case.api and (folder / "_api.json").exists():
            outcome.api = json.loads((folder / "_api.json").read_text())

    @staticmethod
    def _spawned(request: dict, env: dict) -> dict:
        argv = [sys.executable, "-m", "genevals", *(os.fsencode(a) for a in request["argv"])]
        start = time.monotonic()
        with open(request["stdout"], "wb") as out, open(request["stderr"], "wb") as err:
            child = subprocess.Popen(argv, cwd=request["cwd"], stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                     env={**env, **request["env"]}, start_new_session=True)
            try:
                code = child.wait(timeout=request["limit"] + 1.5)  # + the cold start the fork server saves
                return {"code": code, "hung": False, "seconds": time.monotonic() - start}
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
                return {"code": None, "hung": True, "seconds": time.monotonic() - start}

    # ------------------------------------------------------------------ the checks

    def check(self, case: Case, expect: str, folder: Path, out: Path, names: dict, before: dict,
              outcome: Outcome) -> list[str]:
        problems = list(outcome.problems)
        if outcome.hung:
            return problems + [f"hang: killed after {case.limit:g} s"]
        where = [fill(w, names) for w in case.where]
        if case.api:
            problems += self._check_api(expect, where, outcome)
        else:
            problems += self._check_cli(case, expect, where, out, outcome)
        problems += self._check_kept(expect, folder, out, before, outcome)
        if case.secrets:
            problems += secret_problems(case.secrets, folder)
        return problems

    @staticmethod
    def _check_cli(case: Case, expect: str, where: list[str], out: Path, outcome: Outcome) -> list[str]:
        problems = []
        if "Traceback" in outcome.stderr:
            problems.append("traceback on stderr")
        code = outcome.code
        if code is not None and code < 0:
            problems.append(f"killed by signal {-code}")
        scored = code in SCORED
        if expect == OK and not scored:
            problems.append(f"expected exit 0 or 1 (scored), got {code}")
        elif expect == REFUSED and code != 2:
            problems.append(f"expected exit 2 (refused), got {code}")
        elif expect == ANY and code not in (0, 1, 2):
            problems.append(f"expected exit 0, 1 or 2, got {code}")
        elif expect.startswith("exit:") and code != int(expect[5:]):
            problems.append(f"expected exit {expect[5:]}, got {code}")
        if code == 2 and expect in (REFUSED, ANY):
            missing = [w for w in where if w not in outcome.stderr]
            if "error" not in outcome.stderr.lower():
                problems.append("exit 2 without an error message")
            if missing:
                problems.append(f"the message does not name {missing}")
        if scored and case.argv[:1] == ("run",) and expect != REFUSED:
            problems += strict_json_problems(out)
        return problems

    @staticmethod
    def _check_api(expect: str, where: list[str], outcome: Outcome) -> list[str]:
        api = outcome.api
        if api is None:
            return [f"the API driver wrote no outcome (exit {outcome.code}): {outcome.stderr[-500:]}"]
        if outcome.code != 0:
            return [f"the API driver exited {outcome.code}"]
        returned = api["kind"] == "returned"
        clear = not returned and ("ValueError" in api["bases"] or "TypeError" in api["bases"])
        located = clear and all(w in api["message"] for w in where)
        problems = []
        if returned and api["type"] == "Results" and not api["samples"]:
            problems.append("returned Results with 0 samples")
        if expect == OK and not returned:
            problems.append("expected a result, got an exception")
        elif expect == REFUSED and returned:
            problems.append("expected a clear error, got a result")
        if not returned and (expect in (REFUSED, ANY) and not located or expect == OK):
            problems.append(f"not a clear error naming {where}: {api['type']}: {api['message'][:200]}")
        return problems

    @staticmethod
    def _check_kept(expect: str, folder: Path, out: Path, before: dict, outcome: Outcome) -> list[str]:
        """The previous run's files: in place, or (only after a run that scored) a byte-identical backup that
        stderr names. ``--resume`` continues the previous results.jsonl: its complete lines must stay its start."""
        problems = []
        copies: dict[str, list[Path]] | None = None
        case = outcome.case
        resumed = "--resume" in case.argv or "resume=True" in case.api
        scored = expect != REFUSED and outcome.code in SCORED
        # `report DIR` without -o writes DIR/report.html; with -o, another file
        reported = case.argv[:1] == ("report",) and not {"-o", "--output"} & set(case.argv)
        rewritten = REWRITTEN["resume"] if resumed else REWRITTEN["report"] if reported else ()
        for name, old_bytes in before.items():
            if old_bytes is None:
                continue
            now = (out / name).read_bytes() if (out / name).is_file() else None
            if now == old_bytes:
                continue
            if resumed and name == "results.jsonl":
                complete = old_bytes[: old_bytes.rfind(b"\n") + 1]
                if now is not None and now.startswith(complete):
                    continue
                if scored:  # continued, not moved aside: the earlier lines must stay where they were
                    problems.append("--resume did not keep the previous results.jsonl's complete lines as the "
                                    "start of results.jsonl")
                    continue
            if scored and name in rewritten and now is not None:
                continue
            old = hashlib.sha256(old_bytes).hexdigest()
            if expect == REFUSED or outcome.code not in SCORED:
                problems.append(f"the previous {name} was changed or removed (exit {outcome.code}; a run that is "
                                "refused or fails must leave it in place)")
                continue
            if copies is None:
                copies = {}
                for path in folder.rglob("*"):
                    if path.is_file() and not path.name.startswith("_"):
                        copies.setdefault(digest(path) or "", []).append(path)
            found = copies.get(old, [])
            if not found:
                problems.append(f"the previous {name} is lost (overwritten, no backup)")
            elif not case.api and not any((p.name != name and p.name in outcome.stderr) or
                                          (p.parent != out and p.parent.name in outcome.stderr) for p in found):
                problems.append(f"the previous {name} was moved to {found[0].relative_to(folder)}, "
                                "but stderr does not say where")
        return problems


class Corpus:
    """The selected cases, run in the background from the end of collection (tests/hostile/conftest.py), so that
    the corpus, half of the suite's time, overlaps with the other tests, which mostly wait on processes of their
    own: ``ahead`` cases at a time until the corpus's first test asks for the outcomes (:meth:`outcomes`), then
    ``workers``. The corpus's tests run last (the conftest moves them), so on two cores the whole corpus usually
    runs alongside the rest of the suite. Each case is still its own process under its own time limit."""

    def __init__(self, cases: list[Case], ahead: int | None = None, workers: int = 2) -> None:
        self.cases = cases
        self.ahead = ahead
        self.workers = workers
        self.runner: Runner | None = None
        self.ready = threading.Event()  # the runner exists (or could not be made)
        self.found: dict[str, Outcome] = {}
        self.error: BaseException | None = None
        # its own folder, not pytest's tmp_path: pytest deletes all but its three latest, also under a running session
        self.root = Path(tempfile.mkdtemp(prefix="genevals-hostile-"))
        self.start = time.monotonic()
        self.elapsed = 0.0
        self.thread = threading.Thread(target=self._run, name="hostile-corpus", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        judge = None
        try:
            if any(case.cls == "judge" or "{judge}" in repr((case.argv, case.api, case.env)) for case in self.cases):
                from support.fault_server import FaultServer

                judge = FaultServer().__enter__()
            try:
                self.runner = Runner(self.root, judge.base_url if judge else "http://127.0.0.1:9/v1", self.workers,
                                     self.ahead)
            finally:
                self.ready.set()
            self.found = self.runner.run_all(self.cases)
        except BaseException as exc:  # noqa: BLE001 -- handed to the test that asks for the outcomes
            self.error = exc
        finally:
            self.ready.set()
            self.elapsed = time.monotonic() - self.start
            if judge is not None:
                judge.__exit__(None, None, None)
            if os.environ.get("HOSTILE_KEEP") != "1":
                remove(self.root)

    def outcomes(self) -> dict[str, Outcome]:
        """Every case's outcome, once all have run (at full speed from now on)."""
        self.ready.wait()
        if self.runner is not None:
            self.runner.full_speed()
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.found

    def stop(self) -> None:
        """The session ends: start no more cases, wait for those running (each within its limit)."""
        self.ready.wait()
        if self.runner is not None:
            self.runner.stop()
        self.thread.join()


def secret_problems(secrets, folder: Path) -> list[str]:
    """Each secret, as it is, base64-encoded or URL-encoded, in stdout, stderr or any file under ``folder``."""
    import base64
    from urllib.parse import quote

    forms = set()
    for secret in secrets:
        raw = secret.encode()
        forms |= {raw, base64.b64encode(raw).rstrip(b"="), quote(secret, safe="").encode()}
    problems = []
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name not in ("in.jsonl",):
            data = path.read_bytes()
            for form in forms:
                if form in data:
                    problems.append(f"a secret ({form[:12]!r}...) is in {path.relative_to(folder)}")
    return problems


def strict_json_problems(out: Path) -> list[str]:
    """results.jsonl and summary.json must be strict JSON: no NaN or Infinity tokens, no cut-off lines."""
    def refuse(token):
        raise ValueError(f"bare {token} token")

    problems = []
    summary = out / "summary.json"
    if not summary.exists():
        return ["scored, but no summary.json"]
    try:
        json.loads(summary.read_text(encoding="utf-8"), parse_constant=refuse)
    except ValueError as exc:
        problems.append(f"summary.json is not strict JSON: {exc}")
    results = out / "results.jsonl"
    if results.exists():
        for number, raw in enumerate(results.read_bytes().split(b"\n")[:-1], 1):
            try:
                json.loads(raw, parse_constant=refuse)
            except ValueError as exc:
                problems.append(f"results.jsonl:{number} is not strict JSON: {exc}")
                break
    return problems
