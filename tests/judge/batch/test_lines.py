"""The Batch API's files (genevals.judge.batch.lines): the requests file's lines and ids, and how each kind of
output or error line is read."""
import json

from genevals.judge.batch.lines import Read, custom_id, read, request_file

BODY = {"model": "judge", "messages": [{"role": "user", "content": "Q"}], "temperature": 0.0, "seed": 0}


def line(cid, response=None, error=None):
    return json.dumps({"custom_id": cid, "response": response, "error": error}).encode()


def test_the_id_is_the_body_digest_whatever_the_key_order():
    same = dict(reversed(list(BODY.items())))
    assert custom_id(BODY) == custom_id(same) and len(custom_id(BODY)) == 64
    assert custom_id({**BODY, "seed": 1}) != custom_id(BODY)
    [row] = map(json.loads, request_file({custom_id(BODY): BODY}).splitlines())
    assert row == {"custom_id": custom_id(BODY), "method": "POST", "url": "/v1/chat/completions", "body": BODY}


def test_each_kind_of_line_is_read_as_what_it_says():
    ok = {"choices": [{"message": {"content": "{}"}}]}
    lines = [line("a", {"status_code": 200, "body": ok}),
             line("b", {"status_code": 500, "body": {"error": {"message": "boom"}}}),
             line("c", None, {"code": "batch_expired", "message": "window closed"}),
             line("d", {"status_code": 400, "body": {"error": {"message": "bad request"}}}),
             line("a", {"status_code": 200, "body": {"choices": []}}),  # a second line for a: the first wins
             line("zz", {"status_code": 200, "body": ok}),  # never sent
             b"not json", b"[1]", b'{"custom_id": 7}', None]  # None: a line over the size cap
    found = read(lines, {"a", "b", "c", "d"}, Read(), "output")
    assert found.answers["a"].body == ok
    assert (found.answers["b"].status, found.answers["b"].error, found.answers["b"].transient) == (500, "HTTP 500: boom", True)
    assert found.answers["c"].transient and found.answers["c"].error == "batch_expired: window closed"
    assert not found.answers["d"].transient and found.answers["d"].error == "HTTP 400: bad request"
    assert (found.malformed, found.unknown, found.repeated) == (4, 1, 1)
