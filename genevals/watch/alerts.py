"""``--alert``: a rule on a window's metric means, checked on its summary.json, delivered and recorded.

A rule is ``metric OP x`` or ``system:metric OP x`` with OP one of ``<``, ``<=``, ``>``, ``>=`` and x a finite
number: ``faithfulness<0.8`` fires for a window when some system's mean faithfulness is below 0.8 (with a
system named, only that system's). For each system the rule looks at, :func:`check` reads its summary entry
(``mean``, ``ci95``, ``coverage``, ``scored``) and:

* fires when the mean satisfies the rule and the metric's coverage (scored / total) is at least ``min_coverage``;
* skips, with a reason, when the coverage is below ``min_coverage`` (a mean of 0.2 over 2 of 50 answers says
  little), when nothing was scored, or when the window's summary has no such metric or system;
* else stays silent (None).

A :class:`Firing` is delivered by :func:`deliver`: to a command (``shlex.split``, so no shell; the firing as JSON
on its stdin and in the ``GENEVALS_ALERT`` environment variable) or as a JSON ``POST`` to an http(s) URL (a user
and password written in the URL go as HTTP Basic authentication), each under a time limit. Every firing and skip,
with each delivery's outcome, is appended to ``alerts.jsonl`` (:func:`record`). What is written there never holds
a secret: a URL is logged without its user, password, query and fragment, a command by its program's name only,
and neither a command's output nor a server's reply is kept.
"""
from __future__ import annotations

import base64
import json
import math
import os
import re
import shlex
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from genevals.stats.summary import DEFAULT_MIN_COVERAGE

ALERTS_FILE = "alerts.jsonl"
#: seconds a command or a POST may take before its delivery counts as failed
DEFAULT_TIMEOUT = 10.0
_RULE = re.compile(r"^\s*(?:(?P<system>[^:<>=\s][^:<>=]*?)\s*:\s*)?(?P<metric>[^:<>=\s]+)\s*(?P<op><=|>=|<|>)\s*"
                   r"(?P<value>\S+)\s*$")
_TESTS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@dataclass(frozen=True)
class Alert:
    """One rule: fires when ``metric``'s mean ``op`` ``threshold`` (for ``system`` only, when given)."""
    metric: str
    op: str
    threshold: float
    system: str | None = None

    @classmethod
    def parse(cls, text: str) -> Alert:
        """The rule ``text`` writes; ValueError saying what is wrong."""
        match = _RULE.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError(f"alert {str(text)[:120]!r}: expected METRIC<X (or <=, >, >=), optionally "
                             "SYSTEM:METRIC<X, for example faithfulness<0.8")
        try:
            threshold = float(match["value"])
        except ValueError:
            threshold = math.nan
        if not math.isfinite(threshold):
            raise ValueError(f"alert {text!r}: {match['value']!r} is not a finite number")
        return cls(match["metric"], match["op"], threshold, match["system"])

    def __str__(self) -> str:
        return f"{self.system + ':' if self.system else ''}{self.metric}{self.op}{self.threshold:g}"


@dataclass(frozen=True)
class Breach:
    """One system's mean that satisfied the rule, with what it rests on."""
    system: str
    mean: float
    ci95: tuple[float, float] | None
    coverage: float
    scored: int


@dataclass(frozen=True)
class Firing:
    alert: Alert
    breaches: tuple[Breach, ...]
    window: str | None = None
    #: systems left out for their coverage (or nothing scored), each with why
    skipped: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"event": "firing", "alert": str(self.alert), "metric": self.alert.metric, "op": self.alert.op,
                "threshold": self.alert.threshold, "system": self.alert.system, "window": self.window,
                "breaches": [dict(asdict(b), ci95=list(b.ci95) if b.ci95 else None) for b in self.breaches],
                "skipped": [{"system": s, "reason": r} for s, r in self.skipped]}


@dataclass(frozen=True)
class Skipped:
    alert: Alert
    reason: str
    window: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"event": "skipped", "alert": str(self.alert), "window": self.window, "reason": self.reason}


@dataclass(frozen=True)
class Delivery:
    """Where a firing went (``command`` or ``url``, secrets left out) and whether it arrived."""
    kind: str
    target: str
    ok: bool
    detail: str


