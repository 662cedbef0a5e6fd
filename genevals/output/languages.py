"""The run's languages, said: how each sample's language was decided, and which scores a metric could not give
for a language. summary.json's ``languages`` block, and the lines the terminal prints after the table.

Counted from the results' details (``language``, ``language_source``, ``language_note``: what every metric that
scores per language writes, :meth:`genevals.language.Language.details`). A sample counts once, by the first of
its results that records a language; a sample none of whose metrics depends on its language (retrieval alone)
is not counted. The block::

    {"samples": 40,                                   # samples whose language a metric used
     "by_language": {"zh": {"samples": 30, "detected": 27, "row": 0, "run": 0, "fallback": 3}, ...},
     "unsure": {"samples": 3, "why": {"too short to detect": 3}},
     "unsupported": {"bertscore_f1": {"results": 30, "reason": "<the first one>"}, ...}}

``row``: the row's ``language`` field; ``run``: ``--language CODE``; ``detected``; ``fallback``: detection was
unsure and the sample was scored in the run's fallback language (``--language auto:CODE``), the run's majority
language (:mod:`genevals.language.majority`), the model's guess or its script's.

summary.json's top-level ``language`` says the same in brief, and the terminal and the report print it
(:func:`language_line`)::

    {"setting": "auto", "samples": {"en": 78, "de": 2}, "fell_back": 3, "fell_back_to": {"majority": 3}}

``fell_back_to``: what chose an unsure sample's language (``majority``, ``run``: ``auto:CODE``, ``guess``,
``script``).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping

from genevals.types import UNSUPPORTED_LANGUAGE

SOURCES = ("detected", "row", "run", "fallback")
#: a reason's hint is clipped to this many characters on the terminal
HINT_CHARS = 200


def _why(note: Any) -> str:
    """``"too short to detect (5 letters); scored as en (Latin script)"`` -> ``"too short to detect"``: the note up
    to its first parenthesis or semicolon (:func:`genevals.language.detect.detect` writes the notes)."""
    if not isinstance(note, str) or not note.strip():
        return "unsure"
    return re.split(r"(?:(?<!\s)\s+)?[(;]", note.strip(), maxsplit=1)[0].strip() or "unsure"


class LanguageTally:
    """The counts behind the block, added result by result or batch by batch, merged across worker processes."""

    def __init__(self) -> None:
        self.by_language: dict[str, Counter] = {}
        self.unsure: Counter = Counter()
        #: output name -> [results, the first reason]
        self.unsupported: dict[str, list] = {}
        #: what chose an unsure sample's language (``language_fallback``) -> samples
        self.fell_back_to: Counter = Counter()

    # ------------------------------------------------------------------ counting

    def _sample(self, details: Mapping[str, Any] | None) -> None:
        code = details.get("language") if details else None
        if not isinstance(code, str):
            return
        source = details.get("language_source")
        source = source if isinstance(source, str) else "unknown"
        counts = self.by_language.setdefault(code, Counter())
        counts["samples"] += 1
        counts[source] += 1
        if source == "fallback":
            self.unsure[_why(details.get("language_note"))] += 1
            rule = details.get("language_fallback")
            self.fell_back_to[rule if isinstance(rule, str) else "unknown"] += 1

    def _unsupported(self, name: str, reason: Any) -> None:
        entry = self.unsupported.get(name)
        if entry is None:
            self.unsupported[name] = [1, reason if isinstance(reason, str) else ""]
        else:
            entry[0] += 1

    def add_result(self, result: Any) -> None:
        """One :class:`~genevals.types.SampleResult`."""
        first = None
        for name, metric in result.metrics.items():
            if first is None and isinstance(metric.details, Mapping) and "language" in metric.details:
                first = metric.details
            if metric.status == UNSUPPORTED_LANGUAGE:
                self._unsupported(name, metric.reason)
        self._sample(first)

    def add_results(self, results: Iterable[Any]) -> None:
        for result in results:
            self.add_result(result)

    def add_scored(self, batch: Any) -> None:
        """A :class:`~genevals.scored.ScoredBatch`, read from its columns: no result is built."""
        first: list[Mapping[str, Any] | None] = [None] * len(batch.samples)
        for got, keep in batch.families():
            if isinstance(got, list):  # one dict of results per sample
                for i, row in enumerate(got):
                    for name, metric in row.items():
                        if keep is not None and not keep(name):
                            continue
                        if first[i] is None and "language" in metric.details:
                            first[i] = metric.details
                        if metric.status == UNSUPPORTED_LANGUAGE:
                            self._unsupported(name, metric.reason)
                continue
            for i, details in enumerate(got.details):
                if first[i] is None and details and "language" in details:
                    first[i] = details
            for name in got.names:
                statuses = got.statuses[name]
                if statuses is None or (keep is not None and not keep(name)):
                    continue
                for i, status in enumerate(statuses):
                    if status == UNSUPPORTED_LANGUAGE:
                        self._unsupported(name, got.reasons[name][i])
        for details in first:
            self._sample(details)

    def merge(self, other: "LanguageTally") -> None:
        for code, counts in other.by_language.items():
            self.by_language.setdefault(code, Counter()).update(counts)
        self.unsure.update(other.unsure)
        self.fell_back_to.update(other.fell_back_to)
        for name, (n, reason) in other.unsupported.items():
            entry = self.unsupported.setdefault(name, [0, reason])
            entry[0] += n

    # ------------------------------------------------------------------ the block

    def to_dict(self) -> dict[str, Any] | None:
        """The block (see the module's docstring); None when no result recorded a language or an unsupported one."""
        if not self.by_language and not self.unsupported:
            return None
        order = sorted(self.by_language.items(), key=lambda item: (-item[1]["samples"], item[0]))
        by_language = {}
        for code, counts in order:
            known = {key: counts.get(key, 0) for key in ("samples", *SOURCES)}
            known.update((key, n) for key, n in sorted(counts.items()) if key not in known)
            by_language[code] = known
        return {
            "samples": sum(c["samples"] for c in self.by_language.values()),
            "by_language": by_language,
            "unsure": {"samples": sum(self.unsure.values()), "why": dict(sorted(self.unsure.items()))},
            "unsupported": {name: {"results": n, "reason": reason}
                            for name, (n, reason) in sorted(self.unsupported.items())},
        }


    def language_field(self, setting: Any) -> dict[str, Any] | None:
        """summary.json's top-level ``language`` (see the module's docstring); None when no sample's language was
        used. ``setting``: the run's ``--language`` as written in its meta."""
        if not self.by_language:
            return None
        order = sorted(self.by_language.items(), key=lambda item: (-item[1]["samples"], item[0]))
        return {"setting": setting if isinstance(setting, str) else "auto",
                "samples": {code: counts["samples"] for code, counts in order},
                "fell_back": sum(self.fell_back_to.values()),
                "fell_back_to": dict(sorted(self.fell_back_to.items()))}


# ------------------------------------------------------------------ the terminal's lines

#: what chose an unsure sample's language, as a line says it
RULES = {"majority": "the run's majority language", "run": "the --language auto:CODE fallback",
         "guess": "the detector's guess", "script": "their script's usual language"}


def language_line(field: Any) -> str | None:
    """``language: en 78, de 2 (--language auto); 3 samples unsure of 80: 3 scored in the run's majority
    language``: summary.json's ``language`` as the terminal and the report show it; None without one."""
    if not isinstance(field, Mapping) or not isinstance(field.get("samples"), Mapping):
        return None
    counts = {str(code): n for code, n in field["samples"].items() if isinstance(n, int)}
    if not counts:
        return None
    shown = ", ".join(f"{code} {n}" for code, n in list(counts.items())[:8])
    more = f" and {len(counts) - 8} more" if len(counts) > 8 else ""
    line = f"language: {shown}{more} (--language {field.get('setting') or 'auto'})"
    fell = field.get("fell_back")
    if isinstance(fell, int) and fell > 0:
        rules = field.get("fell_back_to") if isinstance(field.get("fell_back_to"), Mapping) else {}
        how = ", ".join(f"{n} scored in {RULES.get(str(rule), str(rule))}" for rule, n in rules.items()
                        if isinstance(n, int) and n > 0)
        line += f"; {_plural(fell, 'sample', 'samples')} unsure of {sum(counts.values())}" + (f": {how}" if how else "")
    return line


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _unsure_line(block: Mapping[str, Any]) -> str | None:
    unsure = block.get("unsure") or {}
    n = unsure.get("samples") or 0
    if not isinstance(n, int) or n <= 0:
        return None
    why = ", ".join(str(reason) for reason in (unsure.get("why") or {})) or "unsure"
    scored_as = [(code, counts.get("fallback", 0)) for code, counts in (block.get("by_language") or {}).items()
                 if isinstance(counts, Mapping) and counts.get("fallback")]
    langs = (scored_as[0][0] if len(scored_as) == 1
             else ", ".join(f"{code} ({count})" for code, count in scored_as)) or "the fallback language"
    whose = "1 sample's" if n == 1 else f"{n} samples'"
    they = "it was" if n == 1 else "they were"
    return (f"{whose} language was unsure ({why}); {they} scored as {langs}: set --language or a language "
            "field")


def _family(name: str, reason: str) -> str:
    """The family that gave ``reason`` (:meth:`genevals.metrics.base.Metric.unsupported` opens with it: "bertscore
    knows en only; ..."), so its outputs (bertscore_precision, _recall, _f1) count once; else the output's name.
    Read from the reason, not the registry: this room imports no scoring code."""
    found = re.match(r"([a-z][a-z0-9_]*) knows ", reason)
    return found.group(1) if found else name


def _hint(reason: str) -> str:
    """What to use instead, from a reason written by :meth:`genevals.metrics.base.Metric.unsupported`
    (``"<family> knows ...; this sample is ...; <what to use>"``), else the whole reason; clipped."""
    parts = reason.split("; ", 2)
    hint = parts[2] if len(parts) == 3 else reason
    return hint if len(hint) <= HINT_CHARS else hint[:HINT_CHARS] + "..."


def _unsupported_line(block: Mapping[str, Any]) -> str | None:
    unsupported = block.get("unsupported") or {}
    families: dict[str, list] = {}  # family -> [samples (its busiest output's results), first reason]
    for name, entry in unsupported.items():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("results"), int):
            continue
        reason = entry.get("reason") if isinstance(entry.get("reason"), str) else ""
        family = families.setdefault(_family(name, reason), [0, ""])
        family[0] = max(family[0], entry["results"])
        family[1] = family[1] or reason
    if not families:
        return None
    counts = ", ".join(f"{family} {n}" for family, (n, _) in families.items())
    hints = [f"{family}: {_hint(reason)}" for family, (_, reason) in families.items() if reason]
    total = sum(n for n, _ in families.values())
    return (f"{_plural(total, 'score was', 'scores were')} not given: status unsupported_language ({counts}), the "
            "metric does not know the sample's language" + (f"; {'; '.join(hints[:3])}" if hints else ""))


def lines(summary: Mapping[str, Any]) -> list[str]:
    """The lines printed after the table: samples whose language was unsure, scores not given for a language."""
    from genevals.output.terminal import visible

    first = language_line(summary.get("language"))
    block = summary.get("languages")
    found = [first]
    if isinstance(block, Mapping):
        found += [_unsure_line(block), _unsupported_line(block)]
    return [visible(line) for line in found if line]
