"""The gates a run's verdict is made of, besides the judge's failures and its agreement: the thresholds, checked
against what the metrics declare before anything is scored (:func:`check_thresholds`), and the metrics asked for
that scored nothing (:func:`unscored_requested`)."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from genevals import registry
from genevals.output import thresholds
from genevals.types import NOT_COUNTED


def check_thresholds(given: Sequence[thresholds.Threshold], selected: Sequence[registry.Selected]) -> None:
    """ThresholdError unless every threshold names an output the selected metrics write, with the flag its
    direction takes and a value inside its range."""
    if given:
        thresholds.validate(given, registry.declarations(selected), registry.declaration_of,
                            registry.known_names())


def _top_status(outputs: Sequence[Mapping[str, Any]]) -> tuple[str, int]:
    """The most common unscored status of one system's summary entries (outputs of one metric, which share
    their samples: a count is the most samples any of them gave it), and that count."""
    counts: dict[str, int] = {}
    for m in outputs:
        for status, n in (m.get("statuses") or {}).items():
            if status != "ok" and status not in NOT_COUNTED:  # a conversation metric's other turns
                counts[status] = max(counts.get(status, 0), int(n or 0))
    if not counts:
        return "no samples", 0
    status = max(counts, key=lambda s: (counts[s], s))
    return status, counts[status]


class _Unscored:
    """Metrics that scored nothing, each with the systems it scored nothing of and their top statuses."""

    def __init__(self, n_systems: int, only_default: bool) -> None:
        self.found: dict[str, list[tuple[str, str, int]]] = {}
        self.n_systems, self.only_default = n_systems, only_default

    def add(self, name: str, system: str, outputs: Sequence[Mapping[str, Any]]) -> None:
        self.found.setdefault(name, []).append((system, *_top_status(outputs)))

    def where(self, systems: Sequence[str]) -> str:
        if self.only_default:
            return ""
        if len(systems) == self.n_systems > 1:
            return " of any system"
        return f" of system{'s' if len(systems) > 1 else ''} " + ", ".join(f"'{s}'" for s in systems)

    def status(self, name: str) -> str:
        """The most common unscored status of ``name`` over its systems, with its count: "no_reference 12"."""
        found = self.found[name]
        status = max((s for _, s, _ in found), key=lambda s: (sum(n for _, t, n in found if t == s), s))
        return f"{status} {sum(n for _, t, n in found if t == status)}"

    def lines(self) -> list[str]:
        """One line per metric, e.g. "token_f1 scored no sample of any system (unscored: no_reference 12)"."""
        return [f"{name} scored no sample{self.where([system for system, _, _ in found])} "
                f"(unscored: {self.status(name)})" for name, found in self.found.items()]

    def summary(self) -> str:
        """Every metric in one line, grouped by status: "exact_match, bleu (no_reference 12); retrieval (...)"."""
        by_status: dict[str, list[str]] = {}
        for name in self.found:
            by_status.setdefault(self.status(name), []).append(name)
        systems = sorted({system for found in self.found.values() for system, _, _ in found})
        return (f"no metric scored any sample{self.where(systems)}: "
                + "; ".join(f"{', '.join(names)} ({status})" for status, names in by_status.items()))


def unscored_requested(requested: Sequence[str] | None, summary: Mapping[str, Any],
                       excused: Sequence[str] = ()) -> tuple[list[str], list[str]]:
    """(errors, notes) for the metrics that scored no sample of a system, from the run's summary.

    A metric named in ``--metrics`` (a family or an output) that scored no sample of some system is an error:
    the user asked for it and got nothing. A metric that runs only as part of a preset (the default set when
    ``--metrics`` is not given, or ``all``) gets a note, as presets are meant for any data (the default's
    reference metrics on data without references); with presets alone the run fails only when no metric scored
    any sample of a system, or when every input row was skipped. Each line names the metric, the systems and
    the most common unscored status; a metric named once is said once (an error, not also a note for its
    family's other outputs). Outputs with an ``excused`` status (a dry run's ``dry_run``: the judge was priced,
    not called) scored nothing by design and are said nowhere.
    """
    systems: Mapping[str, Mapping[str, Mapping[str, Any]]] = summary.get("systems") or {}
    if not systems:
        skipped = len(summary.get("skipped") or ())
        return [f"no sample was scored: every input row was skipped ({skipped} in skipped.jsonl)"], []
    names = list(requested or ("default",))
    explicit = [name for name in names if not registry.preset(name)]
    only_default = list(systems) == ["default"]
    named, nothing, preset_only = (_Unscored(len(systems), only_default) for _ in range(3))
    for system, metrics in systems.items():
        metrics = {o: m for o, m in metrics.items()
                   if not any((m.get("statuses") or {}).get(status) for status in excused)}
        families: dict[str, list[str]] = {}
        for output in metrics:
            families.setdefault(_family(output), []).append(output)
        covered: set[str] = set()
        for name in explicit:
            outputs = [name] if name in metrics else families.get(_family(name), [])
            covered.update(families.get(name, ()) or outputs)  # a family named: all of its outputs said
            if outputs and not any(metrics[o].get("scored") for o in outputs):
                named.add(name, system, [metrics[o] for o in outputs])
        if metrics and not any(m.get("scored") for m in metrics.values()):
            if not explicit:
                for family, outputs in families.items():
                    nothing.add(family, system, [metrics[o] for o in outputs])
            continue
        for family, outputs in families.items():
            rest = [o for o in outputs if o not in covered]
            if rest and not any(metrics[o].get("scored") for o in rest):
                preset_only.add(family, system, [metrics[o] for o in rest])
    errors = named.lines()
    if nothing.found:
        errors.append(nothing.summary())
    return errors, preset_only.lines()


def _family(name: str) -> str:
    """The family that writes output or family ``name`` (grounding's outputs are faithfulness's); the name
    itself when no installed metric knows it."""
    try:
        family = registry.family_of(name)[0]
    except registry.UnknownMetric:
        return name
    return registry.load_family(family).writes_for or family


def references_hint(error: str, summary: Mapping[str, Any]) -> str:
    """For an error on samples without references, the input's column that may hold them, as its warning named
    it (``; --map references=gold reads it``): said with the error, since -q shows no warning."""
    from genevals.input.fields import REFERENCES_HINT

    if "no_reference" not in error:
        return ""
    for warning in summary.get("meta", {}).get("unknown_fields") or ():
        if REFERENCES_HINT in warning:
            return f"; {warning.split(REFERENCES_HINT, 1)[1]}"
    return ""


def _blank_scoring(name: str) -> bool:
    """Whether output ``name``'s family gives an empty answer a value rather than status ``empty_answer``."""
    try:
        family = registry.family_of(name)[0]
    except registry.UnknownMetric:
        return False
    return bool(getattr(registry.load_family(family), "scores_empty_answer", False))


