"""Benchmark: opening one sample's drill-down in the HTML report, in headless Chromium, for long hostile texts.

    python benchmarks/bench_report.py [--samples 12] [--sentences 3000] [--contexts 20]

Builds a run folder whose answers are long (``--sentences`` sentences, one judge claim each, plus claims that
overlap several sentences), with long contexts full of markup-like text, every verdict quoting a context; writes
the report; opens it in Chromium (``GENEVALS_CHROMIUM``, default /usr/bin/chromium, Python Playwright) and times
a click on every sample's row of the Samples table until its drawer is laid out (then a click on its last
claim), printing the slowest. Only the drill-down is
timed, not the page load.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

CHROMIUM = os.environ.get("GENEVALS_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
HOSTILE = ['<script>window.__xss=1</script>', '"><img src=x onerror=alert(1)>', "&lt;b&gt;", "\u202e\u0301",
           "😀👩‍👩‍👧", "=cmd|' /C calc'!A0", "\u0000", "]]>", "{{7*7}}"]


def _sentence(rng: random.Random, words: list[str]) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(6, 14))).capitalize() + "."


def make_run(out: Path, n: int, sentences: int, n_ctx: int, seed: int = 3) -> Path:
    """A run folder with ``n`` samples; sample k has ``sentences * (k + 1) // n`` answer sentences."""
    from genevals.output import runfolder
    from genevals.api import evaluate
    from genevals.output.results import Results

    rng = random.Random(seed)
    words = "harbour ferry island council library water lighthouse permit winter summer".split() + HOSTILE
    rows = []
    for k in range(n):
        m = max(1, sentences * (k + 1) // n)
        answer = " ".join(_sentence(rng, words) for _ in range(m))
        contexts = [{"id": f"c{k}-{j}{HOSTILE[j % len(HOSTILE)]}", "text": " ".join(_sentence(rng, words)
                                                                                   for _ in range(m // 4 + 1))}
                    for j in range(n_ctx)]
        rows.append({"id": f"q{k}", "question": f"Question {k} {HOSTILE[k % len(HOSTILE)]}?", "answer": answer,
                     "contexts": contexts, "references": [answer[: len(answer) // 2]]})
    evaluate(rows, ["token_f1"], out_dir=out)
    results = Results.load(out)
    for result in results.samples:
        answer, ctxs = result.sample.answer, [c.text for c in result.sample.contexts]
        starts = [0] + [i + 2 for i, ch in enumerate(answer) if ch == "." and i + 2 < len(answer)]
        claims, verdicts = [], []
        for i, s in enumerate(starts):
            e = answer.find(".", s) + 1 or len(answer)
            spans = [[s, e]]
            if i % 5 == 0 and i + 3 < len(starts):  # a claim spanning three sentences, overlapping others
                spans = [[s, answer.find(".", starts[i + 2]) + 1]]
            label = ("supported", "contradicted", "unverifiable")[i % 3]
            ci = i % len(ctxs)
            q0 = (i * 37) % max(1, len(ctxs[ci]) - 60)
            claims.append({"index": i, "text": answer[spans[0][0]:spans[0][1]], "spans": spans, "located": True})
            verdicts.append({"claim_index": i, "label": label, "context_index": ci, "quote": ctxs[ci][q0:q0 + 60],
                             "quote_found": True, "quote_span": [q0, q0 + 60],
                             "reason": f"reason {i} {HOSTILE[i % 9]}"})
        total = len(claims)
        details = {"claims": claims, "verdicts": verdicts, "judge": {"model": "fixture"}}
        from genevals.types import MetricResult

        result.metrics["faithfulness"] = MetricResult("faithfulness", sum(v["label"] == "supported"
                                                                          for v in verdicts) / total, details=details)
    path = out / runfolder.RESULTS_FILE
    path.write_text("".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in results.samples),
                    encoding="utf-8")
    return out


def measure(report: Path) -> list[dict]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(bypass_csp=True)  # page.evaluate needs eval, which the CSP forbids
        page.goto(report.as_uri())
        page.wait_for_selector("html[data-ready=true]")
        page.click(".tabs button[data-tab=samples]")
        page.wait_for_selector("#samples-table tbody tr")
        n = page.evaluate("document.querySelectorAll('#samples-table tbody tr').length")
        out = []
        for i in range(n):
            # The click handlers run synchronously; reading offsetHeight forces the layout into the timing.
            got = page.evaluate("""(i) => {
                var row = document.querySelector('#samples-table tbody tr[data-index="' + i + '"]');
                var t0 = performance.now(); row.click();
                var drawer = document.getElementById('drawer'); drawer.offsetHeight;
                var t1 = performance.now();
                var claims = drawer.querySelectorAll('.claim-list [data-claim]');
                if (claims.length) { claims[claims.length - 1].click(); drawer.offsetHeight; }
                var t2 = performance.now();
                var answer = drawer.querySelector('.text-block.answer');
                return {open_ms: t1 - t0, click_ms: t2 - t1, claims: claims.length,
                        answer_chars: answer ? answer.textContent.length : 0};
            }""", i)
            out.append({"index": i, **got})
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=12)
    parser.add_argument("--sentences", type=int, default=3000)
    parser.add_argument("--contexts", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print one JSON line (for benchmarks/run.py)")
    args = parser.parse_args()
    from genevals.report import write_report

    with tempfile.TemporaryDirectory(prefix="genevals-bench-report-") as tmp:
        run = make_run(Path(tmp) / "run", args.samples, args.sentences, args.contexts)
        report = write_report([run], Path(tmp) / "report.html")
        start = time.perf_counter()
        rows = measure(report)
        wall = time.perf_counter() - start
    slowest = max(rows, key=lambda r: r["open_ms"] + r["click_ms"])
    summary = {"samples": len(rows), "slowest_open_ms": slowest["open_ms"], "slowest_click_ms": slowest["click_ms"],
               "slowest_claims": slowest["claims"], "slowest_answer_chars": slowest["answer_chars"],
               "browser_wall_s": wall, "load": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(summary))
        return
    for r in rows:
        print(f"sample {r['index']:>3}: {r['claims']:>6} claims, {r['answer_chars']:>8} chars: open "
              f"{r['open_ms']:8.1f} ms, click {r['click_ms']:8.1f} ms")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
