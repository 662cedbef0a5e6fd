"""Every environment variable genevals reads is in the command-line reference's table (docs/reference/cli.md),
and GENEVALS_DEBUG_SCHEDULE does what that table says, in a real `genevals run`."""
import json
import os
import re
import subprocess
import sys

from conftest import DEMO, REPO

REFERENCE = REPO / "docs" / "reference" / "cli.md"


def documented() -> set[str]:
    text = REFERENCE.read_text(encoding="utf-8")
    table = text[text.index("## Environment variables"):]
    return set(re.findall(r"^\| `([A-Z_]+)`", table, re.MULTILINE)) | set(re.findall(r"`([A-Z_]+)`", table))


def test_every_variable_genevals_reads_is_in_the_reference():
    read = set()
    for path in (REPO / "genevals").rglob("*.py"):
        read |= set(re.findall(r"[\"'](GENEVALS_[A-Z_]+)[\"']", path.read_text(encoding="utf-8")))
    assert {"GENEVALS_HISTORY", "GENEVALS_CACHE_DIR", "GENEVALS_DEBUG_SCHEDULE"} <= read
    assert read - documented() == set()


def test_the_schedule_log_holds_what_the_reference_says(tmp_path):
    log = tmp_path / "schedule.jsonl"
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(DEMO), "-m", "token_f1", "--no-history",
                           "-q", "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GENEVALS_DEBUG_SCHEDULE": str(log)})
    assert done.returncode == 0, done.stderr
    units = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert units and {u["where"] for u in units} <= {"chunk", "worker share", "ray batch"}
    scheduled = sorted(tuple(k) for u in units if u["where"] == "chunk" for k in u["ids"])
    assert scheduled == sorted((r.get("system", "default"), r["id"]) for r in rows)
