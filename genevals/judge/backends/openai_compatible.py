"""OpenAI-compatible judge backend (OpenAI, vLLM, llama.cpp server, LiteLLM proxies, ...) via ``openai``.

Configuration: ``base_url`` option or OPENAI_BASE_URL, ``model`` option, API key from the ``api_key`` option
or OPENAI_API_KEY (kept only in the client object; never in results, logs or the cache).

Structured output, in order of preference: ``json_schema`` (OpenAI, vLLM) -> ``json_object`` with a ``schema``
field (llama.cpp's servers) -> plain ``json_object`` -> no response_format. An error naming the response format
moves one step down and re-sends at once; the mode a server takes is remembered for the process, per server and
model (:data:`_ACCEPTED`), by every provider (llama.cpp's Python server logs a 500 and a traceback per refused
request). The preflight (:func:`probe`) finds it with its one request; the packaged model served by llama.cpp
(:mod:`genevals.judge.packaged`) starts at ``json_object`` with a schema. Requests do not wait for the first one
to show the mode: that would leave every slot idle for a round trip (11% of the ideal at concurrency 32). The
openai client's own retries are off: retries wrap the provider (:mod:`genevals.judge.client`).

Replies from a server on this machine are streamed (``stream`` setting; :mod:`genevals.judge.local`) and joined
(:mod:`genevals.judge.backends.sse`): a request that times out closes its connection, and llama.cpp's server
stops generating instead of finishing a reply nobody reads. A server that cuts a streamed reply (llama.cpp's
Python server does when another request waits for its slot) gets whole replies from then on (:data:`_WHOLE`).

Requests go over :mod:`genevals.judge.backends.http` (a lean keep-alive HTTP/1.1 client) whenever it can serve
the URL, else (a proxy, a URL with a query) through the openai client's own ``post`` (its typed path and httpx
spent 3-5 ms of CPU a call: at concurrency 32, the pace; benchmarks/RESULTS.md, issue 16). Both give the same
errors: 429 -> transient with Retry-After, 5xx/408/409/timeouts/dropped connections -> transient, other
statuses -> permanent, with the server's error message.
"""
from __future__ import annotations

import asyncio
import email.utils
import json
import os
import re
import time
from typing import Any, Mapping, Sequence

from genevals.judge import packaged
from genevals.judge.config import DEFAULT_CONTEXT_BUDGET, public_url
from genevals.judge.protocol import (Completion, JudgeError, Message, PermanentError, TransientError, Usage,
                                     estimate_tokens)
from genevals.judge.redact import Redactor
from genevals.judge.registry import Backend, Identity, register_backend
from genevals.settings import Setting

MODES = ("json_schema", "json_object_schema", "json_object", "none")
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: (base URL, model) -> the structured-output mode that server took (or the next to try), for the process; and
#: the servers (base URL, model) that cut a streamed reply in this process: they get whole replies from then on
_ACCEPTED: dict[tuple[str, str], str] = {}
_WHOLE: set[tuple[str, str]] = set()


class StreamCut(TransientError):
    """A streamed reply the server stopped before its end (as a 503 where it reaches the retries)."""


