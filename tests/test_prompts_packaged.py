"""The judge prompts have one home, ``prompts/`` at the repository root (issue #36): real files, no symlinks, no
copy in ``genevals/``. A real wheel built from the checkout carries them as ``genevals/prompts/*.md``, byte for
byte, and genevals imported from that wheel alone hashes them into the same ``prompt_version`` as the checkout.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

from genevals import prompt_render
from genevals.prompt_files import CHECKOUT, FRAGMENTS, prompt_file

PROMPTS = REPO / "prompts"
NAMES = sorted(p.stem for p in PROMPTS.glob("*.md") if p.name != "README.md")


def test_the_prompts_are_real_files_in_one_folder():
    assert CHECKOUT == PROMPTS
    assert len(NAMES) >= 9, NAMES
    links = [p.name for p in PROMPTS.iterdir() if p.is_symlink()]
    assert links == [], f"symlinks in prompts/: {links}"
    assert not (REPO / "genevals" / "prompts").exists(), "a second home for the prompts: genevals/prompts/"


def test_git_tracks_no_symlink():
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-s"], capture_output=True, text=True, cwd=REPO, check=True)
    links = [line.split("\t", 1)[1] for line in listed.stdout.splitlines() if line.startswith("120000 ")]
    assert links == []


@pytest.mark.parametrize("name", NAMES)
def test_a_checkout_reads_the_prompts_from_the_root_folder(name):
    assert prompt_file(name).read_bytes() == (PROMPTS / f"{name}.md").read_bytes()
    assert prompt_render.load(name) == (PROMPTS / f"{name}.md").read_text(encoding="utf-8")


def test_a_missing_prompt_names_where_it_was_looked_for():
    with pytest.raises(FileNotFoundError, match=r"no_such_prompt\.md.*prompts"):
        prompt_file("no_such_prompt")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of the checkout (pip's in-tree build writes build/ beside the sources)."""
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed: no wheel can be built without the package index")
    where = tmp_path_factory.mktemp("wheel")
    source = where / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "setup.py"):
        shutil.copy2(REPO / name, source / name)
    for tree in ("genevals", "prompts"):
        shutil.copytree(REPO / tree, source / tree, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(where / "dist"), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = (where / "dist").glob("genevals-*.whl")
    return built


def test_the_wheel_carries_each_prompt_byte_for_byte(wheel):
    with zipfile.ZipFile(wheel) as z:
        inside = {n: z.read(n) for n in z.namelist() if n.startswith("genevals/prompts/")}
        outside = [n for n in z.namelist() if not n.startswith(("genevals/", "genevals-"))]
    assert inside == {f"genevals/prompts/{name}.md": (PROMPTS / f"{name}.md").read_bytes() for name in NAMES}
    assert outside == []  # no top-level prompts package beside genevals


def test_genevals_from_the_wheel_alone_finds_the_prompts_and_hashes_them_the_same(wheel, tmp_path):
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(unpacked)
    # -S: no site, so no .pth file (an editable install of genevals) can put the checkout back on the path; the
    # dependencies come from the site-packages folders, after the unpacked wheel.
    code = ("import sys, json; sys.path[:0] = [sys.argv[1]]; sys.path += json.loads(sys.argv[2]);"
            "import genevals; from genevals.prompt_files import prompt_file, prompt_names;"
            "from genevals import prompt_render as p;"
            "names = json.loads(sys.argv[3]);"
            "print(json.dumps({'genevals': genevals.__file__, 'files': [str(prompt_file(n)) for n in names],"
            "'versions': [p.prompt_version(n) for n in names], 'kinds': list(prompt_names())}))")
    paths = [*site.getsitepackages(), site.getusersitepackages()]
    done = subprocess.run([sys.executable, "-S", "-c", code, str(unpacked), json.dumps(paths), json.dumps(NAMES)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["genevals"].startswith(str(unpacked))
    assert got["files"] == [str(unpacked / "genevals" / "prompts" / f"{name}.md") for name in NAMES]
    assert got["versions"] == [prompt_render.prompt_version(name) for name in NAMES]
    assert got["kinds"] == [name for name in NAMES if name not in FRAGMENTS]  # the installed folder is listed too
