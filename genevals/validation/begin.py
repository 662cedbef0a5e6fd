"""BEGIN's human attribution labels as ``genevals validate`` input (Dziri et al. 2022, "Evaluating Groundedness
in Dialogue Systems: The BEGIN Benchmark", TACL).

A BEGIN file is tab-separated with the header ``model_name data_source knowledge message response begin_label``.
Each row is read as a conversation of one exchange: ``message`` (the dialogue's previous turn) is the user turn,
``response`` the assistant turn answering it, ``knowledge`` the context that turn should be grounded in. It goes
through :func:`genevals.conversations.model.per_turn`, as a ``turns`` row of ``genevals run`` would, so the judge
sees exactly the sample a run makes of the same conversation.

The label: ``Fully attributable`` is attributable (not hallucinated), ``Not fully attributable`` is not.
``Generic`` responses ("that sounds fun!") make no claim about the knowledge at all; BEGIN keeps them as a class
of their own and so does the card: they are left out of the main figures and reported beside them (what the
judge makes of them, and the figures with them counted as not attributable, which is how a binary attribution
metric that must say "yes" or "no" has to treat them).
"""
from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path
from typing import Any, Mapping

from genevals.conversations.model import Message, per_turn
from genevals.files import refusal
from genevals.suggest import did_you_mean
from genevals.types import Context, Sample
from genevals.validation.labels import LabelledInputError

HEADER = ("model_name", "data_source", "knowledge", "message", "response", "begin_label")
#: BEGIN's label -> attributable (True), not attributable (False), or generic (None)
LABELS = {"Fully attributable": True, "Not fully attributable": False, "Generic": None}
#: a single field's size at most (csv's own limit is 128 KiB; a snippet of knowledge is a paragraph)
FIELD_LIMIT = 1 << 20


def files(path: str | Path) -> list[Path]:
    """The BEGIN files ``path`` names: itself, or a folder's ``*.tsv`` files that are BEGIN files (BEGIN's
    development split is one file per dialogue set); [] when it names none."""
    path = Path(path)
    if path.is_dir():
        return sorted(p for p in path.glob("*.tsv") if is_begin(p))
    # a .tsv file named on its own is read as BEGIN's even when its header is wrong: refused naming the column
    # (with did-you-mean), not read as JSONL with every line "malformed JSON"
    return [path] if is_begin(path, any_header=path.suffix.lower() == ".tsv") else []


def is_begin(path: str | Path, any_header: bool = False) -> bool:
    """Whether ``path`` is a BEGIN file: a tab-separated first line naming ``begin_label`` (``any_header``: any
    tab-separated first line)."""
    if Path(path).is_dir() or (Path(path).exists() and refusal(Path(path)) is not None):
        return False
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = fh.readline(4096)
    except OSError:
        return False
    return "\t" in first and (any_header or "begin_label" in first.rstrip("\r\n").split("\t"))


def _header(columns: list[str], where: str) -> dict[str, int]:
    missing = [name for name in HEADER if name not in columns]
    if missing:
        hint = "".join(did_you_mean(name, [c for c in columns if c not in HEADER]) for name in missing[:1])
        raise LabelledInputError(f"{where}: missing column(s) {', '.join(missing)} (a BEGIN file has "
                                 f"{', '.join(HEADER)}){hint}")
    return {name: columns.index(name) for name in HEADER}


def load_begin(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """The rows of a BEGIN file, each ``{id, group, model, source, knowledge, message, response, label,
    attributable, _origin}``; every bad row is named with its line and field (a LabelledInputError)."""
    path = Path(path)
    if path.exists() and (problem := refusal(path)) is not None:  # a pipe or a device: a hang, no end
        raise LabelledInputError(f"{path}: {problem}")
    csv.field_size_limit(FIELD_LIMIT)
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    text = _text(path)
    reader = None
    try:
        # one pass over the decoded text, so that a csv.Error is named with its line;
        # QUOTE_NONE: BEGIN's texts hold unbalanced quotes ("that's "great), never quoted fields
        reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t", quoting=csv.QUOTE_NONE)
        columns = next(reader, None)
        if columns is None:
            raise LabelledInputError(f"{path.name}:1: empty file (expected the header {' '.join(HEADER)})")
        at = _header(columns, f"{path.name}:1")
        for cells in reader:
            lineno = reader.line_num
            where = f"{path.name}:{lineno}"
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(columns):
                errors.append(f"{where}: expected {len(columns)} tab-separated fields, got {len(cells)}")
                continue
            row = {name: cells[i] for name, i in at.items()}
            problem = _problem(row)
            if problem:
                errors.append(f"{where}: {problem}")
                continue
            rows.append(_row(row, path.stem, lineno, where))
    except csv.Error as exc:  # a field past FIELD_LIMIT
        raise LabelledInputError(f"{path.name}:{reader.line_num if reader else 1}: cannot read: {exc}") from None
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise LabelledInputError(f"{len(errors)} bad row(s) in {path}:\n  {shown}")
    if not rows:  # said here, naming the file: one empty file of a folder would leave the folder's card silent on it
        raise LabelledInputError(f"{path.name}: no rows after the header (a BEGIN file has one labelled response "
                                 "per line)")
    return rows[:max(0, limit)] if limit is not None else rows


def _text(path: Path) -> str:
    """The file's text (a byte order mark, as Windows editors write it, left out); LabelledInputError naming the
    line of the first byte that is not UTF-8."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LabelledInputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise LabelledInputError(f"{path.name}:{line}: not UTF-8 (byte 0x{raw[exc.start]:02x}); save the file as "
                                 "UTF-8") from None


def _problem(row: Mapping[str, str]) -> str | None:
    label = row["begin_label"].strip()
    if label not in LABELS:
        return (f"field 'begin_label': expected one of {', '.join(LABELS)}, got {label!r}"
                f"{did_you_mean(label, LABELS)}")
    for name in ("knowledge", "response"):
        if not row[name].strip():
            return f"field '{name}': empty"
    return None


def _row(row: Mapping[str, str], stem: str, lineno: int, where: str) -> dict[str, Any]:
    source = row["data_source"].strip() or stem
    # several models answered the same turn from the same snippet: they are one cluster, never apart
    group = hashlib.blake2b(f"{source}\x00{row['knowledge'].strip()}".encode(), digest_size=8).hexdigest()
    label = row["begin_label"].strip()
    return {"id": f"{stem}:{lineno}", "group": group, "model": row["model_name"].strip(), "source": source,
            "knowledge": row["knowledge"], "message": row["message"], "response": row["response"],
            "label": label, "attributable": LABELS[label], "_origin": where}


def to_sample(row: Mapping[str, Any]) -> Sample:
    """The row as the one-exchange conversation ``user: message, assistant: response`` with the knowledge as the
    assistant turn's context, through the conversation reader's own per-turn step."""
    messages = [Message("user", row["message"], "message"),
                Message("assistant", row["response"], "response", {"contexts": [row["knowledge"]]})]
    (_, turn), = per_turn(row["id"], messages, budget=2_000)
    return Sample(id=turn["id"], answer=turn["answer"], question=turn["question"],
                  contexts=tuple(Context(text=t, rank=i + 1) for i, t in enumerate(turn["contexts"])),
                  system=row["model"] or "default", origin=row["_origin"], history=turn["history"].messages,
                  conversation_id=turn["conversation_id"], turn=turn["turn"])
