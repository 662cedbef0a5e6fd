"""The machine a benchmark ran on, and where the results go: shared by ``run.py`` and ``goals.py``."""
from __future__ import annotations

import os
import platform
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
LIBS = ("genevals", "rouge-score", "sacrebleu", "rapidfuzz", "nltk", "pytrec_eval-terrier", "bert-score", "torch",
        "transformers", "openai")


def machine() -> dict[str, str]:
    from importlib import metadata

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "not installed"

    def first(path: str, prefix: str) -> str:
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(prefix):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "unknown"

    mem = first("/proc/meminfo", "MemTotal")
    mem_gb = f"{int(mem.split()[0]) / 1024 ** 2:.1f} GB" if mem != "unknown" else mem
    return {"nproc": str(len(os.sched_getaffinity(0))), "cpu": first("/proc/cpuinfo", "model name"),
            "memory": mem_gb, "python": platform.python_version(),
            "libs": ", ".join(f"{d} {version(d)}" for d in LIBS),
            "load": " ".join(f"{x:.2f}" for x in os.getloadavg())}
