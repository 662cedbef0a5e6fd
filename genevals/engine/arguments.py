"""What :func:`~genevals.evaluate` is handed, checked before any work, each mistake an
:class:`~genevals.input.readers.InputError` naming the argument (or, from the command line, the option) and what it
accepts: a Python ``TypeError`` from deep inside, or a run that reads nothing, tells a user neither.

The input rows and the metric names are checked where they are read (:mod:`genevals.input.readers`,
:mod:`genevals.registry`); this module holds the checks of the other arguments, which the command line
shares.
"""
from __future__ import annotations

import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from genevals import utf8
from genevals.conversations.history import HISTORY_TOKENS
from genevals.settings import Setting, check
from genevals.stats import DEFAULT_SEED

from genevals.input import mapping
from genevals.input.readers import InputError
from genevals.input.source import RowSource

#: the most worker processes a run starts: more only adds start-up cost and memory, and a count past a C int
#: (--workers 99999999999999999999) failed deep in multiprocessing
MAX_WORKERS = 256
#: a chunk is rows held in memory at once; a seed must fit numpy's 64-bit seed words and be printable in JSON
MAX_CHUNK_SIZE = 10**9
MAX_SEED = 2**64 - 1

#: the engine's settings, declared once: the API's arguments and LocalSettings/RaySettings are checked against
#: them, and the command line's --workers, --seed and --ray-judge-actors take their types from them
SETTINGS = (
    Setting("workers", int, None, "processes for the lexical/retrieval metrics (default: from the first chunk's "
            "measured cost)", minimum=1, maximum=MAX_WORKERS),
    Setting("chunk_size", int, None, "samples scored at once (default 512, or twice the judge concurrency)",
            minimum=1, maximum=MAX_CHUNK_SIZE),
    Setting("seed", int, DEFAULT_SEED, "bootstrap seed", minimum=0, maximum=MAX_SEED),
    HISTORY_TOKENS,  # an input setting: read with the rows, recorded in the manifest (--resume refuses a change)
)
#: the Ray engine's own (:class:`genevals.engine.spec.RaySettings`)
RAY_SETTINGS = (
    Setting("judge_concurrency", int, 4, "Ray: judge actors across the cluster (--ray-judge-actors)", minimum=1,
            maximum=10_000),
    Setting("batch_size", int, 256, "Ray: samples per BERTScore batch", minimum=1, maximum=MAX_CHUNK_SIZE),
    Setting("rows_per_pass", int, 20_000, "Ray: samples sent at a time", minimum=1, maximum=MAX_CHUNK_SIZE),
)
_DECLARED = {s.name: s for s in SETTINGS + RAY_SETTINGS}


def is_dataframe(data: Any) -> bool:
    return hasattr(data, "to_dict") and hasattr(data, "columns")


def check_data(data: Any, name: str = "data") -> None:
    """A path, a DataFrame, or an iterable of row dicts (a list, a tuple, a generator)."""
    if isinstance(data, str) and not data.strip():  # Path("") is ".", the current folder: never what was meant
        raise InputError(name, None, None, "the path is empty; expected a file path (JSONL, CSV or Parquet), a "
                                           "pandas DataFrame or an iterable of row dicts")
    if isinstance(data, (str, Path, RowSource)) or is_dataframe(data):
        return
    if isinstance(data, Mapping):
        raise InputError(name, None, None, "expected rows, got one dict: pass a list of row dicts "
                                           "([{\"answer\": ...}, ...]) or a pandas DataFrame")
    if isinstance(data, (bytes, bytearray)) or not isinstance(data, Iterable):
        raise InputError(name, None, None, "expected a file path (JSONL, CSV or Parquet), a pandas DataFrame or an "
                                           f"iterable of row dicts, got {type(data).__name__}")


def check_column_map(column_map: Any, name: str = "column_map") -> None:
    """{field: column} with each field one genevals reads, or a part of each context (``contexts[].doc_id``):
    a misspelt one would map nothing, silently."""
    if column_map is None:
        return
    if not isinstance(column_map, Mapping):
        raise InputError(name, None, None, f"expected a mapping field -> column, got {type(column_map).__name__}")
    try:
        mapping.check(column_map)
    except mapping.MapError as exc:
        raise InputError(name, None, None, str(exc)) from None


def check_whole(value: Any, name: str) -> None:
    """``value`` as the engine setting ``name`` declares it (:data:`SETTINGS`, :data:`RAY_SETTINGS`), else an
    InputError naming the argument, the value and the limit."""
    try:
        check(_DECLARED[name], value, name)
    except ValueError as exc:
        raise InputError(name, None, None, str(exc).removeprefix(f"{name}: ")) from None


