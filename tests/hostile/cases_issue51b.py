"""Cases: issue51b (issue 51, point 4): hostile replies to ``genevals run --judge-batch``.

Each case runs ``genevals run --judge-batch`` in a real process against a local batch server
(:class:`support.batch_server.BatchServer`) whose replies are hostile in one way (:data:`EXPECTED`): malformed
lines in the output file, lines for ids never sent, a 5 MB line, an output file over its size cap, the same id
twice, replies with no choices, a batch that fails whole, a completed batch with no files, status checks that
always fail. :func:`hostile_batch` raises unless the run ends with an exit code that says what happened (0, or
3: too many judge errors), no traceback, strict-JSON results for every sample, and each sample's faithfulness
``ok`` or ``judge_error`` as expected, with a reason that names what went wrong.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hostile.cases import OK, Case

CLS = "issue51b"
MOD = '__import__("hostile.cases_issue51b", fromlist=["_"])'
CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ANSWERS = ("Marie Curie was born in Warsaw.", "Marie Curie discovered polonium.")
#: kind -> (the status every sample ends with, what its reason (a judge_error) or stderr (ok) says)
EXPECTED = {
    "malformed": ("ok", "malformed line(s)"),
    "unknown": ("ok", "line(s) for requests never sent"),
    "repeated": ("ok", "repeated line(s)"),
    "huge-line": ("judge_error", "gave no answer to this request"),
    "huge-file": ("judge_error", "is over"),
    "no-choices": ("judge_error", "response has no choices"),
    "failed": ("judge_error", "failed: the input file could not be read"),
    "no-files": ("judge_error", "gave no answer to this request"),
    "poll-500": ("judge_error", "could not be followed"),
}


def hostile_batch(tmp: str, kind: str) -> dict:
    """One ``--judge-batch`` run against a batch server that is hostile as ``kind`` says; RuntimeError unless it
    ends as :data:`EXPECTED` says."""
    from support.batch_server import BatchServer

    folder = Path(tmp)
    data = folder / "batch.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "answer": a, "contexts": [CONTEXT]}) + "\n"
                            for i, a in enumerate(ANSWERS)))
    out = folder / "batch-out"
    with BatchServer(hostile=kind) as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(out), "--metrics",
                               "faithfulness", "--judge-base-url", server.base_url, "--judge-model", "judge",
                               "--no-judge-cache", "--judge-batch", "--judge-retries", "1", "--judge-option",
                               "batch_poll=0.01", "--judge-option", "batch_poll_max=0.02"],
                              capture_output=True, text=True, timeout=35)
    status, said = EXPECTED[kind]
    problems = []
    if "Traceback" in done.stderr:
        problems.append("a traceback")
    if done.returncode != (0 if status == "ok" else 3):
        problems.append(f"exit {done.returncode}")
    lines = (out / "results.jsonl").read_text().splitlines() if (out / "results.jsonl").exists() else []
    got = [json.loads(line, parse_constant=_refuse)["metrics"]["faithfulness"] for line in lines]
    if len(got) != len(ANSWERS):
        problems.append(f"{len(got)} results for {len(ANSWERS)} samples")
    for result in got:
        if result["status"] != status:
            problems.append(f"a sample ended {result['status']}: {result.get('reason')}")
        elif status != "ok" and said not in (result.get("reason") or ""):
            problems.append(f"the reason does not say {said!r}: {result.get('reason')}")
    if status == "ok" and said not in done.stderr:
        problems.append(f"stderr does not say {said!r}")
    if problems:
        raise RuntimeError(f"--judge-batch against a {kind} batch server: {'; '.join(problems)}; stderr: "
                           f"{done.stderr[-1500:]}")
    return {"kind": kind, "exit": done.returncode}


def _refuse(token: str):
    raise ValueError(f"not strict JSON: {token}")


def cases() -> list[Case]:
    return [Case(id=f"{CLS}-batch-{kind}", cls=CLS, expect=OK, api=f"{MOD}.hostile_batch(TMP, {kind!r})",
                 limit=40.0, note="hostile replies of a batch server") for kind in EXPECTED]
