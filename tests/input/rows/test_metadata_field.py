"""A row's ``metadata`` (issue 52, point 10a): the field genevals declares for a row's own facts, so the demo, which
ships its planted labels there, warns about no field of its own, also under ``--strict``; genevals reads nothing
in it (a run with and without it scores the same); a field genevals does not know still warns."""
import json

from conftest import DEMO
from support.cli import genevals, write_jsonl


def _run(tmp_path, data, *extra):
    out = tmp_path / "out"
    done = genevals("run", data, "-m", "token_f1", "--no-history", "-o", out, *extra)
    return done, out


def test_the_demo_warns_about_none_of_its_own_fields(tmp_path):
    done, out = _run(tmp_path, DEMO, "--strict")
    assert done.returncode == 0, done.stderr
    assert "unknown field" not in done.stderr and "warning" not in done.stderr, done.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "unknown_fields" not in summary["meta"]
    labels = [json.loads(line)["metadata"]["demo_label"] for line in DEMO.read_text(encoding="utf-8").splitlines()]
    assert len(labels) == 90 and set(labels) == {"faithful", "contradiction", "unsupported", "mixed", "refusal"}


def test_metadata_is_never_read_and_an_unknown_field_still_warns(tmp_path):
    rows = [{"id": "a", "answer": "Paris is the capital.", "references": ["Paris is the capital of France."]},
            {"id": "b", "answer": "Berlin.", "references": ["Paris."]}]
    plain = write_jsonl(tmp_path / "plain.jsonl", rows)
    tagged = write_jsonl(tmp_path / "tagged.jsonl", [
        {**rows[0], "metadata": {"label": "ok", "answer": "not this one", "latency_ms": 12}},
        {**rows[1], "metadata": ["anything", 1], "latncy_ms": 3}])
    first, out_plain = _run(tmp_path / "p", plain)
    second, out_tagged = _run(tmp_path / "t", tagged)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "'metadata'" not in second.stderr, second.stderr
    assert "tagged.jsonl:2: unknown field 'latncy_ms' is ignored" in second.stderr, second.stderr

    def values(out):
        return [json.loads(line)["metrics"]["token_f1"]["value"]
                for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]

    assert values(out_plain) == values(out_tagged) and values(out_plain)[0] > 0.5
