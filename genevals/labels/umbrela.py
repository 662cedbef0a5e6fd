"""The LLM grader: graded relevance 0-3 of one (topic, document) pair per judge call, with UMBRELA's prompt
(``prompts/relevance_grade.md``: Upadhyay et al., "UMBRELA: UMbrela is the (Open-Source Reproduction of the)
Bing RELevance Assessor", 2024, after Thomas et al., "Large language models can accurately predict searcher
preferences", 2023; the reply asked as JSON ``{"score": N}``).

The calls go through the judge machinery every judge metric uses (:class:`genevals.judge.runtime.JudgeRuntime`:
the on-disk cache keyed by the prompt's hash, bounded retries, adaptive concurrency, redaction, the dry run's
token estimate and price). One pair is one call, so a re-run, or a deeper pool over the same runs, asks only for
the pairs not yet in the cache. With ``repeats`` r > 1 each pair is asked r times (seeds seed..seed+r-1, each its
own cache key) and its grade is the median of the grades read, the lower of the two middle ones for an even
count; the provenance records how often the repeats disagreed.

A reply whose grade cannot be read (no ``score`` 0-3 in JSON, nor UMBRELA's ``##final score: N``), or a call
that fails after its retries, gets no grade: the pair is left out of the qrels (unjudged, as trec_eval counts an
unjudged document: not relevant) and counted in the provenance (``unreadable``, ``failed``).
"""
from __future__ import annotations

import asyncio
import json
import re
from typing import Any, Callable, Mapping, Sequence

from genevals.judge.config import JudgeConfig
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import REPEAT, JudgeRuntime
from genevals.settings.numerals import small_whole
from genevals import prompt_render

PROMPT = "relevance_grade"
#: completion tokens allowed for a reply (``{"score": 2}`` takes about six)
REPLY_TOKENS = 32
#: characters of a document put in the prompt: UMBRELA judges passages; a longer document is cut, and said so
PASSAGE_CHARS = 4000
SCHEMA = {"type": "object", "properties": {"score": {"type": "integer", "enum": [0, 1, 2, 3]}},
          "required": ["score"], "additionalProperties": False}
# what may stand between "final score" and the grade is taken atomically (a lookahead and its group): the three
# whitespace runs of ``\s*[:=]?\s*\**\s*`` backtracked against each other, cubic in the whitespace of a reply
_FINAL = re.compile(r"final\s*score(?=(\s*[:=]?\s*\**\s*))\1([0-3])\b", re.I)
_SCORE = re.compile(r'"?(?:score|grade|O)"?\s*[:=]\s*"?([0-3])\b')


def prompt_hash() -> str:
    return prompt_render.prompt_version(PROMPT)


def render(query: str, passage: str) -> tuple[str, bool]:
    """The prompt for one pair, and whether the passage was cut to :data:`PASSAGE_CHARS`."""
    text = passage.strip()
    cut = len(text) > PASSAGE_CHARS
    return prompt_render.render(PROMPT, query=query.strip(), passage=text[:PASSAGE_CHARS] + (" ..." if cut else "")), cut


def read_grade(reply: str) -> int | None:
    """The grade in a reply: JSON ``{"score": N}``, else ``final score: N`` or ``"score": N`` anywhere in it."""
    text = reply.strip()
    try:
        value = json.loads(text[text.find("{"):text.rfind("}") + 1]) if "{" in text else None
    except ValueError:
        value = None
    if isinstance(value, dict):
        score = value.get("score", value.get("grade"))
        if isinstance(score, str):
            score = small_whole(score)
        if isinstance(score, int) and not isinstance(score, bool) and 0 <= score <= 3:
            return score
    for pattern in (_FINAL, _SCORE):
        found = pattern.search(text)
        if found:
            return int(found.group(found.re.groups))
    return None


