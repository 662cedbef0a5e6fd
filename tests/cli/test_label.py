"""``genevals label`` in real processes: the demo collection and a small Cranfield TREC example labelled by the
offline model and by a scripted judge (the judge client's real path: cache, dry run, repeats), the qrels then
read by ``genevals run --qrels``, whose summary, terminal and report say who judged; and bad input, exit 2."""
import json

import pytest
from support.label_data import DEMO, demo_trec, genevals


def test_offline_labels_for_the_demo_collection_are_read_by_genevals_run_which_says_who_judged(tmp_path):
    f = demo_trec(tmp_path)
    out = tmp_path / "judged.qrels"
    done = genevals("label", "--qrels-out", out, f["dense"], f["sparse"], "--topics", f["topics"], "--docs", f["docs"],
                    "--depth", 2)
    assert done.returncode == 0, done.stderr
    assert "no judge configured: grades come from the offline MiniLM model" in done.stderr  # said so
    lines = out.read_text().splitlines()
    assert lines[0].startswith("# genevals label judge=offline model=all-MiniLM-L6-v2 depth=2")
    side = json.loads((tmp_path / "judged.qrels.json").read_text())
    pooled = {tuple(line.split()[::2][:2]) for line in lines[1:]}
    assert side["pairs"] == side["graded"] == len(lines) - 1 == len(pooled) and side["topics"] == 3
    assert side["runs"] == ["dense", "sparse"] and side["depth"] == 2 and side["cut_points"] == [0.5, 0.6, 0.75]
    assert sum(side["grades"].values()) == side["graded"] and all(line.split()[3] in "0123" for line in lines[1:])
    # against the demo's own labels: the chunks it marks relevant grade higher, on average, than the others
    rows = [json.loads(line) for line in (DEMO / "demo.jsonl").read_text().splitlines()]
    labelled = {(r["id"], c) for r in rows for c in r["relevant"]}
    grades = {tuple(line.split()[::2][:2]): int(line.split()[3]) for line in lines[1:]}
    relevant = [g for pair, g in grades.items() if pair in labelled]
    others = [g for pair, g in grades.items() if pair not in labelled]
    assert relevant and others and sum(relevant) / len(relevant) > sum(others) / len(others)
    assert f"wrote {out} and {out}.json" in done.stdout
    run = genevals("run", "--qrels", out, "--run", f["dense"], "--run", f["sparse"], "-o", tmp_path / "r",
                   "--no-history")
    assert run.returncode == 0, run.stderr
    meta = json.loads((tmp_path / "r" / "summary.json").read_text())["meta"]["qrels_judged_by"]
    assert meta["judge"] == "offline" and meta["model"] == "all-MiniLM-L6-v2" and meta["depth"] == 2
    assert "relevance labels made by the offline MiniLM model" in run.stderr
    assert "relevance labels made by the offline MiniLM model" in (tmp_path / "r" / "report.html").read_text()


def test_the_demo_jsonl_is_labelled_as_it_is_each_system_a_run(tmp_path):
    """No --topics or --docs: a genevals file's questions and context texts are the topics and documents."""
    out = tmp_path / "demo.qrels"
    done = genevals("label", "--qrels-out", out, DEMO / "demo.jsonl", "--offline", "--depth", 1)
    assert done.returncode == 0, done.stderr
    assert "no judge configured" not in done.stderr  # --offline chose it
    side = json.loads((tmp_path / "demo.qrels.json").read_text())
    assert side["runs"] == ["dense", "sparse", "hybrid"] and side["topics"] == 30 and side["graded"] == side["pairs"]


def test_a_small_cranfield_trec_example_offline(tmp_path, shared_dir):
    cran = shared_dir / "datasets" / "cranfield"
    topics = tmp_path / "queries.tsv"
    topics.write_text("".join((cran / "queries.tsv").read_text().splitlines(keepends=True)[:2]))
    judged = {}
    for line in (cran / "qrels.txt").read_text().splitlines():
        t, _, d, g = line.split()
        judged.setdefault(t, []).append(d)
    run = tmp_path / "bm25.trec"
    ids = [line.split("\t")[0] for line in topics.read_text().splitlines()]
    run.write_text("".join(f"{t} Q0 {d} {i} {10 - i} bm25\n" for t in ids
                           for i, d in enumerate(judged[t][:2] + ["d1", "d2"], start=1)))
    out = tmp_path / "cran.qrels"
    done = genevals("label", "--qrels-out", out, run, "--topics", topics, "--docs", cran / "docs.jsonl",
                    "--depth", 3, "--offline")
    assert done.returncode == 0, done.stderr
    grades = {tuple(line.split()[::2]): int(line.split()[3]) for line in out.read_text().splitlines()[1:]}
    assert len(grades) == 6
    # the human-judged documents grade above the two unrelated ones, topic by topic
    for t in ids:
        assert min(grades[(t, d)] for d in judged[t][:2]) >= grades[(t, "d1")]


