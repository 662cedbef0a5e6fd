"""Secrets out of everything a run keeps: the API key and the credentials in a base URL, in every form a server
may echo them.

A server that echoes what it was sent rarely echoes it verbatim: a JSON reply may write ``sk-test`` as
``sk\\u002dtest`` (which the parser then decodes back into the key), an error page may percent-encode it, an
``Authorization: Basic`` echo base64-encodes ``user:password``, and a model may split the key across two
strings or lines. :class:`Redactor` finds each secret

- literally, and with any of its characters written as a JSON ``\\uXXXX`` escape or a ``%XX`` percent escape;
- split: with whitespace, escaped newlines or a string boundary (``"sk-te" + "st"``, ``["sk-te", "st"]``)
  between characters (secrets of at least :data:`MIN_SPLIT` characters, so short ones cannot match prose);
- base64-encoded (standard and URL-safe alphabets) at any of the three byte alignments, so it is found inside
  an encoded ``user:KEY`` too, and broken by line breaks or string boundaries as the split forms above (a folded
  ``Authorization`` header, MIME's wrapped lines): for alignment ``k`` the characters of ``b64(k filler bytes + secret)`` that
  depend only on the secret's bytes, chars ``ceil(8k/6)`` to ``floor(8(k+n)/6) - 1``, are looked for.

The judge client (:mod:`genevals.judge.client`) is the one point every string a judge server sends passes
through: a reply's text, model and finish reason, and every error, are redacted there before they are cached,
parsed or kept (before decoding); every judge metric's outputs are redacted again as they leave it (after
decoding: what a parser joined or unescaped). The server's model list, which no client call fetches, is
redacted where it is read (:mod:`genevals.judge.models`).
"""
from __future__ import annotations

import base64
import math
import os
import re
from typing import Any, Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

MASK = "***"
#: shortest URL credential taken for a secret: a one-letter user name redacted everywhere would mangle every
#: text while protecting nothing
MIN_URL_SECRET = 6
#: shortest secret looked for split or base64-encoded (shorter ones only literally and escaped)
MIN_SPLIT = 8
#: the longest secret a judge takes (an API key is a few hundred characters at most): the redactor's pattern grows
#: with the key (a 100 KB key took minutes and 1 GB to compile), so a longer one is refused, never echoed
MAX_SECRET_CHARS = 4096
#: what may lie between two characters of a split secret: whitespace (zero-width too), an escaped newline or
#: tab, or a string boundary (its quotes escaped too, as inside a JSON string); bounded so no input makes the
#: search slow
_GAP = r'(?:[\s\u200b-\u200d\u2060\ufeff]|\\{1,4}[nrt]|\\{0,4}["\'][\s+,:]{0,8}\\{0,4}["\']){0,16}'


def _char(c: str) -> str:
    """A pattern for one character: itself, its JSON \\uXXXX escape (any case) or its percent escape."""
    forms = [re.escape(c)]
    if ord(c) < 0x10000:
        forms.append(r"\\u" + "".join(f"[{h.lower()}{h.upper()}]" if h.isalpha() else h for h in f"{ord(c):04x}"))
    forms.append("".join(f"%(?i:{b:02x})" for b in c.encode()))
    if c == "/":
        forms.append(r"\\/")
    return "(?:" + "|".join(forms) + ")"


