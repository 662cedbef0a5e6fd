"""Named setup steps a case may ask for (``Case.setup``): each gets the case's folder, its ``out/`` (a copy of
the previous good run) and its input path, after the case's files are written."""
from __future__ import annotations

import os
from pathlib import Path

from hostile.cases import GOOD_ROWS, jsonl, line


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")


def change_input(folder: Path, out: Path, inp: Path) -> None:
    inp.write_bytes(jsonl(*(line({**r, "answer": r["answer"] + " Changed."}) for r in GOOD_ROWS)))


def manifest_missing(folder: Path, out: Path, inp: Path) -> None:
    (out / "manifest.json").unlink()


def manifest_empty(folder: Path, out: Path, inp: Path) -> None:
    (out / "manifest.json").write_bytes(b"")


def manifest_garbage(folder: Path, out: Path, inp: Path) -> None:
    (out / "manifest.json").write_bytes(b'{"input": ')


def manifest_list(folder: Path, out: Path, inp: Path) -> None:
    (out / "manifest.json").write_text("[1, 2, 3]")


def manifest_folder(folder: Path, out: Path, inp: Path) -> None:
    (out / "manifest.json").unlink()
    (out / "manifest.json").mkdir()


def results_garbage_line(folder: Path, out: Path, inp: Path) -> None:
    lines = _lines(out / "results.jsonl")
    (out / "results.jsonl").write_bytes(b"\n".join(lines[:1] + [b"this is not JSON"] + lines[1:]))


def results_cut_last_line(folder: Path, out: Path, inp: Path) -> None:
    data = (out / "results.jsonl").read_bytes()
    (out / "results.jsonl").write_bytes(data[: len(data) - 40])


def results_folder(folder: Path, out: Path, inp: Path) -> None:
    (out / "results.jsonl").rename(out / "results.moved.jsonl")
    (out / "results.jsonl").mkdir()


def results_empty(folder: Path, out: Path, inp: Path) -> None:
    (out / "results.jsonl").write_bytes(b"")


def summary_garbage(folder: Path, out: Path, inp: Path) -> None:
    (out / "summary.json").write_bytes(b"{not json")


def summary_list(folder: Path, out: Path, inp: Path) -> None:
    (out / "summary.json").write_text("[]")


def empty_folder(folder: Path, out: Path, inp: Path) -> None:
    (folder / "empty").mkdir()


def fifo(folder: Path, out: Path, inp: Path) -> None:
    os.mkfifo(folder / "fifo.jsonl")


def symlink_loop(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(folder / "loop-b.jsonl", folder / "loop-a.jsonl")
    os.symlink(folder / "loop-a.jsonl", folder / "loop-b.jsonl")


def dangling_symlink(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(folder / "nowhere.jsonl", folder / "dangling.jsonl")


def symlink_to_input(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(inp, folder / "link.jsonl")


def unreadable(folder: Path, out: Path, inp: Path) -> None:
    inp.chmod(0)


def out_unwritable(folder: Path, out: Path, inp: Path) -> None:
    out.chmod(0o555)


def out_parent_unwritable(folder: Path, out: Path, inp: Path) -> None:
    (folder / "locked").mkdir()
    (folder / "locked").chmod(0o555)


def out_symlink(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(out, folder / "out-link")


def out_symlink_loop(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(folder / "out-b", folder / "out-a")
    os.symlink(folder / "out-a", folder / "out-b")


def out_dangling_symlink(folder: Path, out: Path, inp: Path) -> None:
    os.symlink(folder / "nowhere", folder / "out-dangling")


def unicode_names(folder: Path, out: Path, inp: Path) -> None:
    for name in ("données-日本語.jsonl", "with space.jsonl", "new\nline.jsonl", "x" * 249 + ".jsonl",
                 "-dash.jsonl", "quote'\"`$(x).jsonl"):
        (folder / name).write_bytes(inp.read_bytes())
    (folder / os.fsdecode(b"bad\xffname.jsonl")).write_bytes(inp.read_bytes())


SETUPS = {f.__name__: f for f in (
    change_input, manifest_missing, manifest_empty, manifest_garbage, manifest_list, manifest_folder,
    results_garbage_line, results_cut_last_line, results_folder, results_empty, summary_garbage,
    summary_list, empty_folder, fifo, symlink_loop, dangling_symlink, symlink_to_input, unreadable, out_unwritable,
    out_parent_unwritable, out_symlink, out_symlink_loop, out_dangling_symlink, unicode_names)}
for _module in __import__("hostile.cases", fromlist=["new_modules"]).new_modules():
    for _name, _step in getattr(_module, "SETUPS", {}).items():
        assert _name not in SETUPS, f"setup {_name} is defined twice"
        SETUPS[_name] = _step
#: setups whose effect root does not feel (it reads and writes through permission bits)
ROOT_BYPASSES = {"unreadable", "out_unwritable", "out_parent_unwritable"}
