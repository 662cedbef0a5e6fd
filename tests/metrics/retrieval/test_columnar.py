"""The columnar retrieval path (TREC files read into columns, scored a block of topics at a time) against the
per-sample path on the same files (every value, status, reason and detail) and against pytrec_eval (trec_eval's
C code) per topic, to 1e-12, for every measure both compute."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from genevals.input.trec import read_qrels, read_run
from genevals.input.trec_columns import read_qrels_columns, read_run_columns
from genevals.metrics.retrieval.columnar import score_blocks
from genevals.metrics.retrieval.retrieval import Retrieval
from genevals.types import Context, Sample

CUTOFFS = (1, 3, 5, 10, 20, 100)


def generate(folder: Path, topics: int = 200, depth: int = 100, judged: int = 12, seed: int = 7) -> tuple[Path, Path]:
    """A collection with ties in the scores (rounded), unjudged and unretrieved relevant docs, a topic judged
    only 0 (no relevant), a run topic with no judgements, and a qrels-only topic."""
    rng = np.random.default_rng(seed)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    with open(qrels, "w") as q, open(run, "w") as r:
        for t in rng.permutation(topics):  # topics out of numeric order: first appearance is kept
            docs = rng.choice(5_000, size=depth, replace=False)
            scores = np.round(rng.normal(size=depth), 1)
            if t != topics - 1:
                pool = np.unique(np.concatenate([rng.choice(docs, judged // 2, replace=False),
                                                 rng.choice(5_000, judged // 2)]))
                grades = np.zeros(len(pool), int) if t == 0 else rng.integers(0, 4, size=len(pool))
                q.write("".join(f"t{t} 0 d{d} {g}\n" for d, g in zip(pool, grades)))
            for i in rng.permutation(depth):  # the file's order is not the ranking
                r.write(f"t{t} Q0 d{docs[i]} 0 {float(scores[i])!r} sys\n")
        q.write("extra 0 d1 1\n")
    return qrels, run


def per_sample(qrels_path: Path, run_path: Path, metric: Retrieval):
    qrels, _ = read_qrels(qrels_path)
    run = read_run(run_path)
    samples = [Sample(id=t, answer="", relevant=qrels.get(t),
                      contexts=tuple(Context(text="", rank=i + 1, id=d, score=s) for i, (d, s) in enumerate(r)))
               for t, r in run.rankings.items()]
    return list(run.rankings), metric.score_columns(samples)


def columnar(qrels_path: Path, run_path: Path, metric: Retrieval, block: int = 64):
    run = read_run_columns(run_path, read_qrels_columns(qrels_path))
    assert run is not None
    rows = []
    for _, cols in score_blocks(metric, run, block):
        rows.extend(cols.rows())
    return run.topics, rows


def test_same_results_as_the_per_sample_path(tmp_path: Path) -> None:
    qrels, run = generate(tmp_path)
    metric = Retrieval(cutoffs=CUTOFFS)
    topics, expected = per_sample(qrels, run, metric)
    got_topics, got = columnar(qrels, run, metric)
    assert got_topics == topics
    assert got == expected.rows()


def test_a_document_judged_twice_keeps_its_last_grade(tmp_path: Path) -> None:
    qrels, run = generate(tmp_path, topics=20, depth=30)
    first = qrels.read_text().splitlines()[0].split()
    with open(qrels, "a") as handle:  # judged again, lower: the per-sample path keeps the last grade
        handle.write(f"{first[0]} 0 {first[2]} 0\n")
    metric = Retrieval(cutoffs=CUTOFFS)
    assert columnar(qrels, run, metric)[1] == per_sample(qrels, run, metric)[1].rows()


def test_same_values_as_pytrec_eval(tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = generate(tmp_path)
    with open(qrels_path) as handle:
        qrels = pytrec_eval.parse_qrel(handle)
    with open(run_path) as handle:
        run = pytrec_eval.parse_run(handle)
    cuts = ",".join(map(str, CUTOFFS))
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", f"ndcg_cut.{cuts}", f"P.{cuts}",
                                                       f"recall.{cuts}", f"success.{cuts}"}).evaluate(run)
    topics, rows = columnar(qrels_path, run_path, Retrieval(cutoffs=CUTOFFS))
    shared = {"map": "map", "recip_rank": "mrr"}
    for k in CUTOFFS:
        shared.update({f"P_{k}": f"precision@{k}", f"recall_{k}": f"recall@{k}", f"ndcg_cut_{k}": f"ndcg@{k}",
                       f"success_{k}": f"hit_rate@{k}"})
    compared = 0
    for topic, row in zip(topics, rows):
        if row["map"].status != "ok":  # trec_eval skips a topic with no relevant judgement the same way
            continue
        for theirs, ours in shared.items():
            assert abs(reference[topic][theirs] - row[ours].value) <= 1e-12, (topic, theirs)
            compared += 1
    assert compared >= 190 * len(shared)


def test_unclean_files_are_left_to_the_line_reader(tmp_path: Path) -> None:
    qrels, run = generate(tmp_path, topics=5, depth=10)
    table = read_qrels_columns(qrels)
    for bad in ("t1 Q0 d1 1 1.0 " + "t" * (2 << 20) + "\n", "t1 Q0 d\xa01 1 1.0 sys\n", "t1 Q0 d1 1 nan sys\n", "t1 Q0 d1 1 x sys\n", "\n",
                run.read_text().splitlines()[0] + "\n"):  # a non-breaking space (str.split splits there), NaN,
        # not a number, a blank line, a document twice
        broken = tmp_path / "broken.txt"
        broken.write_text(run.read_text() + bad)
        assert read_run_columns(broken, table) is None, bad
    commented = tmp_path / "commented.txt"
    commented.write_text(qrels.read_text() + "# a comment after the header\n")
    assert read_qrels_columns(commented) is None
    aligned = tmp_path / "aligned.txt"  # a leading space, and a vertical tab further on: str.split splits there
    aligned.write_text(" " + run.read_text() + "t1 Q0 d\x0b9 1 1.0 sys\n")
    assert read_run_columns(aligned, table) is None


def test_a_qrels_header_is_skipped(tmp_path: Path) -> None:
    """``genevals label`` writes its provenance as ``#`` lines at the top of a qrels file."""
    qrels, run = generate(tmp_path, topics=20, depth=30)
    headed = tmp_path / "headed.txt"
    headed.write_text("# judged by a model\n# prompt sha256 0123\n" + qrels.read_text())
    metric = Retrieval(cutoffs=CUTOFFS)
    assert columnar(headed, run, metric)[1] == columnar(qrels, run, metric)[1]


