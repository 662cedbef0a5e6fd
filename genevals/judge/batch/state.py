"""The batches a run has created, kept in its folder (``judge_batches.json``), so a killed run resumes them.

One record per batch: its id, the judge endpoint and model it was sent to (the URL without credentials), when,
and the ``custom_id`` of every request in it. A new run of the same command sends the same requests (the same
ids), finds them here and polls the batch that holds them instead of creating another. The file is rewritten
whole (aside, then renamed: a crash leaves the old file or the new one); an unreadable one is set aside as
``judge_batches.json.unreadable`` and the run starts with none, saying so (the batches it held are then created
again: paid twice, never lost).
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

FILE = "judge_batches.json"
#: the most bytes read of the file: 50,000 requests' ids take 3.3 MB a batch
MAX_BYTES = 512 * 1024 * 1024

_lock = threading.Lock()


class BatchState:
    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / FILE
        self.note: str | None = None

    def records(self) -> list[dict[str, Any]]:
        """The batches recorded, each ``{"id", "endpoint", "model", "created", "custom_ids"}``."""
        with _lock:
            return self._read()

    def add(self, batch_id: str, endpoint: str, model: str, ids: list[str]) -> None:
        from genevals.atomic import replacing

        with _lock:
            found = self._read()
            found.append({"id": batch_id, "endpoint": endpoint, "model": model,
                          "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "custom_ids": ids})
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with replacing(self.path) as handle:
                json.dump({"batches": found}, handle)

    def _read(self) -> list[dict[str, Any]]:
        try:
            if not self.path.is_file():
                return []
            if self.path.stat().st_size > MAX_BYTES:
                raise ValueError(f"over {MAX_BYTES:,} bytes")
            data = json.loads(self.path.read_bytes())
            found = data.get("batches") if isinstance(data, dict) else None
            if not isinstance(found, list):
                raise ValueError("no list of batches")
            return [r for r in found if _usable(r)]
        except (OSError, ValueError) as exc:
            aside = self.path.with_name(FILE + ".unreadable")
            try:
                os.replace(self.path, aside)
            except OSError:
                pass
            self.note = (f"{self.path}: unreadable ({exc}); set aside as {aside.name}: the batches it named are "
                         "not resumed")
            return []


def _usable(record: Any) -> bool:
    return (isinstance(record, dict) and isinstance(record.get("id"), str) and isinstance(record.get("endpoint"), str)
            and isinstance(record.get("custom_ids"), list))
