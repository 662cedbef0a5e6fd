"""The run folder's manifest: what --resume compares, for files and for in-memory data."""
import json

import pytest

from genevals.output import runfolder
from genevals.api import evaluate
from genevals.engine.plan import ResumeMismatch

ROWS = [{"id": str(i), "answer": f"a{i}", "references": [f"a{i}"]} for i in range(4)]


def test_in_memory_rows_are_digested_and_a_changed_row_refuses_resume(tmp_path):
    evaluate(ROWS, ["exact_match"], out_dir=tmp_path)
    manifest = runfolder.read_manifest(tmp_path)
    assert manifest["input"] == "<data>" and manifest["input_rows"] == 4
    assert evaluate(ROWS, ["exact_match"], out_dir=tmp_path, resume=True).summary()["n_samples"] == 4
    changed = [dict(ROWS[0], answer="other")] + ROWS[1:]
    with pytest.raises(ResumeMismatch, match="the input: <data> \\(4 rows\\) was scored"):
        evaluate(changed, ["exact_match"], out_dir=tmp_path, resume=True)
    with pytest.raises(ResumeMismatch, match="the metrics: exact_match were scored, now exact_match, retrieval"):
        evaluate(ROWS, ["exact_match", "retrieval"], out_dir=tmp_path, resume=True)
    evaluate(ROWS, ["rougeL"], out_dir=tmp_path / "rouge")
    with pytest.raises(ResumeMismatch, match="the outputs of rouge: rougeL were scored, now rouge1, rouge2, rougeL"):
        evaluate(ROWS, ["rouge"], out_dir=tmp_path / "rouge", resume=True)
    with pytest.raises(ResumeMismatch, match=r"the settings of rouge: rouge\|stemmer:no"):
        evaluate(ROWS, ["rougeL"], options={"rouge": {"use_stemmer": True}}, out_dir=tmp_path / "rouge", resume=True)


@pytest.mark.parametrize("bad_rows", [(), (0,), (1, 2), (4,), (0, 3, 4)])
def test_rows_in_memory_are_digested_later_exactly_as_during_the_pass(bad_rows):
    # kept rows are digested only when a run folder asks (Plan.input_digest): the same digest, bad rows in place
    from genevals.engine import manifest
    from genevals.engine.plan import plan_run
    from genevals.input.readers import iter_samples

    rows = [dict(r) for r in ROWS] + [{"id": "9", "answer": "x", "contexts": [{"text": "c", "id": 1}]}]
    for i in bad_rows:
        rows[i] = {"id": f"bad{i}", "answer": 5}
    eager = manifest.InputDigest()
    for item in iter_samples(rows):
        eager.add(item)
    from genevals.engine.spec import RunSpec

    plan = plan_run(RunSpec.build(rows, ["exact_match"], on_error="skip"))
    assert plan.digest is None and len(plan.errors) == len(bad_rows)
    got = plan.input_digest()
    assert (got.hexdigest(), got.rows) == (eager.hexdigest(), len(rows)) == (eager.hexdigest(), eager.rows)


def test_a_file_is_digested_by_its_bytes_wherever_it_lies(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    out = tmp_path / "out"
    evaluate(str(path), ["exact_match"], out_dir=out)
    moved = tmp_path / "b.jsonl"
    path.rename(moved)
    assert evaluate(str(moved), ["exact_match"], out_dir=out, resume=True).summary()["n_samples"] == 4
    moved.write_text(moved.read_text().replace('"a3"', '"a4"', 1))
    with pytest.raises(ResumeMismatch, match="has different rows"):
        evaluate(str(moved), ["exact_match"], out_dir=out, resume=True)


@pytest.mark.parametrize("manifest", [None, "", "{half", "[]"])
def test_a_folder_whose_manifest_is_missing_empty_or_invalid_is_not_resumed(tmp_path, manifest):
    evaluate(ROWS, ["exact_match"], out_dir=tmp_path)
    before = (tmp_path / runfolder.RESULTS_FILE).read_bytes()
    if manifest is None:
        (tmp_path / runfolder.MANIFEST_FILE).unlink()
    else:
        (tmp_path / runfolder.MANIFEST_FILE).write_text(manifest)
    changed = [dict(ROWS[0], answer="other")] + ROWS[1:]
    with pytest.raises(ResumeMismatch, match="--resume cannot check what this folder's results were made from"):
        evaluate(changed, ["exact_match"], out_dir=tmp_path, resume=True)
    assert (tmp_path / runfolder.RESULTS_FILE).read_bytes() == before
