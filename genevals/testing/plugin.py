"""The pytest plugin (entry point ``pytest11``: ``genevals = genevals.testing.plugin``), loaded by every pytest run
where genevals is installed, so it imports nothing of genevals until a test asks for it.

- ``@pytest.mark.genevals(data=..., metrics=[...], fail_under={...}, fail_over={...}, judge={...}, ...)``: the
  arguments of :func:`genevals.testing.assert_scores` for the tests it marks (on a test, a class or a module;
  the closest marker wins, argument by argument).
- the ``genevals`` fixture: ``genevals(data=None, metrics=None, **overrides)`` calls ``assert_scores`` with the
  marker's arguments and the overrides, writes the run folder (results.jsonl, summary.json, report.html) under
  the test's ``tmp_path``, and caches the judge's replies in pytest's cache folder
  (``.pytest_cache/d/genevals-judge``), so a re-run of an unchanged test asks the judge nothing (``pytest
  --cache-clear`` asks again; a cache folder pytest cannot make leaves the judge its own cache, with a warning).
"""
from __future__ import annotations

from typing import Any

import pytest

MARKER = "genevals"
CACHE_DIR = "genevals-judge"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(data=None, metrics=None, fail_under=None, fail_over=None, worst=5, "
                   "max_judge_errors=0.05, require_agreement=None, min_kappa=0.6, **evaluate): the arguments of genevals.testing.assert_scores for the "
                   "`genevals` fixture")


def marker_arguments(node: Any) -> dict[str, Any]:
    """The ``genevals`` markers' keyword arguments, the closest marker's winning (test over class over module)."""
    merged: dict[str, Any] = {}
    for mark in reversed(list(node.iter_markers(MARKER))):  # iter_markers gives the closest first
        if mark.args:
            raise pytest.UsageError(f"@pytest.mark.{MARKER} takes keyword arguments only (data=, metrics=, "
                                    f"fail_under=, ...), got {len(mark.args)} positional")
        merged.update(mark.kwargs)
    return merged


def with_judge_cache(judge: Any, folder: str) -> Any:
    """``judge`` (None, a mapping of JudgeConfig fields, or a JudgeConfig) with its cache in ``folder`` unless it
    names a cache folder of its own or turns the cache off; anything else as it is (refused, naming ``judge``,
    by :func:`genevals.evaluate`)."""
    from collections.abc import Mapping

    if judge is None:
        return {"cache_dir": folder}
    if isinstance(judge, Mapping):
        return judge if "cache_dir" in judge or judge.get("cache") is False else {**judge, "cache_dir": folder}
    from genevals.judge.config import JudgeConfig

    if isinstance(judge, JudgeConfig) and judge.cache_dir is None and judge.cache:
        import dataclasses

        return dataclasses.replace(judge, cache_dir=folder)
    return judge


def cache_folder(config: pytest.Config) -> str | None:
    """The judge's cache folder in pytest's cache; None (the judge's own cache) under ``-p no:cacheprovider``
    or where pytest's cache folder cannot be made (pytest itself only warns then, and so does this)."""
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    try:
        return str(cache.mkdir(CACHE_DIR))
    except OSError as exc:
        import warnings

        warnings.warn(pytest.PytestCacheWarning(f"genevals: the judge's replies cannot be cached in pytest's cache "
                                                f"folder ({exc}); the judge's own cache is used"), stacklevel=2)
        return None


def _report(results: Any) -> Any:
    """The report.html the run's lifecycle wrote (None when the judge stopped the run before it wrote one)."""
    verdict = getattr(results, "verdict", None)
    return None if verdict is None else verdict.report


class Gate:
    """The ``genevals`` fixture: ``gate(data=None, metrics=None, **overrides)`` -> Results, or a failed test."""

    def __init__(self, request: pytest.FixtureRequest, tmp_path: Any) -> None:
        self.arguments = marker_arguments(request.node)
        self.cache = cache_folder(request.config)
        self.tmp_path = tmp_path
        self.runs = 0

    def __call__(self, data: Any = None, metrics: Any = None, **overrides: Any) -> Any:
        from genevals.testing.gates import ScoresFailed, assert_scores

        __tracebackhide__ = True
        arguments = {**self.arguments, **overrides}
        for name, given in (("data", data), ("metrics", metrics)):  # positional, as assert_scores takes them
            if given is not None:
                arguments[name] = given
        if arguments.get("data") is None:
            pytest.fail(f"genevals: no data to score; give it to the fixture, genevals(DATA), or to the marker, "
                        f"@pytest.mark.{MARKER}(data=...)", pytrace=False)
        if self.cache is not None:
            arguments["judge"] = with_judge_cache(arguments.get("judge"), self.cache)
        self.runs += 1
        if arguments.get("out_dir") is None:  # out_dir=None too: the report needs a folder
            arguments["out_dir"] = self.tmp_path / ("genevals" if self.runs == 1 else f"genevals-{self.runs}")
        arguments.setdefault("report", True)
        try:
            return assert_scores(arguments.pop("data"), **arguments)
        except ScoresFailed as exc:  # the report of a failed run is where one looks first
            report = _report(exc.results)
            shown = f"{exc}\nreport: {report}" if report else str(exc)
            again = type(exc)(shown, exc.results, exc.missed)
            again.__dict__.update({k: v for k, v in vars(exc).items() if k not in vars(again)})  # .agreement
            raise again from None


@pytest.fixture
def genevals(request: pytest.FixtureRequest, tmp_path: Any) -> Gate:
    """Score data against the gates of the test's ``@pytest.mark.genevals(...)``: ``genevals(DATA, **overrides)``."""
    return Gate(request, tmp_path)
