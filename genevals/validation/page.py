"""The ``validation.html`` page of ``genevals validate``: one self-contained file (inline CSS, no scripts, no
external resources). Every piece of text from the data is escaped with ``html.escape``."""
from __future__ import annotations

from html import escape
from typing import Any, Iterable, Mapping, Sequence

CSS = """
:root { --bg:#f6f7f9; --panel:#fff; --ink:#1f2328; --muted:#59636e; --line:#d8dee4; --soft:#eef1f4;
  --accent:#0b5cad; --sup:#1a7f37; --con:#c4262e; --con-bg:#ffe3e3; --unv:#8a5a00; --unv-bg:#fff1b8;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size:14px; color:var(--ink); background:var(--bg); }
* { box-sizing:border-box; } body { margin:0; }
.topbar { padding:14px 20px; background:#16202c; color:#fff; font-weight:700; font-size:16px; }
.topbar span { font-weight:400; opacity:.75; }
main { max-width:1400px; margin:0 auto; padding:20px; }
main > * + * { margin-top:16px; }
.card { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:16px; }
h2 { font-size:18px; margin:0 0 12px; } h3 { font-size:15px; margin:0 0 8px; }
h4 { font-size:12px; margin:10px 0 6px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--soft); vertical-align:top; }
th { color:var(--muted); font-weight:600; font-size:12px; }
td.num { font-variant-numeric:tabular-nums; white-space:nowrap; }
.muted { color:var(--muted); } .small { font-size:12px; }
.kpis { display:flex; flex-wrap:wrap; gap:12px; }
.kpi { border:1px solid var(--line); border-radius:8px; padding:10px 14px; min-width:150px; }
.kpi b { display:block; font-size:22px; } .kpi .small { color:var(--muted); }
.pair { display:grid; grid-template-columns:1fr 1fr; gap:14px; }
.text { white-space:pre-wrap; line-height:1.55; border:1px solid var(--soft); border-radius:6px; padding:10px;
  background:#fbfbfc; max-height:420px; overflow:auto; }
mark.gold { background:var(--con-bg); border-bottom:2px solid var(--con); color:inherit; }
mark.pred { background:var(--unv-bg); border-bottom:2px solid var(--unv); color:inherit; }
.case { border-top:3px solid var(--line); }
.case.false_alarm { border-top-color:var(--unv); } .case.miss { border-top-color:var(--con); }
.label { display:inline-block; padding:1px 7px; border-radius:10px; font-size:12px; font-weight:600; }
.label.supported { background:#dafbe1; color:var(--sup); } .label.contradicted { background:var(--con-bg); color:var(--con); }
.label.unverifiable { background:var(--unv-bg); color:var(--unv); }
.warning { padding:10px 14px; border-radius:6px; background:#fff4e5; border:1px solid #f0b44c; color:#6b3c00; }
@media (max-width:900px) { .pair { grid-template-columns:1fr; } }
"""


