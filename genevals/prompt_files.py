"""Where the judge prompts are, and which they are. Their one home is ``prompts/*.md`` at the repository root; a
wheel installs them as the ``genevals.prompts`` package (pyproject.toml maps that package to ``prompts/``,
setup.py adds it).

A source checkout has no ``genevals/prompts/`` (running with ``PYTHONPATH``, or from an editable install made
before the mapping existed), so there the files are read from the repository root beside the package.

This module imports nothing of genevals, so the judge metrics, the labeller and the judge backends (the
scripted judge routes by the prompts' first lines) all read the prompts through it; rendering them is
:mod:`genevals.prompt_render`'s.
"""
from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

#: the prompts beside the package in a source checkout
CHECKOUT = Path(__file__).resolve().parent.parent / "prompts"
#: files of the folder that are parts of other prompts, never sent alone: ``history.md`` is the "Conversation so
#: far" block inserted into a prompt for a conversation's turn
FRAGMENTS = frozenset({"history"})


def _folder() -> Traversable:
    installed = resources.files("genevals").joinpath("prompts")
    return installed if installed.is_dir() else CHECKOUT


def prompt_file(name: str) -> Traversable:
    """The file ``<name>.md``: the installed package's first, else the checkout's. FileNotFoundError names both."""
    installed = resources.files("genevals").joinpath("prompts", f"{name}.md")
    if installed.is_file():
        return installed
    checkout = CHECKOUT / f"{name}.md"
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"judge prompt {name}.md: neither the installed {installed} nor the checkout's {checkout}")


def prompt_names() -> tuple[str, ...]:
    """The names of the prompts a judge can be sent (every ``*.md`` of the folder but its README and the
    :data:`FRAGMENTS`), sorted: a prompt file added to the folder is one of them at once."""
    names = (entry.name.removesuffix(".md") for entry in _folder().iterdir()
             if entry.name.endswith(".md") and entry.name != "README.md")
    return tuple(sorted(name for name in names if name not in FRAGMENTS))


def first_line(name: str) -> str:
    """The first line of prompt ``name``, which no other prompt starts with: what tells its requests apart."""
    return prompt_file(name).read_text(encoding="utf-8").strip().splitlines()[0]
