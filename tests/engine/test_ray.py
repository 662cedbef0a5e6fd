"""The Ray engine gives the local engine's results, sample for sample (local Ray, 2 CPUs). Skips without ray."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

from genevals.input.readers import InputError  # noqa: E402
from genevals.engine import ray as ray_engine  # noqa: E402
from genevals.api import evaluate as local_evaluate  # noqa: E402
from genevals.judge.config import JudgeConfig  # noqa: E402
from support.fault_server import CountingServer  # noqa: E402

DEMO = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "demo.jsonl"
METRICS = ["exact_match", "token_f1", "rouge", "bleu", "retrieval"]


def test_the_ray_engine_module_sees_the_real_ray():
    assert ray_engine.__name__ == "genevals.engine.ray"
    assert sys.modules["ray"] is ray and hasattr(ray, "init") and hasattr(ray, "data")


def test_bad_input_is_located_as_locally_before_ray_starts(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"answer": "a"}\n{"contexts": 3}\n{"answer": 1}\n')
    with pytest.raises(InputError) as on_ray:
        ray_engine.evaluate(path, METRICS)
    with pytest.raises(InputError) as on_local:
        local_evaluate(path, METRICS)
    assert str(on_ray.value) == str(on_local.value) and f"{path}:2: field 'answer'" in str(on_ray.value)
    assert not ray.is_initialized()


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ray")
    on_ray = ray_engine.evaluate(DEMO, METRICS, out_dir=tmp / "ray", num_cpus=2, batch_size=32)
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
    # genevals.evaluate with out_dir records what its lifecycle was given (the input, the gates, the least
    # coverage), as `genevals run` does; the Ray engine's own evaluate runs no lifecycle
    for key in ("input", "fail_under", "fail_over", "min_coverage"):
        local_summary["meta"].pop(key)
    assert ray_summary == local_summary


# -- BERTScore and the judge on Ray workers ------------------------------------------------------------------

def _comparable(result) -> dict:
    """A result without judge usage (a cache hit or not, timing) and unscored transcripts."""
    row = result.to_dict()
    for m in row["metrics"].values():
        for key in ("usage", "transcript"):
            (m.get("details") or {}).pop(key, None)
    return row


def test_bertscore_on_a_ray_actor_equals_local(tmp_path):
    metrics = ["token_f1", "bertscore"]
    options = {"bertscore": {"idf": True}}
    on_ray = ray_engine.evaluate(DEMO, metrics, options=options, out_dir=tmp_path / "ray", num_cpus=2,
                                   batch_size=32)
    on_local = local_evaluate(DEMO, metrics, options=options, out_dir=tmp_path / "local")
    assert len(on_ray) == len(on_local) == 90
    for a, b in zip(on_ray, on_local):
        assert a.key == b.key
        for name in ("bertscore_f1", "bertscore_precision", "bertscore_recall"):
            x, y = a.metrics[name], b.metrics[name]
            assert x.status == y.status
            assert x.value == pytest.approx(y.value, abs=1e-6), (a.sample.origin, name)
    summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert summary["signatures"]["bertscore"] == on_local.signatures["bertscore"]
    assert len(summary["systems"]) == 3
    assert all(m["bertscore_f1"]["scored"] > 20 for m in summary["systems"].values())


def test_judge_on_ray_actors_equals_local_and_is_capped_cluster_wide(tmp_path):
    with CountingServer(latency=0.05) as server:
        judge = JudgeConfig(backend="openai", base_url=server.base_url, model="test", concurrency=3, cache=False,
                            api_key="dummy")
        on_ray = ray_engine.evaluate(DEMO, ["faithfulness"], judge=judge, out_dir=tmp_path / "ray",
                                     num_cpus=2, judge_concurrency=2)
        ray_requests, ray_peak = server.total, server.max_in_flight
        server.reset_counts()
        on_local = local_evaluate(DEMO, ["faithfulness"], judge=judge, out_dir=tmp_path / "local")
        local_requests = server.total
    assert [_comparable(r) for r in on_ray] == [_comparable(r) for r in on_local]
    assert sum(r.metrics["faithfulness"].status == "ok" for r in on_ray) > 60
    assert ray_requests == local_requests > 100
    # 2 actors x concurrency 3: never more than 6 judge calls at once, and more than one actor did work.
    assert 3 < ray_peak <= 6, ray_peak
    print(f"ray judge: {ray_requests} requests, at most {ray_peak} in flight (cap 2 actors x 3)")


def test_cli_resume_on_ray_after_a_crash_equals_an_uninterrupted_run(both):
    """`genevals run --engine ray --resume` after a crash left 40 results and half a line."""
    import os
    import subprocess

    tmp, _, _ = both
    full = (tmp / "local" / "results.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    out = tmp / "ray_resumed"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(full[:40]) + full[40][:50], encoding="utf-8")
    (out / "manifest.json").write_bytes((tmp / "local" / "manifest.json").read_bytes())  # written before scoring
    env = {**os.environ, "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(DEMO.parents[2]), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(DEMO), "--out", str(out), "--engine", "ray",
                           "--resume", "--metrics", ",".join(METRICS), "-q"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "results.jsonl").read_text(encoding="utf-8") == "".join(full)
    resumed = json.loads((out / "summary.json").read_text())
    local = json.loads((tmp / "local" / "summary.json").read_text())
    assert resumed["meta"].pop("engine") == "ray"
    for key in ("input", "fail_under", "fail_over", "min_coverage"):  # what the lifecycle records of its drivers
        resumed["meta"].pop(key)
        local["meta"].pop(key)
    assert resumed == local


def _listening() -> set[tuple[str, int]]:
    """TCP listening sockets on this machine, from /proc/net/tcp{,6}: (address, port)."""
    import ipaddress

    found = set()
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            if state != "0A":  # LISTEN
                continue
            hex_ip, hex_port = local.split(":")
            raw = bytes.fromhex(hex_ip)
            # The kernel prints each 32-bit word in host (little-endian) order.
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            found.add((str(ipaddress.ip_address(raw)), int(hex_port, 16)))
    return found


def _loopback(address: str) -> bool:
    import ipaddress

    ip = ipaddress.ip_address(address)
    return ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback)


def test_local_ray_listens_on_loopback_only():
    from genevals.engine.ray import _init_ray

    if not Path("/proc/net/tcp").exists():
        pytest.skip("needs /proc/net/tcp (Linux)")
    before = _listening()
    ray_module, started = _init_ray(None, 1, None)
    try:
        assert started
        opened = _listening() - before
        assert opened, "Ray opened no listening socket?"
        assert all(_loopback(address) for address, _ in opened), sorted(opened)
    finally:
        ray_module.shutdown()
    print(f"local Ray: {len(opened)} listening sockets, all on loopback")


@pytest.mark.parametrize("kwargs,message", [
    ({"seed": -1}, "seed: expected a whole number from 0 to 18,446,744,073,709,551,615, got -1"),
    ({"batch_size": 0}, "batch_size: expected a whole number from 1 to 1,000,000,000, got 0"),
    ({"rows_per_pass": -3}, "rows_per_pass: expected a whole number from 1 to 1,000,000,000, got -3"),
    ({"column_map": {"anwser": "a"}}, "unknown field 'anwser'"),
])
def test_ray_arguments_are_checked_before_ray_starts(kwargs, message):
    """The Ray engine checks the local engine's arguments (and its own sizes) before it starts Ray."""
    with pytest.raises(InputError) as err:
        ray_engine.evaluate([{"answer": "a", "references": ["a"]}], ["exact_match"], **kwargs)
    assert message in str(err.value) and not ray.is_initialized()


def test_ray_refuses_an_out_dir_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError) as err:
        ray_engine.evaluate([{"answer": "a"}], ["exact_match"], out_dir=tmp_path / "f")
    assert "out_dir" in str(err.value) and not ray.is_initialized()
