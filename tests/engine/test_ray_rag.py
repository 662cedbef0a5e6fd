"""The RAG judges give the same results on the Ray engine as on the local engine: the offline variants (model
actors) and the LLM variants and pairwise (judge actors, against the fault server's honest judge). Skips
without ray."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from support.fault_server import FaultServer  # noqa: E402
from support.rag_judge import FAMILIES, honest_judge  # noqa: E402

from genevals.engine import ray as ray_engine  # noqa: E402
from genevals.api import evaluate as local_evaluate  # noqa: E402
from genevals.judge.config import JudgeConfig  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"


@pytest.fixture(scope="module")
def subset(tmp_path_factory) -> Path:
    """q01-q08 for all three systems: 24 rows."""
    rows = [line for line in DEMO.read_text(encoding="utf-8").splitlines() if int(json.loads(line)["id"][1:]) <= 8]
    path = tmp_path_factory.mktemp("rag") / "subset.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _comparable(result) -> dict:
    row = result.to_dict()
    for m in row["metrics"].values():
        for key in ("usage", "transcript"):
            (m.get("details") or {}).pop(key, None)
    return row


def test_offline_variants_on_ray_equal_local(subset, tmp_path):
    on_ray = ray_engine.evaluate(subset, FAMILIES, out_dir=tmp_path / "ray", num_cpus=2, batch_size=8)
    on_local = local_evaluate(subset, FAMILIES, out_dir=tmp_path / "local")
    assert len(on_ray) == len(on_local) == 24
    for a, b in zip(on_ray, on_local):
        assert a.key == b.key
        for name, x in a.metrics.items():
            y = b.metrics[name]
            assert x.status == y.status, (a.sample.origin, name)
            assert x.value == pytest.approx(y.value, abs=1e-6), (a.sample.origin, name)
    ray_summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    local_summary = json.loads((tmp_path / "local" / "summary.json").read_text())
    assert ray_summary["signatures"] == local_summary["signatures"]
    for system, corpus in local_summary["corpus"].items():
        assert ray_summary["corpus"][system] == pytest.approx(corpus)


def test_llm_variants_and_pairwise_on_ray_equal_local(subset, tmp_path):
    with FaultServer(replies=honest_judge) as server:
        judge = JudgeConfig(backend="openai", base_url=server.base_url, model="test", cache=False, api_key="dummy")
        on_ray = ray_engine.evaluate(subset, [*FAMILIES, "pairwise"], judge=judge, out_dir=tmp_path / "ray",
                                     num_cpus=2, judge_concurrency=2)
        ray_requests = server.total
        server.reset_counts()
        on_local = local_evaluate(subset, [*FAMILIES, "pairwise"], judge=judge, out_dir=tmp_path / "local")
        local_requests = server.total
    assert [_comparable(r) for r in on_ray] == [_comparable(r) for r in on_local]
    assert all(r.metrics["pairwise"].status == "ok" for r in on_local)
    # locally: 1 call per answer and metric (3 refusals skip two of them) + 2 per pair of systems (8 x 3 pairs)
    refusals = sum(r.metrics["answer_relevance"].status == "refusal" for r in on_local)
    assert local_requests == 24 * 4 - 2 * refusals + 8 * 3 * 2
    # on Ray a pair whose two samples land on different judge actors may be judged on both (no shared memo)
    assert local_requests <= ray_requests <= local_requests + 8 * 3 * 2
    local_summary = json.loads((tmp_path / "local" / "summary.json").read_text())
    ray_summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    for system, corpus in local_summary["corpus"].items():
        shared = {k: v for k, v in corpus.items() if "_judge_" not in k}
        assert {k: ray_summary["corpus"][system][k] for k in shared} == pytest.approx(shared)
