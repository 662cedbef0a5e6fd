"""``--system-from``: a dotted path looked up in each trace (genevals.input.traces.records.lookup), in time that
follows the trace, not the number of parts in the path."""
import json
import subprocess
import sys
import time
from pathlib import Path

from genevals.input.traces.records import lookup

LANGFUSE = Path(__file__).resolve().parents[2] / "data" / "traces" / "langfuse_traces.json"


def test_a_path_is_found_through_keys_that_hold_dots_and_json_text():
    trace = {"metadata.team": {"a.b": {"c": "x"}}, "metadata": json.dumps({"team": {"a": {"b": {"c": "y"}}}})}
    assert lookup(trace, "metadata.team.a.b.c") == "x"  # the longest key first
    trace["metadata.team"] = {"a.b": {"c": None}}
    assert lookup(trace, "metadata.team.a.b.c") == "y"  # a None is no value: the next key is tried
    assert lookup(trace, "metadata.team.a.b.d") is None and lookup(trace, "") is None


def test_30000_parts_end_in_a_located_error_at_once(tmp_path):
    """Issue 34, point 16: every prefix of the path was joined at each level (30,000 parts: 20 s a trace)."""
    long = ".".join(["a"] * 30_000)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(LANGFUSE), "--from", "langfuse",
                           "--system-from", long, "-o", str(tmp_path / "out"), "-m", "exact_match"],
                          capture_output=True, text=True, timeout=120)
    assert time.monotonic() - start < 10
    assert done.returncode == 2 and "--system-from: no attribute 'a.a.a" in done.stderr, done.stderr
    assert len(done.stderr) < 2000  # the path is not quoted whole
    trace = {"metadata": {long: "dense"}}
    assert lookup(trace, "metadata." + long) == "dense"
