"""The reference pages, generated from the code at build time (a mkdocs ``hooks:`` entry; no network): a page's
``<!-- reference:NAME -->`` line becomes the table :func:`render` makes for NAME, so the docs cannot drift from
what genevals knows. A status or exit code the code has and this file does not describe is a warning, which
``mkdocs build --strict`` turns into a failed build. tests/docs/test_reference.py compares the pages with
``genevals metrics`` and the code."""
from __future__ import annotations

import argparse
import dataclasses
import logging
import re

log = logging.getLogger("mkdocs.hooks.reference")

#: what each status means; the names come from the code (:func:`statuses`)
STATUS_MEANING = {
    "ok": "scored: the only status that carries a value",
    "empty_answer": "the answer is empty (or only whitespace)",
    "no_reference": "the metric needs reference answers and the row has none",
    "empty_context": "the metric needs context text and the row has none (or its contexts carry ids but no text)",
    "no_relevance_labels": "a retrieval metric and the row has no `relevant` labels",
    "no_relevant": "the row's relevance labels name nothing relevant",
    "not_found": "`first_relevant_rank`: nothing relevant was retrieved",
    "no_claims": "the judge or checker found no claim to verify in the answer",
    "refusal": "the answer refuses or abstains (detected before calling the judge)",
    "judge_error": "the judge failed after its bounded retries",
    "parse_error": "the judge's replies could not be read (kept in `details.transcript`)",
    "dry_run": "`--dry-run`: tokens and cost estimated, nothing called",
    "error": "the metric failed on this sample; the reason says why",
    "unsupported_language": "the metric does not know the sample's language; the reason says what to use instead",
    "no_citations": "`citations`: the answer cites nothing",
    "citation_out_of_range": "`citations`: a citation names a context the row does not have (\"[7]\" with 5)",
    "not_last_turn": "a conversation metric: its one value is on the conversation's last assistant turn (named "
                     "in `details.carried_by`); counted beside the mean, in no coverage total",
    "not_conversation": "a conversation metric and the row is no conversation's turn (no `conversation_id`, no "
                        "`history`)",
    "unsupported": "a conversation metric with no judge configured: no offline check measures it",
    "no_earlier_turns": "`knowledge_retention`: the conversation has one exchange, nothing said earlier",
    "no_facts": "`knowledge_retention`: the user gives no fact before the last turn",
    "no_requests": "`conversation_completeness`: the judge found no request of the user's",
}

#: what each exit code means, by its name in genevals.cli.common
EXIT_MEANING = {
    "EXIT_OK": "success",
    "EXIT_THRESHOLD": "a `--fail-under` or `--fail-over` threshold was missed (or its metric had nothing to "
                      "score); or a metric named in `--metrics` scored no sample of some system; or no metric "
                      "scored any sample of a system; or `--baseline RUN` found a significant regression of a "
                      "gated metric (see [Run history](../how-to/run-history.md)); or `genevals compare` found "
                      "one (see [Compare systems](../how-to/compare-systems.md)); or `genevals export otel` could "
                      "not send every event (see [OpenTelemetry](../how-to/opentelemetry.md))",
    "EXIT_BAD_INPUT": "bad input, found before anything is scored: a file, row, option, metric name or threshold, "
                      "or `--resume` against a different run; or a judge that fails its preflight request",
    "EXIT_JUDGE_ERRORS": "more than `--max-judge-errors` (default 0.05) of the judged samples ended in "
                         "`judge_error` or `parse_error` (a judge that answered nothing readable has scored nothing); "
                         "everything scored is written first; or the judge failed `--require-agreement` (its kappa "
                         "with the labels below `--min-kappa`, too few labels to tell, or no labelled sample in the "
                         "run; see [Gate CI](../how-to/gate-ci.md)), its figure and files written first",
    "EXIT_INTERRUPTED": "interrupted with Ctrl-C; the partial results and summary are written",
}

_VERDICTS = {"SUPPORTED", "CONTRADICTED", "UNVERIFIABLE", "FROM_HISTORY"}


