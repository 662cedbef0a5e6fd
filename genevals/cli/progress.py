"""The progress bar of the commands that draw one (``run``, ``validate``): on a terminal only, since a bar drawn
into a log or a pipe is a line of carriage returns that nobody watches."""
from __future__ import annotations

import sys
from typing import Callable, TypeVar

T = TypeVar("T")


class Progress:
    """A bar that appears with the first finished item (never an empty "0sample" bar while the input is read),
    and only when stderr is a terminal; called as ``progress(n_done_now, total)``."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.bar = None

    def __call__(self, n: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm

            # disable=None: tqdm draws nothing when its file is not a TTY
            self.bar = tqdm(total=total, unit=self.unit, file=sys.stderr, dynamic_ncols=True, disable=None,
                            leave=False)
        elif self.bar.total != total:
            self.bar.total = total
            self.bar.refresh()
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def interruptible(quiet: bool, unit: str, work: Callable[[Progress | None], T]) -> T | None:
    """``work(bar)`` with a bar of ``unit`` (none with -q), the bar closed however it ends; None when Ctrl-C
    stopped it, said (the commands that call this write nothing of an interrupted pass)."""
    bar = None if quiet else Progress(unit)
    try:
        return work(bar)
    except KeyboardInterrupt:
        print("\ngenevals: interrupted; nothing written", file=sys.stderr)
        return None
    finally:
        if bar is not None:
            bar.close()
