"""Trace exports as genevals input: ``genevals run --from FORMAT FILE``. One module per format, each owning it:
:mod:`~genevals.input.traces.openinference` (OTLP JSON spans under the OpenInference, Langfuse-OTel,
OpenTelemetry GenAI and OpenLLMetry conventions of :mod:`~genevals.input.traces.conventions`),
:mod:`~genevals.input.traces.langfuse` (Langfuse trace exports), :mod:`~genevals.input.traces.langsmith`
(LangSmith run exports). Each trace becomes one row (id, question, answer, contexts in retrieved order, and the
system from ``--system-from``), validated as every row is; the traces of one session are one conversation's turns
(:mod:`~genevals.input.traces.sessions`),  (:class:`TraceSource` is a reader kind of
:func:`genevals.input.readers.iter_samples`).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from genevals.input.rows import InputError, RawRow
from genevals.input.source import RowSource

FORMATS = ("openinference", "langfuse", "langsmith")


@dataclass(frozen=True)
class TraceSource(RowSource):
    """A trace export file in ``format`` (one of :data:`FORMATS`); ``system_from`` the attribute naming each
    trace's system (None: every trace is system "default")."""

    path: Path
    format: str
    system_from: str | None = None

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise InputError("--from", None, None, f"unknown trace format '{self.format}' "
                                                   f"(one of {', '.join(FORMATS)})")

    @property
    def name(self) -> str:
        return str(self.path)

    def rows(self, digest: Any = None) -> Iterator[RawRow | InputError]:
        from genevals.input.traces import langfuse, langsmith, openinference, sessions

        reader = {"openinference": openinference, "langfuse": langfuse, "langsmith": langsmith}[self.format]
        return sessions.grouped(reader.rows(self.path, digest, self.system_from))
