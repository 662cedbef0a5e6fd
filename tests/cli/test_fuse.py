"""``genevals fuse`` and ``genevals run --qrels --run`` as a user runs them: RRF rankings against the formula by
hand, a fused run evaluated against trec_eval's own output (tests/data/trec_eval/, the vectors the retrieval
metrics are checked against), and dense, sparse and hybrid compared in one command."""
import json
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest

VECTORS = json.loads((Path(__file__).resolve().parents[1] / "data" / "trec_eval" /
                      "trec_eval_test_vectors.json").read_text())
TOL_4DP = 5e-5 + 1e-9  # trec_eval prints 4 decimals
#: trec_eval measure -> genevals output
MEASURES = {"map": "map", "recip_rank": "mrr", "P_5": "precision@5", "P_10": "precision@10", "recall_5": "recall@5",
            "recall_10": "recall@10", "ndcg_cut_10": "ndcg@10", "success_1": "hit_rate@1", "success_10": "hit_rate@10"}


def genevals(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd)


def trec_files(folder: Path) -> tuple[Path, Path]:
    """trec_eval's test/qrels.test and test/results.test, written back from the vectors."""
    qrels, run = folder / "qrels.test", folder / "results.test"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in VECTORS["inputs"]["qrels.test"].items()
                             for d, g in docs.items()))
    run.write_text("".join(f"{r['qid']} {r['Q0']} {r['docno']} {r['rank']} {r['score']} {r['run']}\n"
                           for r in VECTORS["inputs"]["results.test"]))
    return qrels, run


def test_fused_rankings_are_the_hand_calculation(tmp_path):
    dense, sparse = tmp_path / "dense.trec", tmp_path / "sparse.jsonl"
    dense.write_text("q1 Q0 d1 1 9.0 dense\nq1 Q0 d2 2 8.0 dense\nq1 Q0 d3 3 7.0 dense\n")
    sparse.write_text(json.dumps({"id": "q1", "answer": "", "question": "which?", "relevant": ["d3"],
                                  "contexts": [{"id": "d3", "text": "three"}, {"id": "d1", "text": "one"},
                                               {"id": "d4", "text": "four"}]}) + "\n")
    done = genevals("fuse", str(dense), str(sparse), "--k", "60", "--weights", "1,2", "-o", str(tmp_path / "h.trec"))
    assert done.returncode == 0, done.stderr
    hand = {"d1": F(1, 61) + 2 * F(1, 62), "d3": F(1, 63) + 2 * F(1, 61), "d4": 2 * F(1, 63), "d2": F(1, 62)}
    lines = [line.split() for line in (tmp_path / "h.trec").read_text().splitlines()]
    assert [(t, d, int(r), tag) for t, _, d, r, _, tag in lines] == [
        ("q1", "d3", 1, "rrf"), ("q1", "d1", 2, "rrf"), ("q1", "d4", 3, "rrf"), ("q1", "d2", 4, "rrf")]
    for _, _, doc, _, score, _ in lines:
        assert float(score) == pytest.approx(float(hand[doc]), rel=1e-15)
    # the same fusion as genevals rows: texts and labels kept from the run that had them, the RRF score added
    done = genevals("fuse", str(dense), str(sparse), "--weights", "1,2", "-o", str(tmp_path / "h.jsonl"))
    assert done.returncode == 0, done.stderr
    [row] = [json.loads(line) for line in (tmp_path / "h.jsonl").read_text().splitlines()]
    assert (row["id"], row["system"], row["question"], row["relevant"]) == ("q1", "rrf", "which?", {"d3": 1.0})
    assert [(c["id"], c.get("text")) for c in row["contexts"]] == [("d3", "three"), ("d1", "one"), ("d4", "four"),
                                                                   ("d2", None)]


