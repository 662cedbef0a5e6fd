"""Where the judge prompts are. Their one home is ``prompts/*.md`` at the repository root; a wheel installs them
as the ``genevals.prompts`` package (pyproject.toml maps that package to ``prompts/``, setup.py adds it).

A source checkout has no ``genevals/prompts/`` (running with ``PYTHONPATH``, or from an editable install made
before the mapping existed), so there the files are read from the repository root beside the package.

This module imports nothing of genevals, so the judge metrics and the judge backends (the scripted judge routes
by the prompts' first lines) both read the prompts through it.
"""
from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

#: the prompts beside the package in a source checkout
CHECKOUT = Path(__file__).resolve().parent.parent / "prompts"


def prompt_file(name: str) -> Traversable:
    """The file ``<name>.md``: the installed package's first, else the checkout's. FileNotFoundError names both."""
    installed = resources.files("genevals").joinpath("prompts", f"{name}.md")
    if installed.is_file():
        return installed
    checkout = CHECKOUT / f"{name}.md"
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(f"judge prompt {name}.md: neither the installed {installed} nor the checkout's {checkout}")
