"""One judge call and the reading of its reply, as the one-call judges make it (answer_relevance,
context_relevance, context_recall, answer_correctness and the three conversation judges).

:func:`ask_once` asks exactly once (no repair re-ask): a dry run is status ``dry_run`` with the estimate, a call
that fails after the client's bounded retries is ``judge_error``, a reply that cannot be read (or whose shape the
metric's reader refuses) is ``parse_error``; :class:`~genevals.metrics.judging.judge_metric.GuardedJudge` then
keeps the raw reply in ``details.transcript``. A reply cut at ``max_tokens`` keeps its complete part, said in
``details.issues``.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from genevals import types
from genevals.claims.locate import FUZZY_THRESHOLD, locate_parts
from genevals.judge.client import CallLog
from genevals.judge.protocol import estimate_tokens
from genevals.metrics.base import Unscored
from genevals import prompt_render
from genevals.metrics.judging.parse import ParseError, extract_json
from genevals.types import MetricResult

#: reads the parsed reply into the outputs, given the details gathered so far (raise ParseError on a bad shape)
Reader = Callable[[Any, dict[str, Any]], dict[str, MetricResult]]


def dry_run(runtime: Any, text: str, params: Mapping[str, Any]) -> Unscored:
    """The ``dry_run`` status of one request of ``text``: its estimated tokens and cost, no call."""
    p, c = estimate_tokens(text), params["max_tokens"] // 2
    return Unscored(types.DRY_RUN, f"dry run: no judge calls; about {p} prompt + {c} completion tokens in 1 request "
                    "(~4 characters per token; tiktoken unavailable offline)",
                    usage={"estimated_requests": 1, "estimated_prompt_tokens": p, "estimated_completion_tokens": c,
                           "estimated_cost_usd": runtime.cost(p, c)})


async def ask_once(metric: Any, log: CallLog, stage: str, text: str, schema: Mapping[str, Any], reply_tokens: int,
                   read: Reader, details: Mapping[str, Any] | None = None) -> dict[str, MetricResult]:
    """``metric`` (a GuardedJudge) asks its judge ``text`` once as ``stage`` and ``read`` s the reply; ``details``
    (what the metric knows before the call, e.g. a conversation's scope) go on the outputs and on a failure."""
    extra = dict(details or {})
    params = metric.runtime.params(reply_tokens)
    if metric.judge.dry_run:
        raise dry_run(metric.runtime, text, params)
    call = log.add(await metric.runtime.client().complete(stage, prompt_render.user(text), schema, params))
    if not call.ok:
        raise Unscored(types.JUDGE_ERROR, f"{stage} call failed after {call.attempts} request(s): {call.failure}",
                       **extra)
    found = {**metric._details(log), **extra}
    if call.completion.finish_reason == "length":
        found["issues"] = [f"{stage} reply hit max_tokens"]
    try:
        reply, salvaged = extract_json(call.completion.text)
        if salvaged:
            found.setdefault("issues", []).append("reply was truncated; kept its complete part")
        return read(reply, found)
    except ParseError as exc:
        raise Unscored(types.PARSE_ERROR, f"the {stage} reply could not be read: {exc}", **extra) from None
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        raise Unscored(types.PARSE_ERROR, f"the {stage} reply has an unexpected shape: {type(exc).__name__}: "
                                          f"{exc}", **extra) from None


# -- reading the reply's fields ----------------------------------------------------------------------
def spans_of(source: str, text: str) -> list[list[int]]:
    """Where a verbatim excerpt (parts may be joined by "...") lies in ``text``: [[start, end], ...], or []."""
    found = locate_parts(source, text, threshold=FUZZY_THRESHOLD) if source and source.strip() else None
    return [[m.start, m.end] for m in found] if found else []


def text_field(item: Mapping[str, Any], *keys: str) -> str:
    """The first string among ``item[key]`` for ``keys``, stripped ('' when none)."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return ""


def flag(item: Mapping[str, Any], *keys: str) -> bool | None:
    """A yes/no field as bool (true/false, "yes"/"no", 1/0); None when absent or unreadable."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, (int, float)) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
            return value.strip().lower() in ("true", "yes")
    return None


def items_of(reply: Any, key: str) -> list[Mapping[str, Any]]:
    """The list of objects under ``reply[key]``; ParseError when there is none."""
    if not isinstance(reply, Mapping) or not isinstance(reply.get(key), list):
        raise ParseError(f"reply has no '{key}' list")
    return [item for item in reply[key] if isinstance(item, Mapping)]
