"""Settings as declarations: a :class:`Setting` says a setting's name, type, default, limits and help once, and
:func:`check` is the one checker every caller uses (the API's ``options``, ``--set`` on the command line, the
metric's own constructor). Modelled on ir_measures' ``SUPPORTED_PARAMS`` (``ParamInfo``) and inspect_ai's
``-M key=value``: the command line grows no per-setting flags, and ``genevals metrics NAME`` prints the table.

This room imports nothing else of genevals (an import-linter contract keeps it so): every layer may use it.
"""
from __future__ import annotations

import math
import numbers
import reprlib
from dataclasses import dataclass, field
from difflib import get_close_matches
from typing import Any, Callable, Iterable, Mapping, Sequence

from genevals.settings.numerals import NotANumeral, number_text, whole_text

#: the types a declaration may name; ``list`` holds ``item``s, ``dict`` maps text to text, ``object`` is checked
#: by the code that reads it (a grounding thresholds file or mapping)
TYPES = (bool, int, float, str, list, dict, object)


@dataclass(frozen=True)
class Setting:
    """One setting: ``type`` one of :data:`TYPES`; ``minimum``/``maximum`` bound a number (a list's items);
    ``choices`` the words a text may be; a ``default`` of None means "unset" (None is accepted)."""

    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None
    #: a list's item type
    item: type = int
    #: a family's own rule for a value already of the right type (rubric criterion names), raising ValueError
    rule: Callable[[Any], None] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise TypeError(f"setting {self.name}: type must be one of {', '.join(t.__name__ for t in TYPES)}")

    @property
    def type_name(self) -> str:
        return f"list[{self.item.__name__}]" if self.type is list else self.type.__name__

    @property
    def limits(self) -> str:
        """The limits in words ("1 to 1,000,000", "auto, chunk, doc"), or ""."""
        if self.choices:
            return ", ".join(self.choices)
        return _range(self.minimum, self.maximum) if (self.minimum, self.maximum) != (None, None) else ""


def _range(low: float | None, high: float | None) -> str:
    if high is None:
        return f"{low:,g} or more" if isinstance(low, float) else f"{low:,} or more"
    if low is None:
        return f"at most {high:,}"
    return f"from {low:,} to {high:,}"


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxdict, _SHORT.maxset = 4, 30, 30, 30, 30
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 200, 200, 40


def shown(value: Any) -> str:
    """``repr`` of a value, short: ``repr()`` of a 5,000-digit int is itself an error, and of a list that YAML
    aliases repeat a billion times never ends, so only what is shown is looked at (reprlib's bounds)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and not -10**20 < value < 10**20:
        return "a larger number"
    if isinstance(value, str):
        text = repr(value[:100])
    else:
        try:
            text = _SHORT.repr(value)
        except Exception:  # noqa: BLE001 -- an object whose __repr__ fails is still named
            text = f"a value of type {type(value).__name__}"
    return text if len(text) <= 80 else text[:77] + "..."


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """" (did you mean 'X'?)" for the closest known name, or one that contains ``word`` ("stem": use_stemmer)."""
    known, word = list(known), str(word)
    found = get_close_matches(word, known, n=1, cutoff=0.6)
    found = found or [k for k in known if len(word) >= 3 and word.lower() in k.lower()][:1]
    return f" (did you mean '{found[0]}'?)" if found else ""


def is_number(value: Any) -> bool:
    """A real number, numpy's included (np.int64 and np.float32 register as ``numbers.Real``; np.bool_ does
    not), and not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def finite(value: Any) -> bool:
    """``math.isfinite``, also for an integer past a double's range (a 400-digit grade): not finite, as nothing
    downstream (gains, means, JSON, the report) can take it as a number."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def whole(name: str, value: Any, minimum: int | None = 1, maximum: int | None = None) -> int:
    """An integer (not a bool, not 1.5; numpy's integers too) in [minimum, maximum], as an int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name}: expected a whole number, got {shown(value)}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name}: expected a whole number {_range(minimum, maximum)}, got {shown(value)}")
    return int(value)


def number(name: str, value: Any, minimum: float | None = None, maximum: float | None = None) -> float:
    """A finite real (not a bool, not a string) in [minimum, maximum], as a float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name}: expected a number, got {shown(value)}")
    try:
        value = float(value)
    except OverflowError:  # an int past a double's range
        raise ValueError(f"{name}: expected a finite number, got {shown(value)}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        low = "" if minimum is None else f"{minimum:g}"
        high = "" if maximum is None else f"{maximum:g}"
        raise ValueError(f"{name}: expected a number in [{low or '-inf'}, {high or 'inf'}], got {value:g}")
    return value


def flag(name: str, value: Any) -> bool:
    """A bool (numpy's too), not "no" (truthy) or 0."""
    if type(value).__name__ == "bool_":  # numpy.bool_, without importing numpy
        value = bool(value)
    if not isinstance(value, bool):
        raise ValueError(f"{name}: expected true or false, got {shown(value)}")
    return value


def check(setting: Setting, value: Any, name: str | None = None) -> Any:
    """``value`` as ``setting`` declares it, or a ValueError naming the setting (``name``: as the caller
    knows it, e.g. "rouge.use_stemmer"), the value and the limit."""
    value = _typed(setting, value, name or setting.name)
    if setting.rule is not None and value is not None:
        setting.rule(value)
    return value


def _typed(setting: Setting, value: Any, name: str) -> Any:
    if value is None and setting.default is None:
        return None
    kind = setting.type
    if kind is bool:
        return flag(name, value)
    if kind is int:
        return whole(name, value, setting.minimum, setting.maximum)  # type: ignore[arg-type]
    if kind is float:
        return number(name, value, setting.minimum, setting.maximum)
    if kind is str:
        if not isinstance(value, str):
            raise ValueError(f"{name}: expected text, got {shown(value)}")
        if setting.choices and value not in setting.choices:
            raise ValueError(f"{name}: unknown value {value!r}{did_you_mean(value, setting.choices)} "
                             f"(one of {', '.join(setting.choices)})")
        return value
    if kind is list:
        items = {int: "whole numbers", float: "numbers", str: "texts", bool: "true/false values"}[setting.item]
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple, range)):
            raise ValueError(f"{name}: expected a list of {items}, got {type(value).__name__}")
        if not value:
            raise ValueError(f"{name}: expected a list of {items}, got an empty list")
        item = Setting(name, setting.item, 0, "", setting.minimum, setting.maximum, setting.choices)
        return tuple(check(item, v, name) for v in value)
    if kind is dict:
        if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in value.items()):
            raise ValueError(f"{name}: expected a mapping of text to text, got {shown(value)}")
        return dict(value)
    return value  # object: the code that reads it checks it


