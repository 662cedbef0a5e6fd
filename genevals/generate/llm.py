"""The LLM generator: one structured judge call writes one item (question, reference answer, verbatim evidence
quotes per cited chunk; the earlier turns of a follow-up), from ``prompts/generate_item.md``.

    generator = LLMGenerator(JudgeConfig(base_url="http://127.0.0.1:8080/v1", model="qwen2.5-7b"))
    item = generator.generate(slot, chunks, "fr")        # or: await generator.agenerate(...)
    prompt_tokens, completion_tokens = generator.estimate(slot, chunks)   # --dry-run: no call

The judge is any the project supports: a :class:`~genevals.judge.config.JudgeConfig` (OpenAI-compatible
endpoints, llama.cpp's server or the in-process llama.cpp backend, the scripted judge), the
:class:`~genevals.judge.runtime.JudgeRuntime` or :class:`~genevals.judge.client.JudgeClient` the driver already
built from ``--judge-*`` (so the gates and the generator share one client: its cache, retries, redaction and
concurrency limit), or a :class:`~genevals.judge.jury.Jury`. A jury's first judge generates: an item is one text
and there is nothing to vote on until it exists, so the jury's several judges belong to the gates that check it
(the provenance names the judge that wrote the item and the jury's size).

Every request is ``temperature`` (the settings', else the judge's), ``seed`` = the judge's seed + the slot's own
and ``max_tokens`` = :attr:`GenerationSettings.reply_tokens` (capped as every judge request is). The seed is part
of the judge cache key, so with the cache on a second run with the same seed and settings reads every reply
back from the cache and writes the same bytes, and the retry of a slot under another seed asks again.

A reply that gives no item (not the schema, empty, truncated, citing a chunk not given: :mod:`.llm_reply`), a
call that failed after the client's retries, and a slot the generator cannot fill (an offline type, too few
chunks) each give an :class:`~genevals.generate.items.Item` whose ``gates`` are ``{"generation_failed":
"generation_failed"}`` and whose provenance holds the ``reason`` (and the reply, cut to 500 characters): never an
exception and never a silent drop. The one exception is a judge whose preflight fails
(:class:`~genevals.judge.preflight.JudgeUnavailable`), which stops the run, as it stops ``genevals run``.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from genevals.generate import llm_prompt, llm_reply
from genevals.generate.items import Chunk, Item
from genevals.generate.slots import Slot
from genevals.judge.client import Call, JudgeClient, SampleUsage
from genevals.judge.config import JudgeConfig, public_url
from genevals.judge.jury import Jury
from genevals.judge.protocol import estimate_tokens
from genevals.judge.runtime import JudgeRuntime
from genevals.prompt_render import user

#: the gate name and status of an item the generator could not make
GATE = "generation_failed"
FAILED = "generation_failed"
#: how the reason of a generation call that failed after the client's retries starts (a judge failure)
CALL_FAILED = "the generation call failed"
#: the characters of a failed reply kept in the provenance
REPLY_CHARS = 500


@dataclass(frozen=True)
class GenerationSettings:
    """How items are asked for.

    Args:
        reply_tokens: ``max_tokens`` of each request (default 1024: a question, a reference of a few sentences,
            quotes and up to six turns take some 300-700 tokens; a reply cut there is ``generation_failed``).
        temperature: the requests' temperature; None (default): the judge's (``--judge-temperature``, 0 unless set).
        passage_chars: the longest chunk text quoted whole (default 6000); a longer one is cut there, and the
            provenance names it (``cut_chunks``).
        prices: ``{model: {"input_per_1k", "output_per_1k"}}`` for a bare JudgeClient, which carries no price
            table (a JudgeConfig, runtime or jury brings its own ``prices``).
    """

    reply_tokens: int = 1024
    temperature: float | None = None
    passage_chars: int = 6000
    prices: Mapping[str, Mapping[str, float]] | None = None

    def __post_init__(self) -> None:
        for name in ("reply_tokens", "passage_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"GenerationSettings.{name}: a whole number above 0, got {value!r}")
        if self.temperature is not None and not (isinstance(self.temperature, (int, float))
                                                 and not isinstance(self.temperature, bool)
                                                 and 0 <= self.temperature <= 2):
            raise ValueError(f"GenerationSettings.temperature: a number from 0 to 2, or None, got "
                             f"{self.temperature!r}")


class LLMGenerator:
    """One item per call to ``judge``: a JudgeConfig, JudgeRuntime, JudgeClient or Jury (the first judge)."""

    def __init__(self, judge: JudgeConfig | JudgeRuntime | JudgeClient | Jury,
                 settings: GenerationSettings | None = None) -> None:
        self.settings = settings or GenerationSettings()
        self.prompt_hash = llm_prompt.prompt_hash()
        self.jury: dict[str, Any] | None = None
        if isinstance(judge, Jury):
            first = judge.jurors[0]
            self.jury = {"generator": first.name, "judges": len(judge.jurors)}
            judge = first.config
        if isinstance(judge, JudgeConfig):
            judge = JudgeRuntime(judge, self.prompt_hash)
        if isinstance(judge, JudgeRuntime):
            self.runtime: JudgeRuntime | None = judge
            self._client: JudgeClient | None = None
        elif isinstance(judge, JudgeClient):
            self.runtime, self._client = None, judge
        else:
            raise TypeError(f"LLMGenerator: a JudgeConfig, JudgeRuntime, JudgeClient or Jury, got "
                            f"{type(judge).__name__}")
        #: the requests, cached replies and tokens of every call made so far (the card's cost per kept item)
        self.usage = SampleUsage()

    # -- the judge ------------------------------------------------------------------------------------------
    def client(self) -> JudgeClient:
        return self.runtime.client() if self.runtime is not None else self._client

    def params(self, slot: Slot) -> dict[str, Any]:
        """What the slot's request sends: temperature, the seed (judge's + slot's), max_tokens."""
        if self.runtime is not None:
            params = self.runtime.params(self.settings.reply_tokens)
            params["seed"] = self.runtime.config.seed + slot.seed
        else:
            params = {"temperature": 0.0, "seed": slot.seed, "max_tokens": self.settings.reply_tokens}
        if self.settings.temperature is not None:
            params["temperature"] = float(self.settings.temperature)
        return params

    def identity(self) -> dict[str, Any]:
        """The judge as the provenance names it (the model asked for; ``answered`` is the one that replied)."""
        if self.runtime is not None:
            info = {"backend": self.runtime.backend, "model": self.runtime.model, "base_url": self.runtime.base_url}
        else:
            provider = self._client.provider
            info = {"backend": provider.backend, "model": provider.model,
                    "base_url": public_url(getattr(provider, "base_url", None))}
        return {k: v for k, v in info.items() if v is not None}

    def _priced_model(self) -> tuple[str | None, Mapping[str, Any] | None]:
        """The model and price table a dry run prices with, asking no server (a model the server would be asked
        for is not known before a call, so it has no price)."""
        if self.runtime is None:
            return self._client.provider.model, self.settings.prices
        config = self.runtime.config
        model = config.provider.model if config.provider is not None else config.model
        return model, config.prices

    # -- dry run --------------------------------------------------------------------------------------------
    def estimate(self, slot: Slot, chunks: Sequence[Chunk], language: str | None = None) -> tuple[int, int]:
        """(prompt tokens, completion tokens) of the slot's one request, as every dry run in genevals estimates
        them (:func:`genevals.judge.protocol.estimate_tokens`: about 4 characters a token; the reply at half its
        ``max_tokens``). No call is made."""
        text, _ = llm_prompt.render(slot, chunks, language, self.settings.passage_chars)
        return estimate_tokens(text), self.params(slot)["max_tokens"] // 2

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        """USD for these tokens through the price table (``--judge-prices``; a batch judge's discount applied),
        or None when the model has no price there (or is only known once the server is asked)."""
        model, prices = self._priced_model()
        if model is None:
            return None
        factor = 1.0
        if self.runtime is not None and self.runtime.config.batch:
            factor = self.runtime.price_factor
        return SampleUsage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens).cost(model, prices,
                                                                                                 factor)

    def spent(self) -> dict[str, Any]:
        """Requests, cached replies, tokens and cost of the calls made so far."""
        model, prices = self._priced_model()
        return self.usage.to_dict(model or "", prices)

    # -- generation -----------------------------------------------------------------------------------------
    def generate(self, slot: Slot, chunks: Sequence[Chunk], language: str | None = None) -> Item:
        """:meth:`agenerate` in an event loop of its own (call ``agenerate`` from inside one)."""
        return asyncio.run(self.agenerate(slot, chunks, language))

    async def agenerate(self, slot: Slot, chunks: Sequence[Chunk], language: str | None = None) -> Item:
        """The item of ``slot`` built on ``chunks`` (the slot's, in its order: for ``distracting`` the first
        answers, the rest distract), its question and reference in ``language`` (an ISO 639-1 code; None or
        "": the documents' own)."""
        chunks = tuple(chunks)
        problem = self._unfillable(slot, chunks)
        if problem is not None:
            return self._failed(slot, chunks, language, problem, {})
        text, cut = llm_prompt.render(slot, chunks, language, self.settings.passage_chars)
        params = self.params(slot)
        ids = [c.id for c in chunks]
        # a distracting item cites the chunk that answers; the near ones are there to distract, never cited
        relevant, distractors = (ids[:1], ids[1:]) if slot.type == "distracting" else (ids, [])
        call = await self.client().complete(llm_prompt.PROMPT, user(text), llm_prompt.schema(slot.type, relevant),
                                            params)
        self.usage.add(call)
        made = self._provenance(slot, params, call, cut)
        if not call.ok:
            return self._failed(slot, chunks, language, f"{CALL_FAILED} after {call.attempts} "
                                f"request(s): {call.failure}", made)
        try:
            reply = llm_reply.read(call.completion.text, call.completion.finish_reason, slot.type, relevant,
                                   params["max_tokens"], distractors)
        except llm_reply.GenerationFailed as exc:
            made["reply"] = (call.completion.text or "")[:REPLY_CHARS]
            return self._failed(slot, chunks, language, str(exc), made)
        if reply.variant:
            made["variant"] = reply.variant
        if distractors:
            made["distractors"] = distractors
        return Item(id=item_id(slot), type=slot.type, question=reply.question, reference=reply.reference,
                    chunks=tuple(relevant), evidence=reply.evidence, language=language or "",
                    persona=slot.persona, style=slot.style, length=slot.length,
                    expect_refusal=slot.type == "unanswerable", turns=reply.turns, provenance=made)

    @staticmethod
    def _unfillable(slot: Slot, chunks: Sequence[Chunk]) -> str | None:
        if slot.type not in llm_prompt.LLM_TYPES:
            return (f"the LLM generator writes {', '.join(llm_prompt.LLM_TYPES)} items, not {slot.type!r} (the "
                    "offline generators make known_item and extractive ones)")
        need = llm_prompt.MIN_CHUNKS.get(slot.type, 1)
        if len(chunks) < need:
            return f"a {slot.type} item needs {need} chunk(s); {len(chunks)} given"
        if len({c.id for c in chunks}) < len(chunks):
            return "the same chunk is given twice"
        return None

    def _provenance(self, slot: Slot, params: Mapping[str, Any], call: Call | None,
                    cut: Sequence[str]) -> dict[str, Any]:
        made: dict[str, Any] = {"generator": "llm", **self.identity(), "prompt": llm_prompt.PROMPT,
                                "prompt_hash": self.prompt_hash, "slot": slot.index, "seed": slot.seed,
                                "request_seed": params.get("seed"), "temperature": params.get("temperature"),
                                "max_tokens": params.get("max_tokens")}
        if self.jury is not None:
            made["jury"] = dict(self.jury)
        if call is not None and call.ok:
            if call.completion.model:
                made["answered"] = call.completion.model
            made["prompt_tokens"] = call.completion.usage.prompt_tokens
            made["completion_tokens"] = call.completion.usage.completion_tokens
        if cut:
            made["cut_chunks"] = list(cut)
        return made

    def _failed(self, slot: Slot, chunks: Sequence[Chunk], language: str | None, reason: str,
                made: Mapping[str, Any]) -> Item:
        made = {"generator": "llm", "prompt_hash": self.prompt_hash, "slot": slot.index, "seed": slot.seed,
                **made, "reason": reason}
        return Item(id=item_id(slot), type=slot.type, question="", reference="", chunks=tuple(c.id for c in chunks),
                    language=language or "", persona=slot.persona, style=slot.style, length=slot.length,
                    expect_refusal=slot.type == "unanswerable", gates={GATE: FAILED}, provenance=made)


def item_id(slot: Slot) -> str:
    """The item's id: its slot's index, so a resumed or re-run generation names the same item the same way."""
    return f"q{slot.index}"