def test_a_judge_labels_each_pair_once_then_answers_from_its_cache_and_prices_the_pool_dry(tmp_path):
    f = demo_trec(tmp_path, topics=2)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"other": {"score": 3}}))
    judge = ["--judge-backend", "scripted", "--judge-model", script]
    args = ["label", "--qrels-out", tmp_path / "j.qrels", f["dense"], f["sparse"], "--topics", f["topics"], "--docs",
            f["docs"], "--depth", 2, *judge]
    first = genevals(*args, cache=tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    side = json.loads((tmp_path / "j.qrels.json").read_text())
    assert side["judge"] == "scripted" and side["prompt"] == "relevance_grade" and len(side["prompt_hash"]) == 12
    assert side["grades"]["3"] == side["pairs"] and side["requests"] == side["pairs"] and side["cached"] == 0
    assert f"prompt_hash={side['prompt_hash']}" in (tmp_path / "j.qrels").read_text().splitlines()[0]
    again = genevals(*args, cache=tmp_path / "cache")  # resumed: nothing asked twice
    side = json.loads((tmp_path / "j.qrels.json").read_text())
    assert again.returncode == 0 and side["requests"] == 0 and side["cached"] == side["pairs"]
    dry = genevals(*args, "--dry-run", "--judge-prices", _prices(tmp_path, script), cache=tmp_path / "empty")
    assert dry.returncode == 0, dry.stderr
    assert f"{side['pairs']} requests" in dry.stdout and "$" in dry.stdout and "nothing was called" in dry.stdout
    assert not (tmp_path / "empty").exists() or not any((tmp_path / "empty").rglob("*.json"))
    offline = genevals(*args[:-len(judge)], "--offline", "--dry-run", "--qrels-out", tmp_path / "dry.qrels")
    assert offline.returncode == 0 and "no judge requests, no cost; nothing was written" in offline.stdout
    assert not (tmp_path / "dry.qrels").exists()


def _prices(tmp_path, script):
    # the scripted judge's model is named after its file and digest: read from a first run's provenance
    genevals("label", "--qrels-out", tmp_path / "probe.qrels", DEMO / "demo.jsonl", "--depth", 1,
                     "--judge-backend", "scripted", "--judge-model", script, cache=tmp_path / "probe")
    model = json.loads((tmp_path / "probe.qrels.json").read_text())["model"]
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({model: {"input_per_1k": 1.0, "output_per_1k": 2.0}}))
    return prices


def test_unreadable_replies_beyond_the_error_share_write_nothing_and_exit_3(tmp_path):
    f = demo_trec(tmp_path, topics=1)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"other": "I would rather not say"}))
    done = genevals("label", "--qrels-out", tmp_path / "j.qrels", f["dense"], "--topics", f["topics"], "--docs",
                    f["docs"], "--judge-backend", "scripted", "--judge-model", script, "--no-judge-cache")
    assert done.returncode == 3 and not (tmp_path / "j.qrels").exists()
    assert "unreadable replies" in done.stderr and "I would rather not say" in done.stderr


@pytest.mark.parametrize("case", ["unknown_doc", "no_topic", "bad_topics", "offline_and_judge", "depth", "no_run",
                                  "no_text_at_all"])
