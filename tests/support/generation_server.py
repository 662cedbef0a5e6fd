"""An OpenAI-compatible server on 127.0.0.1 that writes test items (``prompts/generate_item.md``), for the LLM
generator's tests: the project's :class:`~support.fault_server.FaultServer` with a deterministic generator.

It reads the prompt the way a model would: the item type from "Item type: X.", the passages from their
``<<<passage NONCE id=ID>>>`` ... ``<<<end NONCE>>>`` quotation. A good reply asks about the first passage's
first sentence and quotes, verbatim, the first sentence of every passage it cites (only the first for
``distracting``); ``multi_hop`` says ``bridge``, ``unanswerable`` says ``out_of_scope`` with a refusal;
``follow_up`` carries two earlier turns. Markers in a passage plant a bad reply for that request:

    GENEMPTY       an empty reply
    GENTRUNC       the reply cut mid-JSON, finish_reason "length" (max_tokens reached)
    GENCUT         the reply's last two characters cut, finish_reason "stop" (a server that drops the end, saying nothing)
    GENSTRANGER    evidence cites a chunk id that was not given
    GENNOREF       no "reference"
    GENLIST        a JSON list instead of an object
    GENVARIANT     a variant that is not the type's
    GENTURNS       a follow-up whose turns start with the assistant
    GENDISTRACT    a distracting item that also quotes its distractor (the second passage)

and every marker of the fault server works as there (FAULTMALFORMED: prose, not JSON; FAULT500: every request
answers 500; ...). Every request is counted (``total``) and kept (``requests``), as in the fault server.
"""
from __future__ import annotations

import json
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from support.fault_server import FaultServer, _send

from genevals.prompt_files import first_line

_PASSAGE = re.compile(r"<<<passage (\w+) id=(\S+)>>>\n(.*?)\n<<<end \1>>>", re.S)
_TYPE = re.compile(r"^Item type: (\w+)\.$", re.M)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
MARKERS = ("GENEMPTY", "GENTRUNC", "GENCUT", "GENSTRANGER", "GENNOREF", "GENLIST", "GENVARIANT", "GENTURNS",
           "GENDISTRACT")


def passages(content: str) -> list[tuple[str, str]]:
    """(id, text) of every passage quoted in a generation prompt."""
    return [(m.group(2), m.group(3)) for m in _PASSAGE.finditer(content)]


def first_sentence(text: str) -> str:
    return _SENTENCE.split(text.strip(), maxsplit=1)[0]


def item_reply(content: str) -> dict[str, Any]:
    """The honest reply to a generation prompt (before any planted fault)."""
    item_type = _TYPE.search(content).group(1)
    quoted = passages(content)
    cited = quoted[:1] if item_type == "distracting" else quoted
    head = first_sentence(quoted[0][1])
    reply: dict[str, Any] = {"question": f"According to the team's notes, what holds about {head.split()[0]}?",
                             "reference": head,
                             "evidence": [{"chunk_id": cid, "quote": first_sentence(text)} for cid, text in cited]}
    if item_type == "multi_hop":
        reply["variant"] = "bridge"
    if item_type == "unanswerable":
        reply.update(variant="out_of_scope", evidence=[],
                     reference="The documents do not say; I cannot answer that from them.")
    if item_type == "follow_up":
        reply["turns"] = [{"role": "user", "content": "What are the notes about?"},
                          {"role": "assistant", "content": head}]
    return reply


class GenerationServer(FaultServer):
    """The fault server answering generation prompts with :func:`item_reply`, faults planted by :data:`MARKERS`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(replies=self._reply, **kwargs)
        self.first_line = first_line("generate_item")

    def generations(self) -> list[dict[str, Any]]:
        """The bodies of the generation requests received."""
        return [r["body"] for r in self.requests if r["body"]["messages"][0]["content"].startswith(self.first_line)]

    def _reply(self, content: str) -> Any:
        if not content.startswith(self.first_line):
            return None
        reply = item_reply(content)
        if "GENEMPTY" in content:
            return ""
        if "GENCUT" in content:  # the closing "]}" lost: the evidence's last object is whole
            return json.dumps(reply)[:-2]
        if "GENSTRANGER" in content:
            reply["evidence"].append({"chunk_id": "elsewhere#9", "quote": "a quote from nowhere"})
        if "GENNOREF" in content:
            del reply["reference"]
        if "GENLIST" in content:
            return json.dumps([reply])
        if "GENVARIANT" in content:
            reply["variant"] = "sideways"
        if "GENDISTRACT" in content:
            near = passages(content)[1]
            reply["evidence"].append({"chunk_id": near[0], "quote": first_sentence(near[1])})
        if "GENTURNS" in content and "turns" in reply:
            reply["turns"] = reply["turns"][::-1]
        return json.dumps(reply)

    def _answer(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        content = body["messages"][0]["content"]
        if "GENTRUNC" not in content or not content.startswith(self.first_line):
            return super()._answer(h, body)
        with self._lock:
            self.counts["GENTRUNC"] += 1
            self.times.setdefault("GENTRUNC", []).append(time.monotonic())
            self.requests.append({"marker": "GENTRUNC", "kind": "other", "body": body,
                                  "authorization": h.headers.get("Authorization")})
        text = json.dumps(item_reply(content))
        text = text[:len(text) // 2]
        _send(h, 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model"),
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "length"}],
                       "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": len(text) // 4,
                                 "total_tokens": len(content) // 4 + len(text) // 4}})
