"""Issue 52, point 4: qrels that ``genevals label`` pooled to depth d, read by ``genevals run`` at cutoffs deeper
than d. Every run's documents past the pool are unjudged and count as not relevant, so recall@k is 1 by
construction for the pooled run: the run names them (how many, for which system and cutoff), in the terminal,
summary.json (the outputs' ``unjudged``, the corpus details, meta ``corpus_warnings``) and the report; the cutoffs
inside the pool are left as they are. Real processes, a scripted judge, real files."""
import json

from support.label_data import demo_trec, genevals


def _unjudged(run, qrels, k):
    """(unjudged, ranked) in the top k of a TREC run, counted from the files themselves."""
    judged = {tuple(line.split()[::2][:2]) for line in qrels.read_text().splitlines() if not line.startswith("#")}
    by_topic = {}
    for line in run.read_text().splitlines():
        topic, _, doc, rank, *_ = line.split()
        by_topic.setdefault(topic, []).append((int(rank), doc))
    top = [(t, d) for t, docs in by_topic.items() for _, d in sorted(docs)[:k]]
    return sum((t, d) not in judged for t, d in top), len(top)


def test_cutoffs_past_the_pool_depth_name_their_unjudged_documents_everywhere(tmp_path):
    f = demo_trec(tmp_path, topics=3)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"other": {"score": 3}}))  # every pooled document relevant
    qrels = tmp_path / "j.qrels"
    done = genevals("label", "--qrels-out", qrels, f["dense"], "--topics", f["topics"], "--docs", f["docs"],
                    "--depth", 2, "--judge-backend", "scripted", "--judge-model", script, cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "r"
    run = genevals("run", "--qrels", qrels, "--run", f["dense"], "--run", f["sparse"], "--set", "retrieval.cutoffs=2,4",
                   "-o", out, "--no-history")
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text())
    dense = summary["systems"]["dense"]
    assert dense["recall@4"]["mean"] == 1.0  # the pooled run finds every relevant document: the pool's artefact
    for system in ("dense", "sparse"):
        n, ranked = _unjudged(f[system], qrels, 4)
        assert n > 0
        share = summary["corpus"][system]["unjudged@4"]
        assert abs(share - n / ranked) < 1e-9
        for output in ("recall@4", "ndcg@4", "precision@4"):
            assert summary["systems"][system][output]["unjudged"] == round(n / ranked, 4)
        for output in ("recall@2", "ndcg@2", "mrr"):  # inside the pool, or no cutoff: nothing to say
            assert "unjudged" not in summary["systems"][system][output]
        assert f"{system} @4: {n} of {ranked} ({n / ranked:.0%})" in summary["meta"]["corpus_warnings"]["retrieval"]
    warning = summary["meta"]["corpus_warnings"]["retrieval"]
    assert warning.startswith("the qrels were pooled to depth 2") and "unjudged@2" not in summary["corpus"]["dense"]
    assert "genevals: warning: retrieval: the qrels were pooled to depth 2" in run.stderr
    assert "its cutoff is deeper than the qrels' pool depth" in run.stdout  # the table's mark, explained
    row = next(line for line in run.stdout.splitlines() if line.startswith("recall@4"))
    assert row.count("~") == 2  # both systems' cells marked
    assert "pooled to depth 2" in (out / "report.html").read_text()


def test_qrels_pooled_as_deep_as_the_cutoffs_get_no_warning(tmp_path):
    f = demo_trec(tmp_path, topics=2)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"other": {"score": 2}}))
    qrels = tmp_path / "deep.qrels"
    done = genevals("label", "--qrels-out", qrels, f["dense"], f["sparse"], "--topics", f["topics"], "--docs",
                    f["docs"], "--depth", 4, "--judge-backend", "scripted", "--judge-model", script,
                    cache=tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "r"
    run = genevals("run", "--qrels", qrels, "--run", f["dense"], "--set", "retrieval.cutoffs=2,4", "-o", out,
                   "--no-history")
    assert run.returncode == 0, run.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "corpus_warnings" not in summary["meta"] and "pooled to depth" not in run.stderr
    assert all("unjudged" not in entry for entry in summary["systems"]["dense"].values())
