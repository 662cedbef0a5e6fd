"""The run folder: its writer and readers agree, a crash's half line is tolerated and trimmed, any other bad line
is named, files are replaced whole, and an earlier run is kept aside, never overwritten."""
import json

import pytest

from genevals.output import runfolder
from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, SkippedRow, Verdict


def _result(i: int) -> SampleResult:
    claims = [Claim(0, "Paris is in France.", ((0, 19),))]
    verdicts = [Verdict(0, "supported", 0, "Paris", True, (0, 5), "stated", scores={"confidence": 0.9})]
    details = {"claims": [c.to_dict() for c in claims], "verdicts": [v.to_dict() for v in verdicts]}
    return SampleResult(Sample(id=f"q{i}", answer="Paris is in France.", contexts=(Context("Paris, France", 1),),
                               references=("Paris",), system="s"),
                        {"faithfulness": MetricResult("faithfulness", 1.0, details=details),
                         "bleu": MetricResult.unscored("bleu", "no_reference", "none")})


def test_writer_and_readers_round_trip(tmp_path):
    writer = runfolder.ResultsWriter(tmp_path)
    writer.write([[_result(0)], [_result(1)]])  # two units: a sample each
    writer.close()
    back = list(runfolder.read_results(tmp_path))
    assert [r.to_dict() for r in back] == [_result(0).to_dict(), _result(1).to_dict()]
    assert [n for n, _ in runfolder.iter_rows(tmp_path)] == [1, 2]
    assert [row["id"] for _, row in runfolder.read_lines(tmp_path, {2: None})] == ["q1"]
    details = back[0].metrics["faithfulness"].details
    assert [Verdict.from_dict(v) for v in details["verdicts"]][0].scores == {"confidence": 0.9}


def test_a_half_written_last_line_ends_the_file_and_is_trimmed_on_resume(tmp_path):
    good = json.dumps(_result(0).to_dict())
    (tmp_path / runfolder.RESULTS_FILE).write_text(good + "\n" + good[:40], encoding="utf-8")
    assert len(list(runfolder.read_results(tmp_path))) == 1
    runfolder.prepare(tmp_path, resume=True)
    assert (tmp_path / runfolder.RESULTS_FILE).read_text(encoding="utf-8") == good + "\n"


def test_a_new_run_moves_the_earlier_run_whole_into_its_own_folder(tmp_path):
    files = {name: f"{name} of the earlier run\n" for name in runfolder.RUN_FILES}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "review.sqlite").write_text("not a run file")
    moved = runfolder.prepare(tmp_path, resume=False)
    assert moved.parent == tmp_path / runfolder.EARLIER_DIR
    assert {p.name: p.read_text(encoding="utf-8") for p in moved.iterdir()} == files
    assert sorted(p.name for p in tmp_path.iterdir()) == [runfolder.EARLIER_DIR, "review.sqlite"]
    assert runfolder.prepare(tmp_path, resume=False) is None  # nothing left to move


def test_backups_made_in_the_same_second_never_collide(tmp_path, monkeypatch):
    monkeypatch.setattr(runfolder.time, "strftime", lambda *args: "20250101-120000")
    moved = []
    for run in range(3):
        (tmp_path / runfolder.RESULTS_FILE).write_text(f"run {run}\n", encoding="utf-8")
        moved.append(runfolder.prepare(tmp_path, resume=False))
    assert [p.name for p in moved] == ["20250101-120000", "20250101-120000-2", "20250101-120000-3"]
    assert [(p / runfolder.RESULTS_FILE).read_text() for p in moved] == ["run 0\n", "run 1\n", "run 2\n"]


def test_a_garbage_line_before_the_last_is_named_with_its_number(tmp_path):
    good = json.dumps(_result(0).to_dict())
    cases = {"{not json": "not JSON", "[1, 2]": "a JSON list, not an object",
             '{"id": "q9"}': "not a result record"}
    for garbage, what in cases.items():
        (tmp_path / runfolder.RESULTS_FILE).write_text(f"{good}\n\n{garbage}\n{good}\n", encoding="utf-8")
        with pytest.raises(runfolder.ResultsError, match=f"results.jsonl:3: not a result: {what}"):
            list(runfolder.read_results(tmp_path))
    (tmp_path / runfolder.RESULTS_FILE).write_bytes(good.encode() + b"\n\xff\xfe\n")
    with pytest.raises(runfolder.ResultsError, match="results.jsonl:2: not a result: invalid UTF-8"):
        list(runfolder.iter_rows(tmp_path))


def test_a_manifest_that_is_empty_or_not_an_object_is_an_error_not_a_missing_one(tmp_path):
    assert runfolder.read_manifest(tmp_path) is None
    for text, message in [("", "empty"), ("{oops", "not valid JSON"), ("[1]", "not a JSON object")]:
        (tmp_path / runfolder.MANIFEST_FILE).write_text(text)
        with pytest.raises(ValueError, match=f"manifest.json: {message}"):
            runfolder.read_manifest(tmp_path)


