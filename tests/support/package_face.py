"""A module split into a package keeps its import path: the package's face re-exports each name, and what it
re-exports is the object the module defines (not a copy, which module state such as a registry would betray)."""
from __future__ import annotations

import importlib
from typing import Iterable


def assert_reexported(package: str, module: str, names: Iterable[str]) -> None:
    face = importlib.import_module(package)
    defined = importlib.import_module(f"{package}.{module}")
    for name in names:
        assert getattr(face, name) is getattr(defined, name), f"{package}.{name} is not {package}.{module}.{name}"
