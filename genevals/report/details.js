// details.js: the Details tab: what a reader checks after the answer, not before it: each run's metadata and
// signatures, the judges (each once: model.py merges a judge's per-sample fields; not all are LLMs), and the
// thresholds when none were set.

function runsCard() {
  var runs = D.runs.map(function (run) {
    var dl = el("dl", { "class": "kv" });
    var rows = [["Run", run.name], ["Folder", run.path], ["Samples", String(run.n_samples)], ["Skipped input rows", String(run.skipped)],
      ["genevals", run.genevals_version || "\u2013"], ["Bootstrap seed", run.seed === null ? "\u2013" : String(run.seed)]];
    ["input", "metrics", "interrupted", "judge_agreement"].forEach(function (k) { if (run.meta[k] !== undefined) rows.push([k.replace("_", " "), run.meta[k]]); });
    rows.forEach(function (r) { append(dl, [el("dt", { text: r[0] }), el("dd", { text: r[1] })]); });
    var sigs = el("dl", { "class": "kv" });
    Object.keys(run.signatures).forEach(function (k) { append(sigs, [el("dt", { text: k }), el("dd", { "class": "mono", text: run.signatures[k] })]); });
    return el("div", null, [dl, el("h4", { text: "Signatures" }), Object.keys(run.signatures).length ? sigs : el("p", { "class": "empty", text: "none recorded" })]);
  });
  return el("div", { "class": "card", id: "runs-card" }, [el("h3", { text: D.runs.length > 1 ? "Runs" : "Run" })].concat(runs));
}

function judgesCard() {
  var judge = D.judges.length ? D.judges.map(function (j) {
    var dl = el("dl", { "class": "kv judge" });
    Object.keys(j).forEach(function (k) { append(dl, [el("dt", { text: k }), el("dd", { "class": "mono", text: j[k] })]); });
    return dl;
  }) : el("p", { "class": "muted", text: "No LLM judge verdicts in this report (faithfulness was not run)." });
  return el("div", { "class": "card", id: "judges" }, [el("h3", { text: D.judges.length > 1 ? "Judges" : "Judge" }), judge]);
}

function detailsTab(root) {
  root.appendChild(el("div", { "class": "grid-2" }, [runsCard(), judgesCard()]));
  if (!Object.keys(D.thresholds).length) root.appendChild(thresholdsCard());
}
registerTab({ id: "details", title: "Details", order: 70, render: detailsTab });
