"""The goal row of issue #28's Ray across nodes, for ``benchmarks/run.py --goals`` (``--only cluster``): judge-bound
throughput of ``genevals run --engine ray --ray-address`` with two worker nodes over one (bench_ray_cluster.py)."""
from __future__ import annotations

GOAL = 1.7


def rows(smoke: bool, log) -> list[dict]:
    import bench_ray_cluster

    def name(ms: int) -> str:
        return ("Ray across nodes: judged `genevals run --engine ray --ray-address`, 2 worker nodes vs 1 (network "
                f"namespaces, 2 CPUs and 2 of the 4 judge actors per node, 4 calls each, {ms} ms per call; "
                "`benchmarks/bench_ray_cluster.py`)")
    try:
        got = bench_ray_cluster.measure(smoke, log)
    except bench_ray_cluster.Unavailable as exc:
        row = {"name": name(200), "goal": f">= {GOAL}x", "met": False, "load": 0.0, "shown": f"not measured: {exc}"}
        log(f"  {row['name']}: {row['shown']}")
        return [row]
    one, two, again = got["runs"]
    shown = (f"{got['ratio']:.2f}x ({got['samples']} samples: {two['per_s']:.1f}/s on 2 nodes, {one['per_s']:.1f} "
             f"and {again['per_s']:.1f}/s on 1 before and after; judged span {two['span_s']:.1f} s vs "
             f"{one['span_s']:.1f} s, whole command {two['wall_s']:.1f} s vs {one['wall_s']:.1f} s; at most "
             f"{two['peak']} vs {one['peak']} calls in flight at the server; results identical)")
    row = {"name": name(round(got["latency"] * 1000)), "goal": f">= {GOAL}x", "met": got["ratio"] >= GOAL, "ratio": got["ratio"],
           "load": got["load"], "shown": shown}
    log(f"  {row['name']}: {shown} (load {row['load']:.2f})")
    return [row]