def statuses() -> list[str]:
    """Every status the code defines: genevals.types' constants and those a metric family adds."""
    from genevals import types
    from genevals.metrics.citations import formulas
    from genevals.metrics.retrieval import retrieval

    found = [v for k, v in vars(types).items() if k.isupper() and isinstance(v, str) and k not in _VERDICTS]
    from genevals.metrics.conversation import completeness, knowledge_retention, scope

    found += [formulas.NO_CITATIONS, formulas.OUT_OF_RANGE, retrieval.NO_RELEVANT, scope.NOT_CONVERSATION,
              scope.UNSUPPORTED, knowledge_retention.NO_EARLIER_TURNS, knowledge_retention.NO_FACTS,
              completeness.NO_REQUESTS]
    return list(dict.fromkeys(found))


def exit_codes() -> dict[str, int]:
    from genevals.cli import common

    return {k: v for k, v in vars(common).items() if k.startswith("EXIT_") and isinstance(v, int)}


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _statuses() -> str:
    rows = ["| status | meaning |", "|---|---|"]
    for status in statuses():
        if status not in STATUS_MEANING:
            log.warning("reference: status %r has no meaning in docs/hooks/reference.py", status)
        rows.append(f"| `{status}` | {STATUS_MEANING.get(status, '')} |")
    return "\n".join(rows)


def _exit_codes() -> str:
    rows = ["| code | name | meaning |", "|---|---|---|"]
    for name, code in sorted(exit_codes().items(), key=lambda kv: kv[1]):
        if name not in EXIT_MEANING:
            log.warning("reference: exit code %s has no meaning in docs/hooks/reference.py", name)
        rows.append(f"| {code} | `{name}` | {EXIT_MEANING.get(name, '')} |")
    return "\n".join(rows)


def _setting_rows(cls) -> list[str]:
    """A family's declared settings (``SETTINGS = (Setting(...), ...)``: :mod:`genevals.settings`): what
    ``--set FAMILY.KEY=VALUE``, a run file's ``[options.FAMILY]`` and the API's ``options`` take."""
    return _rows(getattr(cls, "SETTINGS", ()))


def _rows(declared) -> list[str]:
    rows = []
    for setting in declared:
        declaration = f"{setting.type_name}, default `{setting.default!r}`"
        if setting.limits:
            declaration += f"; {setting.limits}"
        rows.append(f"| `{setting.name}` | {_cell(setting.help)} | {_cell(declaration)} |")
    return rows


def _range(bounds) -> str:
    low, high = bounds
    return f"[{'-∞' if low is None else format(low, 'g')}, {'∞' if high is None else format(high, 'g')}]"


def _metrics() -> str:
    from genevals.registry import describe_all, load_family

    out, last = [], None
    for family, name, output, signature in describe_all():
        if family != last:
            cls = load_family(family)
            out += ["", f"### `{family}`", ""]
            facts = [f"kind: {cls.kind}"]
            if cls.presets:
                facts.append("presets: " + ", ".join(f"`{p}`" for p in cls.presets))
            if cls.extra:
                facts.append(f"needs `genevals[{cls.extra}]`")
            out.append("; ".join(facts) + ".")
            if signature:
                out += ["", f"Signature: `{signature}`"]
            settings = _setting_rows(cls)
            if settings:
                out += ["", "| setting | meaning | declaration |", "|---|---|---|", *settings]
            out += ["", "| output | definition | direction | range |", "|---|---|---|---|"]
            last = family
        out.append(f"| `{name}` | {_cell(output.definition)} | {output.direction} | {_range(output.range)} |")
    return "\n".join(out).strip()


def _subparsers(parser: argparse.ArgumentParser, prefix: str):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _subparsers(sub, f"{prefix} {name}")


