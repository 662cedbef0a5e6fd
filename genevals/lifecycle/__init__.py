"""A run's lifecycle below every driver: what is checked before scoring and everything after it (the agreement
gate, the report page, the history record and the baseline, the OTel send, the gates) with the verdict and the
exit code it maps to. The command line (:mod:`genevals.cli.run`), :func:`genevals.evaluate` and the pytest plugin
(:mod:`genevals.testing`) all run it; it takes plain values (:class:`Settings`), never parsed arguments.

    settings.py  Settings: the run folder, the gates, the history, the OTel endpoint, the report
    course.py    Lifecycle: check() before scoring, finish(results) after it -> Verdict
    verdict.py   Verdict: each gate's finding and the exit code
    messages.py  the lines it says, each with its kind (a note, a warning, an error, a gate result, output)
    gates.py     the thresholds against the metrics' declarations; the metrics asked for that scored nothing
    agreement.py the judge's agreement with people's labels
    history.py   the history record and the baseline comparison
    exits.py     the exit codes
"""
from __future__ import annotations

from genevals.lifecycle.course import Lifecycle
from genevals.lifecycle.exits import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS, EXIT_OK,
                                      EXIT_THRESHOLD)
from genevals.lifecycle.messages import Message, Messages
from genevals.lifecycle.settings import Settings
from genevals.lifecycle.verdict import Verdict

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERRUPTED", "EXIT_JUDGE_ERRORS", "EXIT_OK", "EXIT_THRESHOLD", "Lifecycle",
           "Message", "Messages", "Settings", "Verdict"]
