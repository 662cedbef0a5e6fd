"""Cases: issue52b (issue 52, point 14): special and damaged files where genevals reads a small file whole. A jury
file that is a YAML alias bomb (a few hundred bytes repeating a list a billion times), ``/dev/zero``, a FIFO or a
folder, given with ``--jury`` or through a run file's ``jury =``; a run folder whose summary.json, outputs.json or
manifest.json is a FIFO or ``/dev/zero``, for ``compare`` and ``export otel``; and ``compare`` on a run folder whose
results.jsonl scores an id twice or whose summary.json holds fields of the wrong type. Each is refused (exit 2)
naming the file (and the line or field), before anything is read from a pipe or a device: no hang, no
MemoryError, no traceback."""
from __future__ import annotations

import json
import os
from pathlib import Path

from hostile.cases import REFUSED, Case, good_jsonl

CLS = "issue52b"
CLOSED = "http://127.0.0.1:9"
QUICK = (("OTEL_EXPORTER_OTLP_TIMEOUT", "0.5"),)


def alias_bomb() -> bytes:
    """A YAML list whose one entry holds nine levels of aliases, each repeating the last nine times: under 600 bytes,
    9**10 strings once expanded (its repr would never end)."""
    lines = ['- - &a ["xxxxxxxx","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdefghi", "bcdefghij"):
        lines.append(f"  - &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return ("\n".join(lines) + "\n").encode()


def _jury(slug: str, jury: str, files=(), setup: str = "", where=(), through_run_file: bool = False) -> Case:
    if through_run_file:
        run_file = f'data = "in.jsonl"\nmetrics = ["faithfulness"]\njury = "{jury}"\n'.encode()
        argv = ("run", "--config", "{tmp}/run.toml", "--no-history", "--out", "{out}")
        files = (("in.jsonl", good_jsonl()), ("run.toml", run_file), *files)
    else:
        argv = ("run", "{in}", "--metrics", "faithfulness", "--jury", jury, "--no-history", "--out", "{out}")
        files = (("in.jsonl", good_jsonl()), *files)
    return Case(id=f"{CLS}-jury-{slug}", cls=CLS, expect=REFUSED, where=tuple(where), argv=argv, files=files,
                setup=setup)


def jury_fifo(folder: Path, out: Path, inp: Path) -> None:
    os.mkfifo(folder / "jury.yaml")


def _replace(name: str, make) -> callable:
    def step(folder: Path, out: Path, inp: Path) -> None:
        (out / name).unlink()
        make(out / name)
    return step


def _summary(change) -> callable:
    def step(folder: Path, out: Path, inp: Path) -> None:
        summary = json.loads((out / "summary.json").read_text())
        change(summary)
        (out / "summary.json").write_text(json.dumps(summary))
    return step


def _first_system(summary: dict) -> dict:
    return next(iter(summary["systems"].values()))


def results_repeated(folder: Path, out: Path, inp: Path) -> None:
    lines = (out / "results.jsonl").read_text().splitlines(True)
    (out / "results.jsonl").write_text("".join(lines + lines[:1]))


#: damaged run folders: setup -> (what the refusal names)
FOLDERS = {
    "i52b_summary_fifo": (_replace("summary.json", os.mkfifo), ("summary.json", "FIFO")),
    "i52b_summary_dev_zero": (_replace("summary.json", lambda p: p.symlink_to("/dev/zero")),
                              ("summary.json", "device")),
    "i52b_outputs_fifo": (_replace("outputs.json", os.mkfifo), ("outputs.json", "FIFO")),
    "i52b_outputs_dev_zero": (_replace("outputs.json", lambda p: p.symlink_to("/dev/zero")),
                              ("outputs.json", "device")),
    "i52b_summary_seed_text": (_summary(lambda s: s.update(seed="abc")), ("summary.json", "seed")),
    "i52b_summary_seed_float": (_summary(lambda s: s.update(seed=1.5)), ("summary.json", "seed")),
    "i52b_summary_system_list": (_summary(lambda s: s["systems"].update({"default": [1, 2]})),
                                 ("summary.json", "systems.'default'")),
    "i52b_summary_metric_list": (_summary(lambda s: _first_system(s).update(token_f1=[1])),
                                 ("summary.json", "'token_f1'")),
    "i52b_summary_mean_text": (_summary(lambda s: _first_system(s)["token_f1"].update(mean="high")),
                               ("summary.json", "'token_f1'.mean")),
    "i52b_summary_meta_list": (_summary(lambda s: s.update(meta=[1])), ("summary.json", "meta")),
    "i52b_summary_signatures_list": (_summary(lambda s: s.update(signatures=[1])), ("summary.json", "signatures")),
    "i52b_summary_comparisons_text": (_summary(lambda s: s.update(comparisons="x")), ("summary.json", "comparisons")),
}
SETUPS = {"i52b_jury_fifo": jury_fifo, "i52b_results_repeated": results_repeated, "i52b_manifest_fifo":
          _replace("manifest.json", os.mkfifo), **{name: step for name, (step, _) in FOLDERS.items()}}


def cases() -> list[Case]:
    bomb = (("jury.yaml", alias_bomb()),)
    found = [
        _jury("alias-bomb", "{tmp}/jury.yaml", bomb, where=("jury.yaml", "line", "aliases")),
        _jury("alias-bomb-run-file", "jury.yaml", bomb, where=("jury.yaml", "aliases"), through_run_file=True),
        _jury("dev-zero", "/dev/zero", where=("/dev/zero", "device")),
        _jury("dev-zero-run-file", "/dev/zero", where=("/dev/zero", "device"), through_run_file=True),
        _jury("fifo", "{tmp}/jury.yaml", setup="i52b_jury_fifo", where=("jury.yaml", "FIFO")),
        _jury("fifo-run-file", "jury.yaml", setup="i52b_jury_fifo", where=("jury.yaml", "FIFO"),
              through_run_file=True),
        _jury("folder", "{tmp}", where=("--jury", "directory")),
        _jury("over-the-cap", "{tmp}/jury.json", (("jury.json", b"[" + b" " * (2 << 20) + b"]"),),
              where=("jury.json", "too large")),
        Case(id=f"{CLS}-validate-jury-alias-bomb", cls=CLS, expect=REFUSED, where=("jury.yaml", "aliases"),
             argv=("validate", "{tmp}/labelled.jsonl", "--judge", "llm", "--jury", "{tmp}/jury.yaml", "--out",
                   "{out}"),
             files=(("labelled.jsonl", b'{"context": "a", "response": "a", "hallucinated": false}\n'), *bomb)),
    ]
    for setup, (_, where) in FOLDERS.items():
        slug = setup.removeprefix("i52b_").replace("_", "-")
        found.append(Case(id=f"{CLS}-compare-{slug}", cls=CLS, expect=REFUSED, where=where, argv=("compare", "{out}"),
                          files=(("in.jsonl", good_jsonl()),), setup=setup))
        found.append(Case(id=f"{CLS}-export-{slug}", cls=CLS, expect=REFUSED, where=where, env=QUICK,
                          argv=("export", "otel", "{out}", "--otel-endpoint", CLOSED),
                          files=(("in.jsonl", good_jsonl()),), setup=setup))
    found += [
        Case(id=f"{CLS}-compare-id-repeated", cls=CLS, expect=REFUSED,
             where=("results.jsonl:4", "already scored on line 1"), argv=("compare", "{out}"),
             files=(("in.jsonl", good_jsonl()),), setup="i52b_results_repeated"),
        Case(id=f"{CLS}-export-manifest-fifo", cls=CLS, expect=REFUSED, where=("manifest.json", "FIFO"), env=QUICK,
             argv=("export", "otel", "{out}", "--otel-endpoint", CLOSED), files=(("in.jsonl", good_jsonl()),),
             setup="i52b_manifest_fifo"),
    ]
    return found
