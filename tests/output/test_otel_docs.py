"""The how-to "Send results to an OpenTelemetry backend": its two commands (its {.own-test} blocks) run as written
from a folder holding data.jsonl (the demo file, standing for the reader's own), against a real OTLP/HTTP receiver
in place of http://localhost:4318; and every attribute the page's table names is one an event carries."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from support.docs_blocks import DOCS, REPO, commands, section_blocks
from support.otlp_receiver import Receiver

PAGE = DOCS / "how-to" / "opentelemetry.md"
pytestmark = pytest.mark.slow  # two real runs


def test_the_how_to_commands_send_every_result_of_the_run(tmp_path):
    shutil.copy(REPO / "datasets" / "demo" / "demo.jsonl", tmp_path / "data.jsonl")
    [run] = [w for code in section_blocks(PAGE, "Send a run", "bash") for w in commands(code)][:1]
    [export] = [w for code in section_blocks(PAGE, "Send a run", "bash") for w in commands(code)][1:]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "GENEVALS_HISTORY": str(tmp_path / "history.sqlite")}
    with Receiver() as receiver:
        for words in (run, export):
            words = [receiver.url if w == "http://localhost:4318" else w for w in words]
            assert receiver.url in words
            done = subprocess.run([sys.executable, "-m", "genevals", *words[1:]], cwd=tmp_path, env=env,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in (tmp_path / "reports" / "otel" / "results.jsonl").read_text().splitlines()]
    per_run = sum(len(r["metrics"]) for r in rows)
    assert per_run == 2 * len(rows) and len(receiver.records) == 2 * per_run  # sent by run, then by export
    named = set(re.findall(r"^\| `([^`]+)`(?:, `([^`]+)`)? \|", PAGE.read_text(), re.MULTILINE))
    sent = {key for record in receiver.records for key in record["attributes"]}
    documented = {name for pair in named for name in pair if name}
    assert documented - {"error.type", "gen_ai.evaluation.score.label", "gen_ai.evaluation.explanation"} <= sent
    assert sent <= documented, sent - documented
