"""The run file's tables merged with the flags (a flag always wins), and ``--print-config``: the merged settings,
each with where it came from (``file:line``, ``flag`` or ``default``), every URL's password and query hidden."""
from __future__ import annotations

import argparse
import json
import os
from typing import Any, Callable

from genevals.cli.runfile import OWN
from genevals.judge.redact import env_name_shown, redact_urls

#: the JudgeConfig fields a boolean flag sets, and the flag's dest
_JUDGE_SWITCHES = {"cache": "no_judge_cache", "adaptive_concurrency": "judge_fixed_concurrency",
                   "dry_run": "dry_run"}
#: attributes the run file adds to the parsed arguments, which are not options
_ADDED = ("runfile", "runfile_problem", "runfile_baseline", "runfile_names")


def metric_options(args: argparse.Namespace, build: Callable[[argparse.Namespace], dict]) -> dict[str, dict]:
    """``build(args)`` (the flags' metric options) over the file's ``[options.FAMILY]`` tables: a setting the
    flags left at its default keeps the file's value."""
    built = build(args)
    loaded = getattr(args, "runfile", None)
    if loaded is None or not loaded.options:
        return built
    baseline = build(args.runfile_baseline)
    merged = {family: dict(settings) for family, settings in loaded.options.items()}
    for family, settings in built.items():
        for key, value in settings.items():
            given = key not in baseline.get(family, {}) or baseline[family][key] != value
            if given or key not in merged.get(family, {}):
                merged.setdefault(family, {})[key] = value
    return merged


def judge_fields(args: argparse.Namespace) -> dict[str, Any]:
    """The file's ``[judge]`` fields that no flag set, for ``judge_config(args, **fields)``; the key from
    ``api_key_env``'s variable. ValueError when that variable is not set."""
    from genevals.cli.common import _JUDGE_FIELDS

    loaded = getattr(args, "runfile", None)
    if loaded is None or not loaded.judge:
        return {}
    flagged = {name: dest for dest, name in _JUDGE_FIELDS.items()}
    fields: dict[str, Any] = {}
    for name, value in loaded.judge.items():
        if name in flagged and getattr(args, flagged[name], None) is not None:
            continue
        if name in _JUDGE_SWITCHES and getattr(args, _JUDGE_SWITCHES[name], False):
            continue
        if name == "api_key_env":
            if not os.environ.get(value):
                raise ValueError(f"{loaded.sources.get('judge.api_key_env', loaded.path)}: judge.api_key_env: "
                                 f"the environment variable {env_name_shown(value)} is not set")
            fields["api_key"] = os.environ[value]
            continue
        fields[name] = value
    return fields


def _shown(value: Any) -> str:
    """A setting's value as printed: JSON, with every URL's password, query and fragment hidden (a judge's or an
    OpenTelemetry backend's credentials: :func:`genevals.judge.redact.redact_urls`)."""
    if isinstance(value, tuple):
        value = list(value)
    return redact_urls(json.dumps(value, default=_plain, ensure_ascii=False))


def _plain(value: Any) -> str:
    """A threshold as it is written (``rougeL=0.3``; ``fail_over:x=0.1`` for the other kind: they share a list)."""
    if hasattr(value, "metric") and hasattr(value, "limit"):
        kind = getattr(value, "kind", "fail_under")
        return ("" if kind == "fail_under" else f"{kind}:") + f"{value.metric}={value.limit:g}"
    return str(value)


def print_config(args: argparse.Namespace, build: Callable[[argparse.Namespace], dict]) -> int:
    """Print every setting of the run as ``key = value  # source`` (TOML-like) and return 0."""
    parser_names = args.runfile_names
    options, defaults = metric_options(args, build), build(args.runfile_baseline)
    loaded = getattr(args, "runfile", None)
    baseline = vars(args.runfile_baseline)
    sources = loaded.sources if loaded is not None else {}
    print(f"# run file: {loaded.path if loaded is not None else 'none'}")
    for dest, value in vars(args).items():
        if dest in OWN or dest in _ADDED:
            continue
        if loaded is not None and dest in loaded.defaults and value == loaded.defaults[dest]:
            source = sources[dest]
        else:
            source = "default" if value == baseline.get(dest) else "flag"
        print(f"{parser_names.get(dest, dest)} = {_shown(value)}  # {source}")
    for family in sorted(options):
        for key, value in options[family].items():
            absent = object()
            file_value = loaded.options.get(family, {}).get(key, absent) if loaded is not None else absent
            if value == file_value:
                source = sources[f"options.{family}.{key}"]
            else:
                source = "default" if defaults.get(family, {}).get(key, absent) == value else "flag"
            print(f"options.{family}.{key} = {_shown(value)}  # {source}")
    for name, value in (loaded.judge.items() if loaded is not None else ()):
        shown = _shown(env_name_shown(value) if name == "api_key_env" else value)
        print(f"judge.{name} = {shown}  # {sources.get('judge.' + name, loaded.path)}")
    served = _judge_served(args)
    if served:
        print(served)
    return 0


def _judge_served(args: argparse.Namespace) -> str | None:
    """A comment line with what a judge server is given when no setting says (a timeout of null above is 60 s, or
    300 s for a server on this machine: :mod:`genevals.judge.local`); None without a judge server."""
    from genevals.cli.common import judge_config, judge_option_split

    try:
        judge = judge_config(args, **{**judge_fields(args), **judge_option_split(args)[0]})
        if judge.resolved_backend != "openai" and not judge.local_server:
            return None  # in process, or a backend of its own: no HTTP server to wait for
        stream = judge.options.get("stream")
    except ValueError:  # a bad judge setting: the run itself says which
        return None
    where = "a judge server on this machine" if judge.local_server else "a judge server elsewhere"
    cap = judge.reply_cap if judge.reply_cap is not None else "each call's own budget"
    return (f"# judge, as sent to {where}: timeout = {judge.request_timeout:g} s, max_tokens = {cap}, stream = "
            f"{json.dumps(judge.local_server if stream is None else bool(stream))}")

