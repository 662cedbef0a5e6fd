"""numpy <-> pyarrow through buffers (genevals.input.arrow_numpy): the same values as pyarrow's own conversions,
nulls and slices included, and a columnar TREC run (a real process) that never imports pandas."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from genevals.input.arrow_numpy import booleans, from_numpy, nonzero, repeated, to_numpy

ROOT = Path(__file__).resolve().parents[2]


def test_round_trips_and_slices() -> None:
    for values in (np.arange(10, dtype=np.int64), np.linspace(-1, 1, 7), np.arange(5, dtype=np.int32),
                   np.arange(4, dtype=np.uint64)):
        array = from_numpy(values)
        assert array.to_pylist() == values.tolist()
        assert to_numpy(array).tolist() == values.tolist()
        assert to_numpy(array.slice(2, 3)).tolist() == values[2:5].tolist()
    chunked = pa.chunked_array([pa.array([1.5, 2.5]), pa.array([3.5])])
    assert to_numpy(chunked).tolist() == [1.5, 2.5, 3.5]


def test_nulls_become_the_value_given() -> None:
    found = pc.index_in(pa.array(["a", "x", "b", "y", "a"]), value_set=pa.array(["a", "b"]))
    assert to_numpy(found, null=-1).tolist() == [0, -1, 1, -1, 0]
    assert to_numpy(found.slice(1, 3), null=-1).tolist() == [-1, 1, -1]


def test_booleans_repeated_and_nonzero() -> None:
    mask = np.array([True, False, True, True, False, False, False, False, True])
    assert booleans(mask).to_pylist() == mask.tolist()
    assert nonzero(booleans(mask)).tolist() == np.flatnonzero(mask).tolist()
    assert repeated("é,", 3).to_pylist() == ["é,"] * 3 and repeated("", 0).to_pylist() == []


def test_a_columnar_run_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas on its first numpy or Python-value conversion (0.1-1 s): none happens here."""
    (tmp_path / "qrels.txt").write_text("".join(f"q{t} 0 d{d} {d % 3}\n" for t in range(30) for d in range(5)))
    (tmp_path / "run.txt").write_text("".join(f"q{t} Q0 d{d} {d + 1} {50 - d}.5 sys\n"
                                              for t in range(30) for d in range(40)))
    probe = ("import sys; from genevals.cli import main; code = main(sys.argv[1:]); "
             "print('pandas' in sys.modules); sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", probe, "run", "--qrels", "qrels.txt", "--run", "run.txt",
                           "--no-history", "-q", "-o", "out"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
    assert "contexts_kept" in (tmp_path / "out" / "summary.json").read_text()
