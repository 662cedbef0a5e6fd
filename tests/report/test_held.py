"""genevals.report.held: the report's values taken from the columns a columnar run holds equal those read back
from its results.jsonl (the page's data, whole), with unscored rows, a list of ids and a second cutoff set."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from genevals.engine import local
from genevals.engine.spec import RunSpec
from genevals.report.model import build_data


def test_the_page_data_is_the_same(tmp_path: Path) -> None:
    rows = []
    for q in range(40):
        row = {"id": f"q{q}", "answer": "", "contexts": [{"id": f"d{(q * 7 + i) % 50}"} for i in range(1 + q % 9)]}
        if q % 5:
            row["relevant"] = {f"d{(q * 3) % 50}": q % 4, f"d{(q * 7) % 50}": 1}
        rows.append(row)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = RunSpec.build(str(path), ["retrieval"], options={"retrieval": {"cutoffs": [1, 2, 5]}},
                         out_dir=tmp_path / "out", keep_samples=False)
    results = local.run(spec)
    assert results.held is not None  # the columnar path ran
    read_back = build_data([tmp_path / "out"])
    held = build_data([tmp_path / "out"], held=[results.held])
    assert json.dumps(held, sort_keys=True) == json.dumps(read_back, sort_keys=True)
    assert held["systems"][0]["summary"]


def _trec_run(tmp_path: Path):
    """Two TREC runs of 30 topics x 40 documents (more than the 20 a line lists; tied scores), scored."""
    from genevals.input.trec import TrecSource

    rng = np.random.default_rng(5)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"t{t} 0 d{d} {g}\n" for t in range(29) for d, g in zip(range(0, 60, 7), range(9))
                             if g % 4 == g % 3))
    runs = []
    for name in ("bm25", "dense"):
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(f"t{t} Q0 d{d} {k + 1} {float(np.round(s, 1))!r} {name}\n" for t in range(30)
                                for k, (d, s) in enumerate(zip(rng.permutation(60)[:40],
                                                               np.sort(rng.normal(size=40))[::-1]))))
        runs.append(path)
    spec = RunSpec.build(TrecSource(qrels, tuple(runs)), ["retrieval"], out_dir=tmp_path / "out", keep_samples=False)
    results = local.run(spec)
    assert results.held is not None  # the columnar path ran
    return results


def test_a_trec_run_gives_the_same_page_data(tmp_path: Path) -> None:
    results = _trec_run(tmp_path)
    read_back = build_data([tmp_path / "out"])
    held = build_data([tmp_path / "out"], held=[results.held])
    assert json.dumps(held, sort_keys=True) == json.dumps(read_back, sort_keys=True)
    assert len(held["samples"]) == 60 and len(held["samples"][0]["ctx"]) == 20
    # texts for 7 samples only: the others' records hold their id and origin, and the page is the same
    few = build_data([tmp_path / "out"], max_detailed_samples=7, held=[results.held])
    assert json.dumps(few, sort_keys=True) == json.dumps(build_data([tmp_path / "out"], max_detailed_samples=7),
                                                         sort_keys=True)
    assert sum("ctx" in s for s in few["samples"]) == 7


def test_the_held_page_does_not_parse_results_jsonl(tmp_path: Path) -> None:
    """The embedded samples' texts and contexts come from memory: results.jsonl's lines blanked after the run,
    the page is unchanged (before, the report parsed every embedded line back: 12.7 MB at 2,000 x 1,000)."""
    results = _trec_run(tmp_path)
    expected = build_data([tmp_path / "out"])
    path = tmp_path / "out" / "results.jsonl"
    path.write_text("{}\n" * len(path.read_text().splitlines()))
    held = build_data([tmp_path / "out"], held=[results.held])
    assert json.dumps(held, sort_keys=True) == json.dumps(expected, sort_keys=True)
