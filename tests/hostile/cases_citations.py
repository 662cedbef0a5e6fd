"""Cases: citations (issue 34)."""
from __future__ import annotations

from hostile.cases import Case


def cases() -> list[Case]:
    return []
