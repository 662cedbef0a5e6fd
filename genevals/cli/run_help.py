"""``genevals run --help`` kept short: the common options, examples, and one line per metric family pointing at
``genevals metrics NAME`` (its settings, generated from the declarations). Every other option stays accepted."""
from __future__ import annotations

import argparse


#: the options ``genevals run --help`` shows (by destination); every other one is accepted but hidden, and the
#: family-specific ones are reachable as ``--set FAMILY.KEY=VALUE`` (listed by ``genevals metrics NAME``).
#: config/profile/print_config: the run file's options, shown when present
SHOWN = frozenset({"help", "input", "out", "metrics", "map", "language", "resume", "workers", "seed", "quiet",
                   "verbose", "thresholds", "from_format", "qrels", "trec_runs", "judge_backend", "judge_base_url",
                   "judge_model", "set_settings", "judge_option", "no_history", "config", "profile", "print_config"})

EXAMPLES = """\
examples:
  genevals run answers.jsonl --out reports/today
  genevals run answers.jsonl -m rouge,retrieval --set rouge.use_stemmer=true --set retrieval.cutoffs=1,5,20
  genevals run answers.jsonl -m faithfulness --judge-base-url http://localhost:8000/v1 --judge-model qwen2.5 \\
      --judge-option timeout=120 --set faithfulness.max_claims=8 --fail-under faithfulness=0.8
"""


#: the options ``genevals validate --help`` shows; the judge's others are --judge-option KEY=VALUE
VALIDATE_SHOWN = frozenset({"help", "input", "judge", "out", "rule", "limit", "task_type", "seed", "quiet",
                            "grounding_method", "judge_backend", "judge_base_url", "judge_model", "judge_option",
                            "set_settings"})

VALIDATE_EXAMPLES = """\
examples:
  genevals validate labels.jsonl -o validation/            # the local grounding checker against your labels
  genevals validate labels.jsonl --judge llm --judge-base-url http://localhost:8000/v1 --judge-option timeout=120 -o v/

every judge setting: `genevals metrics judge` (--judge-option KEY=VALUE; the --judge-* flags are still accepted,
hidden); each metric family's: `genevals metrics NAME` (--set FAMILY.KEY=VALUE)
"""


def hide(parser: argparse.ArgumentParser, shown: frozenset[str]) -> None:
    """Hide every option of ``parser`` outside ``shown``: still accepted, and kept for the generated CLI
    reference (docs/hooks/reference.py), which lists every option."""
    from genevals.cli.common import LazyHelp

    for action in parser._actions:
        if action.dest not in shown and isinstance(action, LazyHelp):
            action.hide()  # its help is made only when the reference reads it
        elif action.dest not in shown and action.help != argparse.SUPPRESS:
            action.hidden_help = action.help  # type: ignore[attr-defined]
            action.help = argparse.SUPPRESS


def shorten_validate(validate: argparse.ArgumentParser) -> None:
    hide(validate, VALIDATE_SHOWN)
    validate.formatter_class = argparse.RawDescriptionHelpFormatter
    validate.epilog = VALIDATE_EXAMPLES


def shorten(run: argparse.ArgumentParser) -> None:
    """Hide every option outside :data:`SHOWN` (still accepted) and end the help with the examples and one line
    per metric family pointing at its settings."""
    from genevals.cli.common import lazy_epilog

    hide(run, SHOWN)
    run.formatter_class = argparse.RawDescriptionHelpFormatter
    lazy_epilog(run, _epilog)  # the families' lines need every metric module imported


def _epilog() -> str:
    import textwrap

    from genevals.registry import families

    lines = []
    for cls in families():
        names = textwrap.shorten(", ".join(s.name for s in cls.SETTINGS) or "(no settings)", 50, placeholder=" ...")
        lines.append(f"  genevals metrics {cls.family:<25} {names}")
    return (EXAMPLES + "\nmetric settings, set with --set FAMILY.KEY=VALUE (family flags such as --stem, "
            "--cutoffs and --bertscore-* are still\naccepted, hidden); each family's settings, types, "
            "defaults and limits:\n" + "\n".join(lines))
