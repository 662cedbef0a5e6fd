"""A run reads its input file once and validates each row once (issue #24): the planning pass opens the file,
validates every row, digests the bytes it reads, and leaves the good samples in a spool for the scoring pass;
the worker processes and the scoring pass never go back to the file.

Counted in a real process: an audit hook counts every ``open`` of the input file (pyarrow is handed a Python
file object, so Parquet's opens are counted too), and ``RowValidator.__call__`` is wrapped to log each call, in
the worker processes as well (they are forked from the counting process)."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_COUNTING = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    input_path = os.path.realpath(sys.argv[1])
    log = sys.argv[2]
    opens = []

    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            try:
                if os.path.realpath(os.fsdecode(args[0])) == input_path:
                    opens.append(os.getpid())
            except (OSError, ValueError):
                pass

    sys.addaudithook(hook)
    from genevals.input.rows import RowValidator
    original = RowValidator.__call__

    def counted(self, row):
        with open(log, "a") as handle:
            handle.write("v\\n")
        return original(self, row)

    RowValidator.__call__ = counted
    from genevals.cli import main
    code = main(["run", sys.argv[1], "--out", sys.argv[3], "-m", "token_f1,rouge,retrieval", "-q",
                 *sys.argv[4:]])
    print(f"OPENS={len(opens)} CODE={code}")
""")


def _rows(n: int) -> list[dict]:
    return [{"id": f"q{i}", "answer": f"the ferry sails at {i % 12} o'clock", "references": ["it sails at noon"],
             "contexts": [{"id": f"c{i % 7}", "text": "sailings at noon"}], "relevant": {f"c{i % 5}": 1}}
            for i in range(n)]


def _write(path: Path, rows: list[dict]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, ["id", "answer", "references", "contexts", "relevant"])
            writer.writeheader()
            for r in rows:
                writer.writerow({k: v if isinstance(v, str) else json.dumps(v) for k, v in r.items()})
    else:
        import pandas as pd

        frame = pd.DataFrame([{**r, "references": r["references"], "contexts": r["contexts"],
                               "relevant": json.dumps(r["relevant"])} for r in rows])
        frame.to_parquet(path)
    return path


def _counted_run(tmp_path: Path, data: Path, *options: str, out: Path | None = None) -> tuple[int, int, Path]:
    log = tmp_path / f"validations-{len(list(tmp_path.glob('validations-*')))}.log"
    out = out or tmp_path / "out"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-c", _COUNTING, str(data), str(log), str(out), *options],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert "OPENS=" in proc.stdout, proc.stderr[-2000:]
    opens = int(proc.stdout.split("OPENS=")[1].split()[0])
    assert "CODE=0" in proc.stdout, proc.stderr[-2000:]
    validations = len(log.read_text().splitlines()) if log.exists() else 0
    return opens, validations, out


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_the_input_is_opened_once_and_each_row_validated_once(tmp_path, suffix):
    data = _write(tmp_path / f"in{suffix}", _rows(40))
    opens, validations, out = _counted_run(tmp_path, data)
    assert opens == 1 and validations == 40
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 40
    # the digest of the bytes the planning pass read is the file's own digest (what --resume compares)
    import hashlib

    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert hashlib.blake2b(data.read_bytes(), digest_size=16).hexdigest() in json.dumps(manifest)


def test_worker_processes_and_resume_read_nothing_again(tmp_path):
    data = _write(tmp_path / "in.jsonl", _rows(2500))
    opens, validations, out = _counted_run(tmp_path, data, "--workers", "2")
    assert opens == 1 and validations == 2500  # the workers score the planning pass's samples as they are
    assert len((out / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2500
    # a resumed run reads its input once more, in its own planning pass, and scores nothing again
    opens, validations, out = _counted_run(tmp_path, data, "--resume", "--workers", "2", out=out)
    assert opens == 1 and validations == 2500
    assert len((out / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 2500
