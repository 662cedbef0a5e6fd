r"""The trend page ``DIR/trend.html`` over a watcher's windows (``DIR/windows/0001``, ``0002``, ...: run folders).

For each system and metric, per window: the mean and its 95% interval as the window's summary.json gives them,
and a **drift test** against a baseline window (the first, or ``baseline_window``) on the per-sample values of
results.jsonl. The windows are two independent samples, so the test is a percentile bootstrap of the difference
in means, each window resampled on its own (``numpy.random.default_rng(seed)``, the run's seed and resample count
of :mod:`genevals.stats.bootstrap`):

.. math::

    \Delta = \bar{w} - \bar{b}, \qquad
    \Delta^{*}_r = \overline{w^{*}_r} - \overline{b^{*}_r} \ (r = 1 \ldots R), \qquad
    CI = [q_{(1-c)/2}(\Delta^{*}), q_{(1+c)/2}(\Delta^{*})]

and a window has drifted when the interval excludes 0. Intervals are not corrected for the number of windows and
metrics on the page (the page says so): with 20 windows, about one crosses by chance at 95%.

The **flagged share** of a window: among its answers with a verdict to read (an ok ``flag_metric`` value, or a
claim check's ``counts`` in any metric's details, as faithfulness and the local grounding checker write them), those
with the value below ``flag_below`` or at least one contradicted or unverifiable claim:
:math:`share = flagged / judged`. A window with no such answer has no share (shown as such, never 0).

A window without summary.json (still being scored, or interrupted before its end) is listed as unfinished, and
one whose files cannot be read is listed with the reason; neither stops the page.
The page is one self-contained file: no script, no network, the style pinned by its hash in the
Content-Security-Policy.
"""
from __future__ import annotations

import base64
import hashlib
import html
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from genevals.output import runfolder
from genevals.stats.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED

TREND_FILE = "trend.html"
WINDOWS_DIR = "windows"


@dataclass(frozen=True)
class TrendConfig:
    """``baseline_window``: the folder name (``0003``) or number (3) of the baseline, None for the first shown;
    ``last``: how many of the latest windows the page shows (the baseline always); ``min_samples``: scored values
    each of two windows needs before they are compared."""
    baseline_window: str | int | None = None
    flag_metric: str = "faithfulness"
    flag_below: float = 0.5
    confidence: float = 0.95
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    min_samples: int = 2
    last: int = 200


@dataclass(frozen=True)
class Drift:
    """A window against the baseline: ``status`` ``ok`` (compared), ``baseline`` (it is the baseline) or
    ``too_few`` (with ``reason``); ``difference`` and ``ci`` only when ok."""
    status: str
    difference: float | None = None
    ci: tuple[float, float] | None = None
    n_window: int = 0
    n_baseline: int = 0
    reason: str = ""

    @property
    def drifted(self) -> bool:
        return self.ci is not None and (self.ci[0] > 0 or self.ci[1] < 0)


def drift(baseline: Sequence[float], window: Sequence[float], seed: int = DEFAULT_SEED,
          resamples: int = DEFAULT_RESAMPLES, confidence: float = 0.95, min_samples: int = 2) -> Drift:
    """The bootstrap interval of the module's docstring for one window's values against the baseline's."""
    b, w = np.asarray(baseline, dtype=float), np.asarray(window, dtype=float)
    if b.size < min_samples or w.size < min_samples:
        return Drift("too_few", n_window=int(w.size), n_baseline=int(b.size),
                     reason=f"{w.size} scored values in the window and {b.size} in the baseline; each needs "
                            f"{min_samples}")
    rng = np.random.default_rng(seed)
    diffs = np.empty(resamples)
    block = max(1, 2_000_000 // max(b.size, w.size))  # never resamples x values at once
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        diffs[start:stop] = (np.take(w, rng.integers(0, w.size, size=(stop - start, w.size))).mean(axis=1)
                             - np.take(b, rng.integers(0, b.size, size=(stop - start, b.size))).mean(axis=1))
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(diffs, [alpha, 1.0 - alpha])
    return Drift("ok", float(w.mean() - b.mean()), (float(low), float(high)), int(w.size), int(b.size))


def window_folders(watch_dir: str | Path) -> list[Path]:
    """The window folders under ``watch_dir/windows``, in the order of their names."""
    root = Path(watch_dir) / WINDOWS_DIR
    return sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.name) if root.is_dir() else []


