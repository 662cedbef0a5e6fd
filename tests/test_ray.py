"""The Ray engine gives the local engine's results, sample for sample (local Ray, 2 CPUs). Skips without ray."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from genevals.io import InputError  # noqa: E402
from genevals.runner import evaluate as local_evaluate  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "demo.jsonl"
METRICS = ["exact_match", "token_f1", "rouge", "bleu", "retrieval"]


def test_genevals_ray_module_sees_the_real_ray():
    import genevals.ray
    import genevals.ray_engine

    assert genevals.ray.evaluate is genevals.ray_engine.evaluate
    assert sys.modules["ray"] is ray and hasattr(ray, "init") and hasattr(ray, "data")


def test_bad_input_is_located_as_locally_before_ray_starts(tmp_path):
    import genevals.ray

    path = tmp_path / "bad.jsonl"
    path.write_text('{"answer": "a"}\n{"contexts": 3}\n{"answer": 1}\n')
    with pytest.raises(InputError) as on_ray:
        genevals.ray.evaluate(path, METRICS)
    with pytest.raises(InputError) as on_local:
        local_evaluate(path, METRICS)
    assert str(on_ray.value) == str(on_local.value) and f"{path}:2: field 'answer'" in str(on_ray.value)
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    import genevals.ray

    tmp = tmp_path_factory.mktemp("ray")
    on_ray = genevals.ray.evaluate(DEMO, METRICS, out_dir=tmp / "ray", num_cpus=2, batch_size=32)
    on_local = local_evaluate(DEMO, METRICS, out_dir=tmp / "local")
    return tmp, on_ray, on_local


def test_ray_equals_local_sample_for_sample(both):
    tmp, on_ray, on_local = both
    assert len(on_ray) == len(on_local) == 90
    for a, b in zip(on_ray, on_local):
        assert a.to_dict() == b.to_dict(), a.sample.origin
    assert (tmp / "ray" / "results.jsonl").read_text() == (tmp / "local" / "results.jsonl").read_text()
    print(f"ray: {len(on_ray)} samples x {len(on_ray.samples[0].metrics)} metrics equal to the local engine")


def test_ray_summary_equals_local(both):
    tmp, on_ray, on_local = both
    ray_summary = json.loads((tmp / "ray" / "summary.json").read_text())
    local_summary = json.loads((tmp / "local" / "summary.json").read_text())
    assert ray_summary["meta"].pop("engine") == "ray"
    assert ray_summary == local_summary