def _ranked(name: str) -> bool:
    """Whether output ``name`` is the retrieval metrics' (scored on the sample's ranking)."""
    return _family(name) == "retrieval"


#: (summary key, which outputs score it, what is blank, what to fill in, what the metrics do with a blank)
_BLANKS = (("empty_answers", _blank_scoring, "answer", "put its answers in `answer`",
            "score each 0, as the reference scripts do"),
           ("empty_rankings", _ranked, "ranking", "put the chunks it retrieved in `contexts`",
            "score each as an empty ranking (0), as trec_eval does"))


def blanks(summary: Mapping[str, Any], requested: Sequence[str] | None = None) -> tuple[list[str], list[str]]:
    """(errors, notes) on what metrics scored as values though it was blank: answers (the lexical metrics score a
    blank 0, by their reference scripts' rule) and rankings (retrieval scores a sample with labels and no
    contexts as an empty ranking). A system whose every answer is blank is an error: its scores measure nothing of
    it (a test set from ``genevals generate`` or ``curate`` leaves ``answer`` and ``contexts`` empty for the
    system's). So is one whose every ranking is empty when retrieval was named in ``requested`` (run by a preset,
    as the default set runs it wherever labels are given, it is a note, as for a metric that scored nothing).
    Some blanks get a note with their count: a blank is a wrong answer, or a retriever
    that found nothing, and is scored as one (:mod:`genevals.output.blanks`)."""
    errors, notes = [], []
    systems: Mapping[str, Mapping[str, Any]] = summary.get("systems") or {}
    named = "" if list(systems) == ["default"] else " of system '{}'"
    named_retrieval = any(not registry.preset(n) and _ranked(n) for n in requested or ())
    for key, scores, what, fill, done in _BLANKS:
        for system, found in (summary.get(key) or {}).items():
            outputs = [(o, m) for o, m in (systems.get(system) or {}).items() if m.get("scored") and scores(o)]
            if not outputs:
                continue
            empty = int(found.get("empty", 0))
            # answers: of the system's samples; rankings: of those retrieval scored
            of = int(found.get("of", 0)) if what == "answer" else max(int(m["scored"]) for _, m in outputs)
            families = ", ".join(dict.fromkeys(_family(o) for o, _ in outputs))
            where = named.format(system)
            if empty >= of:
                said = errors if what == "answer" or named_retrieval else notes
                said.append(f"every {what}{where} is empty ({empty} of {of}): {families} scored blanks, nothing of "
                            f"the system; {fill} (a set from `genevals generate` or `curate` leaves it empty)")
            else:
                notes.append(f"{empty} of {of} {what}s{where} are empty: {families} {done}")
    return errors, notes
