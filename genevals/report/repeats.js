// repeats.js: judge repeats (--judge-repeats N) in the report: the flip rate per system on the overview, the
// unstable claims marked in a sample's drawer (agreement 2/3 beside each) with every repeat's verdict, each
// registered as a section or hook. The samples table's "Has unstable claims" filter reads unstableClaims (core.js).

function agreementText(v) {
  var votes = (v.rep || []).filter(function (l) { return l; });
  var same = votes.filter(function (l) { return l === v.label; }).length;
  return same + "/" + votes.length;
}
function isUnstable(v) {
  var seen = {};
  (v.rep || []).forEach(function (l) { if (l) seen[l] = 1; });
  return Object.keys(seen).length > 1;
}

// The repeats' verdicts beside a claim (the review tab's verdict cell; genevals review serves the same page).
function repeatsBeside(v) {
  return el("div", { "class": "small repeats-beside" }, [chip(agreementText(v), isUnstable(v) ? "unstable" : "muted",
    "majority of the judge repeats; a tie is unverifiable"), " "].concat(v.rep.map(function (l) {
    return chip(l ? l.slice(0, 1).toUpperCase() : "\u2013", l ? "v-" + l : "status", l || "this repeat failed"); })));
}

function repeatsOverview(root) {
  var rows = [];
  D.systems.forEach(function (s) {
    Object.keys(s.repeats || {}).forEach(function (name) {
      var r = s.repeats[name], usual = (s.summary || {})[name] || {}, ci = usual.ci95, jc = r.ci;
      rows.push(el("tr", { "data-system": s.label, "data-output": name }, [
        el("td", { text: s.label }), el("td", { "class": "mono", text: name }), el("td", { "class": "num", text: String(r.n) }),
        el("td", { "class": "num flip-rate", text: fmt(r.flip, 3) }),
        el("td", { "class": "num", text: r.unstable + " / " + r.units + " " + r.unit }),
        el("td", { "class": "num", text: fmt(r.spread, 3) }),
        el("td", { "class": "num", text: usual.mean === null || usual.mean === undefined ? "\u2013" :
          fmt(usual.mean, 3) + (ci ? " [" + fmt(ci[0], 2) + ", " + fmt(ci[1], 2) + "]" : "") }),
        el("td", { "class": "num", text: r.mean === null ? "\u2013" : fmt(r.mean, 3) + (jc ? " [" + fmt(jc[0], 2) + ", " + fmt(jc[1], 2) + "]" : "") }),
        el("td", { "class": "num", text: String(r.failed) })]));
    });
  });
  if (!rows.length) return;
  var policy = null;
  D.systems.forEach(function (s) { Object.keys(s.repeats || {}).forEach(function (n) { policy = policy || s.repeats[n].policy; }); });
  root.appendChild(el("div", { "class": "card", id: "judge-repeats" }, [
    el("h3", { text: "Judge variance (repeated judging)" }),
    el("p", { "class": "small muted", text: "Each judge request was made several times with different seeds. Flip rate: the share of " +
      "claims (or samples) whose repeats did not all agree. The majority interval resamples samples; the one over repeats " +
      "resamples samples and then repeats, so it includes the judge's variance. Policy: " + (policy || "") + "." }),
    el("div", { "class": "table-wrap" }, el("table", { id: "repeats-table" }, [
      el("thead", null, el("tr", null, ["System", "Output", "Repeats", "Flip rate", "Unstable", "Mean spread",
        "Majority mean [95% CI, samples]", "Mean over repeats [95% CI, samples + repeats]", "Failed repeats"].map(function (h) {
        return el("th", { text: h }); }))),
      el("tbody", null, rows)]))]));
}

// Beside each claim of the open sample whose repeats disagreed: its agreement (2/3) and an "unstable" mark.
function markUnstable(index) {
  var sample = D.samples[index];
  if (!sample || !sample.j) return;
  var rows = claimRows(sample);
  rows.forEach(function (r, k) {
    var v = r.verdict;
    if (!v || !v.rep) return;
    var unstable = isUnstable(v), text = "agreement " + agreementText(v);
    Array.prototype.forEach.call(drawerBody.querySelectorAll('.claim-list li[data-claim="' + k + '"]'), function (li) {
      li.appendChild(chip(text, unstable ? "unstable" : "muted", "repeats: " + v.rep.map(function (l) { return l || "failed"; }).join(", ")));
    });
    if (unstable) Array.prototype.forEach.call(drawerBody.querySelectorAll('.answer [data-claim="' + k + '"]'), function (n) {
      n.classList.add("unstable");
    });
  });
}

// Every repeat's verdict for each claim, and each repeat's score and status.
function repeatsCard(sample) {
  var rows = claimRows(sample).filter(function (r) { return r.verdict && r.verdict.rep; });
  var rp = sample.j.rp, n = rows.length ? rows[0].verdict.rep.length : (rp ? rp.values.length : 0);
  var heads = ["Claim", "Majority", "Agreement"];
  for (var i = 0; i < n; i++) heads.push("Repeat " + (i + 1));
  return el("div", { "class": "card", id: "claim-repeats" }, [
    el("h3", { text: "Judge repeats" }),
    rp ? el("p", { "class": "small muted", id: "repeat-scores", text: "Score per repeat: " + rp.values.map(function (v, k) {
      return (v === null ? (rp.statuses[k] || "failed") : fmt(v, 3)); }).join(", ") }) : null,
    el("table", { id: "repeats-claims" }, [
      el("thead", null, el("tr", null, heads.map(function (h) { return el("th", { text: h }); }))),
      el("tbody", null, rows.map(function (r) {
        var v = r.verdict;
        return el("tr", { "class": isUnstable(v) ? "unstable" : null }, [
          el("td", { dir: "auto", text: r.claim.text }), el("td", null, verdictChip(v.label)), el("td", { text: agreementText(v) })]
          .concat(v.rep.map(function (l) { return el("td", null, l ? verdictChip(l) : chip("failed", "status")); })));
      }))])]);
}

registerTabSection("overview", { id: "judge-repeats", order: 20, render: repeatsOverview, when: hasRepeats });
registerHook("sample-opened", { id: "unstable-claims", order: 5, run: markUnstable });
registerSampleSection({ id: "judge-repeats", order: 20, render: repeatsCard,
  when: function (sample) { return unstableClaims(sample) !== null; } });
