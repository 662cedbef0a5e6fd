"""What the subcommands share: exit codes, option parsers, thresholds and the judge options.

Exit codes, for every subcommand: 0 success, 1 a ``--fail-under`` / ``--fail-over`` threshold was missed, 2 bad
input (file, row, option, metric name or threshold, found before anything is scored) or a judge that fails its
preflight request (unreachable, unknown model, refused key, missing extra) or names no model, 3 more than
``--max-judge-errors`` of the judged samples ended in ``judge_error`` or ``parse_error``, or the judge failed
``--require-agreement`` (everything scored is written first), 130 interrupted (partial results and the summary are written).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from genevals.settings import Setting

from genevals.lifecycle.exits import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_JUDGE_ERRORS,  # noqa: F401
                                      EXIT_OK, EXIT_THRESHOLD)


def csv_list(text: str) -> list[str]:
    """``"a, b,,c"`` -> ["a", "b", "c"]."""
    return [part.strip() for part in text.split(",") if part.strip()]


def whole_numbers(text: str) -> tuple[int, ...]:
    """``"1,3, 5"`` -> (1, 3, 5)."""
    from genevals.settings import NotANumeral, whole_text

    values = []
    for part in csv_list(text):
        try:
            values.append(whole_text(part))
        except NotANumeral as exc:
            raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got '{part}'"
                                             f"{exc.advice}") from None
    return tuple(values)


def option_type(setting: Any):
    """An argparse ``type`` for a declared :class:`~genevals.settings.Setting` (or a function returning one, read
    when the option is given): the text parsed and checked by the one checker, so the flag, ``--set``, the run
    file and the API refuse the same values with the same words."""
    def resolved() -> Any:
        return setting() if callable(setting) else setting

    def parsed(text: str) -> Any:
        from genevals.settings import parse

        declared = resolved()
        if declared.default is None and declared.type is not str:
            # "unset" is leaving the flag out: an empty --workers '' or 'none' is a mistake, not the default
            declared = dataclasses.replace(declared, default=0)
        try:
            return parse(declared, text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{declared.name}: ")) from None

    parsed.__name__ = "value"  # argparse names the type in "invalid value: ..."
    parsed.declared = resolved  # type: ignore[attr-defined]  # the run file checks its typed values with it
    return parsed


def declared(family: str, key: str):
    """The declaration of metric setting ``family.key`` (found when first asked: building the parser imports
    no metric)."""
    def find_it() -> Any:
        from genevals.registry import families
        from genevals.settings import find

        return find(next(cls.SETTINGS for cls in families() if cls.family == family), key, family)
    return find_it


def engine_setting(name: str):
    """The engine's declaration ``name`` (:data:`genevals.engine.arguments.SETTINGS` or ``RAY_SETTINGS``), found
    when the option is given: the engine's module imports numpy, which ``--help`` must not."""
    def find_it() -> Any:
        from genevals.engine.arguments import RAY_SETTINGS, SETTINGS

        return next(s for s in SETTINGS + RAY_SETTINGS if s.name == name)
    return find_it


def _judge_setting(name: str):
    def find_it() -> Any:
        from genevals.judge.config import SETTINGS, all_backend_settings

        every = list(SETTINGS) + [s for group in all_backend_settings().values() for s in group]
        return next(s for s in every if s.name == name)
    return find_it


#: the shared number options, declared once (their names in messages are the options')
COUNT = Setting("count", int, 0, "a whole number, 0 or more", minimum=0)
SHARE = Setting("share", float, 0.0, "a share from 0 to 1", minimum=0.0, maximum=1.0)
NONNEGATIVE = Setting("nonnegative", float, 0.0, "a finite number, 0 or more", minimum=0.0)
count, share, nonnegative = option_type(COUNT), option_type(SHARE), option_type(NONNEGATIVE)


def json_file(path: str) -> Any:
    from genevals.files import Refused, read_limited

    try:  # a pipe or a device would hang the read or never end: refused before a byte is read
        return json.loads(read_limited(path, 16 << 20, "JSON file").decode("utf-8"))
    except Refused as exc:
        raise argparse.ArgumentTypeError(f"{path}: {exc}") from None
    except (OSError, ValueError) as exc:
        raise argparse.ArgumentTypeError(f"{path}: {exc}") from None
    except RecursionError:  # thousands of brackets deep: no setting takes such a value; refused, not a traceback
        raise argparse.ArgumentTypeError(f"{path}: not valid JSON: nested too deeply to read") from None


