"""The corpus's own rule for the previous run's files (runner._check_kept): ``--resume`` and ``report DIR`` may
rewrite summary.json and report.html in place, but a resume must keep the earlier results lines as its start,
and any other run must move a file aside before replacing it."""
from pathlib import Path

from hostile.cases import OK, REFUSED, Case
from hostile.runner import KEPT, Outcome, Runner


def _check(tmp_path: Path, argv: tuple, now: dict, code: int = 0, expect: str = OK) -> list[str]:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    before = {name: f"old {name}\n".encode() for name in KEPT}
    for name in KEPT:
        (out / name).write_bytes(now.get(name, before[name]))
    outcome = Outcome(Case(id="x", cls="runfolder", expect=expect, argv=argv), code=code)
    return Runner._check_kept(expect, tmp_path, out, before, outcome)


def test_a_resume_may_rewrite_the_summary_and_report_but_must_keep_the_results_lines(tmp_path):
    resume = ("run", "{in}", "--out", "{out}", "--resume")
    grown = {"results.jsonl": b"old results.jsonl\nnew line\n", "summary.json": b"new", "report.html": b"new"}
    assert _check(tmp_path, resume, grown) == []
    replaced = dict(grown, **{"results.jsonl": b"new line\n"})
    assert _check(tmp_path, resume, replaced) == [
        "--resume did not keep the previous results.jsonl's complete lines as the start of results.jsonl"]
    refused = _check(tmp_path, resume, {"summary.json": b"new"}, code=2, expect=REFUSED)
    assert refused and "summary.json was changed or removed" in refused[0]


def test_report_may_rewrite_only_its_report_and_a_plain_run_may_rewrite_nothing_in_place(tmp_path):
    assert _check(tmp_path, ("report", "{out}"), {"report.html": b"new"}) == []
    assert _check(tmp_path, ("report", "{out}"), {"summary.json": b"new"}) == [
        "the previous summary.json is lost (overwritten, no backup)"]
    assert _check(tmp_path, ("report", "{out}", "-o", "{tmp}/r.html"), {"report.html": b"new"}) == [
        "the previous report.html is lost (overwritten, no backup)"]
    assert _check(tmp_path, ("run", "{in}", "--out", "{out}"), {"summary.json": b"new"}) == [
        "the previous summary.json is lost (overwritten, no backup)"]
