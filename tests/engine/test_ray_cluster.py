"""`genevals run --engine ray --ray-address` on a real cluster of three nodes: a head and two workers, each in its
own network namespace on a private bridge (tests/support/netns_cluster.py), the driver inside the head's namespace,
the judge (the fault server, with latency) on the bridge. A lexical run and a judged run equal the local engine's,
every sample exactly once; losing a worker node mid-run loses nothing and scores nothing twice; the judge's
concurrency cap holds across the cluster. Skips where network namespaces cannot be made (not root, no `ip`)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.data")

from support.fault_server import CountingServer  # noqa: E402
from support.netns_cluster import NetnsCluster, Unavailable  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"
LEXICAL = "exact_match,token_f1,rouge,bleu,retrieval"
ACTORS, CONCURRENCY, CPUS = 4, 2, 2  # judge actors x calls each; CPUs per worker node (an actor takes one)
LATENCY = 0.1


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with NetnsCluster(tmp_path_factory.mktemp("cluster"), workers=2, cpus=CPUS) as made:
            yield made
    except Unavailable as exc:
        pytest.skip(f"no cluster of network namespaces here: {exc}")


@pytest.fixture(scope="module")
def server(cluster):
    # Bound to the bridge's address, the machine's side of the private network the cluster fixture made (the
    # multi-host form of the project's "servers bind to 127.0.0.1"): every node's namespace reaches it.
    with CountingServer(latency=LATENCY, host=cluster.host) as made:
        yield made


@pytest.fixture(scope="module")
def judged_input(tmp_path_factory) -> Path:
    """The demo twice (180 samples, ids q01..q30 and q01b..q30b): six judge batches of up to 32, more than the
    four actors, so every actor and both worker nodes judge."""
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    path = tmp_path_factory.mktemp("judged") / "twice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows)
                    + "".join(json.dumps({**r, "id": r["id"] + "b"}) + "\n" for r in rows), encoding="utf-8")
    return path


def _genevals(data: Path, out: Path, metrics: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "genevals", "run", str(data), "--metrics", metrics, "--out", str(out), "-q",
            "--no-history", *extra]


def _env(cluster) -> dict[str, str]:
    return {**cluster.env(), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "dummy",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def _judge_args(server, concurrency: int) -> list[str]:
    return ["--judge-backend", "openai", "--judge-base-url", server.base_url, "--judge-model", "test",
            "--judge-concurrency", str(concurrency), "--no-judge-cache"]


def _rows(out: Path) -> dict[tuple[str, str], dict]:
    """results.jsonl by sample key, each key once, without judge usage and transcripts (timing, cache)."""
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    keys = Counter((r["id"], r.get("system")) for r in rows)
    assert max(keys.values()) == 1, [k for k, n in keys.items() if n > 1]
    for r in rows:
        for m in r["metrics"].values():
            for key in ("usage", "transcript"):
                (m.get("details") or {}).pop(key, None)
    return {(r["id"], r.get("system")): r for r in rows}


def _decomposed(server) -> Counter:
    """Decompose requests per answer: one per sample judged (answers repeat in the demo only across ids)."""
    return Counter(r["body"]["messages"][0]["content"].rsplit('Answer: """', 1)[1] for r in server.requests
                   if r["kind"] == "decompose")


@pytest.fixture(scope="module")
def local_judged(server, judged_input, tmp_path_factory, cluster):
    """The judged run on the local engine (no latency: the answers do not depend on it)."""
    out = tmp_path_factory.mktemp("local") / "judged"
    server.latency = 0
    try:
        done = subprocess.run(_genevals(judged_input, out, "faithfulness", *_judge_args(server, 8)),
                              env=_env(cluster), capture_output=True, text=True, timeout=120)
    finally:
        server.latency = LATENCY
    assert done.returncode == 0, done.stderr[-3000:]
    counted = _decomposed(server)
    server.reset_counts()
    return _rows(out), counted


