"""``genevals watch`` under a stream of OTLP/HTTP traces: spans accepted per second, the delay from a trace's
end to its decision (``scored``: its window done), and the watcher's memory (VmRSS) over the stream.

    PYTHONPATH=. python benchmarks/bench_watch.py --spans 200000 --senders 2 --sample 0.1

Each request is a protobuf ExportTraceServiceRequest of --batch traces (an OpenInference CHAIN root and a
RETRIEVER child each: 2 spans a trace), sent over a kept-alive connection by --senders processes. The watcher
scores token_f1 in windows of --window; the senders share the machine's cores with it (say so with the numbers).
Prints one JSON object.
"""
from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.watch_traces import request, spans  # noqa: E402


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _sender(port: int, first: int, batches: int, batch: int, stride: int, sent_at, accepted) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for b in range(batches):
        base = first + b * stride
        ids = [format(base + i, "032x") for i in range(batch)]
        ids = [t if t[:16].strip("0") else "1" + t[1:] for t in ids]  # no all-zero span id halves
        body = request([s for t in ids for s in spans(t, answer=f"answer {t[-6:]}")]).SerializeToString()
        while True:
            conn.request("POST", "/v1/traces", body, {"Content-Type": "application/x-protobuf"})
            reply = conn.getresponse()
            reply.read()
            if reply.status == 200:
                with accepted.get_lock():
                    accepted.value += 2 * batch
                break
            time.sleep(float(reply.getheader("Retry-After") or 1))
        now = time.time()
        for t in ids:
            sent_at.put((t, now)) if int(t[-4:], 16) % 50 == 0 else None  # a sample of send times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spans", type=int, default=100_000)
    parser.add_argument("--senders", type=int, default=2)
    parser.add_argument("--batch", type=int, default=50, help="traces a request")
    parser.add_argument("--sample", type=float, default=0.1)
    parser.add_argument("--window", default="2s")
    parser.add_argument("--grace", default="0.5s")
    args = parser.parse_args()
    out = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    watch = subprocess.Popen([sys.executable, "-m", "genevals", "watch", "--out", str(out), "-m", "token_f1",
                              "--otlp-port", "0", "--sample", str(args.sample), "--window", args.window, "--grace",
                              args.grace, "--queue-limit", "5000000"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    while not (out / "watch.json").exists():
        time.sleep(0.05)
    port = json.loads((out / "watch.json").read_text())["port"]
    traces = args.spans // 2
    batches = traces // args.batch // args.senders
    sent_at = multiprocessing.Queue()
    accepted = multiprocessing.Value("q", 0)
    rss: list[tuple[int, int]] = []  # (spans accepted, VmRSS KiB)
    start = time.monotonic()
    workers = [multiprocessing.Process(target=_sender, args=(port, (i + 1) << 64, batches, args.batch,
                                                             args.batch, sent_at, accepted)) for i in range(args.senders)]
    for w in workers:
        w.start()
    times = {}
    while any(w.is_alive() for w in workers):
        rss.append((accepted.value, _rss_kib(watch.pid)))
        while not sent_at.empty():
            t, at = sent_at.get()
            times[t] = at
        time.sleep(0.25)
    elapsed = time.monotonic() - start
    while not sent_at.empty():
        t, at = sent_at.get()
        times[t] = at
    total_spans = batches * args.batch * args.senders * 2
    time.sleep(5)  # the last windows close (--window) and are scored
    rss.append((accepted.value, _rss_kib(watch.pid)))
    watch.terminate()
    watch.wait(timeout=300)
    from datetime import datetime

    delays = []
    for line in (out / "decisions.jsonl").read_text().splitlines():
        d = json.loads(line)
        if d["decision"] == "scored" and d["trace_id"] in times:
            decided = datetime.fromisoformat(d["time"].replace("Z", "+00:00")).timestamp()
            delays.append(decided - times[d["trace_id"]])
    # the first 10,000 spans' memory: the first reading at or past them (the engine is imported by the first
    # window, which closes after --window: the readings before it are the receiver's alone)
    early = next((kib for n, kib in rss if n >= 10_000), rss[-1][1])
    print(json.dumps({
        "spans": total_spans, "seconds": round(elapsed, 2), "spans_per_s": round(total_spans / elapsed),
        "senders": args.senders, "batch_traces": args.batch, "sample": args.sample, "window": args.window,
        "grace": args.grace, "delay_s_median": round(statistics.median(delays), 2) if delays else None,
        "delay_s_p95": round(sorted(delays)[int(0.95 * (len(delays) - 1))], 2) if delays else None,
        "delays_measured": len(delays), "rss_mib_at_10k_spans": round(early / 1024, 1),
        "rss_mib_at": {f"{mark:,}": round(next((k for n, k in rss if n >= mark), rss[-1][1]) / 1024, 1)
                       for mark in (100_000, 250_000, 500_000, 750_000) if mark < total_spans},
        "rss_mib_max": round(max(k for _, k in rss) / 1024, 1), "rss_mib_last": round(rss[-1][1] / 1024, 1),
        "queue_mib": round((out / "queue.sqlite").stat().st_size / 2 ** 20, 1),
        "load_average": os.getloadavg(), "cpus": os.cpu_count(), "out": str(out)}))


if __name__ == "__main__":
    main()
