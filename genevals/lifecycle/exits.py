"""The exit codes every driver of a run shares (the command line exits with them; the API's
:class:`~genevals.lifecycle.verdict.Verdict` carries the same one).

0 success; 1 a ``--fail-under`` / ``--fail-over`` threshold was missed, a metric asked for scored nothing, a
system's every answer (or, retrieval named, every ranking) was empty while metrics scored the blanks, or a gated
metric regressed against the baseline; 2 bad input (file, row, option, metric name or threshold, found
before anything is scored), a judge that fails its preflight, or a baseline that compared nothing; 3 more than
``--max-judge-errors`` of the judged samples ended in ``judge_error`` or ``parse_error``, or the judge failed
``--require-agreement`` (everything scored is written first); 130 interrupted (partial results and the summary
are written).
"""
from __future__ import annotations

EXIT_OK, EXIT_THRESHOLD, EXIT_BAD_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_JUDGE_ERRORS = 3