def _e(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return _e(value)


def _ci(ci: Sequence[float] | None) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "–"


def highlight(text: str, spans: Iterable[Sequence[int]], cls: str) -> str:
    """``text`` escaped, with ``spans`` (merged, clipped) wrapped in <mark class=cls>."""
    merged: list[list[int]] = []
    for s, e in sorted((max(0, int(a)), min(len(text), int(b))) for a, b in spans):
        if e <= s:
            continue
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    out, at = [], 0
    for s, e in merged:
        out.append(_e(text[at:s]))
        out.append(f'<mark class="{_e(cls)}">{_e(text[s:e])}</mark>')
        at = e
    out.append(_e(text[at:]))
    return "".join(out)


def _stats_table(rows: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    head = ("<tr><th>subset</th><th>scored</th><th>unscored</th><th>positive rate</th><th>precision</th>"
            "<th>recall</th><th>F1 [95% CI]</th><th>balanced acc.</th><th>kappa</th>"
            "<th>baseline F1 (all hallucinated)</th><th>TP / FP / FN / TN</th></tr>")
    body = []
    for name, r in rows:
        ci = r.get("ci95") or {}
        cm = r.get("confusion") or {}
        body.append(
            f"<tr><td>{_e(name)}</td><td class=num>{_fmt(r.get('scored'))}</td><td class=num>{_fmt(r.get('unscored'))}"
            f"</td><td class=num>{_fmt(r.get('positive_rate'))}</td><td class=num>{_fmt(r.get('precision'))}</td>"
            f"<td class=num>{_fmt(r.get('recall'))}</td><td class=num>{_fmt(r.get('f1'))} {_ci(ci.get('f1'))}</td>"
            f"<td class=num>{_fmt(r.get('balanced_accuracy'))}</td><td class=num>{_fmt(r.get('kappa'))}</td>"
            f"<td class=num>{_fmt((r.get('baseline_all_hallucinated') or {}).get('f1'))}</td>"
            f"<td class=num>{_fmt(cm.get('tp'))} / {_fmt(cm.get('fp'))} / {_fmt(cm.get('fn'))} / {_fmt(cm.get('tn'))}</td></tr>")
    return f"<table>{head}{''.join(body)}</table>"


def _case(d: Mapping[str, Any], kind: str) -> str:
    title = "False alarm: the judge flags an answer the humans found faithful" if kind == "false_alarm" else \
        "Miss: the humans found hallucination the judge did not flag"
    meta = " · ".join(_e(x) for x in (f"id {d.get('id')}", d.get("task_type"), d.get("model"),
                                         f"faithfulness {_fmt(d.get('faithfulness'))}",
                                         f"confidence {_fmt(d.get('confidence'))}" if d.get("confidence") is not None else None,
                                         f"settled by {d.get('settled_by')}" if d.get("settled_by") else None) if x)
    question = f"<p class=small><b>Question:</b> {_e(d.get('question'))}</p>" if d.get("question") else ""
    notes = "".join(f"<li>{_e(s.get('label_type') or 'span')} [{_e(s.get('start'))}, {_e(s.get('end'))}): "
                    f"<span class=muted>{_e(s.get('note'))}</span></li>" for s in d.get("labelled_spans", []))
    verdicts = "".join(
        f"<tr><td>{_e(v.get('claim'))}</td><td><span class='label {_e(v.get('label'))}'>{_e(v.get('label'))}</span></td>"
        f"<td class=small>{_e(v.get('reason'))}</td><td class=small>{_e(v.get('quote'))}</td></tr>"
        for v in d.get("verdicts", []))
    return (f"<section class='card case {_e(kind)}'><h3>{_e(title)}</h3><p class='small muted'>{meta}</p>{question}"
            f"<div class=pair><div><h4>Human labels</h4><div class=text>{highlight(d['response'], d.get('gold_spans', []), 'gold')}"
            f"</div>{f'<ul class=small>{notes}</ul>' if notes else ''}</div>"
            f"<div><h4>Judge</h4><div class=text>{highlight(d['response'], d.get('predicted_spans', []), 'pred')}</div></div></div>"
            f"<h4>Judge verdicts</h4><table><tr><th>claim</th><th>verdict</th><th>reason</th><th>evidence quote</th></tr>"
            f"{verdicts}</table></section>")


def _weighted(w: Mapping[str, Any] | None, rl: Mapping[str, Any]) -> str:
    """The whole-run figures of a review queue's labels (:mod:`genevals.validation.weighted`), beside the
    unweighted ones; "" when the labels came from no queue."""
    if not w:
        return ""
    from genevals.validation.weighted import summary_line

    strata = "".join(f"<tr><td>{_e(s['stratum'])}</td><td class=num>{_fmt(s['size'])}</td><td class=num>"
                     f"{_fmt(s['labelled'])}</td><td class=num>{_fmt(s['accuracy'])}</td></tr>" for s in w["strata"])
    return (f"<section class=card id=weighted><h2>The whole run (review queue)</h2><p>{_e(summary_line(w, rl).strip())}"
            "</p><p class=\"small muted\">Each labelled answer weighs N_h / m_h in its stratum (the Horvitz-Thompson "
            "estimator when every drawn answer is labelled); 95% CIs: stratified bootstrap.</p><table><tr><th>stratum"
            f"</th><th>answers in the run</th><th>labelled</th><th>accuracy</th></tr>{strata}</table></section>")


def render(report: Mapping[str, Any]) -> str:
    rl = report.get("response_level") or {}
    ci = rl.get("ci95") or {}
    kpis = [("F1", _fmt(rl.get("f1")), _ci(ci.get("f1"))),
            ("baseline F1", _fmt((rl.get("baseline_all_hallucinated") or {}).get("f1")), "everything hallucinated"),
            ("precision", _fmt(rl.get("precision")), _ci(ci.get("precision"))),
            ("recall", _fmt(rl.get("recall")), _ci(ci.get("recall"))),
            ("balanced accuracy", _fmt(rl.get("balanced_accuracy")), _ci(ci.get("balanced_accuracy"))),
            ("Cohen's kappa", _fmt(rl.get("kappa")), _ci(ci.get("kappa"))),
            ("scored / unscored", f"{_fmt(rl.get('scored'))} / {_fmt(rl.get('unscored'))}",
             ", ".join(f"{_e(k)}: {_e(v)}" for k, v in (rl.get("unscored_by_status") or {}).items()) or "none unscored")]
    if report.get("span_level"):
        sl = report["span_level"]
        kpis.append(("span F1 (chars)", _fmt(sl.get("f1")),
                     f"P {_fmt(sl.get('precision'))} · R {_fmt(sl.get('recall'))}"))
    if report.get("cascade"):
        c = report["cascade"]
        kpis.append(("settled locally", f"{_fmt(c.get('settled_local'))} / {_fmt(c.get('settled_local', 0) + c.get('sent_to_llm', 0))}",
                     f"{_fmt(c.get('sent_to_llm'))} sent to the LLM judge"))
    kpi_html = "".join(f"<div class=kpi><span class=small>{_e(n)}</span><b>{v}</b><span class=small>{s}</span></div>"
                       for n, v, s in kpis)
    rows = [("all", rl)] + [(tt, sub["response_level"]) for tt, sub in (report.get("per_task_type") or {}).items()]
    span_rows = ""
    if report.get("span_level"):
        items = [("all", report["span_level"])] + [(tt, sub["span_level"]) for tt, sub in
                                                   (report.get("per_task_type") or {}).items()]
        span_rows = "<table><tr><th>subset</th><th>precision</th><th>recall</th><th>F1</th><th>predicted chars</th>" \
                    "<th>labelled chars</th><th>overlap</th></tr>" + "".join(
                        f"<tr><td>{_e(n)}</td><td class=num>{_fmt(s.get('precision'))}</td><td class=num>"
                        f"{_fmt(s.get('recall'))}</td><td class=num>{_fmt(s.get('f1'))}</td><td class=num>"
                        f"{_fmt(s.get('predicted_chars'))}</td><td class=num>{_fmt(s.get('gold_chars'))}</td>"
                        f"<td class=num>{_fmt(s.get('overlap_chars'))}</td></tr>" for n, s in items) + "</table>"
    judge = report.get("judge_info") or {}
    warning = "".join(f"<div class=warning>{_e(w)}</div>" for w in (judge.get("warning"), report.get("in_sample"))
                      if w)
    dis = report.get("disagreements") or {}
    cases = "".join(_case(d, "false_alarm") for d in dis.get("false_alarms", [])) + \
        "".join(_case(d, "miss") for d in dis.get("misses", []))
    sub = " · ".join(_e(x) for x in (report.get("input"), f"judge {report.get('judge')}",
                                       f"rule {report.get('rule')}") if x)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>genevals validation</title><style>{CSS}</style></head>
<body><div class=topbar>genevals <span>judge validation · {sub}</span></div>
<main>
{warning}
<section class=card><h2>Agreement with human labels</h2>
<p class="small muted">Response level: an answer is predicted hallucinated by rule <code>{_e(report.get('rule'))}</code>.
Unscored answers are excluded and counted. 95% CIs: seeded percentile bootstrap over answers (seed {_e(report.get('seed'))},
{_e(report.get('resamples'))} resamples). Judge: {_e(judge.get('backend'))} / {_e(judge.get('model'))};
{_fmt(report.get('seconds'), 1)} s in all, {_fmt(report.get('seconds_per_answer'), 2)} s per answer.</p>
<div class=kpis>{kpi_html}</div></section>
{_weighted(report.get("response_level_weighted"), rl)}
<section class=card><h2>Response level</h2>{_stats_table(rows)}</section>
{f'<section class=card><h2>Span level</h2><p class="small muted">Character overlap between the answer spans of flagged claims and the labelled spans, micro over characters of the scored answers.</p>{span_rows}</section>' if span_rows else ''}
<section class=card><h2>Worst disagreements</h2><p class="small muted">Side by side: <mark class=gold>human-labelled spans</mark> and <mark class=pred>spans the judge flagged</mark>.
{len(dis.get('false_alarms', []))} false alarm(s) and {len(dis.get('misses', []))} miss(es) shown.</p></section>
{cases}
</main></body></html>
"""
