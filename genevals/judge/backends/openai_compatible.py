"""OpenAI-compatible judge backend (OpenAI, vLLM, llama.cpp server, LiteLLM proxies, ...) via ``openai``.

Configuration: ``base_url`` option or OPENAI_BASE_URL, ``model`` option, API key from the ``api_key`` option
or OPENAI_API_KEY (kept only in the client object; never in results, logs or the cache).

Structured output, in order of preference, remembered per provider once a server refuses one:
``json_schema`` (OpenAI, vLLM) -> ``json_object`` with a ``schema`` field (llama.cpp server) -> plain
``json_object`` -> no response_format. A 400/422 answer to a request with a response_format moves one step
down and re-sends at once. The openai client's own retries are off: retries wrap the provider
(:mod:`genevals.judge.client`).
"""
from __future__ import annotations

import asyncio
import re
import email.utils
import time
from typing import Any, Mapping, Sequence

from genevals.judge.protocol import Completion, Message, PermanentError, TransientError, Usage, estimate_tokens

MODES = ("json_schema", "json_object_schema", "json_object", "none")
DEFAULT_MODEL = "gpt-4o-mini"


def _retry_after(headers: Any) -> float | None:
    if headers is None:
        return None
    value = headers.get("retry-after-ms")
    if value is not None:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value).timestamp()
        except (TypeError, ValueError):
            return None
        return max(0.0, when - time.time())


class OpenAIProvider:
    backend = "openai"

    def __init__(self, *, base_url: str | None = None, model: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, seed: int = 0, mode: str | None = None) -> None:
        self.base_url = base_url
        self.model = model or DEFAULT_MODEL
        self._api_key = api_key
        self.timeout = float(timeout)
        self.seed = seed
        self.mode = mode or "json_schema"
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._probe: asyncio.Lock | None = None
        self._mode_confirmed = mode is not None

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIProvider(base_url={self.base_url!r}, model={self.model!r}, mode={self.mode!r})"

    def _get_client(self):
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            import openai

            # Servers without auth (llama.cpp, vLLM) accept any key; the client insists on one.
            self._client = openai.AsyncOpenAI(api_key=self._api_key or "not-needed", base_url=self.base_url,
                                              timeout=self.timeout, max_retries=0)
            self._loop = loop
            self._probe = asyncio.Lock()
        return self._client

    @staticmethod
    def _response_format(mode: str, schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
        if schema is None or mode == "none":
            return None
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": "judge_reply", "schema": dict(schema)}}
        if mode == "json_object_schema":
            return {"type": "json_object", "schema": dict(schema)}
        return {"type": "json_object"}

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        client = self._get_client()
        if schema is not None and not self._mode_confirmed:
            # Until one request has shown which response_format the server takes, send one at a time, so a
            # burst of concurrent requests does not all meet the same 400.
            async with self._probe:  # type: ignore[union-attr]
                if not self._mode_confirmed:
                    completion = await self._complete(client, messages, schema, params)
                    self._mode_confirmed = True
                    return completion
        return await self._complete(client, messages, schema, params)

    async def _complete(self, client, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                        params: Mapping[str, Any]) -> Completion:
        import openai

        requests = 0
        while True:
            kwargs: dict[str, Any] = {
                "model": self.model, "messages": [dict(m) for m in messages],
                "temperature": params.get("temperature", 0.0), "seed": params.get("seed", self.seed),
            }
            if params.get("max_tokens"):
                kwargs["max_tokens"] = int(params["max_tokens"])
            fmt = self._response_format(self.mode, schema)
            if fmt is not None:
                kwargs["response_format"] = fmt
            requests += 1
            try:
                resp = await client.chat.completions.create(**kwargs)
            except openai.RateLimitError as exc:
                raise TransientError(f"HTTP 429: {_short(exc)}", _retry_after(exc.response.headers), 429) from None
            except openai.APIStatusError as exc:
                # An error that names the response_format (400/422 from most servers; llama_cpp.server answers
                # 500 to an unknown type): take the next, simpler structured-output mode and re-send.
                if fmt is not None and MODES.index(self.mode) < len(MODES) - 1 and \
                        re.search(r"response_format|json_schema|schema", str(exc), re.I):
                    self.mode = MODES[MODES.index(self.mode) + 1]
                    continue
                if isinstance(exc, (openai.BadRequestError, openai.UnprocessableEntityError)):
                    raise PermanentError(f"HTTP {exc.status_code}: {_short(exc)}") from None
                raise _status_error(exc) from None
            except openai.APITimeoutError:
                raise TransientError(f"timeout after {self.timeout:g}s") from None
            except openai.APIConnectionError as exc:
                raise TransientError(f"connection error: {type(exc).__name__}") from None
            except (ValueError, TypeError) as exc:  # a 200 whose body is not a chat completion
                raise TransientError(f"malformed response body: {exc}") from None
            break
        if not getattr(resp, "choices", None):
            raise TransientError("response has no choices")
        choice = resp.choices[0]
        text = (choice.message.content if choice.message is not None else None) or ""
        u = getattr(resp, "usage", None)
        if u is not None and getattr(u, "prompt_tokens", None) is not None:
            usage = Usage(int(u.prompt_tokens or 0), int(u.completion_tokens or 0))
        else:
            usage = Usage(sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(text))
        return Completion(text=text, usage=usage, raw=resp, finish_reason=choice.finish_reason,
                          requests=requests)


def _status_error(exc) -> Exception:
    status = exc.status_code
    if status >= 500 or status in (408, 409):
        return TransientError(f"HTTP {status}: {_short(exc)}", _retry_after(exc.response.headers), status)
    return PermanentError(f"HTTP {status}: {_short(exc)}")


def _short(exc: Exception, limit: int = 300) -> str:
    text = str(getattr(exc, "message", None) or exc)
    return text if len(text) <= limit else text[:limit] + "..."
