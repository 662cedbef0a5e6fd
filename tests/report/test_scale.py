"""The HTML report at scale: 20,000 synthetic samples x 40 metrics, with texts and judge claims.

Peak memory of ``write_report`` is measured in a fresh Python process (``/proc/self/status`` VmHWM); the report
must not hold every sample: texts for at most ``max_detailed_samples`` (hallucinated first), values for at
most ``max_table_samples``, with histograms and comparisons computed over all samples at build time. The run
is written by :func:`support.runs.write_scale_run`.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from support.runs import HALLUCINATED, N_SCALE as N, UNSCORED, embedded, is_hallucinated, write_scale_run

from genevals.output import runfolder
from genevals.cli import main
from genevals.report.model import MAX_DETAILED_SAMPLES, build_data
from genevals.report.samples import select_detailed
from genevals.report.stats import compare_systems
from genevals.report.values import SampleValues
from genevals.stats import paired_comparison

#: Measured on the project's 2-core machine (Python 3.11): ~160 MB at 2,000 and 20,000 samples (imports
#: ~100 MB, streaming 20,000 rows into arrays and 2,000 detailed samples ~60 MB). The old builder peaked at
#: ~900 MB for 20,000 rows of this size.
MAX_PEAK_MB = 300
MAX_GROWTH_MB = 20
MAX_HTML_MB = 12


# VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent at fork, so a child of a pytest process
# that once held a 1.3 GB model would report at least 1.3 GB. VmHWM belongs to the process's own memory map.
PEAK = r"""
import json, sys
from pathlib import Path
from genevals.report import write_report
rows = None if sys.argv[3] == "default" else int(sys.argv[3])
out = write_report([Path(sys.argv[1])], Path(sys.argv[2]), **({} if rows is None else {"max_table_samples": rows}))
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"maxrss_kb": hwm, "bytes": out.stat().st_size}))
"""


def peak_of_write_report(run: Path, out: Path, max_table_samples: int | None = None) -> dict:
    """Peak RSS and file size of ``write_report`` in a fresh process (default caps unless given)."""
    rows = "default" if max_table_samples is None else str(max_table_samples)
    done = subprocess.run([sys.executable, "-c", PEAK, str(run), str(out), rows], capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def scale_run(tmp_path_factory) -> Path:
    return write_scale_run(tmp_path_factory.mktemp("scale") / "run")


@pytest.fixture(scope="module")
def scale_report(scale_run, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("scale-report") / "report.html"
    return out, peak_of_write_report(scale_run, out)


def test_memory_and_size_stay_bounded(scale_report, scale_run, tmp_path):
    out, big = scale_report
    small = peak_of_write_report(write_scale_run(tmp_path / "small", 2_000), tmp_path / "small.html")
    # With the table capped at the same 2,000 rows as the small run holds, 10x the samples adds only the
    # 29 bytes per sample in memory (values spill to disk): memory is flat in the number of samples.
    capped = peak_of_write_report(scale_run, tmp_path / "capped.html", max_table_samples=2_000)
    big_mb, small_mb, capped_mb = (r["maxrss_kb"] / 1024 for r in (big, small, capped))
    print(f"write_report peak RSS: {small_mb:.0f} MB at 2,000 samples, {big_mb:.0f} MB at {N:,} "
          f"({capped_mb:.0f} MB with 2,000 table rows); report {big['bytes'] / 2**20:.1f} MB")
    assert big_mb < MAX_PEAK_MB
    assert capped_mb - small_mb < MAX_GROWTH_MB
    assert big["bytes"] < MAX_HTML_MB * 2**20
    assert capped["bytes"] < 0.75 * big["bytes"]  # the default table holds 10,000 rows


def test_page_holds_bounded_detail_and_all_aggregates(scale_report, scale_run):
    out, _ = scale_report
    data = embedded(out.read_text(encoding="utf-8"))
    cov = data["coverage"]
    hallucinated = sum(1 for i in range(N) if is_hallucinated(i))
    assert cov["total"] == N and cov["detailed"] == MAX_DETAILED_SAMPLES == 2_000
    assert cov["hallucinated"] == hallucinated == cov["hallucinated_detailed"]
    assert cov["embedded"] == len(data["samples"]) <= 20_000
    detailed = [s for s in data["samples"] if not s.get("x")]
    trimmed = [s for s in data["samples"] if s.get("x")]
    assert len(detailed) == 2_000 and trimmed
    # Every hallucinated sample is detailed, even those late in the file; then unscored ones, then file order.
    lines = {s["line"] for s in detailed}
    assert all(i + 1 in lines for i in range(N) if is_hallucinated(i))
    assert max(lines) > 10_000
    assert all("q" not in s and "ctx" not in s and "j" not in s and "vc" in s for s in trimmed)
    assert all(s["a"] and s["ctx"] and "j" in s for s in detailed)
    # Aggregates count every sample, embedded or not.
    assert sum(map(sum, data["histograms"]["token_f1"]["counts"])) == data["histograms"]["token_f1"]["n"]
    assert data["histograms"]["mrr"]["n"] == N
    no_ref = sum(1 for i in range(N) if i % UNSCORED == 4)
    assert data["histograms"]["token_f1"]["n"] == N - no_ref
    assert sum(v["judged"] for v in data["verdicts"]) == N
    assert sum(v["contradicted"] for v in data["verdicts"]) == hallucinated
    assert sum(map(sum, data["ranks"]["counts"])) == N and data["ranks"]["other"] == 0
    assert [s["n"] for s in data["systems"]] == [N // 2, N // 2]
    assert data["runs"][0]["n_samples"] == N
    # Summaries (no summary.json systems here) and comparisons use all samples.
    assert data["systems"][0]["summary"]["mrr"]["scored"] == N // 2
    comp = next(c for c in data["comparisons"] if c["metric"] == "token_f1")
    assert comp["n_pairs"] == sum(1 for i in range(0, N, 2) if i % UNSCORED != 4 and (i + 1) % UNSCORED != 4)


def test_selection_prefers_hallucinated_then_unscored_then_file_order(tmp_path):
    run = write_scale_run(tmp_path / "run", 600)
    data = build_data([run], max_detailed_samples=20, max_table_samples=100)
    detailed = sorted(s["line"] for s in data["samples"] if not s.get("x"))
    rows = [row for _, row in runfolder.iter_rows(run)]
    hallucinated = [i + 1 for i in range(600) if is_hallucinated(i)]
    assert len(hallucinated) == 15
    unscored = [i + 1 for i, row in enumerate(rows) if not is_hallucinated(i)
                and any(m["status"] != "ok" for m in row["metrics"].values())]
    assert detailed == sorted(hallucinated + unscored[:5])
    assert len(data["samples"]) == 100 and data["coverage"]["embedded"] == 100
    lines = [s["line"] for s in data["samples"]]
    assert lines == sorted(lines)  # file order
    assert [line for line in lines if line not in detailed] == [i + 1 for i in range(600) if i + 1 not in detailed][:80]
    # No cap on rows: every sample is in the table; no detailed samples at all: still renders its values.
    assert len(build_data([run], max_detailed_samples=0, max_table_samples=None)["samples"]) == 600


def test_latest_row_wins_and_values_match(tmp_path):
    run = write_scale_run(tmp_path / "run", 40)
    lines = (run / runfolder.RESULTS_FILE).read_text().splitlines()
    again = json.loads(lines[0])
    again["metrics"]["token_f1"] = {"value": 0.123, "status": "ok", "reason": "", "details": {}}
    again["metrics"]["mrr"] = {"value": None, "status": "judge_error", "reason": "rescored", "details": {}}
    (run / runfolder.RESULTS_FILE).write_text("\n".join(lines + [json.dumps(again)]) + "\n")
    data = build_data([run], max_detailed_samples=5)
    names = [m["name"] for m in data["metrics"]]
    assert len(data["samples"]) == 40
    first = next(s for s in data["samples"] if s["id"] == again["id"] and data["systems"][s["sys"]]["system"] == "dense")
    assert first["line"] == 41 and first["v"][names.index("token_f1")] == 0.123
    assert first["st"]["mrr"] == ["judge_error", "rescored"] and first["v"][names.index("mrr")] is None
    for s in data["samples"]:
        row = json.loads(lines[s["line"] - 1]) if s["line"] <= 40 else again
        for name, metric in row["metrics"].items():
            value = s["v"][names.index(name)] if names.index(name) < len(s["v"]) else None
            digits = 4 if s.get("x") else 6  # values-only rows carry the 4 decimals the page shows
            assert value == (None if metric["value"] is None else round(metric["value"], digits))


def test_blockwise_bootstrap_equals_paired_comparison():
    rng = np.random.default_rng(0)
    a = {f"q{i}": float(v) for i, v in enumerate(rng.random(3001))}
    b = {f"q{i}": float(v) + 0.01 for i, v in enumerate(rng.random(3001))}
    direct = paired_comparison("m", "A", a, "B", b, seed=7, resamples=700, block=10**9)
    blocked = paired_comparison("m", "A", a, "B", b, seed=7, resamples=700, block=3001 * 33 + 5)
    assert blocked == direct


def test_compare_systems_accepts_sample_dicts_and_store():
    store = SampleValues()
    dicts = []
    for i in range(30):
        for system in (0, 1):
            k = store.slot(system, f"q{i}", i + 1)
            value = (i * 7 % 11) / 10 + system * 0.05
            store.set_value(k, 0, value)
            dicts.append({"sys": system, "id": f"q{i}", "v": {"m": value}})
    store.finish(1)
    assert compare_systems(store, ["A", "B"], ["m"]) == compare_systems(dicts, ["A", "B"], ["m"])
    assert select_detailed(store, 3) == [0, 1, 2]


def test_cli_max_samples(scale_run, tmp_path):
    out = tmp_path / "r.html"
    assert main(["report", str(scale_run), "-o", str(out), "--max-samples", "50"]) == 0
    cov = embedded(out.read_text(encoding="utf-8"))["coverage"]
    assert cov["detailed"] == 50 and cov["max_detailed"] == 50 and cov["hallucinated_detailed"] == 50
    with pytest.raises(SystemExit):
        main(["report", str(scale_run), "--max-samples", "-1"])


# ----------------------------------------------------------------------------------------------- browser

def test_trimmed_report_in_chromium(browser, scale_report):
    out, _ = scale_report
    data = embedded(out.read_text(encoding="utf-8"))
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(out.resolve().as_uri())
        page.wait_for_selector("html[data-ready=true]", timeout=30_000)
        note = page.inner_text("#coverage-note")
        assert "Detailed samples: 2,000 of 20,000" in note and "limited to 2,000 detailed samples" in note
        assert f"{N // 2} samples" in page.inner_text(".systems")
        page.click("button[data-tab=charts]")
        page.wait_for_selector("#tab-charts:not([hidden])")
        assert page.locator("#histograms .histogram svg").count() >= 30
        # Verdict counts cover every sample: 500 contradicted claims, all from system "sparse" (odd rows).
        assert page.locator("#verdict-chart rect[data-verdict=contradicted]").count() == 1
        assert f"{N // HALLUCINATED} (" in page.inner_text("#verdict-chart table")
        assert f"n = {N:,}".replace(",", "") in page.inner_text("#histograms")
        page.click("button[data-tab=samples]")
        page.wait_for_selector("#tab-samples:not([hidden])")
        total = len(data["samples"])
        assert page.inner_text("#samples-count") == f"{total} of {total} samples"
        assert "Texts of 2,000 of 20,000 samples" in page.inner_text("#samples-coverage")
        # A trimmed sample: values and a note pointing at results.jsonl.
        trimmed = next(i for i, s in enumerate(data["samples"]) if s.get("x"))
        page.fill("#samples-search", data["samples"][trimmed]["id"])
        page.click(f"#samples-table tbody tr[data-index='{trimmed}']")
        page.wait_for_selector("#drawer:not([hidden])")
        text = page.inner_text("#trimmed-note")
        assert "Text not embedded" in text and "report limited to 2,000 detailed samples" in text
        assert f"results.jsonl line {data['samples'][trimmed]['line']}" in text
        assert f"data.jsonl:{data['samples'][trimmed]['line']}" in text
        assert page.locator("#sample-metrics tbody tr").count() >= 40
        page.click("#drawer-close")
        # A detailed, hallucinated sample still shows its claims and evidence.
        page.fill("#samples-search", "")
        page.select_option("#samples-filters select >> nth=1", "contradicted")
        page.click("#samples-table tbody tr >> nth=0")
        page.wait_for_selector("#drawer:not([hidden])")
        page.locator("#drawer .answer .claim.v-contradicted").first.click()
        assert page.locator("#contexts .ctx.cited mark").count() == 1
        page.click("#drawer-close")
        page.click("button[data-tab=review]")
        page.wait_for_selector("#tab-review:not([hidden])")
        assert page.inner_text("#review-count") == f"{N // HALLUCINATED} of {N // HALLUCINATED} flagged claims"
        page.click("button[data-tab=compare]")
        page.wait_for_selector("#compare-table tbody tr")
        assert errors == []
    finally:
        context.close()
