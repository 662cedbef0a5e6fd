"""Build the self-contained HTML report from one or more run folders.

The report reads only a run's files (``results.jsonl`` and ``summary.json``), never scoring code. Everything
the page needs is embedded once as JSON in a ``<script type="application/json">`` block; the page's own
JavaScript builds every view from it with ``textContent``/``createElement`` (never ``innerHTML`` with data),
under a Content-Security-Policy that allows only the report's own inline script (by hash).

Paired comparisons (``genevals.aggregate.paired_comparison``, seeded) are computed here, at build time.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from itertools import combinations
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from genevals.aggregate import DEFAULT_SEED, paired_comparison
from genevals.report import bands

HERE = Path(__file__).resolve().parent
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
REPORT_FILE = "report.html"
#: The JavaScript parts, concatenated in this order into one inline script.
JS_FILES = ("core.js", "overview.js", "charts.js", "samples.js", "review.js", "main.js")
#: Above this many systems, each is compared with the first only, not every pair.
ALL_PAIRS_MAX_SYSTEMS = 4
#: Sign-flip resamples for the paired test (resolution 1/5001 is ample for p < 0.05).
PAIRED_RESAMPLES = 5000
JUDGE_METRICS = ("faithfulness", "contradiction_rate", "unverifiable_rate")
VERDICT_LABELS = ("supported", "contradicted", "unverifiable")


# ----------------------------------------------------------------------------------------------- reading

def read_rows(path: Path) -> list[dict[str, Any]]:
    """The raw records of a results file; a last line cut short by a crash is left out."""
    rows: list[dict[str, Any]] = []
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if not line.endswith("\n"):
                break
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(row, dict):
                rows.append(row)
    return rows


def load_run(run_dir: str | Path) -> dict[str, Any]:
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir}: not a run folder")
    results_path = run_dir / RESULTS_FILE
    if not results_path.exists():
        raise FileNotFoundError(f"{results_path}: no results file (run `genevals run ... --out {run_dir}`)")
    summary_path = run_dir / SUMMARY_FILE
    summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.exists() else {}
    return {"name": run_dir.resolve().name or str(run_dir), "path": str(run_dir), "summary": summary,
            "rows": read_rows(results_path)}


# ----------------------------------------------------------------------------------------------- cleaning

def _num(value: Any, digits: int | None = 6) -> float | None:
    """A finite number (rounded to ``digits`` for display), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not math.isfinite(value):
        return None
    return float(value) if digits is None else round(float(value), digits)


