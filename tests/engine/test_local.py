"""The runner end to end: results files, located errors, skip mode, resume, workers, corpus BLEU."""
import json

import pytest
import sacrebleu

import genevals
from genevals.input.readers import InputError
from genevals.metrics.lexical.squad import TokenF1
from genevals.types import Sample


def rows(n=12, systems=("dense", "sparse")):
    out = []
    for system in systems:
        for i in range(n):
            out.append({
                "id": f"q{i}", "system": system, "question": f"What is item {i}?",
                "answer": f"Item {i} is a {'red' if i % 2 else 'blue'} box from {system} number {i * 7}",
                "references": [f"Item {i} is a blue box number {i * 7}"],
                "contexts": [{"id": f"c{i}", "doc_id": f"https://d.org/{i}", "text": f"Item {i} is blue."},
                             {"id": f"c{i + 1}", "doc_id": f"https://d.org/{i + 1}", "text": "Other."}],
                "relevant": {f"https://d.org/{i}": 2} if system == "dense" else {f"https://d.org/{i + 5}": 1},
            })
    return out


def test_evaluate_returns_results_matching_the_metric_itself():
    data = rows()
    results = genevals.evaluate(data, metrics=["token_f1", "rouge", "bleu", "retrieval"])
    assert len(results) == len(data)
    direct = TokenF1().score([Sample(id="x", answer=r["answer"], references=tuple(r["references"]))
                              for r in data])
    assert [r.metrics["token_f1"].value for r in results] == [d["token_f1"].value for d in direct]
    frame = results.to_pandas()
    assert {"id", "system", "token_f1", "rougeL", "bleu", "mrr", "recall@5"} <= set(frame.columns)
    summary = results.summary()
    assert set(summary["systems"]) == {"dense", "sparse"}
    assert summary["systems"]["dense"]["mrr"]["mean"] == 1.0
    assert summary["systems"]["sparse"]["mrr"]["mean"] == 0.0
    assert "retrieval" in summary["signatures"] and "genevals:" in summary["signatures"]["rouge"]
    assert results.to_table().splitlines()[1].split() == ["metric", "dense", "sparse"]


def test_selecting_one_output_keeps_only_that_output():
    results = genevals.evaluate(rows(3), metrics=["recall@7", "rougeL"])
    assert set(results.samples[0].metrics) == {"recall@7", "rougeL"}


def test_corpus_bleu_equals_sacrebleu_from_summed_statistics():
    data = rows(10, systems=("dense",))
    results = genevals.evaluate(data, metrics=["bleu"])
    expected = sacrebleu.corpus_bleu([r["answer"] for r in data], [[r["references"][0] for r in data]])
    assert results.summary()["corpus"]["dense"]["bleu"] == pytest.approx(expected.score / 100, abs=1e-12)