def key_value(text: str) -> tuple[str, Any]:
    """``KEY=VALUE``; the value is read as JSON when it parses (numbers, true/false, lists), else kept as text.
    Dashes in the key become underscores."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got '{text}'")
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = value
    except RecursionError:  # JSON nested thousands deep: a value no setting takes, refused rather than a traceback
        raise argparse.ArgumentTypeError(f"{key.strip()[:40]}=: the value is JSON nested too deeply to read") from None
    return key.strip().replace("-", "_"), parsed


def _threshold_of(kind: str):
    def parse(text: str):
        from genevals.output.thresholds import parse as parse_threshold

        try:
            return parse_threshold(text, kind)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = kind  # argparse names the option's type in its messages
    return parse


def add_thresholds(parser: argparse.ArgumentParser) -> None:
    """``--fail-under`` (higher-is-better metrics), ``--fail-over`` (lower-is-better ones) and
    ``--min-coverage``; the thresholds land in ``args.thresholds`` in the order given."""
    from genevals.output.thresholds import FAIL_OVER, FAIL_UNDER

    parser.add_argument("--fail-under", action="append", type=_threshold_of(FAIL_UNDER), dest="thresholds",
                        default=[], metavar="METRIC=VALUE",
                        help="exit 1 if any system's mean METRIC is below VALUE; for higher-is-better metrics "
                             "(repeatable)")
    parser.add_argument("--fail-over", action="append", type=_threshold_of(FAIL_OVER), dest="thresholds",
                        metavar="METRIC=VALUE",
                        help="exit 1 if any system's mean METRIC is above VALUE; for lower-is-better metrics "
                             "such as contradiction_rate (repeatable)")
    parser.add_argument("--min-coverage", type=share, default=None, metavar="SHARE",
                        help="a mean that covers less than this share of its samples gets no band and a "
                             "warning (default 0.8)")


class LazyHelp(argparse._StoreAction):
    """An option whose help text is made (by ``make_help()``) when first read: when the help or the CLI reference
    is shown, not each time the parser is built. :func:`genevals.cli.run_help.hide` hides one with :meth:`hide`."""

    def __init__(self, *args: Any, make_help: Any, **kwargs: Any) -> None:
        self._make, self._text, self._hidden = make_help, None, False
        super().__init__(*args, **kwargs)

    def _made(self) -> str:
        if self._text is None:
            self._text = self._make()
        return self._text

    @property  # type: ignore[override]
    def help(self) -> str:
        return argparse.SUPPRESS if self._hidden else self._made()

    @help.setter
    def help(self, value: str | None) -> None:
        if value is not None:
            self._text = value

    @property
    def hidden_help(self) -> str | None:
        return self._made() if self._hidden else None

    def hide(self) -> None:
        self._hidden = True


def lazy_epilog(parser: argparse.ArgumentParser, make: Any) -> None:
    """End ``parser``'s help with ``make()`` (as written: RawDescriptionHelpFormatter; None: no epilog), made when
    the help is first shown, not each time the parser is built (what it reads may import every metric module)."""
    formats = parser.format_help

    def format_help() -> str:
        if parser.epilog is None:
            epilog = make()
            if epilog is not None:
                parser.formatter_class = argparse.RawDescriptionHelpFormatter
                parser.epilog = epilog
        return formats()

    parser.format_help = format_help  # type: ignore[method-assign]


class _Backends:
    """``--judge-backend``'s choices: the registered backends and the installed plugins', read from the registry
    when a value is checked or the help shown. The registry reads the plugins' entry points and the backends import
    asyncio: 0.03 s that a run without a judge (a TREC run) need not pay."""

    def _names(self) -> tuple[str, ...]:
        from genevals.judge.registry import AUTO, backend_names

        return (AUTO,) + backend_names()

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self):
        return iter(self._names())


def _backend_help() -> str:
    from genevals.judge.registry import backend_names, described

    shown = "; ".join(described(name) for name in backend_names()).replace("%", "%%")  # argparse formats with %
    return ("auto (the default): an OpenAI-compatible server when --judge-base-url, OPENAI_BASE_URL or "
            "OPENAI_API_KEY is set; else llama.cpp in process when --judge-model names a .gguf; with none of these, "
            "no LLM is called for faithfulness and the RAG judges (they run their offline variants: the local "
            "grounding checker, MiniLM similarity) and llm_rubric runs the packaged Gemma 3 270M (smoke runs only). "
            "The backends: " + shown)


def _repeats_help() -> str:
    from genevals.judge.config import MAX_REPEATS

    return ("ask the judge each question N times (seeds seed..seed+N-1, claims shuffled) and report majority "
            "verdicts, the flip rate and an interval with the judge's variance "
            f"(default 1, at most {MAX_REPEATS}; needs --judge-temperature above 0 for llama.cpp and scripted "
            "judges)")


def judge_unavailable() -> Any:
    """:class:`genevals.judge.preflight.JudgeUnavailable`, for an except clause that does not import the judge for
    a run that has none: when its module is not loaded, no judge ran and nothing is caught (``except ():``)."""
    module = sys.modules.get("genevals.judge.preflight")
    return () if module is None else module.JudgeUnavailable


def add_judge_options(parser: argparse.ArgumentParser, batch: bool = False) -> None:
    """The LLM judge's options, with the same names in every subcommand that judges (``batch``: and
    ``--judge-batch``, where a run folder keeps the batch ids)."""
    judge = parser.add_argument_group("LLM judge")
    judge.add_argument("--judge-backend", choices=_Backends(), default=None, action=LazyHelp,
                       make_help=_backend_help)
    judge.add_argument("--judge-base-url", default=None, help="OpenAI-compatible endpoint (or OPENAI_BASE_URL)")
    judge.add_argument("--judge-model", default=None, help="model name, or a path to a .gguf for llama.cpp")
    judge.add_argument("--judge-concurrency", "--concurrency", dest="judge_concurrency", type=option_type(_judge_setting("concurrency")), default=None,
                       help="judge requests in flight (default 4)")
    judge.add_argument("--judge-fixed-concurrency", action="store_true",
                       help="keep --judge-concurrency fixed (by default it halves on timeouts and 429s and "
                            "recovers as requests succeed)")
    judge.add_argument("--judge-retries", type=option_type(_judge_setting("max_retries")), default=None, help="retries on 429/5xx/timeouts (default 4)")
    judge.add_argument("--judge-timeout", type=option_type(_judge_setting("timeout")), default=None, help="seconds per request (default 60; 300 for a server on this machine)")
    judge.add_argument("--judge-seed", type=option_type(_judge_setting("seed")), default=None, help="sampling seed sent to the judge (default 0)")
    judge.add_argument("--judge-repeats", type=option_type(_judge_setting("repeats")), default=None, metavar="N",
                       action=LazyHelp, make_help=_repeats_help)
    judge.add_argument("--judge-temperature", type=option_type(_judge_setting("temperature")), default=None,
                       help="sampling temperature sent to the judge (default 0)")
    judge.add_argument("--judge-max-tokens", type=option_type(_judge_setting("max_tokens")), default=None, help="cap on each reply's tokens (default: none; 512 for a server on this machine)")
    judge.add_argument("--judge-n-ctx", type=option_type(_judge_setting("n_ctx")), default=None, help="llama.cpp context window (default 4096)")
    judge.add_argument("--judge-cache", default=None, help="cache folder (default ~/.cache/genevals/judge)")
    judge.add_argument("--no-judge-cache", action="store_true", help="do not read or write the judge cache")
    judge.add_argument("--judge-prices", type=json_file, default=None,
                       help='JSON file: {"MODEL": {"input_per_1k": X, "output_per_1k": Y}}')
    judge.add_argument("--context-token-budget", type=option_type(_judge_setting("context_token_budget")), default=None, help="tokens of context per call")
    judge.add_argument("--dry-run", action="store_true", help="estimate judge tokens and cost; call nothing")
    if batch:
        judge.add_argument("--judge-batch", action="store_true",
                           help="send the judge requests through the OpenAI Batch API: about half the price, "
                                "answers within 24 h; the batch ids are kept in --out, so the same command resumes "
                                "them")
    judge.add_argument("--judge-max-claims", "--max-claims", dest="judge_max_claims",
                       type=option_type(declared("faithfulness", "max_claims")), default=None,
                       help="faithfulness: claims per answer (default 12)")
    judge.add_argument("--judge-worked-example", "--worked-example", dest="judge_worked_example",
                       choices=("auto", "yes", "no"), default="auto",
                       help="faithfulness: include the worked example in the prompts (auto: not for the tiny "
                            "packaged model)")
    judge.add_argument("--max-judge-errors", type=share, default=0.05, metavar="SHARE",
                       help="exit 3 when more than this share of judged samples end in judge_error or "
                            "parse_error (default 0.05; results are written first)")
    judge.add_argument("--no-preflight", action="store_true",
                       help="skip the one test request that checks the judge before scoring")


_JUDGE_FIELDS = {"judge_backend": "backend", "judge_base_url": "base_url", "judge_model": "model",
                 "judge_concurrency": "concurrency", "judge_retries": "max_retries", "judge_timeout": "timeout",
                 "judge_seed": "seed", "judge_max_tokens": "max_tokens", "judge_n_ctx": "n_ctx",
                 "judge_repeats": "repeats", "judge_temperature": "temperature",
                 "judge_cache": "cache_dir", "judge_prices": "prices", "context_token_budget": "context_token_budget"}


def judge_config(args: argparse.Namespace, **extra: Any):
    """The :class:`~genevals.judge.config.JudgeConfig` the options of :func:`add_judge_options` describe
    (``extra``: more fields, e.g. from ``--judge-option``). ValueError for a bad value, naming its option
    (``--judge-concurrency must be at least 1, got 0``), not the field the option fills."""
    from genevals.judge.config import JudgeConfig, JudgeConfigError

    options = {field: getattr(args, name) for name, field in _JUDGE_FIELDS.items()
               if getattr(args, name, None) is not None}
    if getattr(args, "no_judge_cache", False):
        options["cache"] = False
    if getattr(args, "judge_fixed_concurrency", False):
        options["adaptive_concurrency"] = False
    if getattr(args, "dry_run", False):
        options["dry_run"] = True
    if getattr(args, "judge_batch", False):
        options["batch"] = True
    options.update(extra)
    try:
        return JudgeConfig.from_options(options)
    except JudgeConfigError as exc:
        flags = {field: "--" + name.replace("_", "-") for name, field in _JUDGE_FIELDS.items()
                 if getattr(args, name, None) is not None and exc.field not in extra}
        if exc.field not in flags:
            raise
        raise ValueError(f"{flags[exc.field]}: {exc.problem}") from None


def faithfulness_options(args: argparse.Namespace) -> dict[str, Any]:
    """The faithfulness judge's own settings (claims per answer, worked example) from the judge options."""
    options: dict[str, Any] = {}
    if getattr(args, "judge_max_claims", None) is not None:
        options["max_claims"] = args.judge_max_claims
    if getattr(args, "judge_worked_example", "auto") != "auto":
        options["worked_example"] = args.judge_worked_example == "yes"
    return options


