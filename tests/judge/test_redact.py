"""The redactor finds a secret in every form a server echoes it (issue 22), and leaves other text alone."""
import base64
import json
import time

import pytest

from genevals.judge.redact import Redactor, url_secrets

KEY = "sk-test-0123456789abcdefXYZ"


@pytest.mark.parametrize("form", [
    KEY,
    json.dumps(KEY).replace("-", "\\u002d"),  # JSON escapes, which the parser decodes back into the key
    "sk\\u002Dtest-0123456789abcdefXYZ",
    "".join(f"%{b:02X}" for b in KEY.encode()),  # percent-encoded
    base64.b64encode(KEY.encode()).decode(),
    base64.b64encode(f"user:{KEY}".encode()).decode(),  # inside an Authorization: Basic echo
    base64.urlsafe_b64encode(f"ab{KEY}".encode()).decode(),
    f'"{KEY[:9]}" + "{KEY[9:]}"',  # split across concatenated strings
    json.dumps({"r": f'"{KEY[:9]}" + "{KEY[9:]}"'}),  # the same inside a JSON string: its quotes escaped
    f'["{KEY[:12]}", "{KEY[12:]}"]',
    f"{KEY[:8]}\n{KEY[8:]}",
    json.dumps(f"{KEY[:8]}\n{KEY[8:]}"),
])
def test_every_form_is_redacted(form):
    out = Redactor([KEY])(f"before {form} after")
    assert out.startswith("before ") and out.endswith(" after") and "***" in out
    assert KEY[4:12] not in out and KEY[-8:] not in out


def test_other_text_and_short_url_credentials_are_left_alone():
    redact = Redactor.for_judge(None, "http://u:p@host:8/v1?key=q")
    assert not redact and redact("upper plus query") == "upper plus query"
    # "alice" is too short to redact everywhere; "alice:PASSWORD" (what Basic auth sends) is not
    assert url_secrets("http://alice:pw-secret-1@h/v1?api-key=abcdef123") == [
        "pw-secret-1", "alice:pw-secret-1", "abcdef123"]
    text = "sk-test-0123 and abcdefXYZ are not the key"
    assert Redactor([KEY])(text) == text


def test_deep_redacts_keys_lists_and_nested_values():
    redact = Redactor([KEY])
    assert redact.deep({KEY: [KEY, (1, f"x{KEY}")], "n": 2}) == {"***": ["***", (1, "x***")], "n": 2}


def test_hostile_text_stays_fast():
    redact = Redactor([KEY, "another-secret-value-42"])
    started = time.perf_counter()
    for text in ('"' + " " * 100_000 + '"', "s" * 1_000_000, (KEY[:-1] + " ") * 20_000, "\\" * 200_000):
        redact(text)
    assert time.perf_counter() - started < 5
