"""Python's cyclic garbage collector paused while a bounded pass builds many objects that form no cycles.

The collector runs after every ~700 new container objects and, now and then, walks every object still alive.
Reading 10,000 rows of 20 contexts makes 200,000 contexts and as many dicts, and the caller's own rows are
walked again at each full collection: on retrieval's 10,000 x 20 workload that was ~0.5-1 s of a ~2 s run.
Samples, contexts and the cheap metrics' results are plain acyclic records, freed by reference counting
whatever the collector does; cycles made meanwhile (an exception's traceback) are collected once it resumes.
BLEU's n-gram counts, kept while a text may recur, are millions of tuples that outlive several collections:
paused, ``Bleu.score`` takes ~0.6 s instead of ~1.0 s on 2,000 distinct pairs. Only work bounded by the input is
paused (reading it; scoring it with cheap metrics only; one batch of a cheap metric), never a judge's or a
model's run, which may last hours and whose clients make cyclic garbage.
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def collector_paused(pause: bool = True) -> Iterator[None]:
    """Disable the cyclic collector for the block (when ``pause`` and it is enabled), then enable it again."""
    if not pause or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
