"""A streamed chat completion joined into the body an unstreamed request gets; a stream cut short or reporting an
error is not taken for a reply."""
import json

import pytest

from genevals.judge.backends import sse


def _event(content=None, finish=None, **more):
    delta = {} if content is None else {"content": content}
    return "data: " + json.dumps({"model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                                  **more}) + "\n\n"


def test_pieces_are_joined_with_the_finish_reason_model_and_usage():
    body = (": ping\n\n" + _event("{\"a\"") + "event: x\nid: 3\n" + _event(": 1}") +
            _event(finish="stop", usage={"prompt_tokens": 5, "completion_tokens": 2}) + "data: [DONE]\n\n")
    reply = json.loads(sse.joined(body.encode()))
    assert reply["choices"][0]["message"]["content"] == '{"a": 1}'
    assert (reply["choices"][0]["finish_reason"], reply["model"], reply["usage"]["completion_tokens"]) == (
        "stop", "m", 2)


def test_a_body_that_is_not_a_stream_is_returned_as_it_is():
    body = b' {"choices": [{"message": {"content": "x"}}]}'
    assert sse.joined(body) is body


def test_a_stream_without_a_finish_reason_was_cut_short():
    with pytest.raises(sse.CutShort, match="after 3 characters"):
        sse.joined((_event("abc") + "data: [DONE]\n\n").encode())
    with pytest.raises(sse.CutShort):
        sse.joined(_event("abc").encode())


@pytest.mark.parametrize("body, message", [
    ('data: {"error": {"message": "out of memory"}}\n\n', "the server reported an error: out of memory"),
    ("data: {not json\n\n", "an event that is not JSON"),
    ("data: [1, 2]\n\n", "an event that is a list"),
])
def test_errors_and_damaged_events_are_errors(body, message):
    with pytest.raises(ValueError, match=message):
        sse.joined(body.encode())
