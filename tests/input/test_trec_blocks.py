"""A TREC run read a block of topics at a time (genevals.input.trec_blocks): the same ranked columns as the whole
read, whatever the block size (a topic cut between two of pyarrow's batches included); a file whose topics are not
together is Unsorted; anything the line reader reads differently is NotClean, also past the first block."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from genevals.input.trec_blocks import NotClean, Unsorted, run_blocks
from genevals.input.trec_check import _pairs
from genevals.input.trec_columns import _hashes, _repeats, judgements, read_qrels_columns, read_run_columns


def collection(folder: Path, topics: int = 60, depth: int = 800, seed: int = 5) -> tuple[Path, Path]:
    """Over 1 MB of run (pyarrow reads it in 1 MB batches), in rank order as systems write it, with ties."""
    rng = np.random.default_rng(seed)
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    with open(qrels, "w") as q, open(run, "w") as r:
        for t in rng.permutation(topics):
            docs = rng.choice(100_000, size=depth, replace=False)
            scores = -np.sort(-np.round(rng.normal(size=depth), 2))
            if t % 7:  # some topics have no judgements
                pool = np.concatenate([rng.choice(docs, 6, replace=False), rng.choice(100_000, 6)])
                q.write("".join(f"topic-{t} 0 doc{d} {g}\n" for d, g in zip(pool, rng.integers(0, 4, 12))))
            r.write("".join(f"topic-{t} Q0 doc{d} {i + 1} {float(s)!r} bm25\n"
                            for i, (d, s) in enumerate(zip(docs, scores))))
    assert run.stat().st_size > 1 << 20
    return qrels, run


def flat(blocks) -> dict:
    """Per topic: its ranked docs, scores, grades, judged flags, first line and labels."""
    out = {}
    for b in blocks:
        docs = b.docs.to_pylist()
        for t, name in enumerate(b.topics):
            lo, hi = int(b.starts[t]), int(b.starts[t + 1])
            labels = b.labels[t]
            out[name] = (docs[lo:hi], b.scores[lo:hi].tolist(), b.grades[lo:hi].tolist(), b.judged[lo:hi].tolist(),
                         int(b.first_line[t]), None if labels is None else (labels[0], labels[1].tolist()))
    return out


@pytest.mark.parametrize("rows", [1, 999, 5_000, 1 << 16])
def test_blocks_give_the_whole_read(tmp_path: Path, rows: int) -> None:
    qrels, run = collection(tmp_path)
    judged_by = judgements(read_qrels_columns(qrels))
    whole = read_run_columns(run, judged_by)
    blocks = list(run_blocks(run, judged_by, rows))
    assert len(blocks) > 1 or rows == 1 << 16
    assert [t for b in blocks for t in b.topics] == whole.topics  # file order
    assert flat(blocks) == flat([whole])


def test_topics_not_together_are_unsorted(tmp_path: Path) -> None:
    qrels, run = collection(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    moved = tmp_path / "moved.txt"
    moved.write_text("".join(lines[1:] + lines[:1]))  # the first topic's first line comes last
    with pytest.raises(Unsorted):
        list(run_blocks(moved, judgements(read_qrels_columns(qrels)), 5_000))


@pytest.mark.parametrize("bad", ["topic-x Q0 d1 1 nan bm25\n", "topic-x Q0 d1 1 x bm25\n", "\n",
                                 "topic-x Q0 d1 1 1 bm25\ntopic-x Q0 d1 2 0.5 bm25\n"])
def test_a_bad_line_past_the_first_block_is_not_clean(tmp_path: Path, bad: str) -> None:
    qrels, run = collection(tmp_path)
    broken = tmp_path / "broken.txt"
    broken.write_text(run.read_text() + bad)
    with pytest.raises(NotClean):
        list(run_blocks(broken, judgements(read_qrels_columns(qrels)), 5_000))


def test_repeats_are_found_by_hash_and_confirmed_as_strings() -> None:
    import pyarrow as pa

    docs = pa.array(["a", "b", "a", "", "ab", "ba", "", "a" * 300])
    assert not _repeats(np.array([0, 0, 1, 1, 1, 1, 2, 2]), docs)
    assert _repeats(np.array([0, 0, 0, 1, 1, 1, 2, 2]), docs)  # "a" twice for topic 0
    assert _repeats(np.array([0, 0, 1, 1, 1, 1, 1, 2]), docs)  # "" twice for topic 1
    assert len(set(_hashes(pa.array([f"d{i}" for i in range(5_000)])).tolist())) == 5_000


def test_pairs_find_blank_and_comment_lines_and_spaces_to_tidy() -> None:
    assert _pairs(b"a b\nc d\n", True) is False
    assert _pairs(b"a b\n\nc d\n", True) is None
    assert _pairs(b"a b\n#c d\n", True) is None
    for spaced in (b"a  b\n", b"a b \nc\n", b"a b\n c\n"):
        assert _pairs(spaced, True) is True
    assert _pairs(b"a  b\n", False) is False


@pytest.mark.parametrize("odd", ["\n", "\t", "  "])
def test_the_file_check_beside_the_reading_still_decides(tmp_path: Path, odd: str) -> None:
    """The check runs in a thread beside the parsing: a blank line in the middle (which pyarrow would skip) is
    still NotClean, and a tab or a double space in the middle still sends the file to be read whole and tidied
    (Tidy, an Unsorted), after the blocks before it were parsed."""
    from genevals.input.trec_blocks import Tidy

    qrels, run = collection(tmp_path)
    lines = run.read_text().splitlines(keepends=True)
    middle = len(lines) // 2
    changed = tmp_path / "changed.txt"
    if odd == "\n":
        changed.write_text("".join(lines[:middle] + ["\n"] + lines[middle:]))
    else:
        changed.write_text("".join(lines[:middle] + [lines[middle].replace(" ", odd, 1)] + lines[middle + 1:]))
    judged_by = judgements(read_qrels_columns(qrels))
    with pytest.raises(NotClean if odd == "\n" else Tidy):
        list(run_blocks(changed, judged_by, 5_000))
    if odd != "\n":  # read whole, it gives the clean file's ranking
        assert flat([read_run_columns(changed, judged_by)]) == flat([read_run_columns(run, judged_by)])


def test_a_fifo_is_refused_before_any_reading(tmp_path: Path) -> None:
    import os

    from genevals.input.rows import InputError

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 1\n")
    os.mkfifo(tmp_path / "fifo.txt")
    with pytest.raises(InputError, match="named pipe"):
        list(run_blocks(tmp_path / "fifo.txt", judgements(read_qrels_columns(qrels))))