def _joined(body: bytes) -> bytes:
    """A streamed reply joined into the body an unstreamed request gets (:mod:`genevals.judge.backends.sse`)."""
    from genevals.judge.backends import sse
    try:
        return sse.joined(body)
    except sse.CutShort as exc:
        raise StreamCut(f"streamed reply cut short: {exc}", None, 503) from None
    except ValueError as exc:  # an error event, or no stream: worth another try
        raise TransientError(f"streamed reply: {exc}") from None


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
                 timeout: float = 60.0, seed: int = 0, mode: str | None = None, stream: bool = False) -> None:
        self.base_url = base_url
        self.model = model or DEFAULT_MODEL  # the API's own default; the CLI and the runtime always name one
        self._api_key = api_key
        self.timeout = float(timeout)
        self.seed = seed
        #: the first mode to try: the one asked for, else json_schema (json_object with a schema for the packaged
        #: model, which only llama.cpp serves)
        self.first_mode = mode or ("json_object_schema" if packaged.is_packaged_name(self.model) else "json_schema")
        self.stream = bool(stream)
        self._client: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIProvider(base_url={self.base_url!r}, model={self.model!r}, mode={self.mode!r})"

    @property
    def mode(self) -> str:
        """The structured-output mode the next request takes: the first one asked for, or a later one this
        server (with this model) refused the earlier ones for, in this process."""
        remembered = _ACCEPTED.get((self.base_url or DEFAULT_BASE_URL, self.model), self.first_mode)
        return max(self.first_mode, remembered, key=MODES.index)

    def _refused(self, mode: str) -> None:
        """``mode`` was refused: the next one, for every provider of this server and model (once per mode: a
        refusal of a mode already moved past changes nothing)."""
        if self.mode == mode:
            _ACCEPTED[(self.base_url or DEFAULT_BASE_URL, self.model)] = MODES[MODES.index(mode) + 1]

    def _get_client(self):
        """The request transport of this event loop: a :class:`JsonPoster`, or the openai client."""
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            from genevals.judge.backends import http

            url = self.base_url or DEFAULT_BASE_URL
            # Servers without auth (llama.cpp, vLLM) accept any key; the openai client insists on one.
            key = self._api_key or "not-needed"
            if http.lean_url(url):
                headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                           "Accept": "application/json", "User-Agent": f"genevals/{_version()}"}
                # what the openai client would send from the environment
                for env, header in (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
                    if os.environ.get(env):
                        headers[header] = os.environ[env]
                self._client = http.JsonPoster(url, headers, self.timeout)
            else:
                import openai

                self._client = openai.AsyncOpenAI(api_key=key, base_url=url, timeout=self.timeout, max_retries=0)
            self._loop = loop
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
        return await self._complete(self._get_client(), messages, schema, params)

    async def _complete(self, client, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                        params: Mapping[str, Any]) -> Completion:
        from genevals.judge.backends import http  # loaded with the client already (_get_client)

        requests = 0
        while True:
            mode = self.mode
            kwargs = self.request_body(messages, schema, params, mode)
            fmt = kwargs.get("response_format")
            # the openai client's post reads JSON; a server that cut a streamed reply gets whole ones (_WHOLE)
            streamed = self.stream and isinstance(client, http.JsonPoster) and self._server not in _WHOLE
            if streamed:  # never in a batch's lines (request_body): a batch answers whole
                kwargs["stream"] = True
            requests += 1
            try:
                body = await self._post(client, kwargs)
                if streamed:
                    body = _joined(body)
            except StreamCut:
                # llama.cpp's Python server cuts a streamed reply whenever another request waits for its one slot:
                # from now on this server gets whole replies, which wait their turn instead, and this one is asked
                # again at once (a retry each would lose samples at any concurrency above its slots)
                _WHOLE.add(self._server)
                continue
            except http.StatusError as exc:
                if exc.status == 429:
                    raise TransientError(f"HTTP 429: {_message(exc)}", _retry_after(exc.headers), 429) from None
                # An error that names the response_format (400/422 from most servers; llama_cpp.server answers
                # 500 to an unknown type): take the next, simpler structured-output mode and re-send.
                if fmt is not None and self.refused_format(mode, str(exc)):
                    continue
                if exc.status >= 500 or exc.status in (408, 409):
                    raise TransientError(f"HTTP {exc.status}: {_message(exc)}", _retry_after(exc.headers),
                                         exc.status) from None
                raise PermanentError(f"HTTP {exc.status}: {_message(exc)}") from None
            break
        return _completion(body, messages, requests)

    _server = property(lambda self: (self.base_url or DEFAULT_BASE_URL, self.model))  # this server and model

    def request_body(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                     params: Mapping[str, Any], mode: str | None = None) -> dict[str, Any]:
        """The chat-completion request body, in structured-output ``mode`` (default: the one now in use); the
        batch path (:mod:`genevals.judge.batch`) sends the same body as a line of its requests file."""
        kwargs: dict[str, Any] = {
            "model": self.model, "messages": [dict(m) for m in messages],
            "temperature": params.get("temperature", 0.0), "seed": params.get("seed", self.seed),
        }
        if params.get("max_tokens"):
            kwargs["max_tokens"] = int(params["max_tokens"])
        fmt = self._response_format(mode or self.mode, schema)
        if fmt is not None:
            kwargs["response_format"] = fmt
        return kwargs

    def refused_format(self, mode: str, message: str) -> bool:
        """Whether an error ``message`` to a request sent in ``mode`` refuses its response_format; then the next,
        simpler mode is taken (once per mode) and True says: send it again."""
        if MODES.index(mode) >= len(MODES) - 1 or not re.search(r"response_format|json_schema|schema", message, re.I):
            return False
        self._refused(mode)
        return True

    async def _post(self, client, payload: dict[str, Any]) -> bytes:
        """The reply body; raises :class:`~genevals.judge.backends.http.StatusError` for an HTTP error status and
        :class:`TransientError` for a timeout or a failed connection, whichever transport ``client`` is."""
        from genevals.judge.backends import http

        if isinstance(client, http.JsonPoster):
            try:
                return await client.post("/chat/completions", payload)
            except asyncio.TimeoutError:
                raise TransientError(f"timeout after {self.timeout:g}s") from None
            except http.ReplyCut as exc:
                if not payload.get("stream"):
                    raise TransientError(f"connection error: {exc}") from None
                # llama.cpp's Python server cuts a streamed reply when another request waits for its one slot
                raise StreamCut(f"streamed reply cut short ({exc}): the server stops a reply when another "
                                "request waits for its slot", None, 503) from None
            except (OSError, EOFError) as exc:  # refused, reset, TLS failure, a reply cut short
                raise TransientError(f"connection error: {type(exc).__name__}") from None
        import openai

        try:
            return await client.post("/chat/completions", body=payload, cast_to=bytes)
        except openai.APIStatusError as exc:
            raise http.StatusError(exc.status_code, exc.response.headers,
                                   str(getattr(exc, "message", None) or exc)) from None
        except openai.APITimeoutError:
            raise TransientError(f"timeout after {self.timeout:g}s") from None
        except openai.APIConnectionError as exc:
            raise TransientError(f"connection error: {type(exc).__name__}") from None


def _version() -> str:
    from genevals._version import __version__

    return __version__


def _completion(body: bytes, messages: Sequence[Message], requests: int) -> Completion:
    """The reply text, finish reason and usage of a chat-completion body; a body that is not one is transient
    (a proxy's HTML page, a cut-off reply) and worth retrying."""
    try:
        resp = json.loads(body)
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
        raise TransientError(f"malformed response body: {exc}") from None
    return completion_of(resp, messages, requests)


def completion_of(resp: Any, messages: Sequence[Message], requests: int = 1) -> Completion:
    """:func:`_completion` of a body already parsed (a batch output line's ``response.body``)."""
    choices = resp.get("choices") if isinstance(resp, dict) else None
    if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
        raise TransientError("response has no choices")
    choice = choices[0]
    message = choice.get("message")
    text = (message.get("content") if isinstance(message, dict) else None) or ""
    if not isinstance(text, str):
        raise TransientError(f"malformed response body: message content is {type(text).__name__}, not text")
    u = resp.get("usage")
    counted = [_tokens(u.get(name)) if isinstance(u, dict) else None for name in ("prompt_tokens", "completion_tokens")]
    if counted[0] is not None:
        usage = Usage(counted[0], counted[1] or 0)
    else:  # no usage, or one that is not counts (a server may put anything there): estimated
        usage = Usage(sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(text))
    model = resp.get("model")
    return Completion(text=text, usage=usage, raw=resp, finish_reason=choice.get("finish_reason"),
                      requests=requests, model=model if isinstance(model, str) and model else None)


def _tokens(value: Any) -> int | None:
    """A token count as a reply gives it (a whole number, or its digits as text), else None."""
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 16:
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53:
        return value
    return None


def _message(exc: Exception) -> str:
    """The server's error message, whole: the client redacts it and only then cuts it short (a cut first could
    leave part of a key that the redactor no longer recognises)."""
    return str(getattr(exc, "message", None) or exc)


PROBE = [{"role": "user", "content": "Reply with the single word OK."}]
#: the most of the server's error the preflight quotes (redacted first: :meth:`Redactor.cut`)
SHOWN_ERROR = 400


#: the preflight's response format: a schema as small as one, so the probe finds the mode the server takes
PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
                "additionalProperties": False}


