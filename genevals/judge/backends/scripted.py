"""A provider that answers from a script, for tests and for trying a pipeline offline (as inspect_ai ships
``mockllm``). It drives the real code path: prompts, the client's cache, retries and accounting, parsing.

    provider = ScriptedProvider({"decompose": {"claims": [...]}, "verify": {"verdicts": [...]}})
    Faithfulness(JudgeConfig(provider=provider, cache=False))

The script maps a prompt kind to a reply. The kind is the name of the genevals prompt the request was built
from ("decompose", "verify", "rubric"; every prompt of ``prompts/``: :func:`genevals.prompt_files.prompt_names`),
recognised by the prompt's first line; ``route`` can be given for other prompts. The reply under "other"
answers every prompt the script names no reply for. A reply is a string, anything JSON-serialisable, an
exception to raise (e.g. :class:`~genevals.judge.protocol.TransientError`), a callable of the messages returning
one of those, or a list of those, used in turn (the last repeats).

By name (``--judge-backend scripted --judge-model script.json``) the script is a JSON file holding that mapping;
the model is then named after the file and its digest, so another script is another judge (and another cache
key).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from genevals.files import Refused, read_limited
from genevals.judge.protocol import Completion, Message, PermanentError, Usage
from genevals.judge.registry import Backend, Identity, register_backend
from genevals.prompt_files import first_line, prompt_names


def _first_lines() -> dict[str, str]:
    """Each prompt's first line, the longest first: a line that begins another prompt's cannot take its requests."""
    lines = {kind: first_line(kind) for kind in prompt_names()}
    return dict(sorted(lines.items(), key=lambda item: -len(item[1])))


class ScriptedProvider:
    backend = "scripted"
    base_url = None
    #: a script ignores the seed; give ``repeats_vary_at_zero=True`` for one whose replies vary by themselves
    repeats_vary_at_zero = False

    def __init__(self, script: Mapping[str, Any], *, model: str = "scripted-judge",
                 route: Callable[[Sequence[Message]], str] | None = None, warning: str | None = None,
                 repeats_vary_at_zero: bool = False) -> None:
        self.script = dict(script)
        self.repeats_vary_at_zero = repeats_vary_at_zero
        self.model = model
        self.warning = warning
        self._route = route
        self._lines = _first_lines() if route is None else {}
        #: (kind, content of the last message) of every request, in order
        self.calls: list[tuple[str, str]] = []

    def kind(self, messages: Sequence[Message]) -> str:
        if self._route is not None:
            return self._route(messages)
        content = messages[0]["content"]
        for kind, line in self._lines.items():
            if content.startswith(line):
                return kind
        return "other"

    def count(self, kind: str) -> int:
        return sum(1 for k, _ in self.calls if k == kind)

    async def complete(self, messages: Sequence[Message], schema: Mapping[str, Any] | None,
                       params: Mapping[str, Any]) -> Completion:
        kind = self.kind(messages)
        if kind not in self.script and "other" in self.script:
            kind = "other"  # the script's reply to any prompt it names no reply for (scripts written for one)
        self.calls.append((kind, messages[-1]["content"]))
        if kind not in self.script:
            raise KeyError(f"the script has no reply for a '{kind}' prompt")
        reply = self.script[kind]
        if isinstance(reply, list):
            reply = reply[min(self.count(kind) - 1, len(reply) - 1)]
        if callable(reply) and not isinstance(reply, type):
            reply = reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        if not isinstance(reply, str):
            reply = json.dumps(reply)
        content = messages[0]["content"]
        return Completion(text=reply, usage=Usage(len(content) // 4, len(reply) // 4))


def _script(config: Any) -> tuple[str, dict[str, Any]]:
    """(the model's name: file name @ digest, the script) of ``config.model``; PermanentError saying what to fix."""
    if not config.model:
        raise PermanentError("--judge-backend scripted needs --judge-model SCRIPT.json (a JSON object: prompt "
                             "kind -> reply)")
    path = Path(config.model).expanduser()
    try:  # a pipe or a device would hang the read or never end: refused before a byte is read
        data = read_limited(path, 64 << 20, "judge script")
        script = json.loads(data)
    except Refused as exc:
        raise PermanentError(f"--judge-model {config.model}: {exc}") from None
    except OSError as exc:
        raise PermanentError(f"--judge-model {config.model}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise PermanentError(f"--judge-model {config.model}: not JSON ({exc})") from None
    if not isinstance(script, dict):
        raise PermanentError(f"--judge-model {config.model}: expected a JSON object (prompt kind -> reply), got "
                             f"{type(script).__name__}")
    return f"{path.name}@{hashlib.sha256(data).hexdigest()[:12]}", script


def _identity(config: Any) -> Identity:
    try:
        return Identity(_script(config)[0])
    except PermanentError:  # the preflight (or the first call) says what is wrong
        return Identity(Path(str(config.model or "scripted-judge")).name)


def _provider(config: Any) -> ScriptedProvider:
    model, script = _script(config)
    return ScriptedProvider(script, model=model)


# No preflight: building the provider reads the script, and nothing can fail after that.
register_backend(Backend(name="scripted", factory=_provider, identity=_identity, repeats_vary_at_zero=False,
                         summary="answers from a JSON script (--judge-model script.json), for tests and "
                                 "offline trials"))
