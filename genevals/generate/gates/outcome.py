"""What one gate says about one item: a status (:data:`~genevals.generate.items.PASSED`, a rejection, a flag, or
one of the two below) and, always, the reason in words.

A gate that cannot decide never passes silently: a judge gate with no judge configured says
:data:`NOT_CHECKED`, and one whose call failed or whose reply could not be read says :data:`JUDGE_ERROR`, which
rejects the item (an unchecked item is never shipped as a checked one).
"""
from __future__ import annotations

from dataclasses import dataclass

from genevals.generate.items import FLAGS, PASSED, REJECTIONS

#: a judge gate run with no judge (the offline default), or a rule with no table for the item's language
NOT_CHECKED = "not_checked"
#: a judge gate whose call failed or whose reply was unreadable: the item is rejected with the error as reason
#: (one of :data:`~genevals.generate.items.REJECTIONS`)
JUDGE_ERROR = "judge_error"
assert JUDGE_ERROR in REJECTIONS


@dataclass(frozen=True)
class Outcome:
    """One gate's status and the reason for it (a reason is given for every status, ``passed`` included)."""

    status: str
    reason: str

    @property
    def rejects(self) -> bool:
        return self.status in REJECTIONS

    @property
    def flags(self) -> bool:
        return self.status in FLAGS


def passed(reason: str) -> Outcome:
    return Outcome(PASSED, reason)


def not_checked(reason: str) -> Outcome:
    return Outcome(NOT_CHECKED, reason)
