"""What the ``genevals label`` tests share: the command in a real process, and a small TREC example made from the
demo collection (runs, topics and documents)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "datasets" / "demo"


def genevals(*args, cache=None):
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if cache is not None:
        env["GENEVALS_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=env)


def demo_trec(folder: Path, topics: int = 3) -> dict[str, Path]:
    """The demo's dense and sparse systems as TREC runs over its first ``topics`` questions, with the questions as
    topics.tsv and the chunk collection as docs.jsonl."""
    rows = [json.loads(line) for line in (DEMO / "demo.jsonl").read_text().splitlines()]
    keep = sorted({r["id"] for r in rows})[:topics]
    paths = {"topics": folder / "topics.tsv", "docs": folder / "docs.jsonl"}
    paths["topics"].write_text("".join(f"{r['id']}\t{r['question']}\n" for r in rows
                                       if r["system"] == "dense" and r["id"] in keep))
    paths["docs"].write_text((DEMO / "collection.jsonl").read_text())
    for system in ("dense", "sparse"):
        paths[system] = folder / f"{system}.trec"
        paths[system].write_text("".join(
            f"{r['id']} Q0 {c['id']} {i} {c['score']} {system}\n" for r in rows if r["system"] == system
            and r["id"] in keep for i, c in enumerate(r["contexts"], start=1)))
    return paths
