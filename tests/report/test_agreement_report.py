"""The judge's agreement with labels (``--require-agreement``) in the report, in Chromium: one line in the run's
details, and among the Overview's warnings when the gate failed."""
import pytest
from support.agreement_data import labels, rows
from support.report_page import report_page

from genevals import evaluate
from genevals.report import write_report
from genevals.validation.gate import measure_run, record

pytestmark = pytest.mark.slow  # Chromium, and the grounding checker on 30 answers


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY"):  # the offline judge
        mp.delenv(name, raising=False)
    root, data = tmp_path_factory.mktemp("agreement-report"), rows(30)
    out = {}
    for name, flip in (("agree", 0), ("disagree", 12)):
        run = root / name
        results = evaluate(data, ["faithfulness"], out_dir=run)
        record(run, results.summary(), measure_run(labels(data, flip=flip), run, 0.6, f"{name}.jsonl"))
        out[name] = write_report([run], run / "report.html")
    mp.undo()
    return out


def test_the_figure_is_in_the_run_details_and_a_failed_gate_among_the_warnings(browser, runs):
    with report_page(browser, runs["agree"]) as view:
        assert not view.page.locator("#judge-warning").filter(has_text="judge agreement").count()
        view.tab("details")
        details = view.page.inner_text("#runs-card")
        assert ("judge agreement\njudge agreement with agree.jsonl: kappa 1.00 [95% CI 0.77, 1.00], accuracy 1.00 "
                "on 30 labelled samples; at least 0.6: the judge may gate") in details
        assert not view.errors
    with report_page(browser, runs["disagree"]) as view:
        warning = view.page.locator("#judge-warning")
        assert warning.is_visible() and ("judge agreement with disagree.jsonl: kappa 0.20 [95% CI -0.20, 0.53], "
                                         "accuracy 0.60 on 30 labelled samples; below the minimum 0.6"
                                         in warning.inner_text())
        assert not view.errors
