// Validation cards and band notes, from each metric's entry in outputs.json (bands.metric_facts): the offline
// triad judges' agreement with public human labels beside their best trivial baseline, and why an output
// (raw BERTScore) takes no band.
function metricMarks(m) {
  if (!m) return null;
  var marks = [];
  if (m.card) {
    var beats = m.card.beats_baseline || [];
    var all = beats.length && beats.every(function (b) { return b; });
    marks.push(" ", chip(all ? "validated" : "validated: not above baseline everywhere", all ? "" : "fail",
      m.card.lines.join("\n")));
  }
  if (m.band_note) marks.push(" ", el("span", { "class": "muted small", title: m.band_note, text: "no band \u24D8" }));
  return marks.length ? el("span", { "class": "metric-marks" }, marks) : null;
}

function validationCards() {
  var shown = D.metrics.filter(function (m) { return m.card || m.band_note; });
  if (!shown.length) return null;
  return el("div", { "class": "card", id: "validation-cards" }, [
    el("h3", { text: "What these scores are worth" }),
    el("p", { "class": "muted small", text: "Validation cards: agreement with public human labels, out-of-fold " +
      "(cross-validation grouped by question), with 95% CIs and the best trivial baseline on the same rows " +
      "(benchmarks/bench_triad.py)." })
  ].concat(shown.map(function (m) {
    return el("div", { "class": "validation-card" }, [el("div", { "class": "mono", text: m.name })]
      .concat((m.card ? m.card.lines : []).map(function (line) { return el("div", { "class": "small", text: line }); }))
      .concat(m.band_note ? [el("div", { "class": "small", text: "No band: " + m.band_note })] : []));
  })));
}