@dataclass(frozen=True)
class Window:
    name: str
    summary: dict[str, Any]
    #: (system, metric) -> the window's ok values
    values: dict[tuple[str, str], list[float]]
    flagged: int
    judged: int


def read_window(folder: Path, config: TrendConfig) -> Window | None:
    """A finished window's summary and per-sample values; None when it has no summary.json yet."""
    summary = runfolder.read_summary(folder)
    if not summary:
        return None
    wanted = {(s, m) for s, entry in (summary.get("systems") or {}).items() for m in (entry or {})}
    values: dict[tuple[str, str], list[float]] = {k: [] for k in wanted}
    flagged = judged = 0
    for _, row in runfolder.iter_rows(folder):
        metrics = row.get("metrics") if isinstance(row.get("metrics"), dict) else {}
        for name, result in metrics.items():
            v = result.get("value") if isinstance(result, dict) and result.get("status") == "ok" else None
            key = (str(row.get("system", "default")), name)
            if key in values and _finite(v):
                values[key].append(float(v))
        verdict = _flag(metrics, config)
        if verdict is not None:
            judged += 1
            flagged += verdict
    return Window(folder.name, summary, values, flagged, judged)


def _finite(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _flag(metrics: dict[str, Any], config: TrendConfig) -> bool | None:
    """Whether an answer is flagged; None when no metric gives a verdict on it."""
    seen, hit = False, False
    for name, result in metrics.items():
        if not isinstance(result, dict) or result.get("status") != "ok":
            continue
        if name == config.flag_metric and _finite(result.get("value")):
            seen, hit = True, hit or result["value"] < config.flag_below
        counts = result.get("details", {}).get("counts") if isinstance(result.get("details"), dict) else None
        if isinstance(counts, dict):
            bad = [counts.get(k, 0) for k in ("contradicted", "unverifiable")]
            if all(isinstance(n, int) for n in bad):
                seen, hit = True, hit or sum(bad) >= 1
    return hit if seen else None


def write_trend(watch_dir: str | Path, config: TrendConfig = TrendConfig()) -> Path:
    """Read the windows and write ``watch_dir/trend.html`` whole (aside, then renamed); its path."""
    folders = window_folders(watch_dir)
    base = _baseline(folders, config)
    shown = folders[-config.last:] if config.last > 0 else folders
    if base is not None and base not in shown:
        shown = [base, *shown]
    read = {f.name: _read_or_why(f, config) for f in shown}
    page = render(read, base.name if base is not None else None, config)
    out = Path(watch_dir) / TREND_FILE
    runfolder.write_whole(out, page)
    return out


def _read_or_why(folder: Path, config: TrendConfig) -> Window | str | None:
    """:func:`read_window`, or why the window cannot be read (one bad window does not take the page down)."""
    try:
        return read_window(folder, config)
    except (ValueError, OSError) as exc:  # ResultsError names the file and line
        return str(exc)[:300]


def write(watch_dir: str | Path, baseline_window: str | int | None = None) -> Path:
    """:func:`write_trend` with the default configuration but for the baseline window (``--baseline-window``)."""
    return write_trend(watch_dir, TrendConfig(baseline_window=baseline_window))


def _baseline(folders: list[Path], config: TrendConfig) -> Path | None:
    finished = [f for f in folders if (f / runfolder.SUMMARY_FILE).is_file()]
    k = config.baseline_window
    if k is None:
        return finished[0] if finished else None
    for f in finished:
        if f.name == str(k) or (f.name.isdigit() and str(k).isdigit() and int(f.name) == int(k)):
            return f
    raise ValueError(f"baseline window {k!r}: no finished window of that name under windows/ "
                     f"({len(finished)} finished)")


# -- the page ---------------------------------------------------------------------------------------------------
STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2433}h1{font-size:20px}
h2{font-size:16px;margin-top:28px}table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 10px;
border-bottom:1px solid #dde;text-align:right}th:first-child,td:first-child{text-align:left}
.drift{color:#a3261b;font-weight:600}.note{color:#566;max-width:70em}.muted{color:#889}svg{display:block}"""


def _f(v: Any, digits: int = 3) -> str:
    return f"{v:.{digits}f}" if _finite(v) else "–"


def _attr(v: Any) -> str:
    return html.escape(repr(float(v)) if _finite(v) else "", quote=True)


def render(windows: dict[str, Window | str | None], baseline: str | None, config: TrendConfig) -> str:
    """The page's HTML for the windows read (None: unfinished; text: why it could not be read), compared with
    ``baseline``."""
    e = html.escape
    finished = {n: w for n, w in windows.items() if isinstance(w, Window)}
    keys = sorted({k for w in finished.values() for k in w.values})
    base = finished.get(baseline) if baseline else None
    parts = [f"<h1>Trend over {len(finished)} windows</h1>",
             f"<p class=note>Means and 95% intervals from each window's summary.json. Drift: the {config.confidence:.0%} "
             f"percentile-bootstrap interval of the difference in means (window − baseline window "
             f"<b id=baseline>{e(baseline or 'none')}</b>), each window's values resampled on its own "
             f"({config.resamples} resamples, seed {config.seed}); marked <span class=drift>drift</span> where it "
             "excludes 0. Not corrected for the number of windows and metrics shown: at 95%, about one comparison "
             "in 20 crosses by chance.</p>"]
    unfinished = [n for n, w in windows.items() if w is None]
    if unfinished:
        parts.append(f"<p class=note id=unfinished>Unfinished (no summary.json yet): {e(', '.join(unfinished))}</p>")
    unreadable = [f"<li>{e(n)}: {e(w)}</li>" for n, w in windows.items() if isinstance(w, str)]
    if unreadable:
        parts.append(f"<p class=note>Windows that could not be read:</p><ul id=unreadable>{''.join(unreadable)}</ul>")
    for system, metric in keys:
        parts.append(_metric_table(system, metric, finished, base, config))
    parts.append(_flag_table(finished, config))
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    digest = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()
    csp = f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:"
    return (f'<!doctype html>\n<html lang="en" data-ready="true"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{csp}"><title>genevals watch: trend</title>'
            f"<style>{STYLE}</style></head><body>{''.join(parts)}<p class=muted>Written {stamp}.</p></body></html>\n")


def _metric_table(system: str, metric: str, windows: dict[str, Window], base: Window | None,
                  config: TrendConfig) -> str:
    e = html.escape
    rows, points = [], []
    for name, w in windows.items():
        entry = (w.summary.get("systems", {}).get(system) or {}).get(metric) or {}
        mean, ci = entry.get("mean"), entry.get("ci95") if isinstance(entry.get("ci95"), list) else [None, None]
        points.append((mean, ci))
        if base is None or (system, metric) not in base.values:
            d = Drift("too_few", reason="the baseline window has no values of this metric")
        elif w is base:
            d = Drift("baseline")
        else:
            d = drift(base.values[(system, metric)], w.values.get((system, metric), []), config.seed,
                      config.resamples, config.confidence, config.min_samples)
        if d.status == "ok":
            shown = f"{d.difference:+.3f} [{_f(d.ci[0])}, {_f(d.ci[1])}]" + (" <span class=drift>drift</span>"
                                                                              if d.drifted else "")
        else:
            shown = "baseline" if d.status == "baseline" else f"<span class=muted>{e(d.reason)}</span>"
        rows.append(f'<tr data-window="{e(name)}"><td>{e(name)}</td>'
                    f'<td class=scored>{e(str(entry.get("scored", "–")))}{_unscored(entry)}</td>'
                    f'<td class=coverage data-value="{_attr(entry.get("coverage"))}">{_f(entry.get("coverage"))}</td>'
                    f'<td class=mean data-value="{_attr(mean)}">{_f(mean)}</td>'
                    f'<td class=ci data-low="{_attr(ci[0])}" data-high="{_attr(ci[1])}">[{_f(ci[0])}, {_f(ci[1])}]</td>'
                    f'<td class=diff data-status="{d.status}" data-value="{_attr(d.difference)}" '
                    f'data-drift="{str(d.drifted).lower()}">{shown}</td></tr>')
    return (f'<h2>{e(metric)} <span class=muted>({e(system)})</span></h2>{_chart(points)}'
            f'<table class=metric data-system="{e(system)}" data-metric="{e(metric)}"><tr><th>window</th>'
            "<th>scored</th><th>coverage</th><th>mean</th><th>95% CI</th><th>vs baseline: Δ mean [CI]</th></tr>"
            f"{''.join(rows)}</table>")


def _unscored(entry: dict[str, Any]) -> str:
    """Why answers went unscored (``no_reference 3``), beside the scored count."""
    statuses = entry.get("statuses") if isinstance(entry.get("statuses"), dict) else {}
    why = [f"{k} {n}" for k, n in sorted(statuses.items()) if k != "ok" and n]
    return f" <span class=muted>({html.escape(', '.join(why))})</span>" if why else ""


def _chart(points: list[tuple[Any, list[Any]]]) -> str:
    """Means as dots with their intervals as bars, on the values' own range (no script, no style attribute)."""
    seen = [v for m, ci in points for v in (m, *ci) if _finite(v)]
    if not seen:
        return ""
    low, high = min(seen), max(seen)
    span = (high - low) or 1.0
    width, height, pad = max(120, 24 * len(points)), 90, 8

    def y(v: float) -> float:
        return round(height - pad - (v - low) / span * (height - 2 * pad), 1)
    marks = []
    for i, (mean, ci) in enumerate(points):
        x = 12 + 24 * i
        if _finite(ci[0]) and _finite(ci[1]):
            marks.append(f'<line x1="{x}" x2="{x}" y1="{y(ci[0])}" y2="{y(ci[1])}" stroke="#7b8bb0"/>')
        if _finite(mean):
            marks.append(f'<circle cx="{x}" cy="{y(mean)}" r="3" fill="#1f4fa8"/>')
    return (f'<svg width="{width}" height="{height}" role="img" aria-label="means and intervals by window">'
            f"{''.join(marks)}</svg>")


def _flag_table(windows: dict[str, Window], config: TrendConfig) -> str:
    e = html.escape
    rows = []
    for name, w in windows.items():
        share = w.flagged / w.judged if w.judged else None
        shown = _f(share) if share is not None else "no verdict to read"
        rows.append(f'<tr data-window="{e(name)}"><td>{e(name)}</td><td class=flagged>{w.flagged}</td>'
                    f'<td class=judged>{w.judged}</td><td class=share data-value="{_attr(share)}">{shown}</td></tr>')
    return (f"<h2>Flagged answers</h2><p class=note>An answer is flagged when its {e(config.flag_metric)} is below "
            f"{config.flag_below:g} or a claim check found a contradicted or unverifiable claim; the share is among "
            "answers with such a verdict.</p><table id=flagged><tr><th>window</th><th>flagged</th><th>with a "
            f"verdict</th><th>share</th></tr>{''.join(rows)}</table>")
