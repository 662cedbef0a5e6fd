"""Signatures: stable, settings in order, genevals' version last, and each metric's signature names what
changes its numbers."""
import pytest

from genevals import __version__
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.config import JudgeConfig
from genevals.metrics.faithfulness.faithfulness import Faithfulness
from genevals.metrics.lexical.bleu import Bleu
from genevals.metrics.lexical.rouge import Rouge
from genevals.metrics.lexical.squad import TokenF1
from genevals.metrics.retrieval.retrieval import Retrieval
from genevals.signature import make_signature, package_version


def test_make_signature_formats_values():
    assert make_signature("m", flag=True, off=False, cuts=(1, 5), name="x", n=3) == \
        f"m|flag:yes|off:no|cuts:1,5|name:x|n:3|genevals:{__version__}"
    assert make_signature("m") == f"m|genevals:{__version__}"


def test_package_version_of_a_missing_distribution():
    assert package_version("no-such-distribution-genevals-test") == "none"
    assert package_version("numpy") != "none"


def test_metric_signatures_record_their_settings():
    assert Rouge(use_stemmer=True).signature() == (
        "rouge|stemmer:porter-en-only|tok:rouge_score-default+unicode-words|seg:unspaced=char,ja=mecab-ipadic,"
        f"ko=mecab-ko-dic,th=pythainlp-newmm|lang:auto|refs:max-f|rouge2_one_token:identical=1|rouge-score:{package_version('rouge-score')}"
        f"|genevals:{__version__}")
    assert TokenF1().signature() == (
        "token_f1|norm:mlqa-v1+unicode-nfkc|seg:zh=mlqa-mixed,ja=mecab-ipadic,ko=mecab-ko-dic,"
        f"th=pythainlp-newmm|lang:auto|overlap:multiset|empty:zero|refs:max|genevals:{__version__}")
    assert "cutoffs:1,20|" in Retrieval(cutoffs=(20, 1)).signature()
    assert Bleu().signature().startswith(
        "bleu|nrefs:?|case:mixed|eff:yes|tok:auto|lang:auto|smooth:exp|corpus_eff:no|")


def test_the_judge_signature_changes_with_the_prompt_model_and_seed():
    provider = ScriptedProvider({}, model="judge-a")
    base = Faithfulness(JudgeConfig(provider=provider))
    sig = base.signature()
    assert "backend:scripted|model:judge-a|" in sig and "|temperature:0|seed:0|" in sig
    assert f"|prompt:{base.runtime.prompt_version}|" in sig and len(base.runtime.prompt_version) == 12
    assert Faithfulness(JudgeConfig(provider=provider, seed=7)).signature() != sig
    assert Faithfulness(JudgeConfig(provider=ScriptedProvider({}, model="judge-b"))).signature() != sig
    assert Faithfulness(JudgeConfig(provider=provider), max_claims=3).signature() != sig


def test_the_api_key_never_reaches_a_signature():
    metric = Faithfulness(JudgeConfig(backend="openai", base_url="https://user:pw@judge.example/v1?key=sk-planted",
                                      api_key="sk-planted", model="m"))
    sig = metric.signature()
    assert "sk-planted" not in sig and "pw" not in sig and "base_url:https://judge.example/v1|" in sig
    assert "sk-planted" not in repr(metric.judge)


@pytest.mark.parametrize("settings", [{"concurrency": 0}, {"max_retries": -1}, {"timeout": 0}, {"backend": "x"}])
def test_bad_judge_settings_are_refused(settings):
    with pytest.raises(ValueError):
        JudgeConfig(**settings)
