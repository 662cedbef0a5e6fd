"""Score on a Ray cluster with Ray Data; the same results, files and summary as the local engine.

What stays on the driver, reusing genevals' own code: reading and validating with :mod:`genevals.input.readers` (so bad
rows are located exactly as locally), ``prepare()`` (run-wide statistics such as BERTScore idf), and writing
``results.jsonl`` / ``summary.json`` / ``skipped.jsonl`` with :class:`SummaryAccumulator` and
:func:`build_summary`. What runs on the cluster: the metrics' own ``score`` on batches, in three stages:

- lexical and retrieval families: stateless Ray tasks (``map_batches`` with a function);
- BERTScore: an actor pool (the model loads once per actor; ``num_gpus`` per actor with ``bertscore_gpus``);
- LLM-judge families (faithfulness, llm_rubric): an actor pool of ``judge_concurrency`` actors (default 4).
  Each actor scores one batch at a time, so at most ``judge_concurrency`` batches are being judged at once
  across the whole cluster, whatever its size; the judge's own per-batch concurrency applies inside each.

The metric objects are built once on the driver (:meth:`~genevals.engine.spec.RunSpec.build`), prepared, and
shipped to the workers as one stage of the run's spec each, scored there by
:func:`~genevals.engine.scoring.score_batch` like everywhere else, so every worker scores with identical
settings. Order is preserved, so results.jsonl is in input order.

    from genevals.engine import ray as ray_engine
    results = ray_engine.evaluate("data.jsonl", ["token_f1", "rouge", "retrieval"])             # local Ray
    results = ray_engine.evaluate("data.jsonl", address="ray://head:10001", out_dir="reports/r")  # a cluster
"""
from __future__ import annotations

import pickle
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from genevals.engine.arguments import check_progress
from genevals.engine.course import Course, Scoring, run_course
from genevals.engine.plan import plan_run
from genevals.engine.scoring import score_batch
from genevals.engine.units import Chunk, log_scheduled, pack
from genevals.engine.spec import DEFAULT_JUDGE_CONCURRENCY, DEFAULT_ROWS_PER_PASS, RaySettings, RunSpec
from genevals.metrics.base import CHEAP, JUDGE, MODEL
from genevals.output.results import Results
from genevals.types import SampleResult
_RAY_CLUSTER_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def _score_rows(stage: RunSpec, rows: Sequence[bytes]) -> list[bytes]:
    """Rows in, each a pickled list of SampleResults (one unit of work: a sample, or a conversation's turns, so a
    batch never holds part of a conversation), the same with this stage's outputs added (:func:`score_batch`),
    out: samples travel as they are, never through their dict form."""
    units = [pickle.loads(r) for r in rows]
    results = [result for unit in units for result in unit]
    log_scheduled("ray batch", [r.sample for r in results])
    for result, scored in zip(results, score_batch(stage, [r.sample for r in results])):
        result.metrics.update(scored.metrics)
    return [pickle.dumps(unit, protocol=pickle.HIGHEST_PROTOCOL) for unit in units]


def _stage_fn(stage_ref):
    """A stateless batch function for Ray tasks (lexical, retrieval)."""
    import ray

    def score_rows(batch: dict) -> dict:
        import numpy as np

        stage = ray.get(stage_ref) if isinstance(stage_ref, ray.ObjectRef) else stage_ref
        return {"row": np.array(_score_rows(stage, list(batch["row"])), dtype=object)}

    return score_rows


class _StageActor:
    """A Ray Data actor: holds its stage's metrics (a loaded model, a judge client) across batches."""

    def __init__(self, stage_ref) -> None:
        import ray

        self.stage = ray.get(stage_ref) if isinstance(stage_ref, ray.ObjectRef) else stage_ref

    def __call__(self, batch: dict) -> dict:
        import numpy as np

        return {"row": np.array(_score_rows(self.stage, list(batch["row"])), dtype=object)}


