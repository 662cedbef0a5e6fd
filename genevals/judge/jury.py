"""A jury: several judges, each a whole :class:`~genevals.judge.config.JudgeConfig` with a name and a weight.

Every judge-backed metric of a run scores each sample once per judge (concurrently, each judge with its own
client, cache, limits and cost) and combines their verdicts (:mod:`genevals.metrics.judging.jury`). A jury is
given as ``--jury FILE`` (TOML, YAML or JSON) or ``judge=[JudgeConfig(...), {...}, ...]`` in the API:

    # jury.toml
    [[judge]]
    name = "small"
    base_url = "http://127.0.0.1:8080/v1"
    model = "qwen2.5-7b"

    [[judge]]
    name = "large"
    base_url = "https://api.openai.com/v1"
    model = "gpt-4o-mini"
    api_key_env = "OPENAI_API_KEY"
    weight = 2

Each entry takes the keys of the ``--judge-*`` options (every :data:`~genevals.judge.config.SETTINGS` name and
the backend's own settings), ``name`` (default: its model, else ``judge1``...), ``weight`` (default 1, a number
above 0) and ``api_key_env`` (the environment variable holding its key: keys are never written in files). The
command line's judge options are each entry's defaults; the entry's own keys win. A JSON or YAML file is a list
of entries, or an object with a ``judges`` (or ``judge``) list.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from genevals.judge.config import JudgeConfig, JudgeConfigError, all_backend_settings
from genevals.judge.redact import env_name_problem, env_name_shown
from genevals.quote import clip
from genevals.settings import did_you_mean, shown

#: the most judges in one jury: each is every judge request of the run again
MAX_JUDGES = 16
#: a jury file's largest size: 16 judges of a dozen settings are some 5 KB
MAX_BYTES = 1 << 20
#: the most values a YAML jury file may hold, each counted as often as aliases repeat it
MAX_YAML_VALUES = 10_000
_OWN = ("name", "weight", "api_key_env")
#: the largest weight: weights are relative, and a million to one is already one judge deciding; past it, the
#: weighted sums overflowed to infinity and wrote NaN into results.jsonl
MAX_WEIGHT = 1e6


class JuryError(ValueError):
    """A jury that cannot work: the message names the file (or ``judge``), the entry and the key."""


@dataclass(frozen=True)
class Juror:
    name: str
    config: JudgeConfig
    weight: float = 1.0


@dataclass(frozen=True)
class Jury:
    """The judges, in the order given (the first also splits answers into claims, so every judge verifies the
    same claims)."""

    jurors: tuple[Juror, ...]

    def __post_init__(self) -> None:
        if len(self.jurors) < 2:
            raise JuryError(f"a jury needs at least 2 judges, got {len(self.jurors)} (use the --judge-* options "
                            "for one)")

    @property
    def names(self) -> list[str]:
        return [j.name for j in self.jurors]

    @property
    def weights(self) -> dict[str, float]:
        return {j.name: j.weight for j in self.jurors}

    @property
    def configured(self) -> bool:
        """Always: each judge names one (:func:`juror` refuses one that does not), so a jury never quietly
        becomes the offline checker."""
        return True

    @property
    def dry_run(self) -> bool:
        return any(j.config.dry_run for j in self.jurors)

    @property
    def concurrency(self) -> int:
        return sum(j.config.concurrency for j in self.jurors)

    def map(self, change: Callable[[JudgeConfig], JudgeConfig]) -> "Jury":
        """The same jury with ``change`` applied to each judge's config (the command line settles each
        judge's model and preflight so)."""
        return Jury(tuple(Juror(j.name, change(j.config), j.weight) for j in self.jurors))

    def with_options(self, **changes: Any) -> "Jury":
        return self.map(lambda config: config.with_options(**changes))

    @property
    def redactor(self) -> Any:
        """Every judge's secrets (its key, its URL's credentials) in one redactor, for what the run writes
        outside the judges' own results (the run history)."""
        from genevals.judge.redact import Redactor

        return Redactor([s for j in self.jurors
                         for s in Redactor.for_judge(j.config.api_key, j.config.base_url).secrets])

    def describe(self) -> list[dict[str, Any]]:
        """Each judge as summary.json records it (no key, the URL without credentials)."""
        from genevals.judge.config import public_url

        return [{"name": j.name, "weight": j.weight, "backend": j.config.backend, "model": j.config.model,
                 "base_url": public_url(j.config.base_url)} for j in self.jurors]


def _base_fields(base: JudgeConfig | None) -> dict[str, Any]:
    if base is None:
        return {}
    skip = {"provider", "options"}
    out = {f.name: getattr(base, f.name) for f in fields(base) if f.name not in skip}
    out.update(base.options)
    return out


