"""``genevals review export`` in a real process says how many flagged answers it left out: those with claims
still undecided, and those no reviewer has decided on at all (before, these went unmentioned)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.runs import add_judge, fallback_rows, make_run

from genevals.review.claims import digest, load_samples
from genevals.review.store import Decision, ReviewStore

REPO = Path(__file__).resolve().parents[2]


def export(run: Path, labels: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-m", "genevals", "review", "export", str(run), "-o", str(labels)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_export_counts_the_flagged_answers_nobody_reviewed(tmp_path):
    run = add_judge(make_run(tmp_path / "run", fallback_rows()))
    flagged = [s for s in load_samples(run).values() if any(c.flagged for c in s.claims)]
    assert len(flagged) >= 3
    labels = tmp_path / "labels.jsonl"

    done = export(run, labels)
    assert done.returncode == 0, done.stderr
    assert f": 0 reviewed answers (0 hallucinated); {len(flagged)} flagged answers left out with no decision yet" \
        in done.stdout, done.stdout

    first = flagged[0]
    claim = next(c for c in first.claims if c.flagged)
    with ReviewStore(run) as store:
        store.add(Decision(reviewer="ann", system=first.system, sample_id=first.id, decision="confirmed",
                           claim_index=claim.index, digest=digest(claim.text)))
    done = export(run, labels)
    assert done.returncode == 0, done.stderr
    assert f"{len(flagged) - 1} flagged answers left out with no decision yet" in done.stdout, done.stdout
    assert len(labels.read_text().splitlines()) == 1
