"""A jury on the Ray engine gives what it gives on the local engine: the same verdicts (each judge's label, the
majority), the same kappas, each judge's server answering only its own calls. Skips without ray."""
from __future__ import annotations

import json

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from support.fault_server import FaultServer  # noqa: E402

from genevals.engine import ray as ray_engine  # noqa: E402
from genevals.api import evaluate as local_evaluate  # noqa: E402

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ANSWERS = ["Marie Curie was born in Warsaw. The PLANTED prize came in 1950.", "Marie Curie discovered polonium."]


def test_a_jury_on_ray_equals_the_local_engine(tmp_path):
    source = tmp_path / "d.jsonl"
    source.write_text("".join(json.dumps({"id": str(i), "answer": a, "contexts": [CONTEXT]}) + "\n"
                              for i, a in enumerate(ANSWERS)))
    with FaultServer() as a, FaultServer(verdict=lambda c, label: "supported" if "PLANTED" in c else label) as b:
        jury = [{"name": "honest", "base_url": a.base_url, "model": "judge", "cache": False},
                {"name": "lenient", "base_url": b.base_url, "model": "judge", "cache": False}]
        on_ray = ray_engine.evaluate(str(source), ["faithfulness"], judge=jury, out_dir=tmp_path / "ray", num_cpus=2,
                                     judge_concurrency=1)
        assert (a.total, b.total) == (4, 2)  # 2 decompose + 2 verify at the first judge's server; 2 verify
        on_local = local_evaluate(str(source), ["faithfulness"], judge=jury, out_dir=tmp_path / "local")
    verdicts = {r.sample.id: r.metrics["faithfulness"].details["verdicts"] for r in on_ray}
    assert verdicts == {r.sample.id: r.metrics["faithfulness"].details["verdicts"] for r in on_local}
    assert verdicts["0"][1]["jury"] == {"honest": "unverifiable", "lenient": "supported"}
    figures = [json.loads((tmp_path / run / "summary.json").read_text())["meta"]["jury"]["default"]["faithfulness"]
               for run in ("ray", "local")]
    for key in ("units", "split_units", "fleiss_kappa", "pairwise_kappa", "judge_means", "ci95_jury"):
        assert figures[0][key] == pytest.approx(figures[1][key]), key