def median_grade(grades: Sequence[int]) -> int:
    ordered = sorted(grades)
    return ordered[(len(ordered) - 1) // 2]


def identity(runtime: JudgeRuntime) -> dict[str, Any]:
    """What the provenance says of this grader (the model named is the one asked; see ``answered``)."""
    info = {"judge": runtime.backend, "model": runtime.model, "prompt": PROMPT, "prompt_hash": runtime.prompt_version,
            "temperature": runtime.config.temperature, "seed": runtime.config.seed, "repeats": runtime.repeats}
    if runtime.base_url:
        info["base_url"] = runtime.base_url
    if runtime.warning:  # the packaged tiny model: a smoke test of the plumbing, not labels to trust
        info["warning"] = runtime.warning
    return info


def runtime_for(judge: JudgeConfig, repeats: int | None = None, cache: bool | None = None) -> JudgeRuntime:
    changes: dict[str, Any] = {}
    if repeats is not None and repeats != judge.repeats:
        changes["repeats"] = repeats
    if cache is False and judge.cache:  # only ever turned off here: --no-judge-cache is never overridden
        changes["cache"] = False
    return JudgeRuntime(judge.with_options(**changes) if changes else judge, prompt_hash())


def estimate(runtime: JudgeRuntime, pool: Mapping[str, Sequence[str]], topics: Mapping[str, str],
             documents: Mapping[str, str]) -> dict[str, Any]:
    """The dry run: requests, tokens (about 4 characters a token) and cost of judging every pooled pair."""
    prompt_tokens = sum(estimate_tokens(render(topics[t], documents[d])[0]) for t, docs in pool.items() for d in docs)
    requests = sum(len(docs) for docs in pool.values()) * runtime.repeats
    prompt_tokens *= runtime.repeats
    completion = requests * (REPLY_TOKENS // 2)
    return {"estimated_requests": requests, "estimated_prompt_tokens": prompt_tokens,
            "estimated_completion_tokens": completion, "estimated_cost_usd": runtime.cost(prompt_tokens, completion)}


async def _grade_pair(runtime: JudgeRuntime, query: str, passage: str) -> tuple[int | None, dict[str, Any]]:
    text, _ = render(query, passage)
    client = runtime.client()
    grades, outcome = [], {"requests": 0, "cached": 0, "failed": 0, "unreadable": 0, "prompt_tokens": 0,
                           "completion_tokens": 0}
    for r in range(runtime.repeats):
        token = REPEAT.set(r)
        try:
            call = await client.complete(PROMPT, prompt_render.user(text), SCHEMA, runtime.params(REPLY_TOKENS))
        finally:
            REPEAT.reset(token)
        if call.cached:
            outcome["cached"] += 1
        else:
            outcome["requests"] += call.attempts
        if not call.ok:
            outcome["failed"] += 1
            outcome["error"] = call.failure
            continue
        if not call.cached:
            outcome["prompt_tokens"] += call.completion.usage.prompt_tokens
            outcome["completion_tokens"] += call.completion.usage.completion_tokens
        found = read_grade(call.completion.text)
        if found is None:
            outcome["unreadable"] += 1
            outcome["reply"] = call.completion.text[:200]
        else:
            grades.append(found)
    outcome["disagree"] = int(len(set(grades)) > 1)
    return (median_grade(grades) if grades else None), outcome


async def _grade_all(runtime: JudgeRuntime, pairs: list[tuple[str, str]], topics: Mapping[str, str],
                     documents: Mapping[str, str], progress: Callable[[int], None] | None):
    async def one(topic: str, doc: str):
        result = await _grade_pair(runtime, topics[topic], documents[doc])
        if progress is not None:
            progress(1)
        return result

    # the client's adaptive limit bounds the requests in flight; the tasks are made a window at a time so that a
    # pool of a million pairs is not a million coroutines at once
    window = max(64, runtime.config.concurrency * 16)
    out = []
    for start in range(0, len(pairs), window):
        out += await asyncio.gather(*(one(t, d) for t, d in pairs[start:start + window]))
    return out


def grade(runtime: JudgeRuntime, pool: Mapping[str, Sequence[str]], topics: Mapping[str, str],
          documents: Mapping[str, str], progress: Callable[[int], None] | None = None
          ) -> tuple[dict[str, dict[str, int]], dict[str, Any]]:
    """``{topic: {doc: grade}}`` for every pair the judge graded, and the calls' counts (requests, cached,
    failed, unreadable, tokens, repeats that disagreed, the first error)."""
    pairs = [(t, d) for t, docs in pool.items() for d in docs]
    results = asyncio.run(_grade_all(runtime, pairs, topics, documents, progress))
    qrels: dict[str, dict[str, int]] = {t: {} for t in pool}
    counts = {"requests": 0, "cached": 0, "failed": 0, "unreadable": 0, "prompt_tokens": 0, "completion_tokens": 0,
              "disagree": 0}
    first: dict[str, str] = {}
    for (topic, doc), (found, outcome) in zip(pairs, results):
        for key in counts:
            counts[key] += outcome.get(key, 0)
        for key in ("error", "reply"):
            if key in outcome and key not in first:
                first[key] = f"{topic}/{doc}: {outcome[key]}"
        if found is not None:
            qrels[topic][doc] = found
    counts["cut_passages"] = sum(1 for t, d in pairs if len(documents[d].strip()) > PASSAGE_CHARS)
    if first.get("error"):
        counts["first_error"] = first["error"]
    if first.get("reply"):
        counts["first_unreadable_reply"] = first["reply"]
    counts["answered"] = runtime.answered
    return qrels, counts
