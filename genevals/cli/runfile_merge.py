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
    for family, key, value in getattr(args, "set_settings", None) or ():  # a --set wins, even at the default
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


def print_config(args: argparse.Namespace, build: Callable[[argparse.Namespace], dict],
                 effective: dict[str, Any] | None = None) -> int:
    """Print every setting of the run as ``key = value  # source`` (TOML-like) and return 0.

    A value is the one the run uses: ``effective`` holds those the run works out when none is given (the bootstrap
    seed). Where a flag and the run file's ``[options.FAMILY]`` disagree on a metric setting, both lines say which
    wins (a flag, ``--set`` over an older flag such as ``--stem``); an older flag left at its default says that the
    file's setting is used instead."""
    parser_names = args.runfile_names
    options, defaults = metric_options(args, build), build(args.runfile_baseline)
    loaded = getattr(args, "runfile", None)
    baseline = vars(args.runfile_baseline)
    sources = loaded.sources if loaded is not None else {}
    feeds = _feeds(build, args.runfile_baseline)
    origin: dict[str, str] = {}  # dest -> where its value came from
    print(f"# run file: {loaded.path if loaded is not None else 'none'}")
    for dest, value in vars(args).items():
        if dest in OWN or dest in _ADDED:
            continue
        if loaded is not None and dest in loaded.defaults and value == loaded.defaults[dest]:
            origin[dest] = sources[dest]
        else:
            origin[dest] = "default" if value == baseline.get(dest) else "flag"
        shown = (effective or {}).get(dest, value) if value is None else value
        print(f"{parser_names.get(dest, dest)} = {_shown(shown)}  # {origin[dest]}"
              f"{_flag_outcome(dest, origin[dest], feeds, options, defaults, loaded, args)}")
    for family in sorted(options):
        for key, value in options[family].items():
            print(f"options.{family}.{key} = {_shown(value)}  # "
                  f"{_setting_source(family, key, value, feeds, origin, defaults, loaded, args)}")
    for name, value in (loaded.judge.items() if loaded is not None else ()):
        shown = _shown(env_name_shown(value) if name == "api_key_env" else value)
        print(f"judge.{name} = {shown}  # {sources.get('judge.' + name, loaded.path)}")
    served = _judge_served(args)
    if served:
        print(served)
    return 0


#: values a flag is set to, to find the metric settings it feeds (the first that ``build`` takes without error)
_PROBES = ("probe", 7, ["probe"])


def _feeds(build: Callable[[argparse.Namespace], dict], baseline: argparse.Namespace) -> dict[str, set[tuple[str, str]]]:
    """Each flag -> the metric settings ``(family, key)`` it sets: those whose value changes with the flag's
    (``stem`` -> rouge.use_stemmer), found by setting the flag alone; no table to keep in step with ``build``."""
    plain = build(baseline)
    found: dict[str, set[tuple[str, str]]] = {}
    for dest, default in vars(baseline).items():
        if dest in OWN or dest in _ADDED or dest in ("set_settings", "judge_option"):  # said on their own lines
            continue
        for probe in ((not default,) if isinstance(default, bool) else _PROBES):
            try:
                changed = build(argparse.Namespace(**{**vars(baseline), dest: probe}))
            except Exception:  # noqa: BLE001 - a probe of the wrong type: try the next
                continue
            keys = {(f, k) for f in set(changed) | set(plain) for k in set(changed.get(f, {})) | set(plain.get(f, {}))
                    if changed.get(f, {}).get(k, _ABSENT) != plain.get(f, {}).get(k, _ABSENT)}
            if keys:
                found[dest] = keys
                break
    return found


_ABSENT = object()


def _set_by_set(args: argparse.Namespace, family: str, key: str) -> Any:
    """The value the last ``--set FAMILY.KEY=VALUE`` gives, or _ABSENT."""
    given = [v for f, k, v in getattr(args, "set_settings", None) or () if (f, k) == (family, key)]
    return given[-1] if given else _ABSENT


def _file_setting(loaded: Any, family: str, key: str) -> tuple[Any, str]:
    """The run file's ``[options.FAMILY] KEY`` and its line, or (_ABSENT, "")."""
    if loaded is None or key not in loaded.options.get(family, {}):
        return _ABSENT, ""
    return loaded.options[family][key], loaded.sources[f"options.{family}.{key}"]


def _setting_source(family: str, key: str, value: Any, feeds: dict, origin: dict[str, str], defaults: dict,
                    loaded: Any, args: argparse.Namespace) -> str:
    """Where a metric setting's value came from, and what it won over: ``flag (--cutoffs), wins over
    genevals.toml:8's [1, 5]``."""
    names = args.runfile_names
    file_value, line = _file_setting(loaded, family, key)
    if _set_by_set(args, family, key) is not _ABSENT:
        source = "flag (--set)"
    else:
        setters = [dest for dest, keys in feeds.items() if (family, key) in keys and origin.get(dest) != "default"]
        if setters and file_value is not _ABSENT and value == file_value:
            return line  # the file and the flag agree
        if setters:
            dest = setters[0]
            source = f"flag (--{names.get(dest, dest)})" if origin[dest] == "flag" else \
                f"{origin[dest]} ({names.get(dest, dest)})"
        elif file_value is not _ABSENT:
            return line
        else:
            return "default" if defaults.get(family, {}).get(key, _ABSENT) == value else "flag"
    if file_value is not _ABSENT and file_value != value:
        source += f", wins over {line}'s {_shown(file_value)}"
    return source


def _flag_outcome(dest: str, source: str, feeds: dict, options: dict, defaults: dict, loaded: Any,
                  args: argparse.Namespace) -> str:
    """For a flag that sets metric settings: "" when the run uses what it says; else which setting wins over it
    (a ``--set``; the run file's ``[options]`` line when the flag is left at its default)."""
    for family, key in sorted(feeds.get(dest, ())):
        used = options.get(family, {}).get(key, _ABSENT)
        given = _set_by_set(args, family, key)
        if source != "default" and given is not _ABSENT:
            return f", not used: --set {family}.{key}={_shown(given)} wins"
        file_value, line = _file_setting(loaded, family, key)
        if source != "default" and file_value is not _ABSENT and used != file_value:
            return f", wins over options.{family}.{key} = {_shown(file_value)} at {line}"
        if source == "default" and file_value is not _ABSENT and used == file_value \
                and file_value != defaults.get(family, {}).get(key, _ABSENT):
            return f", not given: options.{family}.{key} = {_shown(file_value)} from {line} is used"
    return ""


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

