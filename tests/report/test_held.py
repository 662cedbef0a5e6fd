"""genevals.report.held: the report's values taken from the columns a columnar run holds equal those read back
from its results.jsonl (the page's data, whole), with unscored rows, a list of ids and a second cutoff set."""
from __future__ import annotations

import json
from pathlib import Path

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
