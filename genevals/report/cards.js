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
  if (m.band_note) marks.push(" ", el("span", { "class": "muted small", title: m.band_note }, ["no band ", infoIcon()]));
  return marks.length ? el("span", { "class": "metric-marks" }, marks) : null;
}

function validationCards() {
  var cards = D.metrics.filter(function (m) { return m.card; });
  var notes = {};  // one line per note, naming every output it applies to (bertscore_precision, _recall, _f1)
  D.metrics.forEach(function (m) { if (m.band_note) (notes[m.band_note] = notes[m.band_note] || []).push(m.name); });
  if (!cards.length && !Object.keys(notes).length) return null;
  var space = { marginTop: "10px" };
  return el("div", { "class": "card", id: "validation-cards" }, [
    el("h3", { text: "What these scores are worth" }),
    el("p", { "class": "muted small", text: "Validation cards: agreement with public human labels, out-of-fold " +
      "(cross-validation grouped by question), with 95% CIs and the best trivial baseline on the same rows " +
      "(benchmarks/bench_triad.py)." })
  ].concat(cards.map(function (m) {
    return el("div", { "class": "validation-card", style: space }, [el("strong", { "class": "mono", text: m.name })]
      .concat(m.card.lines.map(function (line) { return el("div", { "class": "small", text: line }); })));
  })).concat(Object.keys(notes).map(function (note) {
    return el("div", { "class": "small", style: space }, [el("strong", { "class": "mono", text: notes[note].join(", ") }),
      el("div", { text: "No band: " + note })]);
  })));
}
