"""LLM-judge throughput: faithfulness against a local OpenAI-compatible server that adds latency per call.

The server is the test suite's FaultServer (``tests/support/fault_server.py``: an honest rule-based judge that counts
every request) with a fixed sleep before each reply, so the figures show what genevals' client does with
latency (concurrency, request count, tokens), not how fast a model is. Samples are the demo set
(``datasets/demo/demo.jsonl``) cycled with distinct ids; the judge cache is off, so every run calls the server.

    python benchmarks/bench_judge.py                       # 128 samples, concurrency 1, 8, 32, 200 ms per call
    python benchmarks/bench_judge.py --smoke               # 8 samples, concurrency 1 and 8, prints only
    python benchmarks/bench_judge.py --samples 200 --concurrency 1,8,32 --latency 0.2 --write

``--write`` replaces the "## Judge throughput" section of RESULTS.md (``benchmarks/run.py`` does too).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from support.fault_server import FaultServer  # noqa: E402

DEMO = REPO / "datasets" / "demo" / "demo.jsonl"
SECTION = "## Judge throughput"


class LatencyServer(FaultServer):
    """FaultServer that sleeps ``latency_seconds`` before answering each request (like a remote model would).

    The listen backlog is raised from socketserver's default of 5: with 32 clients connecting at once the
    kernel would otherwise drop connection attempts and the client would wait ~1 s for the SYN retry, which
    measures the test server, not genevals. It speaks HTTP/1.1 with keep-alive, as OpenAI, vLLM and llama.cpp's
    server do (with Nagle's algorithm off, as they have it): the test server's HTTP/1.0 closes every
    connection, so each call would also pay a new TCP connection on both sides.
    """

    def __init__(self, latency_seconds: float = 0.2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.latency_seconds = latency_seconds
        self.httpd.socket.listen(256)
        self.httpd.RequestHandlerClass.protocol_version = "HTTP/1.1"
        # the handler writes its headers and its body separately: without TCP_NODELAY, Nagle's algorithm would
        # hold the body for the client's delayed ACK (~40 ms a reply on a kept-alive connection)
        self.httpd.RequestHandlerClass.disable_nagle_algorithm = True

    def _handle(self, h, body):
        time.sleep(self.latency_seconds)
        return super()._handle(h, body)


def demo_rows(n: int) -> list[dict]:
    """n rows: the demo set cycled, each copy with its own id (ids stay unique per system)."""
    base = [json.loads(line) for line in DEMO.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = []
    for i in range(n):
        row = dict(base[i % len(base)])
        row["id"] = f"{row['id']}-{i // len(base)}"
        rows.append(row)
    return rows


def child(base_url: str, n: int, concurrency: int, chunk_size: int | None) -> dict:
    """Runs in a fresh process (so the server's threads do not share its GIL): one evaluate() with the cache off.

    What genevals and openai import lazily on the first call (~0.5 s here) is imported before the clock starts,
    as for the other benchmarks: the clock times the calls, not module loading."""
    import resource

    import openai  # noqa: F401

    import genevals

    rows = demo_rows(n)
    judge = genevals.JudgeConfig(backend="openai", base_url=base_url, model="bench-judge", api_key="dummy",
                                 cache=False, concurrency=concurrency)
    # a dry run (no call) and a throwaway client load those modules; nothing else is kept
    genevals.evaluate(rows[:2], ["faithfulness"], judge=judge.with_options(dry_run=True))
    openai.AsyncOpenAI(api_key="dummy", base_url=base_url)
    start = time.perf_counter()
    kwargs = {"chunk_size": chunk_size} if chunk_size else {}
    results = genevals.evaluate(rows, ["faithfulness"], judge=judge, **kwargs)
    wall = time.perf_counter() - start
    usage = {"requests": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_requests": 0}
    statuses: dict[str, int] = {}
    judged = 0
    for r in results:
        f = r.metrics["faithfulness"]
        statuses[f.status] = statuses.get(f.status, 0) + 1
        got = f.details.get("usage") or {}
        judged += bool(got.get("requests"))
        for key in usage:
            usage[key] += int(got.get(key) or 0)
    return {"wall_s": wall, "usage": usage, "statuses": statuses, "judged": judged,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def measure(server: LatencyServer, n: int, concurrency: int, chunk_size: int | None = None) -> dict:
    """One run in a subprocess; requests counted on the server, tokens from the results' usage."""
    import subprocess

    server.reset_counts()
    load = os.getloadavg()[0]
    done = subprocess.run([sys.executable, __file__, "--child", server.base_url, str(n), str(concurrency),
                           str(chunk_size or 0)],
                          capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        raise SystemExit(f"judge benchmark child failed:\n{done.stderr[-3000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    usage, wall = got["usage"], got["wall_s"]
    return {"concurrency": concurrency, "chunk_size": chunk_size, "samples": n, "judged": got["judged"], "wall_s": wall,
            "samples_per_s": n / wall, "server_requests": server.total, "client_requests": usage["requests"],
            "cached_requests": usage["cached_requests"], "peak_mb": got["peak_mb"],
            "requests_per_sample": server.total / n, "requests_per_judged": server.total / max(got["judged"], 1),
            "prompt_tokens_per_sample": usage["prompt_tokens"] / n,
            "completion_tokens_per_sample": usage["completion_tokens"] / n,
            "floor_s": max(server.total * server.latency_seconds / concurrency, 2 * server.latency_seconds),
            "statuses": got["statuses"], "load": max(load, os.getloadavg()[0])}


def parse_configs(text: str) -> list[tuple[int, int | None]]:
    """"1,8,32,32:256" -> [(1, None), (8, None), (32, None), (32, 256)]: concurrency[:chunk_size]."""
    out = []
    for part in text.split(","):
        c, _, chunk = part.strip().partition(":")
        out.append((int(c), int(chunk) if chunk else None))
    return out


def run(samples: int, configs: list[tuple[int, int | None]], latency: float) -> list[dict]:
    figures = []
    with LatencyServer(latency_seconds=latency) as server:
        for c, chunk in configs:
            figures.append(measure(server, samples, c, chunk))
    return figures


def render(figures: list[dict], latency: float, machine: str = "") -> str:
    f0 = figures[0]
    lines = [
        SECTION, "",
        f"`python benchmarks/bench_judge.py` (also run by `benchmarks/run.py`): `faithfulness` on {f0['samples']} "
        f"samples (the 90-row demo set cycled with distinct ids; {f0['judged']} reach the judge, the rest are "
        f"refusals detected before any call), against tests/support/fault_server.py's rule-based OpenAI-compatible judge "
        f"with {latency * 1000:.0f} ms of sleep added before every reply, judge cache off. Each concurrency runs `genevals.evaluate` in a fresh "
        "subprocess (wall time excludes imports; peak RSS is its `ru_maxrss`); the server runs in the parent "
        "process. Requests are counted on the server; tokens are the server's usage figures (characters / 4) "
        "as genevals records them.", "",
        "| concurrency | wall s | samples/s | requests/sample | requests/judged answer | prompt tokens/sample "
        "| completion tokens/sample | floor s | peak RSS MB | load avg |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for f in figures:
        chunk = f" (chunk_size={f['chunk_size']})" if f.get("chunk_size") else ""
        lines.append(f"| {f['concurrency']}{chunk} | {f['wall_s']:.1f} | {f['samples_per_s']:.1f} | "
                     f"{f['requests_per_sample']:.2f} | {f['requests_per_judged']:.2f} | "
                     f"{f['prompt_tokens_per_sample']:.0f} | {f['completion_tokens_per_sample']:.0f} | "
                     f"{f['floor_s']:.1f} | {f['peak_mb']:.0f} | {f['load']:.2f} |")
    serial = next((f for f in figures if f["concurrency"] == 1), None)
    overhead = "" if serial is None else (
        f" At concurrency 1 each call took {serial['wall_s'] / serial['server_requests'] * 1000:.0f} ms of wall "
        f"time against {latency * 1000:.0f} ms of server sleep: the rest is the client (HTTP, JSON parsing, "
        "prompts, claim location) and the server's own handling on this shared machine. The server speaks HTTP/1.1 "
        "with keep-alive, as OpenAI, vLLM and llama.cpp's server do.")
    lines += ["", "Each judged answer costs 2 calls (decompose, then verify all its claims in one call); the two "
              "are sequential per answer, so wall time cannot drop below 2 x latency even with unlimited "
              "concurrency; floor = max(requests x latency / concurrency, 2 x latency). The runner "
              "slides a window over the samples (up to 2 x concurrency answers in flight; a new one starts "
              "whenever one finishes, and each is written the moment it is done), so no answer waits for the "
              "slowest of a batch; a `chunk_size` row only sets how many samples the other metrics score at "
              "once." + overhead + " Statuses: " + ", ".join(f"{k} {v}" for k, v in sorted(f0["statuses"].items()))
              + "." + (f" {machine}" if machine else ""), ""]
    return "\n".join(lines)


def write_section(results_md: Path, section: str, text: str) -> None:
    """Replace one '## ' section of RESULTS.md (up to the next '## ' heading), or append it; nothing else."""
    import re

    old = results_md.read_text(encoding="utf-8") if results_md.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^{re.escape(section)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(old):
        new = pattern.sub(lambda _: text.rstrip("\n") + "\n\n", old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + text
    results_md.write_text(new.rstrip("\n") + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--concurrency", default="1,8,32,32:256",
                        help="concurrency[:chunk_size] list; chunk_size defaults to the runner's")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds added to every reply")
    parser.add_argument("--smoke", action="store_true", help="8 samples at concurrency 1 and 8; writes nothing")
    parser.add_argument("--write", action="store_true", help="replace the section in RESULTS.md")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        base_url, n, concurrency, chunk = args.child
        print(json.dumps(child(base_url, int(n), int(concurrency), int(chunk) or None)))
        return
    if args.smoke:
        args.samples, args.concurrency = 8, "1,8"
    figures = run(args.samples, parse_configs(args.concurrency), args.latency)
    text = render(figures, args.latency, "Load average at the end: " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + ".")
    print(text)
    if args.write and not args.smoke:
        write_section(Path(__file__).resolve().parent / "RESULTS.md", SECTION, text)


if __name__ == "__main__":
    main()
