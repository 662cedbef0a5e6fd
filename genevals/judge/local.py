"""A judge server on this machine, and the defaults it gets: a longer timeout, a cap on each reply, streamed replies.

A server on a loopback address (``localhost``, ``127.0.0.0/8``, ``::1``) is nearly always llama.cpp's or vLLM's on
a CPU or one GPU, serving one or a few requests at a time. Hosted defaults fail there: 60 s is too short for a
CPU, and with no cap a small model that loops writes until the metric's own budget (1,416 tokens for twelve
claims) while the run waits. Unless ``timeout`` or ``max_tokens`` is given, such a server gets
:data:`LOCAL_TIMEOUT` seconds a request and at most :data:`LOCAL_MAX_TOKENS` tokens a reply (a reply cut there
keeps its complete claims or verdicts and says so in the sample's issues).

Its replies are streamed (:mod:`genevals.judge.backends.sse`): a request given up on (its timeout) closes the
connection, and a server that streams stops generating at its next token. Without streaming, llama.cpp's
one-slot server went on writing the abandoned reply, so the retry, and the next run's model listing, waited behind
it (issue 52).
"""
from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

#: seconds a request to a server on this machine may take, unless ``timeout`` is given
LOCAL_TIMEOUT = 300.0
#: tokens a reply from a server on this machine may have, unless ``max_tokens`` is given
LOCAL_MAX_TOKENS = 512
#: seconds a request to any other server may take, unless ``timeout`` is given
REMOTE_TIMEOUT = 60.0


def on_this_machine(url: str | None) -> bool:
    """Whether ``url`` names a loopback host: ``localhost`` (or a name under it), 127.0.0.0/8 or ::1."""
    if not url:
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:  # a malformed port or bracket: not a URL this judge can call anyway
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def timeout(given: float | None, local: bool) -> float:
    """Seconds a request may take: ``given``, else :data:`LOCAL_TIMEOUT` or :data:`REMOTE_TIMEOUT`."""
    if given is not None:
        return float(given)
    return LOCAL_TIMEOUT if local else REMOTE_TIMEOUT


def max_tokens(given: int | None, local: bool) -> int | None:
    """The cap on each reply: ``given``, else :data:`LOCAL_MAX_TOKENS` for a server on this machine, else none."""
    if given is not None:
        return int(given)
    return LOCAL_MAX_TOKENS if local else None


def described(local: bool) -> str:
    """The defaults in one line, for ``--print-config`` and messages."""
    if not local:
        return f"timeout {REMOTE_TIMEOUT:g} s a request, no cap on a reply's tokens beyond each call's own budget"
    return (f"timeout {LOCAL_TIMEOUT:g} s a request, at most {LOCAL_MAX_TOKENS} tokens a reply, replies streamed "
            "(defaults for a judge server on this machine)")
