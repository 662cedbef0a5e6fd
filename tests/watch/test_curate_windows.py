"""``genevals watch`` -> ``genevals curate`` -> ``genevals run``, as a user chains them (real processes): windows
judged by the fault-injecting judge server, the flagged answers (one unsupported claim: faithfulness 0.5) curated
from every window into a test set with each row's trace, span and window, and the set scored as it is."""
import json

import pytest
from support.cli import genevals
from support.fault_server import FaultServer
from support.watch_traces import json_body, request, spans, trace_id

pytestmark = pytest.mark.slow  # real watch, curate and run processes and a judge server

DOC = "Paris is the capital of France."


def test_flagged_answers_of_every_window_become_a_test_set_that_genevals_run_scores(tmp_path):
    export = tmp_path / "export.jsonl"
    with open(export, "wb") as out:
        for i in range(6):  # odd traces add an unsupported sentence: flagged
            answer = DOC if i % 2 == 0 else f"{DOC} It has nine million people."
            question = f"Which city is the capital of France? (asked by user {i})"
            out.write(json_body(request(spans(trace_id(i), question=question, answer=answer, docs=(DOC,)))) + b"\n")
    with FaultServer() as server:
        judge = ("--judge-backend", "openai", "--judge-base-url", server.base_url, "--judge-model", "judge",
                 "--no-judge-cache")
        done = genevals("watch", "--out", tmp_path / "w", "-m", "faithfulness", "--from", export, "--window", "2",
                        "--no-history", *judge)
        assert done.returncode == 0, done.stderr
        windows = sorted(p for p in (tmp_path / "w" / "windows").iterdir() if p.is_dir())
        assert [w.name for w in windows] == ["0001", "0002", "0003"]
        # --near 100: only identical texts are duplicates (these questions differ by one digit)
        curated = genevals("curate", *windows, "--out", tmp_path / "set", "--rule", "flagged", "--near", "100")
        assert curated.returncode == 0, curated.stderr
        rows = [json.loads(line) for line in (tmp_path / "set" / "testset.jsonl").read_text().splitlines()]
        assert sorted(r["metadata"]["provenance"]["trace_id"] for r in rows) == sorted(trace_id(i) for i in (1, 3, 5))
        for row in rows:
            made = row["metadata"]["provenance"]
            assert made["span_id"] == made["trace_id"][:16]  # the root span the OTel events linked to
            window = next(w for w in windows if made["run"] == str(w))
            assert made["window"] == int(window.name)
            assert row["metadata"]["answer_seen"].endswith("nine million people.") and row["answer"] == ""
            assert row["contexts"][0]["text"] == DOC
            row["answer"] = DOC  # the fixed system's answer, filled in as the set's next step says
        fixed = tmp_path / "fixed.jsonl"
        fixed.write_text("".join(json.dumps(r) + "\n" for r in rows))
        scored = genevals("run", fixed, "-m", "faithfulness", "--out", tmp_path / "again", "--no-history", *judge)
    assert scored.returncode == 0, scored.stderr
    results = [json.loads(line) for line in (tmp_path / "again" / "results.jsonl").read_text().splitlines()]
    assert [r["metrics"]["faithfulness"]["value"] for r in results] == [1.0, 1.0, 1.0]
