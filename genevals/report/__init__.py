"""The self-contained HTML report: ``write_report(run_dirs, out_path, thresholds)``.

It reads only run folders (through :mod:`genevals.output.runfolder`), never scoring code:

* :mod:`~genevals.report.load`: the run folders (summary.json, outputs.json; results.jsonl streamed);
* :mod:`~genevals.report.clean`: raw rows, read as hostile input, turned into page data;
* :mod:`~genevals.report.values`: every sample's values in a few bytes each;
* :mod:`~genevals.report.stats`: histograms, rank and verdict counts, paired comparisons;
* :mod:`~genevals.report.bands`: bands from each output's declared direction and range, and thresholds;
* :mod:`~genevals.report.model`: the page's JSON document;
* :mod:`~genevals.report.render`: the HTML file, its script, style and Content-Security-Policy;
* :mod:`~genevals.report.testset`: a generated test set's page, drawn from its card.json alone.
"""
from __future__ import annotations

from typing import Any

__all__ = ["write_report"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so ``genevals.report.bands`` stays cheap to import.
    if name == "write_report":
        from genevals.report.render import write_report

        return write_report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
