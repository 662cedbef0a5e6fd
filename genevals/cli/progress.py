"""The progress bar of the commands that draw one (``run``, ``validate``): on a terminal only, since a bar drawn
into a log or a pipe is a line of carriage returns that nobody watches."""
from __future__ import annotations

import sys


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
