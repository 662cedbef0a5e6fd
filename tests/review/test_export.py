"""Reviewed answers as labelled rows: which answers are settled, their labels and spans, and that
``genevals validate`` accepts every row; the command's errors."""
from __future__ import annotations

import json

from genevals.review.claims import ReviewClaim, ReviewSample, digest
from genevals.review.export import labelled_rows, merge_spans
from genevals.review.store import Decision
from genevals.validation.labels import check_row

ANSWER = "The ferry sails daily. It costs 4 pounds. It was built in 1820."
CLAIMS = ["The ferry sails daily.", "It costs 4 pounds.", "It was built in 1820."]


def sample(sid: str, labels=("supported", "contradicted", "unverifiable")) -> ReviewSample:
    claims = tuple(ReviewClaim(i, t, ((ANSWER.index(t), ANSWER.index(t) + len(t)),), lab)
                   for i, (t, lab) in enumerate(zip(CLAIMS, labels)))
    return ReviewSample("dense", sid, 1, "How?", ANSWER, ("The ferry sails daily for 3 pounds.",), claims)


SAMPLES = {("dense", s): sample(s) for s in ("settled_yes", "settled_no", "open", "marked", "untouched")}
_ids = iter(range(1, 1000))


def claim(sid, index, decision, reviewer="ann", text=None):
    return Decision(reviewer=reviewer, system="dense", sample_id=sid, decision=decision, claim_index=index,
                    digest=digest(text or CLAIMS[index]), id=next(_ids))


def test_settled_answers_only_with_labels_and_spans():
    start = ANSWER.index("daily")
    decisions = [
        claim("settled_yes", 1, "confirmed"), claim("settled_yes", 2, "false_alarm"),
        claim("settled_no", 1, "false_alarm"), claim("settled_no", 2, "false_alarm", "bob"),
        claim("settled_no", 2, "false_alarm"),
        claim("open", 1, "false_alarm"), claim("open", 2, "unsure"),
        Decision(reviewer="bob", system="dense", sample_id="marked", decision="missed", span=(start, start + 5),
                 digest=digest("daily"), id=next(_ids)),
        claim("untouched", 1, "confirmed", text="An older claim."),  # stale: does not count
    ]
    rows, counts = labelled_rows(decisions, SAMPLES)
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {"settled_yes", "settled_no", "marked"}
    assert (counts.written, counts.hallucinated, counts.unsettled) == (3, 2, 1)
    s, e = ANSWER.index(CLAIMS[1]), ANSWER.index(CLAIMS[1]) + len(CLAIMS[1])
    assert by_id["settled_yes"]["hallucinated"] is True and by_id["settled_yes"]["spans"] == [{"start": s, "end": e}]
    assert by_id["settled_no"]["hallucinated"] is False and by_id["settled_no"]["spans"] == []
    assert by_id["marked"]["spans"] == [{"start": start, "end": start + 5}]
    for row in rows:
        assert check_row(json.loads(json.dumps(row))) is None
        assert row["context"] == ["The ferry sails daily for 3 pounds."] and row["model"] == "dense"


def test_merge_spans_joins_overlaps():
    assert merge_spans([(5, 9), (0, 3), (2, 4), (9, 10)]) == [(0, 4), (5, 10)]


def test_export_command_errors(tmp_path, capsys):
    from genevals.cli import main

    assert main(["review", "export", str(tmp_path)]) == 2
    assert "needs -o" in capsys.readouterr().err
    assert main(["review", "export", str(tmp_path), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "neither a run folder (no results.jsonl)" in capsys.readouterr().err
    assert main(["review", str(tmp_path)]) == 2
    assert main(["review", str(tmp_path), "extra"]) == 2
    (tmp_path / "results.jsonl").write_text("")
    (tmp_path / "review.sqlite").write_text("not a database, but long enough to be read as one" * 20)
    assert main(["review", "export", str(tmp_path), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "genevals: error:" in capsys.readouterr().err


def test_export_to_a_csv_name_is_refused_before_writing(tmp_path):
    """`-o labels.csv` wrote JSONL under a CSV name; now it is exit 2 saying what the export writes, in a real
    process, and no file is made."""
    import subprocess
    import sys

    (tmp_path / "results.jsonl").write_text("")
    done = subprocess.run([sys.executable, "-m", "genevals", "review", "export", str(tmp_path), "-o",
                           str(tmp_path / "labels.csv")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "review export writes JSONL" in done.stderr and "name the file .jsonl" in done.stderr
    assert not (tmp_path / "labels.csv").exists()


def test_queued_answers_need_every_claim_and_carry_the_design_and_blind_flags():
    """An answer the queue drew is settled only when every claim has a verdict (a blind reviewer judged each,
    not knowing which the judge flagged), or a claim is confirmed; its row carries the design fields, and
    `blind` only when every decision on it was blind."""
    from dataclasses import replace

    from genevals.review.store import Queue

    clean = ("supported", "supported", "supported")
    samples = {("dense", s): sample(s, clean) for s in ("partial", "full", "hit", "off")}
    queue = Queue([("dense", "partial", "clean/settled", 0.5), ("dense", "full", "clean/settled", 0.5),
                   ("dense", "hit", "clean/settled", 0.5)], {"clean/settled": 6, "flagged/settled": 4},
                  {"clean/settled": 3, "flagged/settled": 0}, 9)
    decisions = [replace(claim("partial", 0, "false_alarm"), blind=True),
                 *(replace(claim("full", i, "false_alarm"), blind=True) for i in range(3)),
                 replace(claim("hit", 1, "confirmed"), blind=True), claim("hit", 2, "false_alarm"),
                 claim("off", 0, "false_alarm")]
    rows, counts = labelled_rows(decisions, samples, queue)
    by_id = {r["id"]: r for r in rows}
    assert set(by_id) == {"full", "hit", "off"} and (counts.queued, counts.queued_written) == (3, 2)
    assert by_id["full"]["hallucinated"] is False and by_id["full"]["blind"] is True
    assert by_id["hit"]["hallucinated"] is True and by_id["hit"]["blind"] is False  # one decision was not blind
    assert {k: by_id["full"][k] for k in ("stratum", "inclusion_probability", "stratum_size", "stratum_drawn",
                                          "queue_position")} == {"stratum": "clean/settled",
                                                                 "inclusion_probability": 0.5, "stratum_size": 6,
                                                                 "stratum_drawn": 3, "queue_position": 1}
    assert by_id["full"]["queue_strata"] == {"clean/settled": 6, "flagged/settled": 4}
    assert by_id["off"]["inclusion_probability"] is None and "stratum" not in by_id["off"]  # not drawn
    assert by_id["off"]["hallucinated"] is False  # off the queue: the judge's supported claims are trusted