def test_outputs_are_written_and_summary_is_reproducible(tmp_path):
    first = genevals.evaluate(rows(), out_dir=tmp_path / "a")
    genevals.evaluate(rows(), out_dir=tmp_path / "b")
    lines = (tmp_path / "a" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 24 and json.loads(lines[0])["metrics"]["token_f1"]["status"] == "ok"
    summary_a = json.loads((tmp_path / "a" / "summary.json").read_text())
    summary_b = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary_a["systems"] == summary_b["systems"]
    assert summary_a["systems"] == json.loads(first.to_json())["systems"]
    ci = summary_a["systems"]["dense"]["token_f1"]["ci95"]
    assert ci[0] <= summary_a["systems"]["dense"]["token_f1"]["mean"] <= ci[1]


def test_bad_input_stops_before_scoring(tmp_path):
    data = rows(3) + [{"id": "bad", "system": "dense"}]
    with pytest.raises(InputError, match="missing answer") as info:
        genevals.evaluate(data, out_dir=tmp_path)
    assert "nothing was scored" in str(info.value)
    assert not (tmp_path / "results.jsonl").exists()


def test_skip_mode_records_the_reason_and_scores_the_rest(tmp_path):
    data = rows(3) + [{"id": "bad", "system": "dense", "answer": 3}]
    results = genevals.evaluate(data, on_error="skip", out_dir=tmp_path)
    assert len(results) == 6
    skipped = [json.loads(line) for line in (tmp_path / "skipped.jsonl").read_text().splitlines()]
    assert skipped == [{"origin": "<data>:7", "field": "answer", "reason": "expected a string, got int"}]
    assert json.loads((tmp_path / "summary.json").read_text())["skipped"] == skipped


def test_no_reference_and_no_labels_are_unscored_with_reasons():
    results = genevals.evaluate([{"id": "a", "answer": "x"}], metrics=["token_f1", "mrr"])
    metrics = results.samples[0].metrics
    assert metrics["token_f1"].value is None and metrics["token_f1"].status == "no_reference"
    assert metrics["mrr"].status == "no_relevance_labels" and metrics["mrr"].reason
    summary = results.summary()["systems"]["default"]["token_f1"]
    assert summary["mean"] is None and summary["unscored"] == 1


def test_resume_after_a_crash_equals_an_uninterrupted_run(tmp_path):
    full = genevals.evaluate(rows(), out_dir=tmp_path / "full")
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    lines = (tmp_path / "full" / "results.jsonl").read_text().splitlines(keepends=True)
    # Ten finished lines and a half-written eleventh, as a SIGKILL mid-write leaves it.
    (crashed / "results.jsonl").write_text("".join(lines[:10]) + lines[10][:25])
    (crashed / "manifest.json").write_bytes((tmp_path / "full" / "manifest.json").read_bytes())  # written first
    resumed = genevals.evaluate(rows(), out_dir=crashed, resume=True)
    final = [json.loads(x) for x in (crashed / "results.jsonl").read_text().splitlines()]
    assert len(final) == 24 and len({(r["system"], r["id"]) for r in final}) == 24
    assert sorted(final, key=lambda r: (r["system"], r["id"])) == \
        sorted((json.loads(x) for x in lines), key=lambda r: (r["system"], r["id"]))
    assert resumed.summary()["systems"] == full.summary()["systems"]


def test_rerun_keeps_the_previous_results_file(tmp_path):
    genevals.evaluate(rows(2), out_dir=tmp_path)
    genevals.evaluate(rows(2), out_dir=tmp_path)
    assert len(list(tmp_path.glob("earlier/*/results.jsonl"))) == 1


def test_two_workers_give_identical_results():
    data = rows(40)
    one = genevals.evaluate(data, workers=1)
    two = genevals.evaluate(data, workers=2, chunk_size=16)
    assert [r.to_dict() for r in one] == [r.to_dict() for r in two]


def test_samples_and_dataframes_are_accepted():
    import pandas as pd

    frame = pd.DataFrame(rows(2))
    from_frame = genevals.evaluate(frame, metrics=["token_f1"])
    from_samples = genevals.evaluate([r.sample for r in from_frame], metrics=["token_f1"])
    assert [r.metrics["token_f1"].value for r in from_frame] == [r.metrics["token_f1"].value for r in from_samples]


def test_worker_processes_start_only_for_enough_measured_work():
    """workers=None decides from the cheap metrics' measured cost: 2,000 retrieval samples (scored in columns) stay
    in one process; ROUGE on long texts, whose first chunk shows more than PARALLEL_MIN_SECONDS left, gets two."""
    import time

    from genevals.engine.local import PARALLEL_MIN_SECONDS, parallel_workers
    from genevals.metrics.retrieval.retrieval import Retrieval
    from genevals.types import Context

    chunk = [Sample(id=str(i), answer="a", contexts=tuple(Context(text="t", rank=r + 1, id=f"d{(i + r) % 7}")
                                                          for r in range(5)), relevant={f"d{i % 7}": 1})
             for i in range(512)]
    start = time.perf_counter()
    Retrieval().score(chunk)
    per_sample = (time.perf_counter() - start) / len(chunk)
    assert parallel_workers(per_sample, 2000 - 512, 2000, cores=2) == 1
    assert parallel_workers(PARALLEL_MIN_SECONDS / 1000, 1000, 2000, cores=2) == 2
    assert parallel_workers(PARALLEL_MIN_SECONDS / 1000, 1000, 2000, cores=1) == 1
    assert parallel_workers(1.0, 1000, 1999, cores=2) == 1  # small runs never pay for the start-up
