"""A value each kind of :class:`genevals.settings.Setting` must refuse, for the tests that try every declaration
through every route (the API, the command line, the run file)."""
from __future__ import annotations

from genevals.settings import Setting


def bad(setting: Setting):
    """(a bad value for the API and the run file, a bad text for the command line, or None where any text or
    value is good)."""
    if setting.type is bool:
        return "maybe", "maybe"
    if setting.type is int:
        return 1.5, "1.5"
    if setting.type is float:
        return "high", "high"
    if setting.type is list:
        return "5", "0"
    if setting.type is dict:
        return 5, "no-pair"
    if setting.type is str:
        return 5, ("no_such_choice" if setting.choices else None)
    return None, "{}"  # object: the code that reads it checks it; the command line cannot set it