def check(alert: Alert, summary: Mapping[str, Any], min_coverage: float | None, *,
          window: str | None = None) -> Firing | Skipped | None:
    """The rule on one window's summary.json (the module's docstring says when it fires or skips); a
    ``min_coverage`` of None is the run's default (:data:`genevals.stats.DEFAULT_MIN_COVERAGE`)."""
    if min_coverage is None:
        min_coverage = DEFAULT_MIN_COVERAGE
    systems = summary.get("systems") if isinstance(summary, Mapping) else None
    if not isinstance(systems, Mapping) or not systems:
        return Skipped(alert, "the window's summary has no systems (nothing was scored)", window)
    names = [alert.system] if alert.system else sorted(systems)
    if alert.system and alert.system not in systems:
        return Skipped(alert, f"system {alert.system!r} is not in the window's summary", window)
    entries = {n: systems[n].get(alert.metric) for n in names if isinstance(systems[n], Mapping)}
    if not any(isinstance(e, Mapping) for e in entries.values()):
        return Skipped(alert, f"metric {alert.metric!r} is not in the window's summary", window)
    breaches, skipped = [], []
    for name, entry in entries.items():
        if not isinstance(entry, Mapping):
            continue
        why = _unusable(entry, min_coverage)
        if why is not None:
            skipped.append((name, why))
        elif _TESTS[alert.op](float(entry["mean"]), alert.threshold):
            ci = entry.get("ci95")
            breaches.append(Breach(name, float(entry["mean"]), tuple(ci) if _pair(ci) else None,
                                   float(entry["coverage"]), int(entry.get("scored") or 0)))
    if breaches:
        return Firing(alert, tuple(breaches), window, tuple(skipped))
    if skipped:
        return Skipped(alert, "; ".join(f"{s}: {r}" for s, r in skipped), window)
    return None


def _pair(ci: Any) -> bool:
    return isinstance(ci, (list, tuple)) and len(ci) == 2 and all(_number(v) for v in ci)


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _unusable(entry: Mapping[str, Any], min_coverage: float) -> str | None:
    coverage, mean = entry.get("coverage"), entry.get("mean")
    if not _number(mean) or not entry.get("scored"):
        return "no answer was scored"
    if not _number(coverage):
        return "the summary gives no coverage"
    if coverage < min_coverage:
        return (f"coverage {coverage:.3f} ({entry.get('scored')} of {entry.get('total')} scored) is below "
                f"--min-coverage {min_coverage:g}")
    return None


def deliver(firing: Firing, command: str | None = None, url: str | None = None, *, log: str | Path | None = None,
            timeout: float = DEFAULT_TIMEOUT) -> tuple[Delivery, ...]:
    """Send ``firing`` to ``command`` and/or ``url``; each outcome returned, and with ``log`` (a watch folder or
    its alerts.jsonl) recorded with the firing."""
    body = json.dumps(firing.to_dict(), ensure_ascii=False, sort_keys=True)
    out = []
    if command:
        out.append(_run(command, body, timeout))
    if url:
        out.append(_post(url, body, timeout))
    if log is not None:
        record(log, firing, out)
    return tuple(out)


def record(log: str | Path, outcome: Firing | Skipped, deliveries: tuple[Delivery, ...] | list[Delivery] = ()) -> Path:
    """Append ``outcome`` and its deliveries to ``log`` (a folder: its alerts.jsonl) as one JSON line."""
    path = Path(log)
    if path.is_dir():
        path = path / ALERTS_FILE
    line = dict(outcome.to_dict(), time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                deliveries=[asdict(d) for d in deliveries])
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
    return path


def _run(command: str, body: str, timeout: float) -> Delivery:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return Delivery("command", "(unreadable)", False, f"the command line cannot be split: {exc}")
    if not argv:
        return Delivery("command", "(empty)", False, "the command is empty")
    name = os.path.basename(argv[0])  # arguments may hold a token: only the program is logged
    env = dict(os.environ, GENEVALS_ALERT=body)
    try:
        done = subprocess.run(argv, input=body, text=True, env=env, timeout=timeout, check=False,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return Delivery("command", name, False, f"still running after {timeout:g} s: stopped")
    except OSError as exc:  # not found, not executable
        return Delivery("command", name, False, f"could not start: {exc.strerror or type(exc).__name__}")
    if done.returncode != 0:
        return Delivery("command", name, False, f"exit status {done.returncode}")
    return Delivery("command", name, True, "exit status 0")


def shown_url(url: str) -> str:
    """``url`` without user, password, query and fragment: what may be written to a log."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "(unreadable URL)"
    return urllib.parse.urlunsplit((parts.scheme, f"[{host}]{port}" if ":" in host else host + port,
                                    parts.path, "", ""))


def _post(url: str, body: str, timeout: float) -> Delivery:
    target = shown_url(url)
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        return Delivery("url", target, False, "only http and https URLs are posted to")
    parts = urllib.parse.urlsplit(url)
    headers = {"Content-Type": "application/json", "User-Agent": "genevals-watch"}
    if parts.username is not None:  # urllib would take "user:pass@host" for the host name: sent as Basic auth
        pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        headers["Authorization"] = "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
        url = urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    request = urllib.request.Request(url, data=body.encode("utf-8"), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:  # noqa: S310 (scheme checked above)
            return Delivery("url", target, True, f"HTTP {reply.status}")
    except urllib.error.HTTPError as exc:
        return Delivery("url", target, False, f"HTTP {exc.code}")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        why = getattr(reason, "strerror", None) or type(reason).__name__  # str(exc) may quote the URL
        return Delivery("url", target, False, f"not delivered: {why}")
