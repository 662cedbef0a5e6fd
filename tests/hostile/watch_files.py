"""The watch class's hostile files (see hostile/cases_watch.py): scenarios for a followed file, and exports for
a backfill."""
from __future__ import annotations

FOLLOWS: dict = {}
EXPORTS: dict = {}
