"""The self-contained HTML report: ``write_report(run_dirs, out_path, thresholds)``.

It reads only the run folders' results.jsonl and summary.json; see :mod:`genevals.report.html`.
"""
from __future__ import annotations

__all__ = ["write_report"]


def write_report(run_dirs, out_path, thresholds=None):
    """Write one self-contained HTML report for ``run_dirs`` to ``out_path`` (see ``html.write_report``)."""
    from genevals.report.html import write_report as _write

    return _write(run_dirs, out_path, thresholds)
