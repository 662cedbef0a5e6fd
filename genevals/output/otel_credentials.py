"""What an OpenTelemetry endpoint's credentials may be: the user name, password and query values of its URL, and
the values of the SDK's header variables, each bounded in length. A longer one is refused without being quoted:
no server takes a header line of 100 KB, and every message that might quote a credential is searched for each
(:func:`genevals.output.otel._scrubbed`), as the judge's redactor searches for its key (4,096 characters at most,
:data:`genevals.judge.redact.MAX_SECRET_CHARS`)."""
from __future__ import annotations

from typing import Any, Mapping
from urllib.parse import parse_qsl

#: the SDK's variables that hold credentials (their values never reach a message or a file)
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS")

#: the longest credential taken from the endpoint's URL (its user name, password, a query value), as for a judge
MAX_CREDENTIAL_CHARS = 4096
#: the longest header value taken from OTEL_EXPORTER_OTLP_HEADERS: servers refuse longer header lines (8 KB is
#: the usual limit), and each value is looked for in every message that might quote it
MAX_HEADER_CHARS = 8192


def credentials_problem(parts: Any, env: Mapping[str, str], what: str) -> str | None:
    """Why the URL's credentials (given as ``what``) or the headers' values cannot be taken (one too long),
    without quoting them."""
    user, _, password = parts.netloc.rpartition("@")[0].partition(":")
    longest = max([len(user), len(password)] + [len(v) for _, v in parse_qsl(parts.query)])
    if longest > MAX_CREDENTIAL_CHARS:
        return (f"{what}: a credential in the URL (its user name, password or a query value) is {longest:,} characters; "
                f"each is at most {MAX_CREDENTIAL_CHARS:,} (a file or a log pasted in?); it is not shown")
    for name in HEADER_VARIABLES:
        values = [item.partition("=")[2] for item in (env.get(name) or "").split(",")]
        longest = max(map(len, values), default=0)
        if longest > MAX_HEADER_CHARS:
            return (f"{name}: a header's value is {longest:,} characters; each is at most {MAX_HEADER_CHARS:,} "
                    "(servers refuse longer headers: a file or a log pasted in?); it is not shown")
    return None
