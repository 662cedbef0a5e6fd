"""Judge prompts rendered: loaded from ``prompts/*.md`` (:mod:`genevals.prompt_files` says where), ``{{name}}``
placeholders filled, ``<!-- x -->`` blocks kept or dropped, a conversation's earlier turns inserted
(``history.md``), and hashed into ``prompt_version`` so that editing a prompt changes the metric signature and
every cache key.

It lives beside the prompt files, not in the metrics room, so whatever sends a prompt (the judge metrics, the
labeller's relevance grades) renders it without importing :mod:`genevals.metrics`; it imports nothing else of
genevals either.
"""
from __future__ import annotations

import functools
import hashlib
import re
from typing import Any, Mapping

from genevals.prompt_files import prompt_file

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@functools.lru_cache(maxsize=None)
def load(name: str) -> str:
    return prompt_file(name).read_text(encoding="utf-8")


def prompt_version(*names: str) -> str:
    """sha256 (first 12 hex digits) over the named prompt files, in order."""
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0" + load(name).encode("utf-8") + b"\0")
    return h.hexdigest()[:12]


_BLOCK = re.compile(r"<!-- (\w+) -->\n(.*?)<!-- /\1 -->\n", re.S)


def render(name: str, *, blocks: Mapping[str, bool] | None = None, **values: Any) -> str:
    """Fill ``{{name}}`` placeholders. ``<!-- x -->...<!-- /x -->`` blocks are kept unless ``blocks[x]`` is False."""
    keep = dict(blocks or {})
    template = _BLOCK.sub(lambda m: m.group(2) if keep.get(m.group(1), True) else "", load(name))

    def sub(m: re.Match) -> str:
        if m.group(1) not in values:
            raise KeyError(f"prompt {name}: no value for {{{{{m.group(1)}}}}}")
        return str(values[m.group(1)])

    return _PLACEHOLDER.sub(sub, template)


#: the speaker of each role in a "Conversation so far" block
_SPEAKERS = {"user": "User", "assistant": "Assistant", "system": "System"}


#: the blocks of ``history.md``: for a prompt taking a question, for verify, for two answers' own conversations
_HISTORY_BLOCKS = ("question", "verify", "pair")


def _turns(sample: Any) -> str:
    """The sample's earlier turns, one "Speaker: content" line each, after a note of the turns left out."""
    turns = "\n".join(f"{_SPEAKERS.get(role, role)}: {content}" for role, content in getattr(sample, "history", ()))
    dropped = getattr(sample, "history_dropped", 0)
    if dropped:
        turns = f"({dropped} earlier turn(s) left out: the history budget keeps the latest)\n" + turns
    return turns


def _insert(prompt: str, block: str, before: str) -> str:
    at = prompt.find("\n" + before)
    if at < 0:
        raise ValueError(f"no line starting with {before!r} in the prompt to put the conversation before")
    return prompt[:at + 1] + block + prompt[at + 1:]


def _block(kind: str, **turns: str) -> str:
    return render("history", blocks={k: k == kind for k in _HISTORY_BLOCKS}, **turns).lstrip("\n")


def with_history(prompt: str, sample: Any, before: str = "Question: ", kind: str = "question") -> str:
    """``prompt`` with the sample's earlier turns (:attr:`~genevals.types.Sample.history`) as a "Conversation so
    far" block (``history.md``, block ``kind``) just before the line that starts with ``before``; unchanged for a
    sample without history, so single-answer prompts, and their hashes, are those of the prompt files alone."""
    if not getattr(sample, "history", ()):
        return prompt
    return _insert(prompt, _block(kind, turns=_turns(sample)), before)


def with_histories(prompt: str, first: Any, second: Any, before: str = "Question: ") -> str:
    """Two answers compared (pairwise, as "A" and "B"): one "Conversation so far" block when both turns have the
    same earlier turns, else each answer's own conversation (block ``pair``); unchanged when neither has any."""
    one, two = ((tuple(getattr(s, "history", ())), getattr(s, "history_dropped", 0)) for s in (first, second))
    if one == two:
        return with_history(prompt, first, before)
    return _insert(prompt, _block("pair", turns_a=_turns(first) or "(none)", turns_b=_turns(second) or "(none)"),
                   before)


def user(content: str) -> list[dict[str, str]]:
    # One user message: chat templates of small models (Gemma) have no system role.
    return [{"role": "user", "content": content}]
