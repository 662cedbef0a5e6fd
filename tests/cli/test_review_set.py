"""``genevals review SET_DIR`` as a real process: a folder that is neither a run nor a set, a damaged
testset.jsonl (a located error, no traceback), export without a store."""
from __future__ import annotations

import json

import pytest

from support.cli import genevals
from support.set_folders import write_set


def test_a_folder_that_is_neither_says_what_each_would_need(tmp_path):
    done = genevals("review", tmp_path, "--port", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "neither a run folder (no results.jsonl) nor a set `genevals generate` wrote" in done.stderr


def test_a_damaged_testset_gets_its_file_line_and_field(tmp_path):
    folder = write_set(tmp_path / "s", kept=4)
    lines = (folder / "testset.jsonl").read_text().splitlines()
    lines[2] = lines[2][:40]  # cut short, as a crash mid-copy leaves it
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    done = genevals("review", folder, "--port", "0", "--queue", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{folder / 'testset.jsonl'}:3: not a JSON line" in done.stderr
    row = json.loads(lines[1])
    row["metadata"]["evidence"][0]["end"] += 5  # offsets that no longer hold the quote
    lines[1], lines[2] = json.dumps(row), lines[3]
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    done = genevals("review", folder, "--port", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "testset.jsonl:2: field 'metadata': field 'evidence[0]': offsets" in done.stderr
    del row["question"]
    lines[1] = json.dumps(row)
    (folder / "testset.jsonl").write_text("\n".join(lines) + "\n")
    done = genevals("review", "export", folder, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 2 and "testset.jsonl:2: field 'question': missing" in done.stderr
    assert not (tmp_path / "out.jsonl").exists() and not (folder / "review.sqlite").exists()


def test_export_without_a_store_and_options_of_the_other_kind(tmp_path):
    folder = write_set(tmp_path / "s", kept=2)
    done = genevals("review", "export", folder, "-o", tmp_path / "out.jsonl")
    assert done.returncode == 2 and "no review.sqlite" in done.stderr
    done = genevals("review", folder, "--queue-seed", "3")
    assert done.returncode == 2 and "--queue N, which is not given" in done.stderr
    done = genevals("review", tmp_path, "--queue", "3", "--queue-rejected", "0.5")
    assert done.returncode == 2 and "--queue-rejected: draws rejected items of a generated set" in done.stderr


def _damage_rejected(folder):
    (folder / "rejected.jsonl").write_text('{"id": "g9", "type": "factoid", "question": "q", "chunks": []}\n')


def _damage_bytes(folder):
    (folder / "testset.jsonl").write_bytes((folder / "testset.jsonl").read_bytes() + b"\xff\xfe\n")


def _damage_duplicate(folder):
    text = (folder / "testset.jsonl").read_text()
    (folder / "testset.jsonl").write_text(text + text.splitlines()[0] + "\n")


def _damage_card(folder):
    (folder / "card.json").write_text("{not json")


def _damage_array(folder):
    (folder / "testset.jsonl").write_text("[1, 2]\n")


@pytest.mark.parametrize("damage, said", [
    (_damage_rejected, "rejected.jsonl:1: field 'reference': missing"),
    (_damage_bytes, "testset.jsonl: not UTF-8 text"),
    (_damage_duplicate, "testset.jsonl:3: field 'id': 'g00000' again (first at line 1)"),
    (_damage_card, "card.json: not a readable JSON card"),
    (_damage_array, "testset.jsonl:1: list, not a JSON object")])
def test_each_damaged_file_is_named_with_its_line(tmp_path, damage, said):
    folder = write_set(tmp_path / "s", kept=2)
    damage(folder)
    done = genevals("review", folder, "--port", "0", "--queue", "2")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert said in done.stderr and str(folder) in done.stderr, done.stderr


def test_a_store_holding_a_queue_of_another_size_is_refused_naming_it(tmp_path):
    from genevals.review import set_review
    from genevals.review.testset import load_set

    folder = write_set(tmp_path / "s", kept=5)
    set_review.ensure_queue(load_set(folder), 3, 1, 0.0)
    done = genevals("review", folder, "--port", "0", "--queue", "4")
    assert done.returncode == 2 and "review.sqlite: already holds a review queue of 3 kept items" in done.stderr
    assert "--queue 3" in done.stderr


def test_rejected_items_drawn_beside_the_kept_ones_show_why_they_were_rejected(tmp_path):
    from support.review_server import ReviewProcess

    folder = write_set(tmp_path / "s", kept=6, rejected=4)
    server = ReviewProcess(folder, "--queue", "4", "--queue-rejected", "0.5", "--queue-seed", "3")
    try:
        assert "queue of 4 of the 6 kept items and 2 of the 4 rejected ones (drawn now, seed 3)" in \
            server.proc.stdout.readline()
        listing = server.call("GET", "/api/items?reviewer=ann")[1]
        groups = [row["group"] for row in listing["items"]]
        assert sorted(groups) == ["kept"] * 4 + ["rejected"] * 2
        ref = groups.index("rejected")
        item = server.call("GET", f"/api/item?ref={ref}")[1]
        assert item["rejection"] == "ungrounded_reference" and item["contexts"][0]["text"].startswith("The Cranfield")
        assert item["gates"] == [{"gate": "ungrounded_reference", "status": "ungrounded_reference",
                                  "reason": "1961 is not in the chunk"}]
        status, reply = server.call("POST", "/api/decisions", {"reviewer": "ann", "ref": ref, "decision": "valid"})
        assert status == 201 and reply["rates"]["rejected"] | {"ci95": None} == {
            "rate": 1.0, "ci95": None, "n": 1, "valid": 1, "invalid": 0, "unsure": 0, "undecided": 1, "gone": 0,
            "queue": 2, "items": 4, "reasons": {}}
        assert server.call("GET", "/api/item?ref=%C2%B2")[0] == 404  # a superscript two is no number
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=30)
    card = json.loads((folder / "card.json").read_text())["human_review"]
    assert card["rejected"]["n"] == 1 and card["n"] == 0 and card["valid_item_rate"] is None
    assert card["status"] == "not_measured" and "no queued kept item" in card["reason"]