async def probe(config: Any, provider: OpenAIProvider) -> str | None:
    """The preflight: one chat completion of at most one token, with :data:`PROBE_SCHEMA` as its structured
    output (a server that refuses a mode is asked again with the next, and the mode it takes is remembered for
    the run: :data:`_ACCEPTED`), no retries. None when it answers (an HTTP 429 too: the endpoint, model and key
    work, and the client's retries handle rate limits), else the advice."""
    secret = Redactor.for_judge(config.api_key, config.base_url)
    url = public_url(getattr(provider, "base_url", None)) or f"{DEFAULT_BASE_URL} (the default)"
    try:
        await provider.complete(PROBE, PROBE_SCHEMA, {"temperature": 0.0, "seed": config.seed, "max_tokens": 1})
    except TransientError as exc:
        if exc.status == 429:
            return None
        return secret(_advice(secret.cut(str(exc), SHOWN_ERROR) or "", url, provider.model, exc.status)) or ""
    except JudgeError as exc:
        return secret(_advice(secret.cut(str(exc), SHOWN_ERROR) or "", url, provider.model, _status(str(exc)))) or ""
    except Exception as exc:  # noqa: BLE001  (an unexpected client error must still stop the run, with its cause)
        return secret.cut(f"judge preflight at {url} failed: {type(exc).__name__}: {exc}", SHOWN_ERROR) or ""
    return None


