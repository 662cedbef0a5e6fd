"""``genevals`` as a real process, for the command-line tests, and the JSONL files they hand it."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def genevals(*args: Any) -> subprocess.CompletedProcess:
    """``python -m genevals ARGS`` (paths and numbers as text), its output captured; the caller checks the code."""
    return subprocess.run([sys.executable, "-m", "genevals", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """One JSON object a line; returns ``path``."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


#: a ``python -c`` program: the command line (argv as JSON in sys.argv[1]) in a fresh process, then the exit code
#: and the names of every module it imported (``python -X importtime`` would miss those the registry imports
#: through importlib.import_module)
IMPORTS_PROBE = """
import json, runpy, sys
sys.argv = ["genevals", *json.loads(sys.argv[1])]
try:
    runpy.run_module("genevals", run_name="__main__")
except SystemExit as exc:
    code = exc.code
print(json.dumps({"exit": code, "modules": sorted(sys.modules)}))
"""
