"""The demo run's values, statuses and summary, compared with a baseline stored before the engine was renovated
(issue #24): a change to how samples travel through the engine must not change what a user is shown.

Floats are compared at 6 decimals, within one unit of the last (the model-based metrics run ONNX Runtime, whose
last bits differ between machines: an AMD EPYC and an Intel Xeon round 18 of the demo's values to neighbouring
6th decimals); everything else exactly. To store a new baseline after a deliberate change of values:
``python tests/engine/test_demo_baseline.py --store`` (and say why in the commit).
"""
from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
BASELINE = ROOT / "tests" / "data" / "demo_baseline" / "demo_run.json.gz"
DEMO = ROOT / "datasets" / "demo" / "demo.jsonl"
METRICS = "all,context_relevance,answer_relevance,answer_correctness"


def _last_unit(value: float) -> float:
    """1.5 units of ``value``'s last decimal (at most 6; genevals rounds some details at 4): a last-bit difference
    may move a rounded value to its neighbour, never further."""
    digits = repr(value).partition(".")[2]
    places = len(digits) if digits.isdigit() else 6
    return 1.5 * 10.0 ** -min(max(places, 1), 6)

_VERSION = re.compile(r"(?:\A[\w.-]+:|==)\d+(?:\.\d+)+\Z")
#: summary fields that say when or with what version a run was made, not what it found
_VOLATILE = {"genevals_version"}
#: summary fields computed from the values compared here (issue 37's paired comparisons and leaderboard, checked
#: against the report's by tests/output/test_comparing.py): left out, so the stored baseline stands
_DERIVED = {"comparisons", "leaderboard"}


def _rounded(value):
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _signatures_without_versions(signatures: dict) -> dict:
    """Signatures name the versions of genevals and of the libraries a metric runs (``|genevals:0.1.0``,
    ``|transformers:5.23.0``, ``weights:...==0.1.0``): a fresh install may take a newer release; the rest must
    stay."""
    return {family: "|".join(p for p in sig.split("|") if not _VERSION.search(p))
            for family, sig in signatures.items()}


def demo_run(out: Path) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    # the input named relative to the checkout, as origins and notes show it, so any checkout compares equal
    proc = subprocess.run([sys.executable, "-m", "genevals", "run", str(DEMO.relative_to(ROOT)), "--out", str(out),
                           "--metrics", METRICS, "-q"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    results.sort(key=lambda r: (r["system"], r["id"]))
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    summary = {k: v for k, v in summary.items() if k not in _VOLATILE | _DERIVED}
    summary["signatures"] = _signatures_without_versions(summary["signatures"])
    summary["meta"].pop("input", None)
    return _rounded({"results": results, "summary": summary})


def _differences(want, got, where="", out=None, limit=20):
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got), key=str):
            if key not in got or key not in want:
                out.append(f"{where}.{key}: {'missing' if key not in got else 'new'}")
            else:
                _differences(want[key], got[key], f"{where}.{key}", out, limit)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (w, g) in enumerate(zip(want, got)):
            _differences(w, g, f"{where}[{i}]", out, limit)
    elif isinstance(want, float) and isinstance(got, float):
        if abs(want - got) > _last_unit(want):
            out.append(f"{where}: {want!r} -> {got!r}")
    elif want != got:
        out.append(f"{where}: {str(want)[:80]!r} -> {str(got)[:80]!r}")
    return out


def test_demo_run_equals_the_stored_baseline(tmp_path):
    want = json.loads(gzip.decompress(BASELINE.read_bytes()))
    want["summary"]["signatures"] = _signatures_without_versions(want["summary"]["signatures"])
    got = demo_run(tmp_path / "run")
    assert len(got["results"]) == len(want["results"]) == 90
    problems = _differences(want, got)
    assert not problems, "the demo run differs from its baseline:\n" + "\n".join(problems)


if __name__ == "__main__" and sys.argv[1:] == ["--store"]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        data = demo_run(Path(folder) / "run")
    BASELINE.parent.mkdir(parents=True, exist_ok=True)
    BASELINE.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))
    print(f"stored {BASELINE} ({BASELINE.stat().st_size:,} bytes)")
