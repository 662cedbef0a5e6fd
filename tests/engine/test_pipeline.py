"""Worker processes that read, score and write whole chunks (genevals.engine.pipeline): the run folder and the
results are the same as one process's, bad rows and duplicates included, for every kind of input."""
import csv
import json
import random


import genevals
from genevals.engine import local, pipeline

METRICS = ["token_f1", "rouge", "bleu", "retrieval"]
WORDS = "the river port ferry sails north at dawn and returns by dusk with six crossings a day".split()


def _rows(n=2300, seed=3):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        ref = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
        answer = " ".join(w if rng.random() < 0.7 else rng.choice(WORDS) for w in ref.split())
        rows.append({"id": i, "system": f"s{i % 3}", "answer": answer + ".", "references": [ref],
                     "contexts": [{"id": f"d{(i + r) % 9}", "text": "t"} for r in range(4)],
                     "relevant": {f"d{i % 9}": 1}})
    rows[5]["answer"] = 7  # bad: not a string
    if n > 2100:
        rows[1500].update(id=3, system="s0")  # a duplicate of row 3, in another chunk of 1,000
        rows[2100]["references"] = ["   "]  # blank reference: unscored, with its reason
    return rows


def _write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as handle:
        for i, row in enumerate(rows):
            handle.write(json.dumps(row) + "\n")
            if i == 700:
                handle.write("\n{broken\n")  # a blank line and a malformed one
    return path


def _folder(path):
    return {f.name: f.read_bytes() for f in sorted(path.iterdir())}


def test_jsonl_run_folder_is_byte_identical_to_one_process(tmp_path):
    data = _write_jsonl(tmp_path / "in.jsonl", _rows())
    one = genevals.evaluate(data, METRICS, workers=1, on_error="skip", out_dir=tmp_path / "one")
    two = genevals.evaluate(data, METRICS, workers=2, on_error="skip", out_dir=tmp_path / "two")
    assert _folder(tmp_path / "one") == _folder(tmp_path / "two")
    assert len(two.samples) == 2300 - 2 and two.samples == one.samples
    assert two.summary() == one.summary()
    assert len(two.skipped) == 3  # the bad answer, the malformed line, the duplicate id
    assert two.corpus == one.corpus


def test_csv_and_dataframe_and_lists_match_one_process(tmp_path):
    rows = _rows()
    for row in rows:  # CSV cells are text: lists and mappings as JSON
        for key in ("references", "contexts", "relevant"):
            row[key] = json.dumps(row[key])
    path = tmp_path / "in.csv"
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    import pandas as pd

    # In CSV the bad answer 7 is the text "7": only the duplicate id is left out there.
    for data, n in ((path, 2299), (pd.DataFrame(_rows()), 2298), (_rows(), 2298)):
        one = genevals.evaluate(data, METRICS, workers=1, on_error="skip")
        two = genevals.evaluate(data, METRICS, workers=2, on_error="skip", keep_samples=True)
        assert two.samples == one.samples and len(one.samples) == n
        assert two.summary() == one.summary()


def test_without_samples_in_memory_only_text_and_counts_come_back(tmp_path):
    data = _write_jsonl(tmp_path / "in.jsonl", _rows())
    genevals.evaluate(data, METRICS, workers=1, on_error="skip", out_dir=tmp_path / "one", keep_samples=False)
    two = genevals.evaluate(data, METRICS, workers=2, on_error="skip", out_dir=tmp_path / "two", keep_samples=False)
    assert two.samples == []
    assert _folder(tmp_path / "one") == _folder(tmp_path / "two")


def test_auto_starts_the_pipeline_only_when_the_first_chunk_says_it_pays(tmp_path, monkeypatch):
    """workers=None: the first chunk is read and scored here; with a cost threshold of 0 the rest goes to worker
    processes, and the folder is the same as one process's."""
    data = _write_jsonl(tmp_path / "in.jsonl", _rows())
    started = []
    real = pipeline.start_pool
    monkeypatch.setattr(pipeline, "start_pool", lambda *a, **k: started.append(a[0]) or real(*a, **k))
    genevals.evaluate(data, METRICS, on_error="skip", out_dir=tmp_path / "auto")
    assert started == []  # cheap work measured far below PARALLEL_MIN_SECONDS: one process
    monkeypatch.setattr(local, "PARALLEL_MIN_SECONDS", 0.0)
    monkeypatch.setattr(local, "_cores", lambda: 2)
    genevals.evaluate(data, METRICS, on_error="skip", out_dir=tmp_path / "forced")
    assert started == [2]
    genevals.evaluate(data, METRICS, workers=1, on_error="skip", out_dir=tmp_path / "one")
    assert _folder(tmp_path / "forced") == _folder(tmp_path / "one") == _folder(tmp_path / "auto")
