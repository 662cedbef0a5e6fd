"""Issue 52, point 19, through the real command line: the offline checker's ``absent`` rule (none of a claim's
content words is in any context) reads the words inside a structured record's keys, split at CamelCase,
snake_case, kebab-case and digits: "it does not accept reservations" is not called absent from a record holding
``"RestaurantsReservations": false`` (JSON) or ``RestaurantsReservations: False`` (key: value lines); a claim
whose words are in no key nor value still is."""
from __future__ import annotations

import json
import subprocess
import sys

ABSENT = "none of its content words is in any context"
RECORD = {"name": "Casa Lupe", "city": "Tucson", "categories": "Mexican, Restaurants",
          "attributes": {"RestaurantsReservations": False, "OutdoorSeating": True, "NoiseLevel": "quiet",
                         "dogs_allowed": None, "happy-hour2": False}}
LINES = "Name: Casa Lupe\nCity: Tucson\nRestaurantsReservations: False\nOutdoorSeating: True\nNoiseLevel: quiet"


def _run(tmp_path, rows: list[dict]) -> dict[str, list[str]]:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(path), "-m", "grounding", "-o", str(out), "-q"],
                          capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    results = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    return {r["id"]: [v["reason"] for v in r["metrics"]["faithfulness"]["details"]["verdicts"]] for r in results}


def test_words_inside_record_keys_are_present(tmp_path) -> None:
    question = "Describe the business."
    rows = [
        {"id": "json", "question": question, "contexts": [json.dumps(RECORD)],
         "answer": "Casa Lupe is a Mexican restaurant in Tucson. It does not accept reservations."},
        {"id": "lines", "question": question, "contexts": [LINES],
         "answer": "Casa Lupe is in Tucson. Reservations are not taken."},
        {"id": "snake", "question": question, "contexts": [json.dumps(RECORD)],
         "answer": "Casa Lupe is in Tucson. Dogs are welcome."},
        {"id": "absent", "question": question, "contexts": [json.dumps(RECORD)],
         "answer": "Casa Lupe is in Tucson. The chef trained in Lyon under Bocuse."},
    ]
    reasons = _run(tmp_path, rows)
    for sid in ("json", "lines", "snake"):
        assert len(reasons[sid]) == 2 and not any(ABSENT in r for r in reasons[sid]), (sid, reasons[sid])
    assert ABSENT in reasons["absent"][1]  # words in no key nor value: the rule still fires
