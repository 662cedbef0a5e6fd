"""One run, said once: :class:`RunSpec` holds the input, the metrics selected (built once), their options, the
judge, the engine's settings and where the results go. The Python API and the command line both build one with
:meth:`RunSpec.build`, which checks every argument before any work (each mistake an
:class:`~genevals.input.readers.InputError` naming the argument), and every engine takes one.

    spec = RunSpec.build("data.jsonl", ["token_f1", "rouge"], out_dir="reports/r", engine=LocalSettings(workers=2))
    results = genevals.engine.run(spec)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from genevals import registry
from genevals.conversations.history import HISTORY_TOKENS
from genevals.engine.arguments import check_arguments, check_call, check_whole, judge_config
from genevals.input.readers import InputError
from genevals.language import LanguageSetting
from genevals.metrics.base import JUDGE
from genevals.stats import DEFAULT_SEED

DEFAULT_JUDGE_CONCURRENCY = 4
DEFAULT_ROWS_PER_PASS = 20_000


@dataclass(frozen=True)
class LocalSettings:
    """The local engine: ``workers`` processes for the cheap metrics (None: decided from the measured cost of
    the first chunk), ``chunk_size`` samples scored at once (None: 512, or with a judge 2x its concurrency)."""

    workers: int | None = None
    chunk_size: int | None = None


@dataclass(frozen=True)
class RaySettings:
    """The Ray engine (:mod:`genevals.engine.ray`): ``address`` None starts a local Ray with ``num_cpus``;
    ``judge_concurrency`` judge actors across the whole cluster; ``rows_per_pass`` samples sent at a time."""

    address: str | None = None
    judge_concurrency: int = DEFAULT_JUDGE_CONCURRENCY
    bertscore_actors: int = 1
    bertscore_gpus: float = 0
    batch_size: int = 256
    rows_per_pass: int = DEFAULT_ROWS_PER_PASS
    num_cpus: int | None = None
    runtime_env: Mapping[str, Any] | None = None
    #: stop Ray at the end (None: only if this run started it)
    shutdown: bool | None = None


@dataclass(frozen=True)
class OutputSpec:
    """Where results go: ``out_dir`` (None: only in memory), ``resume`` what is there, the bootstrap ``seed``,
    whether ``Results.samples`` keeps every result, and ``meta`` recorded in summary.json."""

    out_dir: Path | None = None
    resume: bool = False
    seed: int = DEFAULT_SEED
    keep_samples: bool = True
    meta: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunSpec:
    data: Any
    #: the metric names as asked (None: the default preset)
    metrics: tuple[str, ...] | None
    #: the metric objects, built once (:func:`genevals.registry.build`), in the order results list them
    selected: tuple[registry.Selected, ...]
    options: Mapping[str, Mapping[str, Any]]
    judge: Any
    column_map: Mapping[str, str] | None = None
    on_error: str = "raise"
    strict: bool = False
    #: columns no field reads that are no mistake: no unknown-field warning (nor a ``strict`` error) names them
    ignore_fields: tuple[str, ...] = ()
    engine: LocalSettings | RaySettings = field(default_factory=LocalSettings)
    output: OutputSpec = field(default_factory=OutputSpec)
    #: the run's ``--language`` (each metric holds it too: :attr:`genevals.metrics.base.Metric.language`)
    language: LanguageSetting = field(default_factory=LanguageSetting)
    #: called with the :class:`~genevals.engine.plan.Plan` once the input is read, before the run folder is
    #: touched: a check that needs the rows (``--baseline``) refuses the run there (an InputError), not after it
    before_writing: Callable[[Any], None] | None = None
    #: tokens of earlier turns a conversation turn carries as its history (:mod:`genevals.conversations`)
    history_tokens: int = HISTORY_TOKENS.default

    @classmethod
    def build(cls, data: Any, metrics: Sequence[str] | None = None, *,
              options: Mapping[str, Mapping[str, Any]] | None = None, judge: Any = None,
              column_map: Mapping[str, str] | None = None, on_error: str = "raise", strict: bool = False,
              out_dir: str | Path | None = None, resume: bool = False, seed: int = DEFAULT_SEED,
              keep_samples: bool = True, meta: Mapping[str, Any] | None = None,
              engine: LocalSettings | RaySettings | None = None, language: Any = None,
              settle_judge: Callable[[Any], Any] | None = None,
              before_writing: Callable[[Any], None] | None = None, ignore_fields: Sequence[str] = (),
              history_tokens: int = HISTORY_TOKENS.default) -> RunSpec:
        """Check every argument, then resolve the metrics, settle the judge when one of them is judged by an LLM
        (``settle_judge(config) -> config``: the command line names the server's model and checks it), and
        build the metrics once with it."""
        engine = LocalSettings() if engine is None else engine
        if isinstance(ignore_fields, (str, bytes)) or not all(isinstance(f, str) for f in ignore_fields):
            raise InputError("ignore_fields", None, None, "expected a list of column names, e.g. ['notes', 'run_at']")
        workers = engine.workers if isinstance(engine, LocalSettings) else None
        chunk_size = engine.chunk_size if isinstance(engine, LocalSettings) else None
        check_call(data, column_map, out_dir, workers, chunk_size, seed, None, meta)
        check_whole(history_tokens, "history_tokens")
        if on_error not in ("raise", "skip"):
            raise ValueError("on_error must be 'raise' or 'skip'")
        if isinstance(engine, RaySettings):
            for name in ("judge_concurrency", "batch_size", "rows_per_pass"):
                check_whole(getattr(engine, name), name)
        judge = judge_config(judge)
        try:
            setting = LanguageSetting.parse(language, "language")
        except ValueError as exc:
            raise InputError("language", None, None, str(exc).removeprefix("language: ")) from None
        # Rows are checked as they are read, each with its line; these arguments now, before any work.
        check_arguments(data=data if isinstance(data, (str, Path)) else None, metrics=metrics, options=options,
                        column_map=column_map, judge=judge, out_dir=out_dir, meta=meta)
        resolved = registry.resolve(metrics, options, judge)
        if settle_judge is not None and any(r.kind == JUDGE and not r.missing for r in resolved):
            judge = judge.map(settle_judge) if hasattr(judge, "jurors") else settle_judge(judge)  # a jury: each
        selected = registry.build(resolved, judge, setting)
        meta = {**(meta or {}), "language": str(setting)}  # the run's setting, in summary.json's meta
        left_out = registry.left_out(resolved)  # a preset's metrics whose extra is not installed: said, not run
        meta = {**(meta or {}), "left_out": left_out} if left_out else meta
        return cls(data=data, metrics=None if metrics is None else tuple(metrics), selected=tuple(selected),
                   options={k: dict(v) for k, v in (options or {}).items()}, judge=judge,
                   column_map=dict(column_map) if column_map else None, on_error=on_error, strict=strict,
                   ignore_fields=tuple(ignore_fields), history_tokens=history_tokens, engine=engine, language=setting, before_writing=before_writing,
                   output=OutputSpec(Path(out_dir) if out_dir is not None else None, resume, seed, keep_samples,
                                     dict(meta or {})))

    def only(self, selected: Sequence[registry.Selected]) -> RunSpec:
        """The same run scoring only ``selected`` (a stage of it), without its input: what a worker process or a
        Ray actor is sent."""
        return dataclasses.replace(self, data=None, selected=tuple(selected), before_writing=None)

    @property
    def judged(self) -> list[registry.Selected]:
        return [s for s in self.selected if s.metric.kind == JUDGE]
