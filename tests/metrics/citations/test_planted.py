"""The Done-when figure of issue 25, guarded: on the cited demo with planted citation errors, the offline check
catches at least 90% of them with at most 10% false alarms on untouched sentences (tools/plant_citation_errors.py,
whose figures benchmarks/RESULTS.md reports)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_offline_check_catches_planted_citation_errors():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "plant_citation_errors.py")], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["planted"] >= 250 and figures["untouched_sentences"] >= 120
    assert set(figures["by_kind"]) == {"moved", "out_of_range", "removed", "union"}
    assert figures["caught_share"] >= 0.90 and figures["caught_ci95_by_answer"][0] >= 0.85
    assert figures["false_alarm_share"] <= 0.10
    # an out-of-range or removed citation is always named (a status, or an uncited sentence)
    assert figures["by_kind"]["out_of_range"]["caught"] == figures["by_kind"]["out_of_range"]["planted"]
    assert figures["by_kind"]["removed"]["caught"] == figures["by_kind"]["removed"]["planted"]
