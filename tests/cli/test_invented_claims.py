"""Claims the judge returns that are not in the answer (invented, or copied from the prompt's worked example)
are never listed, counted or exported as the answer's claims (issue 12): a real CLI run against the
fault-injecting server, then the results, the summary and the report in headless Chromium (review table, its
CSV export, the drill-down's judge-quality warning with the transcript)."""
import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.fault_server import FaultServer

CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
INVENTED = ("The Varnholt Bridge opened in 1931.", "Quantum chromodynamics governs gluon confinement.")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("invented")
    data = tmp / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "answer": a, "contexts": [CONTEXT]}) + "\n" for i, a in [
        ("inv", "Marie Curie was born in Warsaw. She liked tea. FAULTINVENT."),
        ("clean", "Marie Curie discovered polonium. She liked cats.")]))
    with FaultServer() as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp / "out"), "-q",
                               "--metrics", "faithfulness", "--judge-base-url", server.base_url, "--judge-model",
                               "judge", "--no-judge-cache"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return tmp / "out"


def test_invented_claims_are_counted_apart_and_never_scored(run):
    rows = {r["id"]: r["metrics"] for r in map(json.loads, (run / "results.jsonl").read_text().splitlines())}
    faith = rows["inv"]["faithfulness"]
    claims = [c["text"] for c in faith["details"]["claims"]]
    assert claims == ["Marie Curie was born in Warsaw.", "She liked tea.", "FAULTINVENT."]
    assert [c["text"] for c in faith["details"]["invented_claims"]] == list(INVENTED)
    assert faith["value"] == pytest.approx(1 / 3)  # 1 of the 3 answer's claims supported; the invented ones not
    assert rows["inv"]["invented_claims"]["value"] == 2 and rows["clean"]["invented_claims"]["value"] == 0
    assert [c["stage"] for c in faith["details"]["transcript"]] == ["decompose", "verify"]
    summary = json.loads((run / "summary.json").read_text())["systems"]["default"]
    assert summary["invented_claims"]["mean"] == 1.0 and summary["invented_claims"]["scored"] == 2


def test_report_review_and_export_leave_them_out_and_warn(run, browser):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((run / "report.html").resolve().as_uri())
    page.wait_for_selector("html[data-ready=true]", timeout=15_000)
    assert "Judge quality: the judge returned 2 claim(s) in 1 sample(s)" in page.inner_text("body")
    page.click("button[data-tab=review]")
    page.wait_for_selector("#tab-review:not([hidden])")
    review = page.inner_text("#review-table")
    assert "She liked tea." in review and "Varnholt" not in review and "Quantum" not in review
    with page.expect_download() as info:
        page.click("#export-csv")
    exported = list(csv.reader(io.StringIO(Path(info.value.path()).read_text(encoding="utf-8-sig"))))
    assert {r[4] for r in exported[1:]} == {"She liked tea.", "FAULTINVENT.", "She liked cats."}
    page.click("#review-table tbody tr >> text=She liked tea.")
    page.wait_for_selector("#drawer:not([hidden]) #invented-claims")
    card = page.inner_text("#invented-claims")
    assert "2 claim(s) not in the answer (not counted)" in card and INVENTED[0] in card
    assert "copied from the prompt's worked example" in card
    assert "Varnholt" not in page.inner_text("#drawer .claim-list")
    page.click("#invented-claims summary")
    assert '"claims"' in page.inner_text("#invented-claims details")  # the decompose reply, as sent
    context.close()
    assert errors == []