@pytest.mark.parametrize("fuse_args", [[], ["--weights", "1,0.5", "--k", "10"]], ids=["one-run", "weighted-pair"])
def test_a_fused_run_evaluates_as_trec_eval_evaluates_it(tmp_path, fuse_args):
    """Fusing trec_eval's test run (alone, or with a copy of itself) keeps trec_eval's order of it, ties included,
    so genevals' evaluation of the fused run must give trec_eval's own numbers for the original (out.test.aq)."""
    qrels, run = trec_files(tmp_path)
    runs = [str(run)] if not fuse_args else [str(run), str(run)]
    fused = tmp_path / "hybrid.trec"
    done = genevals("fuse", *runs, *fuse_args, "-o", str(fused))
    assert done.returncode == 0, done.stderr
    assert fused.read_text() != run.read_text()  # scores and ranks are the fusion's
    done = genevals("run", "--qrels", str(qrels), "--run", str(fused), "-o", str(tmp_path / "out"), "-q")
    assert done.returncode == 0, done.stderr
    [case] = [c for c in VECTORS["cases"] if c["expected_file"] == "out.test.aq"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())["systems"]["hybrid"]
    rows = {r["id"]: r["metrics"] for r in map(json.loads, (tmp_path / "out" / "results.jsonl").read_text().splitlines())}
    checked = 0
    for measure, ours in MEASURES.items():
        assert summary[ours]["mean"] == pytest.approx(case["expected"]["all"][measure], abs=TOL_4DP), measure
        for topic, values in case["expected"].items():
            if topic != "all":
                assert rows[topic][ours]["value"] == pytest.approx(values[measure], abs=TOL_4DP), (measure, topic)
                checked += 1
    assert checked == len(MEASURES) * 3


def test_dense_sparse_and_hybrid_are_evaluated_and_compared_in_one_command(tmp_path):
    qrels, run = trec_files(tmp_path)
    dense = tmp_path / "dense.trec"
    dense.write_text(run.read_text())
    sparse = tmp_path / "sparse.trec"  # the same documents, in the reverse order
    sparse.write_text("".join(f"{r['qid']} Q0 {r['docno']} 1 {-r['score']} sparse\n"
                              for r in VECTORS["inputs"]["results.test"]))
    assert genevals("fuse", str(dense), str(sparse), "-o", str(tmp_path / "hybrid.trec")).returncode == 0
    done = genevals("run", "--qrels", str(qrels), "--run", str(dense), "--run", str(sparse), "--run",
                    str(tmp_path / "hybrid.trec"), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "dense" in done.stdout and "sparse" in done.stdout and "hybrid" in done.stdout
    from genevals.report.model import build_data

    data = build_data([tmp_path / "out"])
    pairs = {(c["a"], c["b"]) for c in data["comparisons"] if c["metric"] == "map"}
    assert len(pairs) == 3 and all(c["n_pairs"] == 3 for c in data["comparisons"] if c["metric"] == "map")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())["systems"]
    assert summary["dense"]["map"]["mean"] == pytest.approx(0.1785, abs=TOL_4DP)  # trec_eval out.test
    assert summary["sparse"]["map"]["mean"] < summary["dense"]["map"]["mean"]


@pytest.mark.parametrize("args, expected", [
    (["--weights", "1"], "--weights: 1 weight(s) for 2 run(s)"),
    (["--k", "-1"], "argument --k: expected a number in [0, inf], got -1"),
    (["-o", "fused.tsv"], "-o fused.tsv: name a .jsonl file"),
])
def test_fuse_options_that_cannot_work_exit_2(tmp_path, args, expected):
    run = tmp_path / "a.trec"
    run.write_text("1 Q0 A 1 1.0 t\n")
    done = genevals("fuse", str(run), str(run), "-o", "fused.trec", *args, cwd=tmp_path)
    assert done.returncode == 2 and expected in done.stderr, done.stderr


def test_a_bad_run_line_is_located_and_nothing_is_written(tmp_path):
    good, bad = tmp_path / "a.trec", tmp_path / "b.trec"
    good.write_text("1 Q0 A 1 1.0 t\n")
    bad.write_text("1 Q0 A 1 1.0 t\n1 Q0 B 2 t\n")
    done = genevals("fuse", str(good), str(bad), "-o", str(tmp_path / "f.trec"))
    assert done.returncode == 2
    assert f"{bad}:2: expected 6 columns (TOPIC Q0 DOCNO RANK SCORE TAG), got 5" in done.stderr
    assert not (tmp_path / "f.trec").exists() and "Traceback" not in done.stderr
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 A one\n")
    done = genevals("run", "--qrels", str(qrels), "--run", str(good), "-o", str(tmp_path / "out"))
    assert done.returncode == 2 and f"{qrels}:1: field 'RELEVANCE': expected a number, got 'one'" in done.stderr