def _cli() -> str:
    from genevals.cli import build_parser

    out = []
    for name, parser in _subparsers(build_parser(), "genevals"):
        if name == "genevals":
            continue
        formatter = parser._get_formatter()
        out += ["", f"### `{name}`", "", _cell(parser.description or ""), "",
                "| option | meaning | default |", "|---|---|---|"]
        for action in parser._actions:
            hidden = getattr(action, "hidden_help", None)  # accepted, left out of a short --help
            if (action.help == argparse.SUPPRESS and hidden is None) or isinstance(action, argparse._SubParsersAction):
                continue
            names = ", ".join(action.option_strings) or action.dest
            try:
                help_text = formatter._expand_help(argparse.Action(action.option_strings, action.dest,
                                                                   default=action.default, help=hidden)
                                                   if hidden is not None else action)
            except (KeyError, TypeError, ValueError):
                help_text = hidden or action.help or ""
            if hidden is not None:
                help_text += " (not in the short `--help`)"
            default = action.default
            shown = "" if default in (None, argparse.SUPPRESS, False) or action.option_strings[:1] == ["-h"] \
                else f"`{default!r}`"
            out.append(f"| `{names}` | {_cell(help_text)} | {_cell(shown)} |")
    return "\n".join(out).strip()


#: the row the results reference scores: small, cheap metrics only, so the build stays quick and offline
EXAMPLE_ROW = {"id": "q1", "question": "Where was Marie Curie born?", "answer": "Marie Curie was born in Warsaw.",
               "contexts": [{"id": "c1", "text": "Marie Curie was born in Warsaw in 1867."}],
               "references": ["Warsaw"], "relevant": ["c1"]}


def example_result() -> dict:
    """One line of results.jsonl, as a real run writes it for :data:`EXAMPLE_ROW`."""
    import genevals

    return genevals.evaluate([EXAMPLE_ROW], ["token_f1", "mrr"], language="en").samples[0].to_dict()


def _fields(cls) -> list[str]:
    rows = [f"#### `{cls.__name__}`", "", "| field | type | default |", "|---|---|---|"]
    for f in dataclasses.fields(cls):
        default = "" if f.default is dataclasses.MISSING else f"`{f.default!r}`"
        kind = " ".join(str(f.type).split())  # inside a code span a | is text, so it is not escaped
        rows.append(f"| `{f.name}` | `{kind}` | {_cell(default)} |")
    return rows + [""]


def _results() -> str:
    import json

    from genevals import types

    out = ["```json", json.dumps(example_result(), indent=2, ensure_ascii=False), "```", "",
           "The records behind it (genevals/types.py), field by field:", ""]
    for cls in (types.Sample, types.Context, types.MetricResult, types.Claim, types.Verdict):
        out += _fields(cls)
    return "\n".join(out).strip()


def _judge_and_engine() -> str:
    """The judge's settings, each backend's own, and the engine's: what ``--judge-option KEY=VALUE``, the run
    file's ``[judge]`` table and top-level keys, and the API's ``judge=`` and arguments take."""
    from genevals.engine.arguments import RAY_SETTINGS, SETTINGS as ENGINE
    from genevals.judge.config import SETTINGS as JUDGE, all_backend_settings

    head = ["| setting | meaning | declaration |", "|---|---|---|"]
    out = ["### The judge", "", "`--judge-option KEY=VALUE`, `[judge]` in a run file, `judge={KEY: VALUE}` in the "
           "API (most also have a `--judge-*` flag).", "", *head, *_rows(JUDGE)]
    for name, declared in all_backend_settings().items():
        out += ["", f"### Backend `{name}`", "", f"Declared in the backend's own module; used when the judge is "
                f"`{name}`.", "", *head, *_rows(declared)]
    out += ["", "### The engine", "", "Arguments of `genevals.evaluate`, top-level keys of a run file, and "
            "`--workers` / `--seed` on the command line.", "", *head, *_rows(ENGINE), "", "Ray "
            "(`genevals.engine.spec.RaySettings`):", "", *head, *_rows(RAY_SETTINGS)]
    return "\n".join(out)


RENDERERS = {"settings": _judge_and_engine, "statuses": _statuses, "exit-codes": _exit_codes, "metrics": _metrics, "cli": _cli,
             "results": _results}


def render(name: str) -> str:
    return RENDERERS[name]()


_MARKER = re.compile(r"^<!-- reference:([\w-]+) -->$", re.MULTILINE)


def on_page_markdown(markdown, page, config, files):  # the mkdocs hook
    return _MARKER.sub(lambda m: render(m.group(1)), markdown)