def juror(entry: Any, index: int, where: str, base: JudgeConfig | None = None,
          environ: Mapping[str, str] | None = None) -> Juror:
    """Entry ``index`` (0-based; messages count from 1) of a jury read from ``where``, over ``base``'s fields."""
    at = f"{where}: judge {index + 1}"
    environ = os.environ if environ is None else environ
    if isinstance(entry, JudgeConfig):
        return Juror(entry.model or f"judge{index + 1}", entry)
    if not isinstance(entry, Mapping):
        raise JuryError(f"{at}: expected a table of judge settings (backend, model, base_url...), got "
                        f"{type(entry).__name__} {shown(entry)}")
    entry = dict(entry)
    known = [f.name for f in fields(JudgeConfig) if f.name not in ("provider", "options", "api_key")]
    known += [s.name for declared in all_backend_settings().values() for s in declared] + list(_OWN)
    for key in entry:
        if not isinstance(key, str) or key not in known:
            if key == "api_key":
                raise JuryError(f"{at}: key 'api_key': keys are not written in jury files; name the environment "
                                "variable that holds it with api_key_env")
            raise JuryError(f"{at}: unknown key '{key}'{did_you_mean(str(key), known)} (keys: {', '.join(known)})")
    name = entry.pop("name", None)
    weight = entry.pop("weight", 1.0)
    key_env = entry.pop("api_key_env", None)
    # NaN fails both comparisons; an int past a float's range compares without being converted
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not 0 < weight <= MAX_WEIGHT:
        raise JuryError(f"{at}: key 'weight': expected a number above 0 and at most {MAX_WEIGHT:,.0f}, got "
                        f"{shown(weight)}")
    settings = {**_base_fields(base), **entry}
    if key_env is not None:
        if not isinstance(key_env, str) or not key_env.strip():
            raise JuryError(f"{at}: key 'api_key_env': expected the name of an environment variable, got "
                            f"{shown(key_env)}")
        if env_name_problem(key_env):
            raise JuryError(f"{at}: key 'api_key_env': {env_name_problem(key_env)}")
        if key_env not in environ:
            raise JuryError(f"{at}: key 'api_key_env': the environment variable {env_name_shown(key_env)} is not set")
        settings["api_key"] = environ[key_env]
    elif base is not None and base.api_key is not None:
        settings["api_key"] = base.api_key
    try:
        config = JudgeConfig.from_options(settings)
    except JudgeConfigError as exc:
        raise JuryError(f"{at}: key '{exc.field}': {exc.problem}") from None
    except (TypeError, ValueError) as exc:
        raise JuryError(f"{at}: {exc}") from None
    if not config.configured:  # it would be the offline checker or the tiny packaged model, not a judge of a jury
        raise JuryError(f"{at}: names no judge: give it a base_url, a model or a backend (or set OPENAI_BASE_URL)")
    if name is None:
        name = config.model or f"judge{index + 1}"
    if not isinstance(name, str) or not name.strip() or "|" in name:
        raise JuryError(f"{at}: key 'name': expected a non-empty name without '|', got {shown(name)}")
    return Juror(name.strip(), config, float(weight))


def jury_of(entries: Iterable[Any], where: str = "judge", base: JudgeConfig | None = None,
            environ: Mapping[str, str] | None = None) -> Jury:
    """A jury from a list of entries (JudgeConfig objects, mappings, or :class:`Juror` objects)."""
    entries = list(entries)
    if len(entries) > MAX_JUDGES:
        raise JuryError(f"{where}: {len(entries)} judges; at most {MAX_JUDGES}")
    jurors = [e if isinstance(e, Juror) else juror(e, i, where, base, environ) for i, e in enumerate(entries)]
    seen: dict[str, int] = {}
    for i, j in enumerate(jurors):
        if j.name in seen:
            raise JuryError(f"{where}: judge {i + 1}: key 'name': '{j.name}' is already judge {seen[j.name] + 1}'s "
                            "name; give each judge its own name")
        seen[j.name] = i
    try:
        return Jury(tuple(jurors))
    except JuryError as exc:
        raise JuryError(f"{where}: {exc}") from None


def read_entries(path: str | Path) -> list[Any]:
    """The list of judge entries in a TOML, YAML or JSON file (by its suffix; TOML's ``[[judge]]`` tables)."""
    return _read(Path(path))[0]


def _lines_of(text: str, suffix: str) -> list[int]:
    """The 1-based line where each entry starts (TOML's ``[[judge]]`` headers, YAML's list items), for
    messages; [] where that is not known (JSON)."""
    if suffix == ".toml":
        return [i + 1 for i, line in enumerate(text.splitlines())
                if re.match(r"\s*\[\[\s*judges?\s*\]\]", line)]
    if suffix in (".yaml", ".yml"):
        import yaml

        try:
            node = _yaml_loader()(text).get_single_node()
        except Exception:
            return []
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if getattr(k, "value", None) in ("judge", "judges")), None)
        if isinstance(node, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in node.value]
    return []