def judge_config(judge: Any, name: str = "judge") -> Any:
    """``judge`` as a :class:`~genevals.judge.config.JudgeConfig` (None stays None: the defaults): one already,
    or a mapping of its fields; anything else (a model name, a number) is refused rather than ignored."""
    from genevals.judge.config import JudgeConfig

    if judge is None or isinstance(judge, JudgeConfig):
        return judge
    from genevals.judge.jury import Jury, as_jury

    if isinstance(judge, (list, tuple, Jury)):  # judge=[...]: a jury
        try:
            return as_jury(judge)
        except ValueError as exc:
            raise InputError(name, None, None, str(exc)) from None
    if not isinstance(judge, Mapping):
        raise InputError(name, None, None, "expected a JudgeConfig, a mapping of its fields (e.g. "
                                           "{'model': 'gpt-4o-mini', 'concurrency': 8}) or None, got "
                                           f"{type(judge).__name__}")
    try:
        return JudgeConfig.from_options(judge)
    except (TypeError, ValueError) as exc:
        raise InputError(name, None, None, str(exc)) from None


def check_out_dir(out_dir: Any, name: str = "out_dir") -> None:
    """A folder that exists and takes files, or one that can be created: tried now (a probe file, or the
    missing folders made and removed again), so a run never scores for minutes and then fails to write."""
    if not isinstance(out_dir, (str, Path)):
        raise InputError(name, None, None, f"expected a folder path, got {type(out_dir).__name__}")
    path = Path(out_dir)
    if not str(out_dir).strip():
        raise InputError(name, None, None, "the path is empty")
    missing = []
    try:  # a name too long, or a loop of links, fails even to be looked at
        if path.exists() and not path.is_dir():
            raise InputError(name, None, None, f"{out_dir}: exists and is not a folder")
        probe = path.absolute()
        while not probe.exists() and probe != probe.parent:
            missing.append(probe)
            probe = probe.parent
        is_folder = probe.is_dir()
    except OSError as exc:
        raise InputError(name, None, None, f"{out_dir}: {exc.strerror or exc}") from None
    if not is_folder:
        raise InputError(name, None, None, f"{out_dir}: cannot be created: {probe} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path, prefix=".genevals-probe-"):
            pass
    except OSError as exc:
        what = "cannot be created" if missing else "cannot be written to"
        # the folder that could not be made, when it is not out_dir itself (never the probe file's name)
        where = f" ({exc.filename})" if missing and exc.filename and str(exc.filename) != str(out_dir) else ""
        raise InputError(name, None, None, f"{out_dir}: {what}: {exc.strerror or exc}{where}") from None
    finally:
        for folder in missing:  # deepest first: the run makes them again when it starts writing
            try:
                folder.rmdir()
            except FileNotFoundError:  # never made: the mkdir failed above it
                continue
            except OSError:
                break


def check_progress(progress: Any) -> None:
    if progress is not None and not callable(progress):
        raise InputError("progress", None, None, "expected a function called as progress(done, total), or None, "
                                                 f"got {type(progress).__name__}")


def check_call(data: Any, column_map: Any, out_dir: Any, workers: Any, chunk_size: Any, seed: Any,
               progress: Any = None, meta: Any = None) -> None:
    """Every argument of :func:`genevals.evaluate` that is not checked where it is used."""
    check_data(data)
    check_column_map(column_map)
    if out_dir is not None:
        check_out_dir(out_dir)
    if workers is not None:
        check_whole(workers, "workers")
    if chunk_size is not None:
        check_whole(chunk_size, "chunk_size")
    if seed is None:  # None means "unset" to the declaration; the API's seed has a value
        raise InputError("seed", None, None, "expected a whole number, got None")
    check_whole(seed, "seed")
    check_progress(progress)
    if meta is not None and not isinstance(meta, Mapping):
        raise InputError("meta", None, None, f"expected a mapping of names to values, got {type(meta).__name__}")


def check_arguments(**named: Any) -> None:
    """Refuse, naming the argument, an argument holding text that cannot be written as UTF-8 (see
    :mod:`genevals.utf8`): it would fail in results.jsonl or summary.json, mid-run."""
    for name, value in named.items():
        found = utf8.find(value, name)
        if found is not None:
            raise InputError(utf8.shown(found[0]), None, None, f"invalid Unicode ({found[1]}); it cannot be "
                                                               "written as UTF-8")
