"""The run's majority language: what a sample whose language detection is unsure is scored in.

A short answer ("Saint Bernadette Soubirous", "1,500 metres") tells no language apart from its neighbours; the
model's best guess for it is noise (5 of 632 English XQuAD answers were guessed as French, Polish, German or
Spanish). The run's other samples are evidence the guess does not use: a run whose sure samples are English
is an English run. So with ``--language auto`` (no ``auto:CODE`` fallback of the user's), the planning pass
counts every *sure* detection by the script it is written in (:meth:`MajorityTally.add`), and an unsure sample is
scored in the majority language of its script (:func:`settle`):

    majority(S) = argmax_l n(l, S)   when   n(l, S) > (1/2) * sum_l' n(l', S),

n(l, S) being the sure samples of language l written in script S (a text with no letters: all scripts
together). A plurality that is no majority (a run of English, German, Spanish and Vietnamese answers, all
Latin) decides nothing: the sample keeps the detector's fallback (its best guess, or its script's language), and
its note says that no language holds a majority. The note of every unsure sample names the rule that chose its
language, and the counts behind it.

The count reads the run's first :data:`COUNTED` samples only: detection costs about 4 ms a sample and the planning
pass is one process, so counting all of a 100,000-row file doubled its run (29 s to 56 s); the worker processes
detect the rest in parallel, with the majority already known. A majority is a share, and 5,000 samples settle it
(a language holding 55% of a run's sure samples is found holding more than half of 2,000 sure ones drawn alike
with probability above 0.9999: the binomial's z is 4.5); a run whose languages change after its first 5,000 rows
should name its language.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from genevals.language.detect import Language

#: the key of the texts with no letters: the majority over every script
ANY_SCRIPT = "*"
#: the samples the planning pass detects to count the majority: the run's first ones
COUNTED = 5_000


@dataclass(frozen=True)
class Majority:
    """Per script: (its majority language or None, that language's sure samples, the script's sure samples)."""

    by_script: tuple[tuple[str, str | None, int, int], ...] = ()
    #: the samples counted, when the count stopped at :data:`COUNTED` before the run's last (0: all counted)
    first: int = 0

    def of(self, script: str | None) -> tuple[str | None, int, int] | None:
        """The majority of ``script``'s sure samples (None: no sure sample in it)."""
        key = ANY_SCRIPT if script is None else script
        return next(((code, n, total) for s, code, n, total in self.by_script if s == key), None)

    def codes(self) -> dict[str, str]:
        """script -> its majority language, where one holds a majority (for summary.json)."""
        return {s: code for s, code, _, _ in self.by_script if code is not None}


class MajorityTally:
    """The planning pass's count of sure detections, by script."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter] = {}
        self.seen = 0
        self.passed = False

    @property
    def full(self) -> bool:
        """Whether :data:`COUNTED` samples are counted (the planning pass detects no more)."""
        return self.seen >= COUNTED

    def skip(self) -> None:
        """A sample past the counted ones: the majority is of the run's first samples only."""
        self.passed = True

    def add(self, lang: Language) -> None:
        self.seen += 1
        if lang.source != "detected":
            return
        for key in (lang.script, ANY_SCRIPT) if lang.script else (ANY_SCRIPT,):
            self.counts.setdefault(key, Counter())[lang.code] += 1

    def result(self) -> Majority:
        found = []
        for script, counts in sorted(self.counts.items()):
            total = sum(counts.values())
            code, n = min(counts.items(), key=lambda item: (-item[1], item[0]))
            found.append((script, code if 2 * n > total else None, n, total))
        return Majority(tuple(found), self.seen if self.passed else 0)


def settle(lang: Language, majority: Majority | None) -> Language:
    """``lang`` as the run scores it: an unsure detection (``fallback``) in the majority language of its script
    when there is one; else ``lang`` with a note saying why there is none. Any other decision is left alone."""
    if lang.source != "fallback" or majority is None:
        return lang
    found = majority.of(lang.script)
    where = f"{lang.script} " if lang.script else ""
    why = lang.why or "detection unsure"
    if found is None:
        return replace(lang, note=f"{lang.note}; no sure {where}sample in the run to take a majority from")
    code, n, total = found
    among = f" among its first {majority.first:,}" if majority.first else ""
    if code is None:
        return replace(lang, note=f"{lang.note}; no language holds a majority of the run's {total} sure {where}"
                                  f"samples{among}")
    return replace(lang, code=code, rule="majority", note=f"{why}; scored as {code} (the run's majority language: "
                                                          f"{n} of its {total} sure {where}samples{among})")