def _str(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


_NON_BMP = re.compile("[\U00010000-\U0010FFFF]")


def _utf16_offsets(text: str):
    """A function mapping Python (code point) offsets to JavaScript (UTF-16) offsets in ``text``."""
    if not _NON_BMP.search(text):
        return lambda i: i
    table = [0]
    for ch in text:
        table.append(table[-1] + (2 if ord(ch) >= 0x10000 else 1))
    return lambda i: table[i]


def _span(value: Any, length: int) -> tuple[int, int] | None:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return None
    start, end = value
    if isinstance(start, bool) or isinstance(end, bool) or not isinstance(start, int) or not isinstance(end, int):
        return None
    if 0 <= start < end <= length:
        return start, end
    return None


def _clean_judge(details: Mapping[str, Any], answer: str, contexts: Sequence[Mapping[str, Any]]) -> dict | None:
    """Claims and verdicts with spans checked against the texts and converted to UTF-16 offsets."""
    claims_in = details.get("claims")
    verdicts_in = details.get("verdicts")
    if not isinstance(claims_in, list) and not isinstance(verdicts_in, list):
        return None
    to16 = _utf16_offsets(answer)
    claims = []
    for pos, claim in enumerate(claims_in if isinstance(claims_in, list) else []):
        if not isinstance(claim, Mapping):
            continue
        found = [_span(s, len(answer)) for s in claim.get("spans") or []] if isinstance(claim.get("spans"), list) else []
        found = [x for x in found if x]
        index = claim.get("index")
        text = _str(claim.get("text"))
        out: dict[str, Any] = {"index": index if isinstance(index, int) and not isinstance(index, bool) else pos,
                               "spans": [[to16(s), to16(e)] for s, e in found],
                               "located": bool(claim.get("located", bool(found))) and bool(found)}
        if not (len(found) == 1 and answer[found[0][0]:found[0][1]] == text):
            out["text"] = text  # else the page reads it from the answer: no second copy
        claims.append(out)
    verdicts = []
    for verdict in verdicts_in if isinstance(verdicts_in, list) else []:
        if not isinstance(verdict, Mapping):
            continue
        label = verdict.get("label")
        label = label if label in VERDICT_LABELS else "unverifiable"
        ci = verdict.get("context_index")
        ci = ci if isinstance(ci, int) and not isinstance(ci, bool) and 0 <= ci < len(contexts) else None
        claim_index = verdict.get("claim_index")
        # Defaults are left out (the page fills them in): no context, no span, empty quote/reason, not missing.
        out = {"claim_index": claim_index if isinstance(claim_index, int) and not isinstance(claim_index, bool)
               else None, "label": label}
        quote = _str(verdict.get("quote"))
        if ci is not None:
            out["context_index"] = ci
            text = _str(contexts[ci].get("text"))
            found = _span(verdict.get("quote_span"), len(text))
            if found:
                conv = _utf16_offsets(text)
                out["quote_span"] = [conv(found[0]), conv(found[1])]
                if text[found[0]:found[1]] == quote:
                    quote = ""  # the page reads it from the context
        if quote:
            out["quote"] = quote
        if verdict.get("reason"):
            out["reason"] = _str(verdict.get("reason"))
        if verdict.get("missing"):
            out["missing"] = True
        verdicts.append(out)
    return {"claims": claims, "verdicts": verdicts}


def _clean_contexts(raw: Any) -> list[dict[str, Any]]:
    out = []
    for pos, ctx in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(ctx, Mapping):
            continue
        rank = ctx.get("rank")
        out.append({"text": _str(ctx.get("text")),
                    "rank": rank if isinstance(rank, int) and not isinstance(rank, bool) else pos + 1,
                    "id": None if ctx.get("id") is None else _str(ctx.get("id")),
                    "doc_id": None if ctx.get("doc_id") is None else _str(ctx.get("doc_id")),
                    "score": _num(ctx.get("score"))})
    return out


# ----------------------------------------------------------------------------------------------- building

def _unique_run_names(runs: Sequence[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for run in runs:
        name, n = run["name"], 2
        while name in names:
            name, n = f"{run['name']}#{n}", n + 1
        names.append(name)
    return names


def _collect_info(run: Mapping[str, Any], judges: dict[str, dict], warnings: set[str]) -> None:
    meta = run["summary"].get("meta") or {}
    if isinstance(meta, Mapping):
        for key, value in meta.items():
            if "warning" in key.lower():
                for item in value if isinstance(value, list) else [value]:
                    if item:
                        warnings.add(_str(item))
            elif key.lower() == "judge" and isinstance(value, Mapping):
                judge = {k: _str(v) for k, v in value.items() if not isinstance(v, (dict, list))}
                judges.setdefault(json.dumps(judge, sort_keys=True), judge)


def build_data(run_dirs: Sequence[str | Path], thresholds: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The JSON document the page renders: runs, systems, metrics, samples and paired comparisons."""
    if not run_dirs:
        raise ValueError("no run folders given")
    runs = [load_run(d) for d in run_dirs]
    run_names = _unique_run_names(runs)
    # Which system names occur in more than one run: those get "run/system" labels.
    seen_in: dict[str, set[int]] = {}
    for r, run in enumerate(runs):
        systems = set((run["summary"].get("systems") or {}).keys())
        systems |= {_str(row.get("system", "default")) for row in run["rows"]}
        for system in systems:
            seen_in.setdefault(system, set()).add(r)

    labels: list[str] = []
    system_index: dict[tuple[int, str], int] = {}
    system_info: list[dict[str, Any]] = []

    def system_of(r: int, system: str) -> int:
        key = (r, system)
        if key not in system_index:
            label = f"{run_names[r]}/{system}" if len(runs) > 1 and len(seen_in.get(system, ())) > 1 else system
            base, n = label, 2
            while label in labels:
                label, n = f"{base}#{n}", n + 1
            labels.append(label)
            system_index[key] = len(labels) - 1
            summary_metrics = (runs[r]["summary"].get("systems") or {}).get(system) or {}
            corpus = (runs[r]["summary"].get("corpus") or {}).get(system) or {}
            system_info.append({"label": label, "system": system, "run": r, "summary": _clean_summary(summary_metrics),
                                "corpus": {k: _num(v) for k, v in corpus.items() if _num(v) is not None}})
        return system_index[key]

    metric_names: list[str] = []
    metric_pos: dict[str, int] = {}

    def metric_of(name: str) -> int:
        if name not in metric_pos:
            metric_pos[name] = len(metric_names)
            metric_names.append(name)
        return metric_pos[name]

    for r, run in enumerate(runs):
        for system, metrics in (run["summary"].get("systems") or {}).items():
            system_of(r, _str(system))
            for name in metrics or {}:
                metric_of(_str(name))

    judges: dict[str, dict] = {}
    warnings: set[str] = set()
    samples: list[dict[str, Any]] = []
    for r, run in enumerate(runs):
        _collect_info(run, judges, warnings)
        latest: dict[tuple[str, str], dict[str, Any]] = {}
        for row in run["rows"]:
            latest[(_str(row.get("system", "default")), _str(row.get("id")))] = row
        for (system, sample_id), row in latest.items():
            answer = _str(row.get("answer"))
            contexts = _clean_contexts(row.get("contexts"))
            relevant = row.get("relevant")
            sample: dict[str, Any] = {
                "id": sample_id, "sys": system_of(r, system), "q": _str(row.get("question")), "a": answer,
                "ctx": contexts, "refs": [_str(x) for x in row.get("references") or [] if x is not None],
                "rel": ({_str(k): _num(v) for k, v in relevant.items()} if isinstance(relevant, Mapping) else None),
                "origin": _str(row.get("origin")), "v": {}, "st": {},
            }
            for name, metric in (row.get("metrics") or {}).items():
                if not isinstance(metric, Mapping):
                    continue
                name = _str(name)
                metric_of(name)
                status = _str(metric.get("status") or "ok")
                value = _num(metric.get("value"), None)  # full precision for the comparisons
                if status == "ok" and value is not None:
                    sample["v"][name] = value
                else:
                    sample["st"][name] = [status, _str(metric.get("reason"))]
                details = metric.get("details")
                if name == "faithfulness" and isinstance(details, Mapping):
                    judge = _clean_judge(details, answer, contexts)
                    if judge is not None:
                        sample["j"] = judge
                    if isinstance(details.get("judge"), Mapping):
                        info = {k: _str(v) for k, v in details["judge"].items() if not isinstance(v, (dict, list))}
                        judges.setdefault(json.dumps(info, sort_keys=True), info)
                    if details.get("warning"):
                        warnings.add(_str(details["warning"]))
            if not sample["st"]:
                del sample["st"]
            samples.append(sample)

    _fill_missing_summaries(system_info, samples)
    seed = next((run["summary"].get("seed") for run in runs if isinstance(run["summary"].get("seed"), int)),
                DEFAULT_SEED)
    thresholds = {str(k): float(v) for k, v in (thresholds or {}).items()}
    if not thresholds:
        for run in runs:
            fail_under = (run["summary"].get("meta") or {}).get("fail_under")
            if isinstance(fail_under, Mapping):
                thresholds.update({str(k): float(v) for k, v in fail_under.items() if _num(v) is not None})

    return {
        "format": 1,
        "runs": [{"name": run_names[r], "path": run["path"],
                  "genevals_version": _str(run["summary"].get("genevals_version")),
                  "seed": run["summary"].get("seed") if isinstance(run["summary"].get("seed"), int) else None,
                  "n_samples": len({(s["sys"], s["id"]) for s in samples if system_info[s["sys"]]["run"] == r}),
                  "signatures": {_str(k): _str(v) for k, v in (run["summary"].get("signatures") or {}).items()},
                  "skipped": len(run["summary"].get("skipped") or []),
                  "meta": _flat_meta(run["summary"].get("meta") or {})}
                 for r, run in enumerate(runs)],
        "systems": system_info,
        "metrics": [{"name": m, "lower_better": m in bands.LOWER_IS_BETTER, "banded": m not in bands.UNBANDED}
                    for m in metric_names],
        "bands": bands.bands_table(),
        "thresholds": thresholds,
        "judges": list(judges.values()),
        "warnings": sorted(warnings),
        "seed": seed,
        "comparisons": compare_systems(samples, labels, metric_names, seed),
        "samples": [_pack_values(s, metric_pos) for s in samples],
    }


def _pack_values(sample: dict[str, Any], metric_pos: Mapping[str, int]) -> dict[str, Any]:
    """Scored values as a list aligned with the report's metric list (null where not scored): compact."""
    values: list[float | None] = []
    for name, value in sample["v"].items():
        pos = metric_pos[name]
        values.extend([None] * (pos + 1 - len(values)))
        values[pos] = _num(value)
    return {**sample, "v": values}


def _clean_summary(metrics: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for name, m in metrics.items():
        if not isinstance(m, Mapping):
            continue
        ci = m.get("ci95")
        out[_str(name)] = {
            "mean": _num(m.get("mean")),
            "ci95": [_num(ci[0]), _num(ci[1])] if isinstance(ci, list) and len(ci) == 2 else None,
            "scored": m.get("scored") if isinstance(m.get("scored"), int) else 0,
            "unscored": m.get("unscored") if isinstance(m.get("unscored"), int) else 0,
            "statuses": {_str(k): v for k, v in (m.get("statuses") or {}).items() if isinstance(v, int)},
        }
    return out


def _fill_missing_summaries(systems: list[dict[str, Any]], samples: Sequence[Mapping[str, Any]]) -> None:
    """A run without summary.json: summarise its samples the way the runner does."""
    from genevals.aggregate import summarise

    for index, system in enumerate(systems):
        if system["summary"]:
            continue
        values: dict[str, list[float | None]] = {}
        statuses: dict[str, list[str]] = {}
        for s in samples:
            if s["sys"] != index:
                continue
            for name, value in s["v"].items():
                values.setdefault(name, []).append(value)
                statuses.setdefault(name, []).append("ok")
            for name, (status, _reason) in s.get("st", {}).items():
                values.setdefault(name, []).append(None)
                statuses.setdefault(name, []).append(status)
        system["summary"] = _clean_summary({name: summarise(vals, statuses[name]).to_dict()
                                            for name, vals in values.items()})


def _flat_meta(meta: Mapping[str, Any]) -> dict[str, str]:
    """Run metadata as short strings, for display."""
    out = {}
    for key, value in meta.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        out[_str(key)] = text if len(text) <= 300 else text[:297] + "..."
    return out


def compare_systems(samples: Iterable[Mapping[str, Any]], labels: Sequence[str], metrics: Sequence[str],
                    seed: int = DEFAULT_SEED) -> list[dict[str, Any]]:
    """Seeded paired comparisons (bootstrap CI + sign-flip test) on the question ids two systems share."""
    values: dict[int, dict[str, dict[str, float]]] = {}
    for s in samples:
        per_metric = values.setdefault(s["sys"], {})
        for name, value in s["v"].items():
            per_metric.setdefault(name, {})[s["id"]] = value
    n = len(labels)
    if n < 2:
        return []
    pairs = list(combinations(range(n), 2)) if n <= ALL_PAIRS_MAX_SYSTEMS else [(0, b) for b in range(1, n)]
    out = []
    for a, b in pairs:
        for metric in metrics:
            va, vb = values.get(a, {}).get(metric), values.get(b, {}).get(metric)
            if not va or not vb:
                continue
            result = paired_comparison(metric, labels[a], va, labels[b], vb, seed=seed, resamples=PAIRED_RESAMPLES)
            if result is None:
                continue
            d = result.to_dict()
            out.append({"metric": metric, "a": a, "b": b, "n_pairs": d["n_pairs"],
                        "mean_difference": _num(d["mean_difference"]),
                        "ci95": [_num(d["ci95"][0]), _num(d["ci95"][1])],
                        "p_value": _num(d["p_value"]), "significant": bool(d["significant"])})
    return out


# ----------------------------------------------------------------------------------------------- rendering

def embed_json(data: Any) -> str:
    """JSON that is safe inside a <script> element: no '<' (so no '</script' or '<!--'), '>' or '&'."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _asset(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def render(data: Mapping[str, Any]) -> str:
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    script = "(function () {\n\"use strict\";\n" + "\n".join(_asset(f) for f in JS_FILES) + "\n})();\n"
    css = _asset("report.css")
    if "</" in script or "<!--" in script or "</" in css:
        raise ValueError("report assets must not contain '</' or '<!--'")
    script_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = ("default-src 'none'; script-src 'sha256-" + script_hash + "'; style-src 'unsafe-inline'; "
           "img-src data:; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'")
    env = Environment(loader=FileSystemLoader(str(HERE)), autoescape=select_autoescape(["html"]))
    names = [run["name"] for run in data["runs"]]
    return env.get_template("template.html").render(
        csp=Markup(csp), css=Markup(css), script=Markup(script), data=Markup(embed_json(data)),
        title="genevals report - " + ", ".join(names[:3]) + (" ..." if len(names) > 3 else ""),
        subtitle=" vs ".join(names) if len(names) > 1 else names[0],
    )


def write_report(run_dirs: list[Path], out_path: Path, thresholds: dict[str, float] | None = None) -> Path:
    """Write one self-contained HTML report for ``run_dirs`` to ``out_path`` and return its path."""
    out_path = Path(out_path)
    html = render(build_data([Path(d) for d in run_dirs], thresholds))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(out_path)
    return out_path


def threshold_failures(data: Mapping[str, Any]) -> list[str]:
    """Every (system, metric) that misses a threshold in ``data`` (from :func:`build_data`)."""
    failures = []
    for metric, limit in data["thresholds"].items():
        found = False
        for system in data["systems"]:
            summary = system["summary"].get(metric)
            if summary is None:
                continue
            found = True
            if not bands.check(summary["mean"], limit):
                mean = "no scored samples" if summary["mean"] is None else f"{summary['mean']:.4f}"
                failures.append(f"{system['label']}: {metric} = {mean} < {limit}")
        if not found:
            failures.append(f"{metric}: not computed in these runs (threshold {limit})")
    return failures
