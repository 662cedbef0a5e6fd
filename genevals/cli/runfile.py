"""``genevals run -c genevals.toml [--profile NAME]``: a run kept in a file instead of a long command line.

Where the file comes from: ``-c/--config FILE``; else ``genevals.toml`` in the working directory; else the
``[tool.genevals]`` table of the nearest ``pyproject.toml`` from the working directory upwards (the search stops at
the first pyproject.toml, with or without the table). A file found without ``-c`` is named on stderr;
``--no-config`` ignores them all.

The keys (:data:`API_KEYS`): the Python API's argument names (``data``, ``metrics``, ``column_map``, ``on_error``,
``strict``, ``out_dir``, ``resume``, ``workers``, ``seed``, ``language``, ``history_tokens``), the tables ``[options.FAMILY]`` (each
metric family's settings, the ``options`` of :func:`genevals.evaluate`) and ``[judge]`` (JudgeConfig's fields; a
key only as ``api_key_env = "NAME"``, the variable holding it, since secrets never reach a file), and every other
option of ``genevals run`` under its long name, with dashes or underscores (``fail-under = ["rougeL=0.3"]``,
``no_history = true``). ``[profiles.NAME]`` tables hold named runs, merged over the top level by ``--profile``.

Precedence: an option given on the command line, then the profile, then the file's top level, then the default.
The file's values become the parser's defaults, so a flag always wins; a repeatable flag (``--map``,
``--fail-under``, ``--run``) replaces the file's list rather than adding to it. Paths are read from the working
directory, as on the command line. A bad file is exit 2 with a message naming the file, the line and the key.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from genevals.cli.runfile_lines import lines_of
from genevals.cli.runfile_values import RunFileError, convert, type_name
from genevals.quote import clip

#: the API's argument names -> the dest of the ``genevals run`` option that says the same
API_KEYS = {"data": "input", "metrics": "metrics", "column_map": "map", "on_error": "on_error", "strict": "strict",
            "out_dir": "out", "resume": "resume", "workers": "workers", "seed": "seed", "language": "language",
            "history_tokens": "history_tokens"}
#: tables, not options
TABLES = ("options", "judge", "profiles")
#: API arguments the command line has no use for (a file cannot hold a callable or rows)
API_ONLY = ("chunk_size", "keep_samples", "progress", "meta")
#: the run file's own options, which a file cannot set
OWN = ("config", "profile", "print_config", "no_config", "help", "handler", "command")
#: the files found without -c, in this order
FILE_NAME, PYPROJECT = "genevals.toml", "pyproject.toml"
#: what a file may weigh: a run file is a few hundred bytes
MAX_BYTES = 1 << 20


@dataclass
class Loaded:
    """A run file read and checked: the option defaults it sets (dest -> value), the metric options and judge
    fields it sets, and where each came from (a key as printed -> ``file:line``)."""

    path: str
    defaults: dict[str, Any] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    judge: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    note: str | None = None


def add_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("run file")
    group.add_argument("-c", "--config", default=None, metavar="FILE",
                       help="read the run's settings from a TOML file (flags given here win); default: "
                            "./genevals.toml, else [tool.genevals] in the nearest pyproject.toml")
    group.add_argument("--profile", default=None, metavar="NAME", help="the file's [profiles.NAME] run")
    group.add_argument("--no-config", action="store_true", help="read no genevals.toml or pyproject.toml")
    group.add_argument("--print-config", action="store_true",
                       help="print the settings the run uses, each with where it came from (and which of a flag "
                            "and the file wins where they disagree), and exit")


def hook(parser: argparse.ArgumentParser) -> None:
    """Make ``parser`` (``genevals run``'s) read the run file before it parses: its values become the parser's
    defaults. The subcommand's own parse is the one place that sees both the file options and the flags."""
    parse = parser.parse_known_args

    def parse_known_args(args=None, namespace=None):
        arg_strings = list(sys.argv[1:] if args is None else args)
        pre = type(parser)(prog=parser.prog, add_help=False)  # its usage errors read as the subcommand's
        add_options(pre)
        wanted, _ = pre.parse_known_args(arg_strings)
        first: dict[str, Any] = {}
        for action in parser._actions:  # --fail-under and --fail-over share a dest; the first one's default holds
            if action.dest not in OWN:
                first.setdefault(action.dest, action.default)
        baseline = argparse.Namespace(**first)
        loaded, problem = None, None
        try:
            loaded = load(parser, wanted.config, wanted.profile, wanted.no_config)
        except RunFileError as exc:
            problem = str(exc)
        if loaded is not None:
            parser.set_defaults(**loaded.defaults)
        parsed, rest = parse(arg_strings, namespace)
        if loaded is not None:
            for dest, value in loaded.defaults.items():  # a repeated flag replaces the file's list
                now = getattr(parsed, dest, None)
                if isinstance(value, list) and isinstance(now, list) and len(now) > len(value):
                    setattr(parsed, dest, now[len(value):])
        parsed.runfile, parsed.runfile_problem, parsed.runfile_baseline = loaded, problem, baseline
        parsed.runfile_names = names(parser._actions)
        return parsed, rest

    parser.parse_known_args = parse_known_args  # type: ignore[method-assign]


def names(parser_actions) -> dict[str, str]:
    """Each dest -> the long option name that sets it, as a run file writes it (``fail-under``)."""
    found: dict[str, str] = {}
    for action in parser_actions:
        longs = [o for o in action.option_strings if o.startswith("--")]
        if longs and action.dest not in found:
            found[action.dest] = longs[0][2:]
    return found


# -- finding and reading --------------------------------------------------------------------------------------

def find(cwd: Path | None = None) -> tuple[str, str | None] | None:
    """The file read without -c, and its table (``tool.genevals`` for a pyproject.toml), or None."""
    cwd = Path.cwd() if cwd is None else cwd
    if (cwd / FILE_NAME).is_file():
        return str(cwd / FILE_NAME), None
    for folder in (cwd, *cwd.parents):
        candidate = folder / PYPROJECT
        if candidate.is_file():
            return str(candidate), "tool.genevals"
    return None


def _toml() -> Any:
    """tomllib (Python 3.11+), else tomli when installed, else None."""
    try:
        import tomllib
    except ModuleNotFoundError:
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            return None
    return tomllib


def _read(path: str) -> tuple[dict[str, Any], list[str]]:
    from genevals import files

    try:
        data = files.read_limited(path, MAX_BYTES, "run file")
    except files.Refused as exc:
        raise RunFileError(f"{path}: {exc}") from None
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark, as Windows editors write, is no setting
    except UnicodeDecodeError as exc:
        raise RunFileError(f"{path}: not UTF-8 text (byte {exc.start}); a run file is TOML") from None
    tomllib = _toml()
    if tomllib is None:
        raise RunFileError(f"{path}: reading a run file needs Python 3.11 or later (or the tomli package)")
    try:
        return tomllib.loads(text), text.splitlines()
    except tomllib.TOMLDecodeError as exc:
        raise RunFileError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise RunFileError(f"{path}: not valid TOML: nested too deeply") from None


def _where(path: str, lines: dict[tuple[str, ...], int], key: tuple[str, ...]) -> str:
    for n in range(len(key), 0, -1):
        if key[:n] in lines:
            return f"{path}:{lines[key[:n]]}"
    return path


# -- checking ----------------------------------------------------------------------------------------------------

def _options_by_name(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Each option's long name without dashes-vs-underscores (``fail_under``) -> its action."""
    found = {}
    for action in parser._actions:
        if action.dest in OWN:
            continue
        for option in action.option_strings:
            if option.startswith("--"):
                found[option[2:].replace("-", "_")] = action
    return found


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        merged[key] = _merge(merged[key], value) if isinstance(value, dict) and isinstance(merged.get(key), dict) \
            else value
    return merged


def load(parser: argparse.ArgumentParser, config: str | None, profile: str | None, no_config: bool = False,
         cwd: Path | None = None) -> Loaded | None:
    """The run file's settings for ``parser``, or None when there is no file; RunFileError for a bad one (one
    found without -c says so: a broken pyproject.toml above the working directory must not look like a mystery)."""
    try:
        return _load(parser, config, profile, no_config, cwd)
    except RunFileError as exc:
        if config is None and not no_config:
            raise RunFileError(f"{exc} (read without -c; --no-config ignores it)") from None
        raise


def _load(parser: argparse.ArgumentParser, config: str | None, profile: str | None, no_config: bool,
          cwd: Path | None) -> Loaded | None:
    note, table_name = None, None
    if config is None:
        if no_config:
            if profile is not None:
                raise RunFileError("--profile: names a run in a run file, and --no-config reads none")
            return None
        found = find(cwd)
        if found is None:
            if profile is not None:
                raise RunFileError(f"--profile {profile}: no run file (give -c FILE, or add ./{FILE_NAME})")
            return None
        config, table_name = found
        if table_name is not None and _toml() is None:  # Python 3.10: a project's pyproject.toml is not ours
            return None
        note = f"settings from {config}" + (f" [{table_name}]" if table_name else "") + " (--no-config ignores it)"
    data, text_lines = _read(config)
    lines = lines_of(text_lines)
    prefix: tuple[str, ...] = ()
    if table_name is not None:
        data = data.get("tool", {}).get("genevals") if isinstance(data.get("tool"), dict) else None
        if data is not None and not isinstance(data, dict):
            raise RunFileError(f"{_where(config, lines, ('tool', 'genevals'))}: tool.genevals: expected a table, "
                               f"got {type_name(data)}")
        if data is None:
            if profile is not None:
                raise RunFileError(f"{config}: has no [tool.genevals] table, so no profile '{profile}'")
            return None
        prefix = ("tool", "genevals")
    profiles = data.get("profiles", {})
    if not isinstance(profiles, dict):
        raise RunFileError(f"{_where(config, lines, prefix + ('profiles',))}: profiles: expected a table of "
                           f"[profiles.NAME] tables, got {type_name(profiles)}")
    top = {k: v for k, v in data.items() if k != "profiles"}
    keys = {k: prefix + (k,) for k in top}
    if profile is not None:
        if profile not in profiles:
            from genevals.suggest import did_you_mean

            there = ", ".join(sorted(profiles)) or "none"
            raise RunFileError(f"{config}: --profile {clip(profile)}: no [profiles.{clip(profile)}] table"
                               f"{did_you_mean(clip(profile), profiles)} (profiles: {clip(there, 400)})")
        chosen = profiles[profile]
        if not isinstance(chosen, dict):
            raise RunFileError(f"{_where(config, lines, prefix + ('profiles', profile))}: profiles.{profile}: "
                               f"expected a table, got {type_name(chosen)}")
        if "profiles" in chosen:
            raise RunFileError(f"{_where(config, lines, prefix + ('profiles', profile))}: profiles.{profile}: "
                               "a profile cannot hold profiles")
        top = _merge(top, chosen)
        keys.update({k: prefix + ("profiles", profile, k) for k in chosen})
    loaded = Loaded(path=config, note=note)
    by_name = _options_by_name(parser)
    for key, value in top.items():
        where = _where(config, lines, keys[key])

        def fail(problem: str, key: str = key, where: str = where) -> RunFileError:
            return RunFileError(f"{where}: {clip(key)}: {problem}")

        if key == "options":
            _options(loaded, value, config, lines, keys[key], fail)
        elif key == "judge":
            _judge(loaded, value, config, lines, keys[key], fail)
        elif key in API_ONLY:
            raise fail("an argument of genevals.evaluate that the command line has no use for")
        elif key == "api_key" or key == "judge_api_key":
            raise fail(_SECRET)
        elif (action := _action(parser, by_name, key)) is not None:
            if key == "on_error" and value == "raise":
                value = "stop"
            twin = next((k for k in top if k != key and _action(parser, by_name, k) is action), None)
            if twin is not None:
                raise fail(f"sets the same option as {twin}; keep one of them")
            loaded.defaults[action.dest] = convert(action, value, fail)
            loaded.sources[action.dest] = where
        else:
            from genevals.suggest import did_you_mean

            known = sorted({*API_KEYS, *TABLES, *(n.replace("_", "-") for n in by_name)})
            raise fail(f"unknown key{did_you_mean(clip(key), known)} (keys: the genevals.evaluate arguments "
                       f"{', '.join(API_KEYS)}; the tables [options.FAMILY], [judge], [profiles.NAME]; or any "
                       "`genevals run` option by its long name, e.g. fail-under)")
    return loaded


def _action(parser: argparse.ArgumentParser, by_name: dict[str, argparse.Action], key: str):
    """The option a top-level key sets: an API argument's, or the option of that long name; None for neither."""
    if key in API_KEYS:
        return next(a for a in parser._actions if a.dest == API_KEYS[key])
    return by_name.get(key.replace("-", "_"))


_SECRET = ("a key is never kept in a file; put it in an environment variable and name the variable: "
           "[judge] api_key_env = \"OPENAI_API_KEY\"")


def _options(loaded: Loaded, value: Any, path: str, lines: dict, key: tuple[str, ...], fail) -> None:
    if not isinstance(value, dict):
        raise fail(f"expected a table of [options.FAMILY] tables, got {type_name(value)}")
    from genevals.registry import families
    from genevals.suggest import did_you_mean

    known = [cls.family for cls in families()]
    for family, settings in value.items():
        where = _where(path, lines, key + (family,))
        if family not in known:
            raise RunFileError(f"{where}: options.{clip(family)}: unknown metric family"
                               f"{did_you_mean(clip(family), known)} (families: {', '.join(known)})")
        if not isinstance(settings, dict):
            raise RunFileError(f"{where}: options.{family}: expected a table of settings, got "
                               f"{type_name(settings)}")
        _check_settings(family, settings, lambda name: _where(path, lines, key + (family, name)))
        loaded.options[family] = dict(settings)
        for name in settings:
            loaded.sources[f"options.{family}.{name}"] = _where(path, lines, key + (family, name))


def _check_settings(family: str, settings: dict[str, Any], where: Callable[[str], str]) -> None:
    """Each setting checked by the one checker against the family's declarations, so a misspelt name or a value
    out of range is said with its line here, not later without the file."""
    from genevals import settings as declared
    from genevals.registry import load_family

    owned = load_family(family).SETTINGS
    for name, value in settings.items():
        try:
            declared.check(declared.find(owned, clip(name), f"options.{family}"), value, f"options.{family}.{name}")
        except ValueError as exc:
            raise RunFileError(f"{where(name)}: {exc}") from None


def _judge(loaded: Loaded, value: Any, path: str, lines: dict, key: tuple[str, ...], fail) -> None:
    from genevals.judge.config import SETTINGS, JudgeConfig, JudgeConfigError, all_backend_settings
    from genevals.judge.redact import env_name_problem
    from genevals.suggest import did_you_mean

    if not isinstance(value, dict):
        raise fail(f"expected a table of judge settings, got {type_name(value)}")
    fields = [s.name for s in SETTINGS]
    fields += [s.name for declared in all_backend_settings().values() for s in declared if s.name not in fields]
    settings = dict(value)
    for name in settings:
        where = _where(path, lines, key + (name,))
        if name == "api_key":
            raise RunFileError(f"{where}: judge.api_key: {_SECRET}")
        if name != "api_key_env" and name not in fields:
            raise RunFileError(f"{where}: judge.{clip(name)}: unknown judge setting"
                               f"{did_you_mean(clip(name), fields)} "
                               f"(settings: {', '.join(fields)}, api_key_env)")
        loaded.sources[f"judge.{name}"] = where
    env = settings.pop("api_key_env", None)
    if env is not None and (not isinstance(env, str) or not env):
        raise RunFileError(f"{_where(path, lines, key + ('api_key_env',))}: judge.api_key_env: expected the name "
                           f"of an environment variable, got {type_name(env)}")
    if env is not None and env_name_problem(env):
        raise RunFileError(f"{_where(path, lines, key + ('api_key_env',))}: judge.api_key_env: "
                           f"{env_name_problem(env)}")
    try:
        JudgeConfig.from_options(settings)
    except JudgeConfigError as exc:
        raise RunFileError(f"{_where(path, lines, key + (exc.field,))}: judge.{exc.field}: {exc.problem}") from None
    except (TypeError, ValueError) as exc:
        raise RunFileError(f"{_where(path, lines, key)}: judge: {exc}") from None
    if env is not None:
        settings["api_key_env"] = env
    loaded.judge = settings
