"""Worker processes that end when the process that started them dies, however it dies.

A ``ProcessPoolExecutor``'s workers outlive a parent killed by SIGKILL (or the OOM killer): they wait on their
call queue forever, holding the run folder's results.jsonl open. Every pool genevals starts comes from
:func:`pool`, whose workers, before anything else, arrange to end with their parent:

* on Linux, the kernel signals them when their parent exits (``prctl(PR_SET_PDEATHSIG)``). It signals on the
  exit of the parent *thread* that started them too, so the handler ends the worker only when its parent
  process has changed (the kernel reparents the worker before it signals);
* everywhere, a watchdog thread checks every :data:`WATCH_SECONDS` whether the parent process has changed, for
  systems without ``prctl`` and for a worker busy in C code that holds off Python's signal handler.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Sequence

#: seconds between two looks at the parent process, by the watchdog thread
WATCH_SECONDS = 0.5
#: the signal the kernel sends a worker whose parent exited (one no library in a worker relies on)
PARENT_DIED = signal.SIGUSR2
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def pool(workers: int, initializer: Callable[..., None] | None = None,
         initargs: Sequence[Any] = ()) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that end with this one; ``initializer(*initargs)`` then runs in each."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_start,
                               initargs=(os.getpid(), initializer, tuple(initargs)))


def _start(creator: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    end_with_parent(creator)
    if initializer is not None:
        initializer(*initargs)


def end_with_parent(creator: int) -> None:
    """Make this process end when its parent dies; ``creator``: the process that asked for it (its parent, or,
    with the forkserver start method, the forkserver's parent), which may already be gone."""
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            signal.signal(PARENT_DIED, lambda signum, frame: _end_if_orphaned(parent))
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(PARENT_DIED), 0, 0, 0)
        except (OSError, AttributeError, ValueError):  # no libc prctl: the watchdog alone
            pass
    # The parent may have died before the kernel was asked to tell: look now.
    if parent == 1 or (parent != creator and not _alive(creator)):
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="genevals-parent-watch", daemon=True).start()


def _end_if_orphaned(parent: int) -> None:
    if os.getppid() != parent:
        os._exit(1)  # no cleanup to do: the results are the parent's, and the parent is gone


def _watch(parent: int) -> None:
    while True:
        time.sleep(WATCH_SECONDS)
        _end_if_orphaned(parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