def _status(message: str) -> int | None:
    if message.startswith("HTTP "):
        code = message[5:8]
        return int(code) if code.isascii() and code.isdigit() else None
    return None


def _advice(message: str, url: str, model: str, status: int | None) -> str:
    head = f"the judge at {url} (model '{model}') did not answer a test request: {message}"
    if status in (401, 403):
        fix = "check the API key (OPENAI_API_KEY)"
    elif status == 404:
        fix = "check --judge-model and that --judge-base-url ends in the API root (often /v1)"
    elif status is None and ("connection" in message or "timeout" in message):
        fix = ("check that the server is running and --judge-base-url (or OPENAI_BASE_URL) is right"
               + ("; a slow local model may need a longer --judge-timeout" if "timeout" in message else ""))
    else:
        fix = "check --judge-base-url, --judge-model and the server's log"
    return f"{head}; {fix}"


#: the OpenAI-compatible backend's own settings (``--judge-option response_format=json_object``)
SETTINGS = (
    Setting("response_format", str, None, "the first structured-output mode tried (default json_schema; "
            "json_object_schema for the packaged model); a server that refuses one steps down to the next "
            "(json_schema, json_object_schema, json_object, none)", choices=MODES),
    Setting("stream", bool, None, "stream replies, so a request given up on stops the server's generation "
            "(default: for a server on this machine)"),
)


def _provider(config: Any) -> OpenAIProvider:
    stream = config.option("stream")
    return OpenAIProvider(base_url=config.base_url or os.environ.get("OPENAI_BASE_URL"), model=config.model,
                          api_key=config.api_key or os.environ.get("OPENAI_API_KEY"), timeout=config.request_timeout,
                          seed=config.seed, mode=config.option("response_format"),
                          stream=config.local_server if stream is None else stream)


def _warning(config: Any) -> str | None:
    """The packaged model's warning when the server serves it (:mod:`genevals.judge.packaged`): known once the
    model is named (``--judge-model``, or the one the server lists, named before the metrics are built)."""
    return packaged.SMOKE_MODEL_WARNING if packaged.is_packaged_name(config.model) else None


def _context_budget(config: Any) -> int:
    """The packaged model's budget in the window the how-to serves it with (as in process), else the default."""
    return packaged.context_budget(packaged.N_CTX) if packaged.is_packaged_name(config.model) \
        else DEFAULT_CONTEXT_BUDGET


def _identity(config: Any) -> Identity:
    # No model named: the one the server lists, asked when first needed (genevals.judge.models).
    return Identity(config.model, config.base_url or os.environ.get("OPENAI_BASE_URL"))


register_backend(Backend(
    name="openai", factory=_provider, settings=SETTINGS, auto="when",
    picked=lambda base_url: bool(base_url or os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY")), identity=_identity, requires=(("openai", "openai"),), preflight=probe,
    warning=_warning, context_budget=_context_budget,
    summary="an OpenAI-compatible server: --judge-base-url (or OPENAI_BASE_URL), --judge-model, OPENAI_API_KEY"))