TREC_VECTORS = Path(__file__).resolve().parents[2] / "data" / "trec_eval" / "trec_eval_test_vectors.json"


def test_trec_eval_test_collection(tmp_path: Path) -> None:
    """trec_eval's own test collection, written as trec_eval's test run is (tab-separated, scores padded with
    spaces), against its ``-q`` values."""
    vectors = json.loads(TREC_VECTORS.read_text())
    case = next(c for c in vectors["cases"] if c["run"] == "results.test" and c["qrels"] == "qrels.test"
                and c["options"] == {"measures": "all_trec", "per_query": True})
    qrels_path, run_path = tmp_path / "qrels.test", tmp_path / "results.test"
    qrels_path.write_text("".join(f"{topic} 0 {doc} {grade}\n" for topic, judged in
                                  vectors["inputs"]["qrels.test"].items() for doc, grade in judged.items()))
    run_path.write_text("".join(f"{r['qid']}\tQ0\t{r['docno']}\t{r['rank']}\t  {r['score']!r}\t{r['run']}\n"
                                for r in vectors["inputs"]["results.test"]))
    cutoffs = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    topics, rows = columnar(qrels_path, run_path, Retrieval(cutoffs=cutoffs))
    shared = {"map": "map", "recip_rank": "mrr", **{f"P_{k}": f"precision@{k}" for k in cutoffs},
              **{f"recall_{k}": f"recall@{k}" for k in cutoffs}, **{f"ndcg_cut_{k}": f"ndcg@{k}" for k in cutoffs}}
    checked = 0
    for topic, row in zip(topics, rows):
        for theirs, ours in shared.items():
            if theirs in case["expected"].get(topic, {}):  # printed with 4 decimals
                assert abs(case["expected"][topic][theirs] - row[ours].value) <= 5e-5 + 1e-9, (theirs, topic)
                checked += 1
    assert checked >= 3 * 20
    assert rows == per_sample(qrels_path, run_path, Retrieval(cutoffs=cutoffs))[1].rows()


def test_a_clean_file_is_read_as_it_is(tmp_path: Path) -> None:
    """Only a file that needs it is tidied (held whole, columns made one space apart): a clean run is read by
    pyarrow from its path, also when a 1 MiB block of the scan ends just after a space."""
    from genevals.input.trec_check import scan

    run = tmp_path / "run.txt"
    # a 23-byte line, then 24-byte ones: byte 2**20 - 2 is the space after a document id
    run.write_text("t1 Q0 d0000000 1 1.5 s\n" + "".join(f"t1 Q0 d{i:08d} 1 1.5 s\n" for i in range(1, 50_000)))
    assert run.read_bytes()[(1 << 20) - 2:(1 << 20) - 1] == b" "
    assert scan(run, "--run") == "as is"
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text(run.read_text().replace(" ", "\t"))
    assert scan(tabbed, "--run") == "tidied"