@pytest.mark.parametrize("args, expected", [
    (["--run", "r.trec"], "--run: give the relevance judgements with --qrels QRELS"),
    (["x.jsonl", "--qrels", "q.txt", "--run", "r.trec"], "give either an input file or --qrels with --run"),
    (["x.jsonl", "--system-from", "metadata.system"], "--system-from: names a trace attribute, so it needs --from"),
    ([], "INPUT: give the input file"),
])
def test_run_options_for_trec_and_traces_that_cannot_work_exit_2(tmp_path, args, expected):
    done = genevals("run", *args, "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2 and expected in done.stderr, done.stderr


@pytest.mark.parametrize("args, expected", [
    (["--weights", "1e308,1e308", "--k", "0"], "--weights: with k = 0, the weights add up to scores over 1.798e+308"),
    (["--weights", "1.7976931348623157e308,1e292", "--k", "0"], "--weights: with k = 0, the weights add up to"),
    (["--tag", "a\x1b[2Jb"], "--tag: a run tag is one printable word without spaces, got 'a\\x1b[2Jb'"),
    (["--tag", "rrf\udcff"], "--tag: a run tag is one printable word"),
], ids=["weights-overflow", "weights-at-the-limit", "tag-escape", "tag-not-utf8"])
def test_fuse_values_that_overflowed_or_could_not_be_written_exit_2(tmp_path, args, expected):
    """Issue 34, point 13: --weights 1e308,1e308 --k 0 was an OverflowError in math.fsum; a tag that cannot be
    written as UTF-8 was a UnicodeEncodeError once the file was open."""
    run = tmp_path / "a.trec"
    run.write_text("1 Q0 A 1 1.0 t\n1 Q0 B 2 0.5 t\n")
    done = subprocess.run([sys.executable, "-m", "genevals", "fuse", str(run), str(run), "-o", "f.trec", *args],
                          capture_output=True, cwd=tmp_path, timeout=120)
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2 and expected in stderr and "Traceback" not in stderr, stderr
    assert not (tmp_path / "f.trec").exists()


def test_fuse_weights_whose_scores_fit_a_double_are_fused(tmp_path):
    run = tmp_path / "a.trec"
    run.write_text("1 Q0 A 1 1.0 t\n1 Q0 B 2 0.5 t\n")
    done = genevals("fuse", str(run), str(run), "--weights", "1e308,1e307", "--k", "0", "-o", str(tmp_path / "f.trec"))
    assert done.returncode == 0, done.stderr
    assert [line.split()[2:5] for line in (tmp_path / "f.trec").read_text().splitlines()] == [
        ["A", "1", repr(1e308 + 1e307)], ["B", "2", repr(1e308 / 2 + 1e307 / 2)]]
    done = genevals("fuse", str(run), str(run), "--weights", "1e308,1e308", "-o", str(tmp_path / "g.trec"))
    assert done.returncode == 0, done.stderr  # k = 60: each score at most 2e308 / 61


def test_the_fused_run_replaces_an_earlier_one_whole(tmp_path):
    """Written beside -o and renamed over it: the earlier file is never half overwritten, and nothing is left."""
    run, fused = tmp_path / "a.trec", tmp_path / "f.trec"
    run.write_text("1 Q0 A 1 1.0 t\n")
    fused.write_text("earlier\n")
    assert genevals("fuse", str(run), "-o", str(fused)).returncode == 0
    assert fused.read_text() == f"1 Q0 A 1 {1 / 61!r} rrf\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.trec", "f.trec"]
    (tmp_path / "d.trec").mkdir()
    done = genevals("fuse", str(run), "-o", str(tmp_path / "d.trec"))
    assert done.returncode == 2 and f"-o {tmp_path / 'd.trec'}: is a directory" in done.stderr, done.stderr
