"""The run folder: its writer and readers agree, a crash's half line is tolerated and trimmed, and earlier
results are kept aside, never overwritten."""
import json

from genevals import runfolder
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
    writer.write([_result(0), _result(1)])
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


def test_a_new_run_keeps_earlier_results_beside_it(tmp_path):
    (tmp_path / runfolder.RESULTS_FILE).write_text("{}\n", encoding="utf-8")
    runfolder.prepare(tmp_path, resume=False)
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert len(kept) == 1 and kept[0].startswith("results.") and kept[0] != runfolder.RESULTS_FILE


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
