"""Which conversation each scored value of a run belongs to, so that the summary's intervals resample
conversations, not turns (:mod:`genevals.stats.cluster`). Kept beside the values (the same keys, the same
order) only once a run counts a conversation's turn; a value of a sample that is no conversation's turn is a
cluster of its own (a negative code, unique in the run).
"""
from __future__ import annotations

from array import array
from typing import Any, Iterable, Mapping

from genevals.stats.cluster import conversation_code, summarise_clustered


class ClusterCodes:
    def __init__(self) -> None:
        #: (system, output) -> the code of each scored value, in the order the values were counted
        self.codes: dict[Any, array] = {}
        #: system -> the codes of its conversations (with a scored turn or not): coverage in conversations
        self.conversations: dict[str, set[int]] = {}
        self.singles = 0

    @staticmethod
    def any_turn(samples: Iterable[Any]) -> bool:
        return any(s.conversation_id is not None for s in samples)

    @classmethod
    def after(cls, values: Any) -> "ClusterCodes":
        """Codes for a run that counted ``values`` (columns) before its first conversation turn: each of those
        values is a cluster of its own."""
        made = cls()
        for key in list(values.keys()):
            made.codes[key] = made._singles(values.length(key))
        return made

    def _singles(self, n: int) -> array:
        start = self.singles
        self.singles += n
        return array("d", (-float(i) for i in range(start + 1, start + n + 1)))

    def code(self, sample: Any) -> float:
        if sample.conversation_id is None:
            self.singles += 1
            return -float(self.singles)
        code = conversation_code(sample.system, sample.conversation_id)
        self.conversations.setdefault(sample.system, set()).add(code)
        return float(code)

    def extend(self, codes: Mapping[Any, list[float]]) -> None:
        for key, got in codes.items():
            self.codes.setdefault(key, array("d")).extend(got)

    def merge(self, part: "ClusterCodes | None", values: Mapping[Any, list[float]]) -> None:
        """Count a worker's part: its codes (its own singles renumbered after ours), or, for a part that saw no
        conversation, one single per value."""
        if part is None:
            for key, got in values.items():
                self.codes.setdefault(key, array("d")).extend(self._singles(len(got)))
            return
        offset = self.singles
        for key, got in part.codes.items():
            self.codes.setdefault(key, array("d")).extend(c - offset if c < 0 else c for c in got)
        self.singles += part.singles
        for system, codes in part.conversations.items():
            self.conversations.setdefault(system, set()).update(codes)

    def summary(self, key: Any, values: Any, statuses: Mapping[str, int], seed: int) -> dict[str, Any]:
        return summarise_clustered(values, self.codes.get(key, array("d")), dict(statuses),
                                   len(self.conversations.get(key[0], ())), seed)