def add_judge_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--judge-option", action="append", type=key_value, default=[], metavar="KEY=VALUE",
                        help="any other judge setting (a JudgeConfig field, or a faithfulness setting such as "
                             "fuzzy_threshold); the value is read as JSON when it parses; repeatable")


def judge_option_split(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """``--judge-option`` values as (judge settings: JudgeConfig fields and backend settings, faithfulness
    settings); ValueError naming an unknown key with a did-you-mean."""
    if not getattr(args, "judge_option", None):  # a run without the option imports no faithfulness (judge client)
        return {}, {}
    from genevals.judge.config import SETTINGS, all_backend_settings
    from genevals.metrics.faithfulness.faithfulness import Faithfulness
    from genevals.settings import did_you_mean

    fields = {s.name for s in SETTINGS}
    backends = {s.name: name for name, declared in all_backend_settings().items() for s in declared}
    judged = {s.name for s in Faithfulness.SETTINGS}
    config, metric = {}, {}
    for key, value in args.judge_option:
        if key in fields or key in backends:
            config[key] = value
        elif key in judged:
            metric[key] = value
        else:
            known = fields | set(backends) | judged
            raise ValueError(f"--judge-option {key}: unknown judge setting{did_you_mean(key, known)} "
                             f"(judge: {', '.join(sorted(fields))}; backends: "
                             f"{', '.join(f'{k} ({v})' for k, v in sorted(backends.items()))}; faithfulness: "
                             f"{', '.join(sorted(judged))}; `genevals metrics judge` lists them)")
    return config, metric
