"""sacrebleu-style signature strings: ``metric|key:value|...|genevals:VERSION``."""
from __future__ import annotations

from importlib import metadata

from genevals._version import __version__


def package_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"


def make_signature(metric: str, **settings: object) -> str:
    """Join a metric name and its settings into a stable string; genevals' version always comes last."""
    parts = [metric]
    for key, value in settings.items():
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append(f"{key}:{value}")
    parts.append(f"genevals:{__version__}")
    return "|".join(parts)
