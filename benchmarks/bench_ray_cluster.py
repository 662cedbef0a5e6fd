"""Judge-bound throughput of `genevals run --engine ray --ray-address` with one worker node, then two.

A real Ray cluster on this machine (tests/support/netns_cluster.py: a head without CPUs and worker nodes of 2 CPUs
each, every node in its own network namespace on a private bridge; the driver runs in the head's namespace) scores
faithfulness against the project's fault server (tests/support/fault_server.py's honest rule-based judge, bound to
the bridge) with 200 ms of latency per call. The command is the same every time: 4 judge actors x 4 calls each.
A judge actor takes one CPU, so one worker node holds 2 of them (8 calls in flight) and two nodes hold all 4 (16):
the server's latency dominates, so throughput should double. Order: one node, two nodes (w2 joins), one node
again (w2 killed, and declared dead by the head); throughput is samples over the judged span at the server
(first call sent to last call answered), so Ray's and the driver's start-up, the same on both, stay out of it.
The results are checked identical across the three runs.

    python benchmarks/bench_ray_cluster.py          # 360 samples (the demo x 4); prints, writes nothing
    python benchmarks/bench_ray_cluster.py --smoke  # 90 samples, 50 ms per call

Needs root (network namespaces) and Ray; benchmarks/goals_cluster.py makes the goal row of it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO / "tests"))

from support.fault_server import CountingServer  # noqa: E402
from support.netns_cluster import NetnsCluster, Unavailable  # noqa: E402

DEMO = REPO / "datasets" / "demo" / "demo.jsonl"
ACTORS, CONCURRENCY, CPUS = 4, 4, 2

__all__ = ["Unavailable", "measure"]


def _data(path: Path, copies: int) -> int:
    rows = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines()]
    with open(path, "w", encoding="utf-8") as out:
        for c in range(copies):
            for r in rows:
                out.write(json.dumps({**r, "id": f"{r['id']}c{c}"}) + "\n")
    return len(rows) * copies


def _digest(results: Path) -> str:
    """Values and statuses of every sample, in order (judge usage and transcripts left out)."""
    h = hashlib.sha256()
    for line in results.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        h.update(json.dumps([row["id"], row.get("system"), {k: (m.get("value"), m.get("status"))
                                                           for k, m in row["metrics"].items()}]).encode())
    return h.hexdigest()[:12]


def _one(cluster: NetnsCluster, server: CountingServer, data: Path, out: Path, n: int, workers: int) -> dict:
    server.reset_counts()
    server.times.clear()
    cmd = [sys.executable, "-m", "genevals", "run", str(data), "--metrics", "faithfulness", "--out", str(out),
           "-q", "--no-history", "--engine", "ray", "--ray-address", cluster.address,
           "--ray-judge-actors", str(ACTORS), "--judge-backend", "openai", "--judge-base-url", server.base_url,
           "--judge-model", "test", "--judge-concurrency", str(CONCURRENCY), "--no-judge-cache"]
    env = {**cluster.env(), "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "dummy",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    cluster.run(cmd, env=env, timeout=600)
    wall = time.perf_counter() - start
    sent = sorted(t for times in server.times.values() for t in times)[1:]  # the first is the driver's preflight
    span = sent[-1] - sent[0] + server.latency
    return {"workers": workers, "samples": n, "wall_s": wall, "span_s": span, "per_s": n / span,
            "requests": server.total, "peak": server.max_in_flight, "digest": _digest(out / "results.jsonl"),
            "load": os.getloadavg()[0]}


def measure(smoke: bool, log=print) -> dict:
    """One node, two nodes, one node again; raises :class:`Unavailable` where namespaces cannot be made."""
    copies, latency = (1, 0.05) if smoke else (4, 0.2)
    with tempfile.TemporaryDirectory(prefix="genevals-cluster-") as tmp_name:
        tmp = Path(tmp_name)
        n = _data(tmp / "data.jsonl", copies)
        with NetnsCluster(tmp, workers=2, cpus=CPUS, up=1) as cluster, \
                CountingServer(latency=latency, host=cluster.host) as server:
            runs = [_one(cluster, server, tmp / "data.jsonl", tmp / "one", n, 1)]
            log(f"  1 worker node: {runs[-1]}")
            cluster.join("w2")
            runs.append(_one(cluster, server, tmp / "data.jsonl", tmp / "two", n, 2))
            log(f"  2 worker nodes: {runs[-1]}")
            cluster.kill("w2")
            cluster.wait_nodes(2, 60, exact=True)
            runs.append(_one(cluster, server, tmp / "data.jsonl", tmp / "again", n, 1))
            log(f"  1 worker node again: {runs[-1]}")
    assert len({r["digest"] for r in runs}) == 1, "results differ between the runs"
    one = [r for r in runs if r["workers"] == 1]
    one_per_s = sum(r["per_s"] for r in one) / len(one)
    return {"ratio": runs[1]["per_s"] / one_per_s, "runs": runs, "latency": latency, "samples": n,
            "one_per_s": one_per_s, "load": max(r["load"] for r in runs)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    args = parser.parse_args()
    try:
        got = measure(args.smoke)
    except Unavailable as exc:
        raise SystemExit(f"cannot build a cluster of network namespaces here: {exc}") from None
    print(json.dumps(got, indent=1))


if __name__ == "__main__":
    main()
