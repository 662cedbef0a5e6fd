"""``genevals curate`` in real processes on run folders ``genevals run`` made in the test: each rule's choice,
the de-duplication, the stratified sample's counts, reviewers' corrections as references, trace provenance, the
card, and ``genevals run`` reading the set it wrote. Every expected value is worked by hand in tests/support/curate_data.py
and below."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.curate_data import ANSWERS, QUESTIONS, TOKEN_F1, rows
from support.cli import genevals, write_jsonl

from genevals.review.claims import digest, load_samples
from genevals.review.store import Decision, ReviewStore

pytestmark = pytest.mark.slow  # each module scores with the local grounding checker (a MiniLM model)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("curate")
    data = write_jsonl(folder / "data.jsonl", rows())
    done = genevals("run", data, "--metrics", "token_f1,grounding", "--out", folder / "run", "--no-history")
    assert done.returncode == 0, done.stderr
    return folder / "run"


def curate(*args) -> tuple[list[dict], dict, str]:
    done = genevals("curate", *args)
    assert done.returncode == 0, done.stderr
    out = Path(args[args.index("--out") + 1])
    testset = [json.loads(line) for line in (out / "testset.jsonl").read_text(encoding="utf-8").splitlines()]
    return testset, json.loads((out / "card.json").read_text(encoding="utf-8")), done.stdout


def ids(testset: list[dict]) -> set[str]:
    return {row["id"] for row in testset}


def test_the_run_scores_as_worked_by_hand(run):
    for line in (run / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert row["metrics"]["token_f1"]["value"] == pytest.approx(TOKEN_F1[(row["system"], row["id"])])


def test_flagged_and_low_choose_by_hand_with_counts(run, tmp_path):
    # flagged: the two answers about nothing in their contexts (q3 A, q4 B: one unverifiable claim each);
    # low:token_f1<0.3: q2 B (0.25), q3 A (0), q4 B (0)
    testset, card, out = curate(run, "--out", tmp_path / "set", "--rule", "flagged", "--rule", "low:token_f1<0.3")
    assert ids(testset) == {"q3@A", "q4@B", "q2@B"}
    rules = {row["id"]: row["metadata"]["rules"] for row in testset}
    assert rules == {"q3@A": ["flagged", "low:token_f1<0.3"], "q4@B": ["flagged", "low:token_f1<0.3"],
                     "q2@B": ["low:token_f1<0.3"]}
    assert card["rules"] == {"flagged": {"chosen": 2, "n": 8, "written": 2},
                             "low:token_f1<0.3": {"chosen": 3, "n": 8, "written": 3}}
    assert card["chosen"] == {"value": 3, "n": 8} and card["written"] == 3
    assert card["per_system"] == {"A": {"written": 1, "candidates": 4}, "B": {"written": 2, "candidates": 4}}
    assert "rule flagged: chose 2 of 8" in out and "rule low:token_f1<0.3: chose 3 of 8" in out
    q3 = next(r for r in testset if r["id"] == "q3@A")
    assert q3["question"] == QUESTIONS["q3"][0] and q3["answer"] == ""
    assert q3["references"] == [QUESTIONS["q3"][2]] and q3["metadata"]["reference_source"] == "run"
    assert q3["contexts"][0]["text"] == QUESTIONS["q3"][1]
    assert q3["metadata"]["answer_seen"] == ANSWERS[("A", "q3")]
    provenance = q3["metadata"]["provenance"]
    assert (provenance["run"], provenance["sample_id"], provenance["system"], provenance["line"]) == \
        (str(run), "q3", "A", 5)


def test_duplicates_exact_and_near_are_removed_and_counted(run, tmp_path):
    # sample:8 takes all eight; q1 B is q1 A once normalised ("!" for "."), q2 B is q2 A but for one letter:
    # fuzz.ratio of the normalised texts = 100 * (1 - 1 / (2 * 76)) = 99.34 (76 characters, one deletion)
    testset, card, _ = curate(run, "--out", tmp_path / "set", "--rule", "sample:8")
    assert ids(testset) == {"q1@A", "q2@A", "q3@A", "q4@A", "q3@B", "q4@B"}
    assert card["duplicates"]["exact"] == 1 and card["duplicates"]["near"] == 1 and card["duplicates"]["n"] == 8
    by_id = {row["id"]: row for row in testset}
    assert by_id["q1@A"]["metadata"]["duplicates"] == [
        {"run": str(run), "line": 2, "sample_id": "q1", "system": "B", "kind": "exact", "ratio": 100.0}]
    near = by_id["q2@A"]["metadata"]["duplicates"]
    assert [(d["system"], d["kind"]) for d in near] == [("B", "near")] and near[0]["ratio"] == pytest.approx(99.34)
    # at --near 99.5 the one-letter difference is no longer a duplicate
    testset, card, _ = curate(run, "--out", tmp_path / "strict", "--rule", "sample:8", "--near", "99.5")
    assert card["duplicates"]["near"] == 0 and len(testset) == 7


def test_the_seeded_sample_is_stratified_as_stated(run, tmp_path):
    # strata (system | token_f1 band) and sizes: A|[0,0.25) 1 (q3), A|[0.5,0.75) 1 (q2), A|[0.75,1] 2 (q1, q4),
    # B|[0,0.25) 1 (q4), B|[0.25,0.5) 1 (q2), B|[0.5,0.75) 1 (q3), B|[0.75,1] 1 (q1). sample:4: quotas n_h / 2,
    # so A|[0.75,1] gets 1 and the three left go to the 0.5 remainders in name order: A|[0,0.25), A|[0.5,0.75),
    # B|[0,0.25)
    testset, card, _ = curate(run, "--out", tmp_path / "set", "--rule", "sample:4", "--band-metric", "token_f1",
                              "--seed", "7")
    drawn = {h: s["drawn"] for h, s in card["sample"]["strata"].items()}
    assert drawn == {"A | [0,0.25)": 1, "A | [0.5,0.75)": 1, "A | [0.75,1]": 1, "B | [0,0.25)": 1,
                     "B | [0.25,0.5)": 0, "B | [0.5,0.75)": 0, "B | [0.75,1]": 0}
    assert {h: s["size"] for h, s in card["sample"]["strata"].items()} == {
        "A | [0,0.25)": 1, "A | [0.5,0.75)": 1, "A | [0.75,1]": 2, "B | [0,0.25)": 1, "B | [0.25,0.5)": 1,
        "B | [0.5,0.75)": 1, "B | [0.75,1]": 1}
    chosen = ids(testset)
    assert {"q3@A", "q2@A", "q4@B"} <= chosen and len(chosen & {"q1@A", "q4@A"}) == 1 and len(chosen) == 4
    again, _, _ = curate(run, "--out", tmp_path / "again", "--rule", "sample:4", "--band-metric", "token_f1",
                         "--seed", "7")
    assert ids(again) == chosen  # the same seed draws the same sample


def test_disputes_and_corrections_from_the_review_store(run, tmp_path):
    samples = load_samples(run)
    claim = {key: s.claims[0].text for key, s in samples.items()}
    q2 = ANSWERS[("A", "q2")]
    with ReviewStore(run) as store:
        # q3 A: the judge flagged its claim, the reviewer calls it a false alarm
        store.add(Decision("ann", "A", "q3", "false_alarm", digest(claim[("A", "q3")]), claim_index=0))
        # q1 A: two reviewers disagree on a supported claim
        store.add(Decision("ann", "A", "q1", "confirmed", digest(claim[("A", "q1")]), claim_index=0))
        store.add(Decision("bob", "A", "q1", "false_alarm", digest(claim[("A", "q1")]), claim_index=0))
        # q2 A: a hallucination the judge missed, with a correction
        store.add(Decision("ann", "A", "q2", "missed", digest(q2[:8]), span=(0, 8),
                           note="Reference: Eighteen crowns for an adult return."))
        # q4 B: a note that is no correction, on a decision that agrees with the judge (it flagged the claim)
        store.add(Decision("bob", "B", "q4", "confirmed", digest(claim[("B", "q4")]), claim_index=0,
                           note="odd phrasing"))
    try:
        testset, card, _ = curate(run, "--out", tmp_path / "set", "--rule", "disputed")
    finally:
        (run / "review.sqlite").unlink()
        for extra in ("review.sqlite-wal", "review.sqlite-shm"):
            (run / extra).unlink(missing_ok=True)
    assert ids(testset) == {"q3@A", "q1@A", "q2@A"}
    q2_row = next(r for r in testset if r["id"] == "q2@A")
    assert q2_row["references"] == ["Eighteen crowns for an adult return.", "18 crowns"]
    assert (q2_row["metadata"]["reference_source"], q2_row["metadata"]["reviewer"]) == ("reviewer", "ann")
    assert card["references_from_reviewers"] == {"value": 1, "n": 3}
    reasons = {r["id"]: r["metadata"]["disputed"] for r in testset}
    assert "disagree" in reasons["q1@A"] and "false_alarm" in reasons["q3@A"] and "missed" in reasons["q2@A"]


def test_genevals_run_reads_the_set_it_wrote(run, tmp_path):
    testset, _, _ = curate(run, "--out", tmp_path / "set", "--rule", "sample:8")
    done = genevals("run", tmp_path / "set" / "testset.jsonl", "--metrics", "token_f1", "--out", tmp_path / "again",
                    "--no-history")
    # every row read; its answers are empty (the system's go there): said, exit 1, results written
    n = len(ids(testset))
    assert done.returncode == 1 and f"every answer is empty ({n} of {n})" in done.stderr, done.stderr
    results = (tmp_path / "again" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["id"] for line in results) == sorted(ids(testset))


def test_trace_and_span_ids_travel_from_a_trace_export(tmp_path):
    import importlib.util
    spec = importlib.util.spec_from_file_location("exports", Path(__file__).parents[1] / "input/traces/exports.py")
    exports = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(exports)
    write = exports.write
    paths = write(tmp_path / "traces", 3)  # trace 0's id is all zeros, OpenTelemetry's "no trace": no link
    done = genevals("run", "--from", "openinference", paths["openinference.jsonl"], "--metrics", "grounding", "--out",
                    tmp_path / "run", "--no-history")
    assert done.returncode == 0, done.stderr
    testset, _, _ = curate(tmp_path / "run", "--out", tmp_path / "set", "--rule", "sample:3")
    links = {r["metadata"]["provenance"]["trace_id"]: r["metadata"]["provenance"]["span_id"] for r in testset}
    assert links == {None: None, f"{1:032x}": f"{1:08x}{1:08x}", f"{2:032x}": f"{2:08x}{1:08x}"}
    # the export itself, read through the trace import: the same ids, unscored, so only sample:N chooses
    direct, card, _ = curate(paths["openinference.jsonl"], "--from", "openinference", "--out", tmp_path / "direct",
                             "--rule", "sample:2", "--seed", "3")
    assert card["sample"]["strata"] == {"default | unscored": {"size": 3, "drawn": 2}} and len(direct) == 2
    for row in direct:
        provenance = row["metadata"]["provenance"]
        assert (provenance["trace_id"], provenance["span_id"]) == next(
            (t, s) for t, s in links.items() if (t or "0" * 32) == row["id"].split("@")[0])
        assert provenance["run"] == str(paths["openinference.jsonl"])
    done = genevals("curate", paths["openinference.jsonl"], "--out", tmp_path / "x", "--rule", "sample:2")
    assert done.returncode == 2 and "needs --from FORMAT" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["--rule", "flagged"], "no such folder"),
    (["--rule", "low:token_f1<nan"], "finite number"),
    (["--rule", "sometimes"], "expected flagged, disputed"),
    (["--rule", "sample:0"], "whole number"),
    (["--rule", "low:bleu<0.3"], "has the metric 'bleu'"),
])
def test_bad_input_is_named_without_a_traceback(run, tmp_path, args, message):
    target = tmp_path / "missing" if message == "no such folder" else run
    done = genevals("curate", target, "--out", tmp_path / "set", *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "set" / "testset.jsonl").exists()


def test_a_damaged_results_line_is_named(run, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (broken / "results.jsonl").write_text(lines[0] + "{not json\n" + "".join(lines[1:]), encoding="utf-8")
    done = genevals("curate", broken, "--out", tmp_path / "set", "--rule", "flagged")
    assert done.returncode == 2 and f"{broken / 'results.jsonl'}:2:" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_review_store_that_is_not_one_is_named(run, tmp_path):
    garbage = tmp_path / "review.sqlite"
    garbage.write_text("not a database\n", encoding="utf-8")
    done = genevals("curate", run, "--out", tmp_path / "set", "--rule", "disputed", "--review", garbage)
    assert done.returncode == 2 and f"{garbage}: cannot read the review store" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "set").exists()


def test_an_empty_set_is_exit_1_with_each_empty_rules_reason(run, tmp_path):
    # no token_f1 below 0 and no reviewer: both rules choose nothing; a run of lexical metrics alone cannot flag
    done = genevals("curate", run, "--out", tmp_path / "set", "--rule", "low:token_f1<0", "--rule", "disputed")
    assert done.returncode == 1, done.stderr
    assert "rule low:token_f1<0 chose nothing: no sample's value is below the bound" in done.stderr
    assert "rule disputed chose nothing: no sample's reviewers disagree" in done.stderr
    assert "the set is empty" in done.stderr
    assert (tmp_path / "set" / "testset.jsonl").read_text(encoding="utf-8") == ""
    lexical = genevals("run", run.parent / "data.jsonl", "--metrics", "token_f1", "--out", tmp_path / "lexical",
                       "--no-history")
    assert lexical.returncode == 0, lexical.stderr
    flagged = genevals("curate", tmp_path / "lexical", "--out", tmp_path / "none", "--rule", "flagged",
                       "--rule", "sample:1")
    assert flagged.returncode == 0 and "rule flagged chose nothing: no result holds claim counts" in flagged.stderr