def _init_ray(address: str | None, num_cpus: int | None, runtime_env: Mapping[str, Any] | None):
    if address is None:
        _loopback_only()
    import ray

    if ray.is_initialized():
        return ray, False
    kwargs: dict[str, Any] = {"ignore_reinit_error": True, "log_to_driver": False}
    if runtime_env:
        kwargs["runtime_env"] = dict(runtime_env)
    if address is None:
        kwargs["num_cpus"] = num_cpus or min(2, os.cpu_count() or 1)
        kwargs["include_dashboard"] = False
    else:
        kwargs["address"] = address
    ray.init(**kwargs)
    return ray, True


def _loopback_only() -> None:
    """Make a local Ray instance listen on 127.0.0.1 only.

    On Linux, Ray replaces a loopback node address with the machine's routable one and its GCS and raylet listen
    on every interface. A local instance serves this machine alone, so it is started the way Ray starts
    single-machine instances on macOS and Windows: with clusters off, every service binds to loopback
    (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``; Ray reads it at import, so an already-imported Ray gets the
    same setting on its constants module)."""
    os.environ[_RAY_CLUSTER_SWITCH] = "0"
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
        constants.ENABLE_RAY_CLUSTER = False


def _restore_cluster_switch(previous: str | None) -> None:
    """After a local instance stops, a later call in this process may join a real cluster."""
    if previous is None:
        os.environ.pop(_RAY_CLUSTER_SWITCH, None)
    else:
        os.environ[_RAY_CLUSTER_SWITCH] = previous
    constants = sys.modules.get("ray._private.ray_constants")
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER") and hasattr(constants, "env_bool"):
        # Re-read the switch the way Ray read it at import.
        constants.ENABLE_RAY_CLUSTER = constants.env_bool(_RAY_CLUSTER_SWITCH,
                                                          not getattr(constants, "IS_WINDOWS_OR_OSX", False))


def run(spec: RunSpec, progress: Callable[[int, int], None] | None = None) -> Results:
    """Score the run ``spec`` describes on Ray (``spec.engine``: :class:`~genevals.engine.spec.RaySettings`).

    The input is sent to the cluster ``rows_per_pass`` samples at a time, so the driver never holds more than
    that; results are appended to ``results.jsonl`` block by block as the cluster returns them, and a resumed
    run skips the samples already there, exactly like the local engine."""
    try:
        import ray  # noqa: F401
        import ray.data  # noqa: F401
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the Ray engine needs Ray Data: pip install 'genevals[ray]'") from exc
    settings = spec.engine if isinstance(spec.engine, RaySettings) else RaySettings()
    plan = plan_run(spec)
    return run_course(plan, lambda plan, n_done: Passes(Stages.of(spec, settings), settings), progress)


@dataclass(frozen=True)
class Passes(Scoring):
    """Ray's scoring: the samples go to the cluster ``rows_per_pass`` at a time, through the :class:`Stages`, and
    each block that comes back is written. Ray starts at the first pass (a run with nothing to score never
    starts it) and stops at the end when this run started it (or ``shutdown`` says so)."""

    stages: Stages
    settings: RaySettings

    def write(self, course: Course) -> None:
        settings = self.settings
        ray, started = None, False
        cluster_switch = os.environ.get(_RAY_CLUSTER_SWITCH)
        try:
            for part in pack(course.todo, settings.rows_per_pass, "ray pass"):
                if ray is None:  # started only when there is something to score
                    ray, started = _init_ray(settings.address, settings.num_cpus, settings.runtime_env)
                    ray.data.DataContext.get_current().execution_options.preserve_order = True
                for block in self.stages.pipeline(ray, part).iter_batches(batch_size=None, batch_format="numpy"):
                    units = [pickle.loads(row) for row in block["row"]]
                    course.recorder.write([result for unit in units for result in unit], [len(u) for u in units])
                    course.done(sum(len(u) for u in units))
        finally:
            if ray is not None and (settings.shutdown or (settings.shutdown is None and started)):
                ray.shutdown()
                if settings.address is None:
                    _restore_cluster_switch(cluster_switch)