def test_a_lexical_run_on_three_nodes_equals_the_local_run(cluster, tmp_path):
    env = _env(cluster)
    local = subprocess.run(_genevals(DEMO, tmp_path / "local", LEXICAL), env=env, capture_output=True, text=True,
                           timeout=120)
    assert local.returncode == 0, local.stderr[-3000:]
    on_ray = cluster.run(_genevals(DEMO, tmp_path / "ray", LEXICAL, "--engine", "ray", "--ray-address",
                                   cluster.address), env=env, timeout=120, check=False)
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    assert len(_rows(tmp_path / "ray")) == 90
    # in input order, every value and status: byte for byte
    assert (tmp_path / "ray" / "results.jsonl").read_bytes() == (tmp_path / "local" / "results.jsonl").read_bytes()


def test_a_judged_run_equals_local_each_sample_judged_once_under_the_cluster_wide_cap(
        cluster, server, judged_input, local_judged, tmp_path):
    local_rows, local_calls = local_judged
    started = time.monotonic()
    done = cluster.run(_genevals(judged_input, tmp_path / "ray", "faithfulness", "--engine", "ray", "--ray-address",
                                 cluster.address, "--ray-judge-actors", str(ACTORS),
                                 *_judge_args(server, CONCURRENCY)), env=_env(cluster), timeout=150, check=False)
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-3000:]
    rows = _rows(tmp_path / "ray")
    assert len(rows) == 180 and rows == local_rows
    assert sum(r["metrics"]["faithfulness"]["status"] == "ok" for r in rows.values()) > 120
    assert _decomposed(server) == local_calls  # no sample judged twice, none skipped
    # Both worker nodes judged; the head (no CPUs) sent only the driver's preflight call.
    by_node = {node: server.clients[cluster.ip(node)] for node in cluster.nodes}
    assert by_node["w1"] > 20 and by_node["w2"] > 20 and by_node["head"] == 1, by_node
    # The cap, actors x concurrency, held for the whole cluster; above what one node's 2 actors can send, so
    # both nodes' actors were judging at once.
    assert CPUS * CONCURRENCY < server.max_in_flight <= ACTORS * CONCURRENCY, server.max_in_flight
    print(f"3-node cluster: {len(rows)} samples judged in {seconds:.1f} s, {server.total} requests "
          f"({by_node}), at most {server.max_in_flight} in flight (cap {ACTORS} x {CONCURRENCY})")
    server.reset_counts()


def test_losing_a_worker_node_mid_run_loses_nothing_and_scores_nothing_twice(
        cluster, server, judged_input, local_judged, tmp_path):
    local_rows, local_calls = local_judged
    cmd = _genevals(judged_input, tmp_path / "ray", "faithfulness", "--engine", "ray", "--ray-address",
                    cluster.address, "--ray-judge-actors", str(ACTORS), *_judge_args(server, CONCURRENCY))
    log = tmp_path / "driver.log"
    with open(log, "wb") as sink:
        driver = cluster.popen(cmd, env=_env(cluster), stdout=sink, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 60
        while server.clients[cluster.ip("w1")] < 30 and driver.poll() is None and time.monotonic() < end:
            time.sleep(0.05)
        assert driver.poll() is None, "the run ended before w1 had judged 30 calls"
        before = sum(server.clients.values())
        assert cluster.kill("w1") > 0
        # a request the node sent just before it died may still be on its way to the server's count (seen in CI:
        # one more than counted at once): counted after the wire has had time to empty
        time.sleep(1.0)
        lost_at = server.clients[cluster.ip("w1")]
        rc = driver.wait(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert rc == 0, log.read_text(errors="replace")[-3000:]
    rows = _rows(tmp_path / "ray")
    assert len(rows) == 180 and rows == local_rows  # every sample once, scored as locally
    calls = _decomposed(server)
    assert set(calls) == set(local_calls) and all(calls[a] >= local_calls[a] for a in local_calls)
    # What the lost node costs: the batches it was judging (at most its 2 actors x 32 samples) are judged again.
    again = sum(calls.values()) - sum(local_calls.values())
    # w1 was killed after 30 calls, inside its first batches (64 calls each): some were judged again.
    assert 0 < again <= CPUS * 32, again
    assert server.clients[cluster.ip("w1")] == lost_at  # nothing more from the lost node
    assert server.max_in_flight <= ACTORS * CONCURRENCY
    print(f"lost w1 after {before} requests: the run completed, {again} samples judged again elsewhere")
    server.reset_counts()