class _TooLarge(ValueError):
    """A YAML file whose aliases expand past :data:`MAX_YAML_VALUES` values, at ``line``."""

    def __init__(self, line: int) -> None:
        super().__init__(f"line {line}: its aliases (*name) expand to more than {MAX_YAML_VALUES:,} values; a jury "
                         "file lists a few judges (write each out, or use fewer aliases)")


def _yaml_loader() -> Any:
    """PyYAML's safe loader, counting each value as often as aliases repeat it (an alias costs what it names):
    a "billion laughs" of a few hundred bytes, each level repeating the last nine times, is refused at the first
    value past :data:`MAX_YAML_VALUES`, before it is built or shown, while an anchor for shared settings
    (``<<: *defaults``) costs its few values each time."""
    import yaml

    class Loader(yaml.SafeLoader):
        def __init__(self, text: str) -> None:
            super().__init__(text)
            self.sizes: dict[int, int] = {}

        def compose_node(self, parent: Any, index: Any) -> Any:
            node = super().compose_node(parent, index)
            if id(node) not in self.sizes:  # an alias gives the anchored node again, already counted
                children = (node.value if isinstance(node, yaml.SequenceNode) else
                            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else ())
                size = 1 + sum(self.sizes.get(id(child), 1) for child in children)
                if size > MAX_YAML_VALUES:
                    raise _TooLarge(node.start_mark.line + 1)
                self.sizes[id(node)] = size
            return node

    return Loader


def _read(path: Path) -> tuple[list[Any], list[int]]:
    from genevals import files

    try:  # a FIFO would block the read and /dev/zero never end: refused before a byte is read
        data = files.read_limited(path, MAX_BYTES, "jury file (a jury is a few judges)")
    except files.Refused as exc:
        raise JuryError(f"{path}: {exc}") from None
    suffix = path.suffix.lower()
    try:
        text = data.decode("utf-8")
        if suffix == ".toml":
            import tomllib

            parsed: Any = tomllib.loads(text)
        elif suffix in (".yaml", ".yml"):
            loader = _yaml_loader()(text)
            try:
                parsed = loader.get_single_data()
            finally:
                loader.dispose()
        elif suffix == ".json":
            parsed = json.loads(text)
        else:
            raise JuryError(f"{path}: unknown jury file type {shown(suffix or '(none)')}; expected .toml, .yaml, "
                            ".yml or .json")
    except JuryError:
        raise
    except _TooLarge as exc:
        raise JuryError(f"{path}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise JuryError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise JuryError(f"{path}: line {exc.lineno}, column {exc.colno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise JuryError(f"{path}: not valid {suffix[1:].upper()}: nested too deeply") from None
    except Exception as exc:  # tomllib's and yaml's errors carry the line in their message
        raise JuryError(f"{path}: not valid {suffix[1:].upper()}: {clip(str(exc), 300)}") from None
    if isinstance(parsed, Mapping):
        extra = [k for k in parsed if k not in ("judge", "judges")]
        if extra:
            raise JuryError(f"{path}: unknown top-level key {shown(extra[0])}"
                            f"{did_you_mean(str(extra[0])[:100], ['judge'])}; "
                            "a jury file holds a list of judges ([[judge]] tables in TOML)")
        if "judge" in parsed and "judges" in parsed:  # which list to use would be a guess: one was silently lost
            raise JuryError(f"{path}: holds both 'judge' and 'judges'; a jury file holds one list of judges "
                            "(keep one of the two keys)")
        parsed = parsed.get("judge", parsed.get("judges"))
    if not isinstance(parsed, list):
        raise JuryError(f"{path}: expected a list of judges ([[judge]] tables in TOML, a list in JSON or YAML), "
                        f"got {type(parsed).__name__}")
    return parsed, _lines_of(text, suffix)


def load_jury(path: str | Path, base: JudgeConfig | None = None,
              environ: Mapping[str, str] | None = None) -> Jury:
    """The jury in ``path``; ``base`` (the command line's judge options) gives each entry's defaults."""
    entries, lines = _read(Path(path))
    try:
        return jury_of(entries, str(path), base, environ)
    except JuryError as exc:  # name the entry's line where the file says it
        found = re.match(rf"{re.escape(str(path))}: judge (\d+): ", str(exc))
        if found is None or int(found.group(1)) > len(lines):
            raise
        line = lines[int(found.group(1)) - 1]
        raise JuryError(f"{path}: line {line}: judge {found.group(1)}: {str(exc)[found.end():]}") from None


def as_jury(judge: Any) -> Jury | None:
    """``judge`` as a jury when it is one already or a list of judges (the API's ``judge=[...]``), else None."""
    if isinstance(judge, Jury):
        return judge
    if isinstance(judge, Sequence) and not isinstance(judge, (str, bytes)):
        return jury_of(judge, "judge")
    return None
