"""Build the self-contained HTML report from one or more run folders.

The report reads only a run's files (``results.jsonl`` and ``summary.json``), never scoring code. Everything
the page needs is embedded once as JSON in a ``<script type="application/json">`` block; the page's own
JavaScript builds every view from it with ``textContent``/``createElement`` (never ``innerHTML`` with data),
under a Content-Security-Policy that allows only the report's own inline script (by hash).

Paired comparisons (``genevals.aggregate.paired_comparison``, seeded) are computed here, at build time.

Memory stays flat in the number of samples: results.jsonl is streamed once into :class:`SampleValues` (29 bytes
per sample in memory; the values spill to a temporary file and are read back one metric at a time), and only a
bounded number of samples reach the page with their texts (``max_detailed_samples``, hallucination-review
material first) or with their values (``max_table_samples``). Histograms, rank and verdict counts and the
paired comparisons are computed here over every sample.
"""
from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from itertools import combinations
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np

from genevals.stats import DEFAULT_SEED, paired_comparison_of_differences
from genevals.keys import id_digest
from genevals.report import bands
from genevals.report.values import VERDICT_LABELS, SampleValues

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
#: Samples whose texts (question, answer, contexts, references, judge claims) the page embeds, by default.
MAX_DETAILED_SAMPLES = 2_000
#: Samples whose values (without texts) the page embeds for its table and scatter plot, by default.
MAX_TABLE_SAMPLES = 10_000


# ----------------------------------------------------------------------------------------------- reading

def iter_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each record of a results file, one at a time; a last line cut short by a
    crash (no newline, or not JSON) ends the file. Line numbers count from 1 and include blank lines."""
    if not path.exists():
        return
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.endswith("\n"):
                break
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                break
            if isinstance(row, dict):
                yield number, row


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The raw records of a results file, all in memory (the report itself streams with :func:`iter_rows`)."""
    return [row for _number, row in iter_rows(path)]