def evaluate(
    dataset_or_path: Any,
    metrics: Sequence[str] | None = None,
    *,
    address: str | None = None,
    judge_concurrency: int | None = None,
    bertscore_actors: int = 1,
    bertscore_gpus: float = 0,
    batch_size: int = 256,
    rows_per_pass: int = DEFAULT_ROWS_PER_PASS,
    num_cpus: int | None = None,
    runtime_env: Mapping[str, Any] | None = None,
    shutdown: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    **common: Any,
) -> Results:
    """Like :func:`genevals.evaluate`, scored on Ray; ``common`` holds the arguments both engines take
    (``options``, ``judge``, ``column_map``, ``on_error``, ``strict``, ``out_dir``, ``resume``, ``seed``,
    ``keep_samples``, ``meta``: see :meth:`~genevals.engine.spec.RunSpec.build`). They become a
    :class:`~genevals.engine.spec.RunSpec` with :class:`~genevals.engine.spec.RaySettings`, which :func:`run`
    scores.

    ``dataset_or_path``: a path, a DataFrame, a list of dicts, or a ``ray.data.Dataset`` (its rows are read on
    the driver and validated like a list of dicts). ``address``: None starts a local Ray with ``num_cpus``
    (default 2); ``"auto"`` or ``"ray://host:10001"`` joins a cluster (genevals must be installed on every
    node, or pass ``runtime_env``). ``shutdown``: stop Ray at the end (default: only if this call started it).
    """
    data = dataset_or_path
    if hasattr(data, "iter_rows") and hasattr(data, "map_batches"):  # a ray.data.Dataset
        data = list(data.iter_rows())
    check_progress(progress)
    settings = RaySettings(address=address, judge_concurrency=max(1, judge_concurrency or DEFAULT_JUDGE_CONCURRENCY),
                           bertscore_actors=max(1, bertscore_actors), bertscore_gpus=bertscore_gpus,
                           batch_size=batch_size, rows_per_pass=rows_per_pass, num_cpus=num_cpus,
                           runtime_env=runtime_env, shutdown=shutdown)
    return run(RunSpec.build(data, metrics, engine=settings, **common), progress)



@dataclass
class Stages:
    """The three Ray Data stages (each a :meth:`RunSpec.only` of the run) and their resources; ``pipeline``
    chains the ones that have metrics."""

    lexical: RunSpec
    model: RunSpec
    judge: RunSpec
    batch_size: int
    bertscore_actors: int
    bertscore_gpus: float
    judge_concurrency: int

    @classmethod
    def of(cls, spec: RunSpec, settings: RaySettings) -> Stages:
        def kind(k: str) -> RunSpec:
            return spec.only([s for s in spec.selected if s.metric.kind == k])

        return cls(kind(CHEAP), kind(MODEL), kind(JUDGE), settings.batch_size, max(1, settings.bertscore_actors),
                   settings.bertscore_gpus, max(1, settings.judge_concurrency))

    def pipeline(self, ray, part: Chunk):
        """The stages over ``part`` (a pass: whole units), one row per unit of work: ``batch_size`` counts units,
        and a batch holds whole conversations."""
        rows = [{"row": pickle.dumps([SampleResult(sample=s) for s in unit], protocol=pickle.HIGHEST_PROTOCOL)}
                for unit in part.units()]
        ds = ray.data.from_items(rows)
        if self.lexical.selected:
            ds = ds.map_batches(_stage_fn(ray.put(self.lexical)), batch_size=self.batch_size, batch_format="numpy")
        if self.model.selected:
            ds = ds.map_batches(_StageActor, fn_constructor_args=(ray.put(self.model),), batch_size=self.batch_size,
                                batch_format="numpy", compute=_actor_pool(ray, self.bertscore_actors),
                                num_gpus=self.bertscore_gpus or None)
        if self.judge.selected:
            # A fixed pool of judge actors, each judging one batch at a time: at most judge_concurrency
            # batches are in flight across the whole cluster, however many nodes it has.
            ds = ds.map_batches(_StageActor, fn_constructor_args=(ray.put(self.judge),),
                                batch_size=min(self.batch_size, 32), batch_format="numpy",
                                compute=_actor_pool(ray, self.judge_concurrency))
        return ds


def _actor_pool(ray, size: int):
    return ray.data.ActorPoolStrategy(size=size)