def test_a_summary_outputs_or_manifest_that_is_a_folder_or_not_an_object_is_named(tmp_path):
    """summary.json that was a list ended `genevals report` in an AttributeError, one not JSON in a message
    naming no file; a manifest.json that is a folder ended --resume in an IsADirectoryError."""
    for name, read in [(runfolder.SUMMARY_FILE, runfolder.read_summary),
                       (runfolder.OUTPUTS_FILE, runfolder.read_outputs)]:
        path = tmp_path / name
        for text, message in [("{oops", "not valid JSON"), ("[]", "not a JSON object"), ("", "not valid JSON")]:
            path.write_text(text)
            with pytest.raises(ValueError, match=f"^{path}: {message}"):
                read(tmp_path)
        path.unlink()
        path.mkdir()
        with pytest.raises(ValueError, match=f"^{path}: a folder, not a file"):
            read(tmp_path)
    (tmp_path / runfolder.MANIFEST_FILE).mkdir()
    with pytest.raises(ValueError, match="manifest.json: a folder, not a file"):
        runfolder.read_manifest(tmp_path)


def _snapshot(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("older_backup", [False, True])
def test_put_back_leaves_the_folder_as_it_was_before_a_run_that_wrote_no_result(tmp_path, older_backup):
    files = {name: f"{name} of the earlier run\n" for name in runfolder.RUN_FILES}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    if older_backup:  # earlier/ already holds a run: it stays, with the folder
        (tmp_path / runfolder.EARLIER_DIR / "20240101-000000").mkdir(parents=True)
        (tmp_path / runfolder.EARLIER_DIR / "20240101-000000" / runfolder.RESULTS_FILE).write_text("older\n")
    (tmp_path / "review.sqlite").write_text("not a run file")
    before = _snapshot(tmp_path)
    moved = runfolder.prepare(tmp_path, resume=False)
    present = {n for n in runfolder.RUN_FILES if (tmp_path / n).exists()}
    runfolder.write_manifest(tmp_path, {"input": "new"})  # what a run writes before its first result
    runfolder.ResultsWriter(tmp_path).close()
    assert _snapshot(tmp_path) != before
    runfolder.put_back(tmp_path, moved, present)
    assert _snapshot(tmp_path) == before


def test_put_back_without_an_earlier_run_removes_only_what_the_run_wrote(tmp_path):
    (tmp_path / runfolder.MANIFEST_FILE).write_text("{}")  # a manifest alone: no run to move (resume keeps it)
    runfolder.ResultsWriter(tmp_path).close()
    runfolder.put_back(tmp_path, None, {runfolder.MANIFEST_FILE})
    assert sorted(p.name for p in tmp_path.iterdir()) == [runfolder.MANIFEST_FILE]


def test_a_file_written_whole_replaces_the_old_one_only_when_complete(tmp_path):
    path = tmp_path / runfolder.SUMMARY_FILE
    path.write_text("old")
    with pytest.raises(UnicodeEncodeError):
        runfolder.write_whole(path, "new \ud800")
    with pytest.raises(UnicodeEncodeError):
        runfolder.write_summary(tmp_path, {"n": "\ud800"}, [])
    assert path.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == [runfolder.SUMMARY_FILE]
    runfolder.write_whole(path, "new")
    assert path.read_text() == "new" and len(list(tmp_path.iterdir())) == 1


def test_summary_skipped_and_outputs_files(tmp_path):
    runfolder.write_summary(tmp_path, {"n_samples": 2}, [SkippedRow("in.jsonl:3", "answer", "missing answer")])
    runfolder.write_outputs(tmp_path, {"bleu": {"direction": "higher"}})
    assert runfolder.read_summary(tmp_path) == {"n_samples": 2}
    assert json.loads((tmp_path / runfolder.SKIPPED_FILE).read_text()) == {
        "origin": "in.jsonl:3", "field": "answer", "reason": "missing answer"}
    assert runfolder.read_outputs(tmp_path) == {"bleu": {"direction": "higher"}}
    assert runfolder.read_summary(tmp_path / "nothing") == {} and runfolder.read_outputs(tmp_path / "x") == {}


def test_truncate_partial_line_reads_backwards_in_blocks(tmp_path):
    cases = [b"", b"abc", b"a\nb\n", b"a\nbc", b"x" * 200 + b"\n" + b"y" * 300, b"\n", b"z" * 1000]
    for i, content in enumerate(cases):
        path = tmp_path / f"r{i}.jsonl"
        path.write_bytes(content)
        runfolder.truncate_partial_line(path, block=7)
        assert path.read_bytes() == content[:content.rfind(b"\n") + 1]