def _read_lines(path: Path, wanted: Mapping[int, Any]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records on the lines ``wanted`` (line number -> anything), parsing only those lines."""
    if not wanted:
        return
    last = max(wanted)
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if number in wanted:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:  # the file changed since the first pass: no texts for this one
                    row = None
                if isinstance(row, dict):
                    yield number, row
            if number >= last:
                break


def load_run(run_dir: str | Path) -> dict[str, Any]:
    """A run's name, folder, summary and results path (results.jsonl is streamed later, never held whole)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise FileNotFoundError(f"{run_dir}: not a run folder")
    results_path = run_dir / RESULTS_FILE
    if not results_path.exists():
        raise FileNotFoundError(f"{results_path}: no results file (run `genevals run ... --out {run_dir}`)")
    summary_path = run_dir / SUMMARY_FILE
    summary = json.loads(summary_path.read_text(encoding="utf-8")) if summary_path.exists() else {}
    return {"name": run_dir.resolve().name or str(run_dir), "path": str(run_dir), "summary": summary,
            "results": results_path}


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


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _claim_labels(details: Mapping[str, Any]) -> list[str] | None:
    """Each claim's verdict label, as the page reads them (a claim with no verdict is unverifiable); None when
    the details carry no claims or verdicts. Cheap: no spans or texts, so every sample gets it."""
    claims_in, verdicts_in = details.get("claims"), details.get("verdicts")
    if not isinstance(claims_in, list) and not isinstance(verdicts_in, list):
        return None
    by_claim: dict[int, str] = {}
    for verdict in verdicts_in if isinstance(verdicts_in, list) else []:
        if isinstance(verdict, Mapping):
            index = _int(verdict.get("claim_index"))
            if index is not None and index not in by_claim:
                label = verdict.get("label")
                by_claim[index] = label if label in VERDICT_LABELS else "unverifiable"
    labels = []
    for pos, claim in enumerate(claims_in if isinstance(claims_in, list) else []):
        if isinstance(claim, Mapping):
            index = _int(claim.get("index"))
            labels.append(by_claim.get(pos if index is None else index, "unverifiable"))
    return labels


def _scan_row(row: Mapping[str, Any], k: int, store: SampleValues, metric_of, judges: dict[str, dict],
              warnings: set[str]) -> None:
    """Record one results row's values, statuses and verdict counts in ``store`` (its texts are not kept)."""
    for name, metric in (row.get("metrics") or {}).items():
        if not isinstance(metric, Mapping):
            continue
        name = _str(name)
        m = metric_of(name)
        status = _str(metric.get("status") or "ok")
        value = _num(metric.get("value"), None)  # full precision for the comparisons
        if status == "ok" and value is not None:
            store.set_value(k, m, value)
        else:
            store.set_status(k, m, status, _str(metric.get("reason")))
        details = metric.get("details")
        if name == "faithfulness" and isinstance(details, Mapping):
            labels = _claim_labels(details)
            if labels is not None:
                store.set_verdicts(k, labels)
            if isinstance(details.get("judge"), Mapping):
                info = {k2: _str(v) for k2, v in details["judge"].items() if not isinstance(v, (dict, list))}
                judges.setdefault(json.dumps(info, sort_keys=True), info)
            if details.get("warning"):
                warnings.add(_str(details["warning"]))


def _texts(row: Mapping[str, Any]) -> dict[str, Any]:
    """The texts of one sample for the page: question, answer, contexts, references, labels, judge claims."""
    answer = _str(row.get("answer"))
    contexts = _clean_contexts(row.get("contexts"))
    relevant = row.get("relevant")
    out: dict[str, Any] = {
        "q": _str(row.get("question")), "a": answer, "ctx": contexts,
        "refs": [_str(x) for x in row.get("references") or [] if x is not None],
        "rel": ({_str(k): _num(v) for k, v in relevant.items()} if isinstance(relevant, Mapping) else None),
    }
    metric = (row.get("metrics") or {}).get("faithfulness")
    details = metric.get("details") if isinstance(metric, Mapping) else None
    if isinstance(details, Mapping):
        judge = _clean_judge(details, answer, contexts)
        if judge is not None:
            out["j"] = judge
    return out


def select_detailed(store: SampleValues, limit: int) -> list[int]:
    """Which samples keep their texts (at most ``limit``, returned in file order): first the hallucination
    review material, the samples with a contradicted or unverifiable claim, then those with an unscored metric
    (so a metric that is unscored everywhere, e.g. no references, does not crowd out the claims), then the
    rest; each group in file order."""
    limit = max(0, int(limit))
    chosen: list[int] = []
    for tier in (2, 1, 0):
        if len(chosen) >= limit:
            break
        group = (k for k in range(len(store)) if store.flagged[k] == tier)
        chosen += [k for _, k in zip(range(limit - len(chosen)), group)]
    return sorted(chosen)


def build_data(run_dirs: Sequence[str | Path], thresholds: Mapping[str, float] | None = None,
               max_detailed_samples: int = MAX_DETAILED_SAMPLES,
               max_table_samples: int | None = MAX_TABLE_SAMPLES) -> dict[str, Any]:
    """The JSON document the page renders: runs, systems, metrics, samples and paired comparisons.

    results.jsonl is streamed: each row becomes compact values (:class:`SampleValues`) at once. Summaries,
    histograms, verdict counts and comparisons use every sample. The page gets the texts (question, answer,
    contexts, references, judge claims) of at most ``max_detailed_samples`` samples (:func:`select_detailed`),
    and the values of at most ``max_table_samples`` samples for its table and scatter plot (the detailed ones,
    then the rest in file order; None: all); a second pass reads just the detailed samples' lines.
    """
    if not run_dirs:
        raise ValueError("no run folders given")
    runs = [load_run(d) for d in run_dirs]
    run_names = _unique_run_names(runs)
    system_keys: list[tuple[int, str]] = []
    system_index: dict[tuple[int, str], int] = {}

    def system_of(r: int, system: str) -> int:
        key = (r, system)
        if key not in system_index:
            system_index[key] = len(system_keys)
            system_keys.append(key)
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
    store = SampleValues()
    for r, run in enumerate(runs):  # pass 1: values only
        _collect_info(run, judges, warnings)
        for number, row in iter_rows(run["results"]):
            s = system_of(r, _str(row.get("system", "default")))
            k = store.slot(s, _str(row.get("id")), number)
            _scan_row(row, k, store, metric_of, judges, warnings)
    store.finish(len(metric_names))
    n = len(store)

    # Labels: "run/system" for a system name found in more than one run.
    seen_in: dict[str, set[int]] = {}
    for r, system in system_keys:
        seen_in.setdefault(system, set()).add(r)
    labels: list[str] = []
    system_info: list[dict[str, Any]] = []
    per_system = [0] * len(system_keys)
    for k in range(n):
        per_system[store.sys[k]] += 1
    for (r, system), count in zip(system_keys, per_system):
        label = f"{run_names[r]}/{system}" if len(runs) > 1 and len(seen_in.get(system, ())) > 1 else system
        base, i = label, 2
        while label in labels:
            label, i = f"{base}#{i}", i + 1
        labels.append(label)
        summary_metrics = (runs[r]["summary"].get("systems") or {}).get(system) or {}
        corpus = (runs[r]["summary"].get("corpus") or {}).get(system) or {}
        system_info.append({"label": label, "system": system, "run": r, "n": count,
                            "summary": _clean_summary(summary_metrics),
                            "corpus": {k: _num(v) for k, v in corpus.items() if _num(v) is not None}})

    # Which samples the page gets: texts for the detailed ones, values for the table.
    detailed = select_detailed(store, max_detailed_samples)
    chosen = set(detailed)
    if max_table_samples is None or n <= max(max_table_samples, len(detailed)):
        embedded = list(range(n))
    else:
        extra = max_table_samples - len(detailed)
        embedded = sorted(chosen.union(k for _, k in zip(range(extra), (k for k in range(n) if k not in chosen))))
    vc = np.frombuffer(store.vc, dtype=np.int32).reshape(-1, 3)
    hallucinated = (vc[:, 1] > 0) | (vc[:, 2] > 0)
    n_hallucinated = int(hallucinated.sum())
    n_hallucinated_detailed = int(hallucinated[np.asarray(detailed, dtype=np.int64)].sum()) if detailed else 0
    # Pass 2: reading only the embedded samples' lines, their ids and origins, and the detailed ones' texts.
    heads: dict[int, tuple[str, str]] = {}
    texts: dict[int, dict[str, Any]] = {}
    for r, run in enumerate(runs):
        wanted = {store.line[k]: k for k in embedded if system_keys[store.sys[k]][0] == r}
        for number, row in _read_lines(run["results"], wanted):
            k = wanted[number]
            heads[k] = (_str(row.get("id")), _str(row.get("origin")))
            if k in chosen:
                texts[k] = _texts(row)
    samples = _page_samples(store, embedded, heads, texts, metric_names)
    del heads, texts

    _fill_missing_summaries(system_info, store, metric_names)
    seed = next((run["summary"].get("seed") for run in runs if isinstance(run["summary"].get("seed"), int)),
                DEFAULT_SEED)
    thresholds = {str(k): float(v) for k, v in (thresholds or {}).items()}
    if not thresholds:
        for run in runs:
            fail_under = (run["summary"].get("meta") or {}).get("fail_under")
            if isinstance(fail_under, Mapping):
                thresholds.update({str(k): float(v) for k, v in fail_under.items() if _num(v) is not None})
    per_run = [0] * len(runs)
    for (r, _system), count in zip(system_keys, per_system):
        per_run[r] += count

    return {
        "format": 2,
        "runs": [{"name": run_names[r], "path": run["path"],
                  "genevals_version": _str(run["summary"].get("genevals_version")),
                  "seed": run["summary"].get("seed") if isinstance(run["summary"].get("seed"), int) else None,
                  "n_samples": per_run[r],
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
        "comparisons": compare_systems(store, labels, metric_names, seed),
        "coverage": {"total": n, "detailed": len(detailed), "embedded": len(embedded),
                     "flagged": len(store) - store.flagged.count(0), "max_detailed": max(0, int(max_detailed_samples)),
                     "max_table": max_table_samples, "hallucinated": n_hallucinated,
                     "hallucinated_detailed": n_hallucinated_detailed},
        "histograms": _histograms(store, metric_names, len(system_keys)),
        "ranks": _ranks(store, metric_pos, len(system_keys)),
        "verdicts": _verdict_totals(store, len(system_keys)),
        "samples": samples,
    }


def _page_samples(store: SampleValues, embedded: Sequence[int], heads: Mapping[int, tuple[str, str]],
                  texts: Mapping[int, dict[str, Any]], metric_names: Sequence[str]) -> list[dict[str, Any]]:
    """The page's samples: id, system, results.jsonl line and origin, values aligned with the report's metric
    list (null where not scored), unscored statuses, and texts, or ``x: 1`` when they are left out.

    Values carry 6 decimals with texts, 4 without (what the page shows; a quarter of the bytes of the rows that
    dominate a large report's size). Summaries, histograms and comparisons are computed from full precision.
    Metrics are read one column at a time, so only the embedded samples' values are ever held at once.
    """
    index = np.asarray(embedded, dtype=np.int64)
    values: list[list[float | None]] = [[None] * len(metric_names) for _ in embedded]
    for m in range(len(metric_names)):
        for row, v in zip(values, store.column(m)[index].tolist()):
            row[m] = None if v != v else v
    statuses: list[dict[str, list[str]]] = [{} for _ in embedded]
    for m in store.unscored_metrics:
        for i, code in enumerate(store.status_codes(m)[index].tolist()):
            if code:
                statuses[i][metric_names[m]] = list(store.status_table[code])
    out = []
    for i, k in enumerate(embedded):
        own = texts.get(k)
        digits = 6 if own is not None else 4
        row = [_num(v, digits) for v in values[i]]
        while row and row[-1] is None:
            row.pop()
        sample_id, origin = heads.get(k, ("", ""))
        sample: dict[str, Any] = {"id": sample_id, "sys": store.sys[k], "line": store.line[k]}
        if own is not None or origin:
            sample["origin"] = origin
        if own is not None:
            sample.update(own)
        else:
            sample["x"] = 1
            counts = store.verdicts(k)
            if counts is not None:
                sample["vc"] = counts
        sample["v"] = row
        if statuses[i]:
            sample["st"] = statuses[i]
        out.append(sample)
    return out


def _histograms(store: SampleValues, metric_names: Sequence[str], n_systems: int, bins: int = 10) -> dict:
    """Per metric, ``bins`` equal bins (0-1 for banded metrics, else min-max) of every sample's value, counted
    per system: what the page draws, computed here so it covers samples the page does not embed."""
    systems = np.frombuffer(store.sys, dtype=np.int32) if len(store) else np.empty(0, dtype=np.int32)
    out = {}
    for m, name in enumerate(metric_names):
        if name == "first_relevant_rank":
            continue
        col = np.round(store.column(m), 6)
        mask = ~np.isnan(col)
        if not mask.any():
            continue
        values, owners = col[mask], systems[mask]
        lo, hi = 0.0, 1.0
        if name in bands.UNBANDED:
            lo, hi = float(values.min()), float(values.max())
            if hi == lo:
                hi = lo + 1
        width = (hi - lo) / bins
        index = np.clip(np.floor((values - lo) / width), 0, bins - 1).astype(np.int64)
        counts = np.zeros((n_systems, bins), dtype=np.int64)
        np.add.at(counts, (owners, index), 1)
        out[name] = {"lo": lo, "hi": hi, "n": int(values.size), "counts": counts.tolist()}
    return out


def _ranks(store: SampleValues, metric_pos: Mapping[str, int], n_systems: int) -> dict | None:
    """first_relevant_rank per system in 12 bins (1-10, >10, not found) and how many samples had no labels."""
    m = metric_pos.get("first_relevant_rank")
    if m is None:
        return None
    counts = np.zeros((n_systems, 12), dtype=np.int64)
    systems = np.frombuffer(store.sys, dtype=np.int32)
    values = store.column(m)
    scored = ~np.isnan(values)
    bins = np.where(values[scored] > 10, 10, np.maximum(0, np.floor(values[scored] + 0.5).astype(np.int64) - 1))
    np.add.at(counts, (systems[scored], bins), 1)
    codes = store.status_codes(m)
    other = 0
    if codes is not None:
        not_found = np.isin(codes, [c for c, (status, _) in enumerate(store.status_table) if status == "not_found"])
        not_found &= codes > 0
        np.add.at(counts[:, 11], systems[not_found], 1)
        other = int(((codes > 0) & ~not_found).sum())
    return {"counts": counts.tolist(), "other": other}


def _verdict_totals(store: SampleValues, n_systems: int) -> list[dict[str, int]]:
    """Per system: samples with judge claims, and their claims by verdict."""
    out = [{"judged": 0, **{label: 0 for label in VERDICT_LABELS}} for _ in range(n_systems)]
    for k in range(len(store)):
        counts = store.verdicts(k)
        if counts is not None:
            totals = out[store.sys[k]]
            totals["judged"] += 1
            for label, c in zip(VERDICT_LABELS, counts):
                totals[label] += c
    return out


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


def _fill_missing_summaries(systems: list[dict[str, Any]], store: SampleValues, metric_names: Sequence[str]) -> None:
    """A run without summary.json: summarise its samples the way the runner does."""
    from genevals.stats import summarise

    missing = [index for index, system in enumerate(systems) if not system["summary"]]
    if not missing:
        return
    owners = np.frombuffer(store.sys, dtype=np.int32)
    summaries: dict[int, dict[str, Any]] = {index: {} for index in missing}
    for m, name in enumerate(metric_names):
        values, codes = store.column(m), store.status_codes(m)
        for index in missing:
            mine = owners == index
            scored = values[mine & ~np.isnan(values)]
            unscored = codes[mine & (codes > 0)].tolist() if codes is not None else []
            if not scored.size and not unscored:
                continue
            statuses = {"ok": int(scored.size)} if scored.size else {}
            for code in unscored:
                status = store.status_table[code][0]
                statuses[status] = statuses.get(status, 0) + 1
            summaries[index][name] = summarise(scored, statuses).to_dict()
    for index in missing:
        systems[index]["summary"] = _clean_summary(summaries[index])


def _flat_meta(meta: Mapping[str, Any]) -> dict[str, str]:
    """Run metadata as short strings, for display."""
    out = {}
    for key, value in meta.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        out[_str(key)] = text if len(text) <= 300 else text[:297] + "..."
    return out


def compare_systems(samples: SampleValues | Iterable[Mapping[str, Any]], labels: Sequence[str],
                    metrics: Sequence[str], seed: int = DEFAULT_SEED) -> list[dict[str, Any]]:
    """Seeded paired comparisons (bootstrap CI + sign-flip test) on the question ids two systems share.

    ``samples`` is a :class:`SampleValues` (values by metric position in ``metrics``), or sample dicts with
    ``sys``, ``id`` and ``v`` (a metric name -> value mapping). Only one pair's values of one metric are
    gathered into dicts at a time.
    """
    n = len(labels)
    if n < 2:
        return []
    if isinstance(samples, SampleValues):
        store = samples
        owners = np.frombuffer(store.sys, dtype=np.int32)
        keys = np.frombuffer(store.key, dtype=np.uint64)
        members = {s: np.flatnonzero(owners == s) for s in range(n)}

        def differences(a: int, b: int, metric: str) -> np.ndarray | None:
            if metric not in metrics:
                return None
            col = store.column(metrics.index(metric))
            ka, kb = members[a][~np.isnan(col[members[a]])], members[b][~np.isnan(col[members[b]])]
            if not ka.size or not kb.size:
                return None
            # Ids matched through their digests, taken in digest order: what paired_comparison does.
            _, ia, ib = np.intersect1d(keys[ka], keys[kb], assume_unique=True, return_indices=True)
            return col[ka[ia]] - col[kb[ib]]
    else:
        table: dict[int, dict[str, dict[str, float]]] = {}
        for s in samples:
            per_metric = table.setdefault(s["sys"], {})
            for name, value in s["v"].items():
                per_metric.setdefault(name, {})[s["id"]] = value

        def differences(a: int, b: int, metric: str) -> np.ndarray | None:
            va, vb = table.get(a, {}).get(metric), table.get(b, {}).get(metric)
            if not va or not vb:
                return None
            shared = sorted((id_digest(k), k) for k in set(va) & set(vb))
            return np.array([va[k] - vb[k] for _, k in shared], dtype=float)

    pairs = list(combinations(range(n), 2)) if n <= ALL_PAIRS_MAX_SYSTEMS else [(0, b) for b in range(1, n)]
    out = []
    for a, b in pairs:
        for metric in metrics:
            diffs = differences(a, b, metric)
            if diffs is None:
                continue
            result = paired_comparison_of_differences(metric, labels[a], labels[b], diffs, seed=seed,
                                                      resamples=PAIRED_RESAMPLES)
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


def write_report(run_dirs: list[Path], out_path: Path, thresholds: dict[str, float] | None = None,
                 max_detailed_samples: int = MAX_DETAILED_SAMPLES,
                 max_table_samples: int | None = MAX_TABLE_SAMPLES) -> Path:
    """Write one self-contained HTML report for ``run_dirs`` to ``out_path`` and return its path.

    The page embeds the texts of at most ``max_detailed_samples`` samples and the values of at most
    ``max_table_samples``; summaries, histograms and comparisons cover every sample (see :func:`build_data`).
    """
    out_path = Path(out_path)
    html = render(build_data([Path(d) for d in run_dirs], thresholds, max_detailed_samples, max_table_samples))
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