def check_all(declared: Sequence[Setting], values: Mapping[str, Any]) -> dict[str, Any]:
    """Every value of ``values`` checked against ``declared``: an unknown key is a ValueError with a
    did-you-mean and the keys there are, a bad value one naming the key (the caller adds whose it is)."""
    by_name = {s.name: s for s in declared}
    out = {}
    for key, value in values.items():
        if key not in by_name:
            known = ", ".join(by_name) or "none"
            raise ValueError(f"unknown setting '{key}'{did_you_mean(key, by_name)} (settings: {known})")
        out[key] = check(by_name[key], value, key)
    return out


def find(declared: Sequence[Setting], key: str, owner: str) -> Setting:
    """The declaration named ``key``, or a ValueError naming ``owner.key`` with a did-you-mean."""
    for setting in declared:
        if setting.name == key:
            return setting
    known = ", ".join(s.name for s in declared) or "none"
    raise ValueError(f"{owner}.{key}: unknown setting{did_you_mean(key, [s.name for s in declared])} "
                     f"(settings of {owner}: {known})")


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def parse(setting: Setting, text: str, name: str | None = None) -> Any:
    """A command-line string as ``setting``'s type ("true"/"false", ints, floats, comma lists, NAME=TEXT
    pairs), then :func:`check`-ed; ValueError naming the setting otherwise. Numbers are plain ASCII decimals
    (:mod:`genevals.settings.numerals`: not ``1_000``, not ``١٢``)."""
    name = name or setting.name
    if setting.default is None and text.strip().lower() in ("none", "null", ""):
        return None
    kind = setting.type
    if kind is object:
        raise ValueError(f"{name}: cannot be set from the command line (the Python API's options take it)")
    if kind is list:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        item = Setting(name, setting.item, 0, "", setting.minimum, setting.maximum, setting.choices)
        return check(setting, [_scalar(item, p, name) for p in parts], name)
    if kind is dict:
        pairs = [p.partition("=") for p in text.split(",") if p.strip()]
        if any(not sep or not key.strip() for key, sep, _ in pairs):
            raise ValueError(f"{name}: expected NAME=TEXT pairs separated by commas, got {text!r}")
        return check(setting, {k.strip(): v.strip() for k, _, v in pairs}, name)
    return check(setting, _scalar(setting, text, name), name)


def _scalar(setting: Setting, text: str, name: str) -> Any:
    word = text.strip()
    if setting.type is bool:
        if word.lower() in _TRUE:
            return True
        if word.lower() in _FALSE:
            return False
        raise ValueError(f"{name}: expected true or false, got {text!r}")
    if setting.type is int:
        try:
            return whole_text(word)
        except NotANumeral as exc:
            raise ValueError(f"{name}: expected a whole number{_limits(setting)}, got {shown(text)}"
                             f"{exc.advice}") from None
    if setting.type is float:
        try:
            return number_text(word)
        except NotANumeral as exc:
            raise ValueError(f"{name}: expected a number{_limits(setting)}, got {shown(text)}{exc.advice}") from None
    return text


def _limits(setting: Setting) -> str:
    return f" {setting.limits}" if setting.limits else ""


def table(declared: Sequence[Setting]) -> list[str]:
    """One line per setting (name, type, default, limits, help), as ``genevals metrics NAME`` prints them."""
    lines = []
    for s in declared:
        limits = f" [{s.limits}]" if s.limits else ""
        lines.append(f"{s.name:<20} {s.type_name:<10} default {s.default!r}{limits}: {s.help}")
    return lines


__all__ = ["Setting", "check", "check_all", "find", "parse", "table", "whole", "number", "flag", "did_you_mean",
           "shown", "is_number", "finite", "whole_text", "number_text", "NotANumeral"]