def test_bad_input_is_exit_2_naming_the_file_line_and_field(tmp_path, case):
    f = demo_trec(tmp_path, topics=2)
    args = ["label", "--qrels-out", tmp_path / "j.qrels", f["dense"], "--topics", f["topics"], "--docs", f["docs"]]
    if case == "unknown_doc":
        with open(f["dense"], "a") as run:
            run.write("q01 Q0 nowhere#9 9 -1.0 dense\n")
        done = genevals(*args, "--depth", 20, "--offline")
        line = len(f["dense"].read_text().splitlines())
        assert f"{f['dense']}:{line}: field 'DOCNO': document 'nowhere#9' (topic 'q01') has no text" in done.stderr
        assert "--skip-unknown-docs" in done.stderr
        skipped = genevals(*args, "--depth", 20, "--offline", "--skip-unknown-docs")
        assert skipped.returncode == 0, skipped.stderr
        assert "1 pooled document(s) without a text left unjudged" in skipped.stderr
        assert json.loads((tmp_path / "j.qrels.json").read_text())["skipped_unknown_docs"] == 1
    elif case == "no_topic":
        f["topics"].write_text(f["topics"].read_text().splitlines()[0] + "\n")
        done = genevals(*args, "--offline")
        assert f"{f['dense']}:" in done.stderr and "field 'TOPIC': topic 'q02' has no text" in done.stderr
    elif case == "bad_topics":
        f["topics"].write_text("q01\tok\nq02 has no tab\n")
        done = genevals(*args, "--offline")
        assert f"{f['topics']}:2: --topics: expected 'id<TAB>text'" in done.stderr
    elif case == "offline_and_judge":
        done = genevals(*args, "--offline", "--judge-base-url", "http://127.0.0.1:9/v1")
        assert "--offline: grades with the MiniLM model, yet judge options name an LLM judge" in done.stderr
    elif case == "no_run":
        done = genevals("label", "--qrels-out", tmp_path / "j.qrels", tmp_path / "missing.trec")
        assert f"{tmp_path / 'missing.trec'}: RUN: file not found" in done.stderr
        assert "no judge configured" not in done.stderr  # said only once there is something to grade
    elif case == "no_text_at_all":
        f["docs"].write_text('{"id": "elsewhere", "text": "x"}\n')
        done = genevals(*args, "--skip-unknown-docs")
        assert "no pooled (topic, document) pair has a text to judge" in done.stderr
    else:
        done = genevals(*args, "--depth", 0)
        assert "argument --depth: expected a whole number 1 or more, got 0" in done.stderr
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert not (tmp_path / "j.qrels").exists() or case == "unknown_doc"


def test_repeats_keep_the_median_grade_and_count_the_pairs_whose_repeats_disagree(tmp_path):
    f = demo_trec(tmp_path, topics=1)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"other": [{"score": 3}, {"score": 0}, {"score": 2}]}))  # in turn, the last repeats
    done = genevals("label", "--qrels-out", tmp_path / "j.qrels", f["dense"], "--topics", f["topics"], "--docs",
                    f["docs"], "--depth", 1, "--judge-backend", "scripted", "--judge-model", script,
                    "--judge-repeats", 3, "--judge-temperature", 0.7, "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    side = json.loads((tmp_path / "j.qrels.json").read_text())
    assert side["repeats"] == 3 and side["requests"] == 3 and side["disagree"] == 1 and side["grades"]["2"] == 1
    assert "repeats:3" in side["signature"] and f"prompt_hash:{side['prompt_hash']}" in side["signature"]
    assert (tmp_path / "j.qrels").read_text().splitlines()[1].endswith(" 2")


def test_the_offline_grader_s_card_is_on_the_label_command_and_after_offline_labels(tmp_path):
    """The card `genevals label --help` and an offline labelling show is the landed grader's (issue 52, point 18):
    out of sample first, with n, its interval and the best trivial baseline; the in-sample figure labelled so,
    and it is the landed grader's (0.85 by MAP), not the 0.88 of the calibration before its refit."""
    from genevals.labels.card import card

    figures = card("offline")["figures"]
    done = genevals("label", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "how far the offline grader's qrels can be trusted" in text
    for line in card("offline")["lines"]:
        assert " ".join(line.split()) in text
    inside = "In-sample, not a figure for new queries: the shipped grader, whose calibration saw these queries, gives "
    assert inside + f"tau {figures['in_sample']['map']['tau']:.2f} by MAP" in text
    assert figures["in_sample"]["map"]["tau"] < 0.87  # the landed grader's in-sample tau (0.849 in issue 52)
    out = figures["out_of_sample"]["map"]
    assert f"Kendall tau {out['tau']:.2f} [{out['ci95'][0]:.2f}, {out['ci95'][1]:.2f}] by MAP" in text
    assert "n = 116 queries x 12 systems" in text and "Best trivial baseline on the same pool" in text
    labelled = genevals("label", "--qrels-out", tmp_path / "demo.qrels", DEMO / "demo.jsonl", "--offline", "--depth", 1)
    assert labelled.returncode == 0, labelled.stderr
    assert f"genevals: card: {card('offline')['lines'][0]}" in labelled.stderr