def _base64_cores(secret: str) -> set[str]:
    """The base64 characters that encode only ``secret``'s bytes, at each alignment, in both alphabets."""
    raw = secret.encode()
    cores = set()
    for k in range(3):
        encoded = base64.b64encode(b"\0" * k + raw).decode()
        core = encoded[math.ceil(8 * k / 6): (8 * (k + len(raw))) // 6]
        if len(core) >= MIN_SPLIT:
            cores.update((core, core.replace("+", "-").replace("/", "_")))
    return cores


def url_secrets(url: str | None) -> list[str]:
    """The credentials a URL carries: its user name, password and ``user:password`` (as Basic auth sends it),
    and its query's values; those of at least :data:`MIN_URL_SECRET` characters."""
    if not url:
        return []
    parts = urlsplit(url)
    user, _, password = parts.netloc.rpartition("@")[0].partition(":")
    user, password = unquote(user), unquote(password)
    found = [user, password, f"{user}:{password}" if user and password else ""]
    found += [value for _, value in parse_qsl(parts.query)]
    return [s for s in found if len(s) >= MIN_URL_SECRET]


def url_secret_problem(url: str | None) -> str | None:
    """Why the credentials of ``url`` cannot be taken, without quoting them: its user name, password or a query
    value longer than :data:`MAX_SECRET_CHARS` (each becomes a pattern of the redactor's, which grows with it: a
    100 KB password cost minutes and a gigabyte, as a 100 KB key did). None when they can."""
    if not url or len(url) <= MAX_SECRET_CHARS:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed host: the URL's own check says so
        return None
    user, _, password = parts.netloc.rpartition("@")[0].partition(":")
    longest = max([len(unquote(user)), len(unquote(password))] + [len(v) for _, v in parse_qsl(parts.query)])
    if longest <= MAX_SECRET_CHARS:
        return None
    return (f"a credential in the URL (its user name, password or a query value) is {longest:,} characters; each is "
            f"at most {MAX_SECRET_CHARS:,} (a file or a log pasted in?); the URL is not shown")


class Redactor:
    """``redactor(text)``: ``text`` with every secret, in every form above, replaced by ``***``."""

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self.secrets = tuple(sorted({s for s in secrets if s and s.strip()}, key=len, reverse=True))
        patterns, cores = [], set()
        for secret in self.secrets:
            gap = _GAP if len(secret) >= MIN_SPLIT else ""
            patterns.append(gap.join(_char(c) for c in secret))
            if len(secret) >= MIN_SPLIT:
                cores |= _base64_cores(secret)
        self._pattern = re.compile("|".join(patterns)) if patterns else None
        # base64 as a server may wrap it (a folded header, MIME's 76-character lines): a gap between characters
        self._cores = re.compile("|".join(_GAP.join(_char(c) for c in core)
                                          for core in sorted(cores, key=len, reverse=True))) if cores else None

    @classmethod
    def for_judge(cls, api_key: str | None, base_url: str | None) -> "Redactor":
        """The secrets of a judge: its API key (or OPENAI_API_KEY) and the credentials of its base URL and of
        OPENAI_BASE_URL."""
        secrets = [api_key or os.environ.get("OPENAI_API_KEY")]
        for url in (base_url, os.environ.get("OPENAI_BASE_URL")):
            secrets += url_secrets(url)
        return cls(secrets)

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def __call__(self, text: str | None) -> str | None:
        if not text or self._pattern is None:
            return text
        text = self._pattern.sub(MASK, text)
        return text if self._cores is None else self._cores.sub(MASK, text)

    def cut(self, text: str | None, limit: int) -> str | None:
        """``text`` redacted, then cut to ``limit`` characters: in that order, as a cut through a secret would
        leave a part the redactor no longer recognises."""
        text = self(text)
        return text if text is None or len(text) <= limit else text[:limit] + "..."

    def deep(self, value: Any) -> Any:
        """``value`` with every string in it (dict keys, lists, tuples) redacted; other values as they are."""
        if not self:
            return value
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.deep(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.deep(v) for v in value)
        return value


#: a URL in a text: a scheme, ``://`` and what follows up to a space, a quote or an angle bracket
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>`]+")


def url_shown(url: str) -> str:
    """``url`` as a message or a printed setting shows it: its password (or a user name alone, which may be a
    token), query and fragment replaced by ``***``; scheme, host, port, path and a user name kept."""
    try:
        parts = urlsplit(url)
    except ValueError:  # a malformed IPv6 host: everything after the scheme's ``//`` but the host hidden
        return url.split("://", 1)[0] + "://" + MASK
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _ = userinfo.partition(":")
        netloc = f"{user}:{MASK}@{host}" if colon else f"{MASK}@{host}"
    query = MASK if parts.query else ""
    fragment = MASK if parts.fragment else ""
    shown = f"{parts.scheme}://{netloc}{parts.path}"
    return shown + (f"?{query}" if query else "") + (f"#{fragment}" if fragment else "")


def redact_urls(text: str) -> str:
    """``text`` with every URL in it as :func:`url_shown` shows it: what every printed setting and message that
    may quote a URL goes through (``--print-config``)."""
    return _URL.sub(lambda m: url_shown(m.group(0)), text)


#: what an environment variable's name is made of (POSIX: letters, digits, ``_``; not a digit first)
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: a name written as variables' names are by convention, which no key looks like
_PLAIN_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,63}")
ENV_NAME_PROBLEM = ("expected the name of an environment variable (letters, digits and _), and this value is "
                    "not one: is it the key itself? Keys are never written in files: export it in a variable "
                    "(export MY_KEY=...) and name that variable; the value is not shown, in case it is a secret")


def env_name_problem(value: str) -> str | None:
    """Why ``value``, given where an environment variable's NAME goes (``api_key_env``), is not one, without
    quoting it (a key pasted there would be printed); None for a name."""
    return None if _ENV_NAME.fullmatch(value) else ENV_NAME_PROBLEM


def env_name_shown(name: str) -> str:
    """A variable's name as a message shows it: as it is when written in capitals, as variables' names are by
    convention; any other name is left out (a key that happens to be made of letters, digits and ``_``)."""
    return name if _PLAIN_ENV_NAME.fullmatch(name) else "(its name not shown: it could be a key)"
