"""genevals.language.tokens: MLQA's official normalisation reproduced exactly (its script, verbatim below, is the
oracle), SQuAD's for English, the Unicode rule and segmenters for the other languages, and ROUGE's word tokens
(rouge-score's own on ASCII text)."""
from __future__ import annotations

import os
import re
import string
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from genevals.language import segment
from genevals.language.tokens import answer_tokens, normalize, rule_name, segmenter_name, tokens

# facebookresearch/MLQA mlqa_evaluation_v1.py, normalize_answer and its helpers, verbatim in behaviour.
PUNCT = {chr(i) for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith('P')}.union(
    string.punctuation)


def _mixed_segmentation(text):
    segs_out, temp_str = [], ""
    for char in text:
        if re.search(r'[\u4e00-\u9fa5]', char) or char in PUNCT:
            if temp_str != "":
                segs_out.extend(temp_str.split())
                temp_str = ""
            segs_out.append(char)
        else:
            temp_str += char
    if temp_str != "":
        segs_out.extend(temp_str.split())
    return segs_out


def _mlqa_normalize(s, lang):
    def remove_articles(text, lang):
        if lang == 'en':
            return re.sub(r'\b(a|an|the)\b', ' ', text)
        elif lang == 'es':
            return re.sub(r'\b(un|una|unos|unas|el|la|los|las)\b', ' ', text)
        elif lang == 'vi':
            return re.sub(r'\b(của|là|cái|chiếc|những)\b', ' ', text)
        elif lang == 'de':
            return re.sub(r'\b(ein|eine|einen|einem|eines|einer|der|die|das|den|dem|des)\b', ' ', text)
        elif lang == 'ar':
            return re.sub(r'\sال^|ال', ' ', text)
        return text

    def white_space_fix(text, lang):
        tokens = _mixed_segmentation(text) if lang == 'zh' else text.split()
        return ' '.join([t for t in tokens if t.strip() != ''])

    text = ''.join(ch for ch in s.lower() if ch not in PUNCT)
    return white_space_fix(remove_articles(text, lang), lang)


_WORDS = st.sampled_from([
    "the", "a", "an", "The", "el", "La", "los", "unas", "der", "Die", "eines", "của", "là", "những", "chiếc",
    "ال", "الكتاب", "والد", "北京", "中国的首都", "人民币", "हिन्दी", "भारत", "über", "Straße", "İstanbul",
    "‘often", "damaging’", "—", "«ça»", "¿qué?", "1,000", "state-of-the-art", "東京タワー", "😀", "\u200d",
    "e\u0301", "ＡＢＣ", "。", "，", "\t", "\n"])
_TEXT = st.lists(_WORDS, max_size=10).map(" ".join) | st.lists(_WORDS, max_size=6).map("".join) | st.text(
    max_size=30)


@settings(max_examples=400, deadline=None)
@given(text=_TEXT, lang=st.sampled_from(["en", "es", "de", "ar", "hi", "vi", "zh"]))
def test_mlqa_normalisation_is_the_scripts(text: str, lang: str) -> None:
    assert normalize(text, lang, "mlqa") == _mlqa_normalize(text, lang)
    if lang != "en":  # the English setting concerns English only
        assert normalize(text, lang, "squad") == _mlqa_normalize(text, lang)


def test_mlqa_rules_by_hand() -> None:
    assert normalize("La casa de los abuelos", "es") == "casa de abuelos"
    assert normalize("Die Katze und der Hund", "de") == "katze und hund"
    assert normalize("Thủ đô của Việt Nam là Hà Nội", "vi") == "thủ đô việt nam hà nội"
    # the script's Arabic pattern replaces every "ال", inside words too ("والد" -> "و د")
    assert normalize("الكتاب والد", "ar") == "كتاب و د"
    assert normalize("中国的首都是北京。", "zh") == "中 国 的 首 都 是 北 京"
    assert normalize("iPhone 手机", "zh") == "iphone 手 机"
    assert normalize("भारत की राजधानी", "hi") == "भारत की राजधानी"


def test_english_squad_keeps_unicode_punctuation_mlqa_deletes_it() -> None:
    text = "n to BSkyB was ‘often damaging’, along with al"
    assert normalize(text, "en") == "n to bskyb was ‘often damaging’ along with al"
    assert normalize(text, "en", "mlqa") == "n to bskyb was often damaging along with al"
    assert rule_name("en") == "squad-v1.1" and rule_name("en", "mlqa") == rule_name("zh") == "mlqa-v1"


def test_unicode_rule_for_other_languages() -> None:
    # NFKC (full-width letters and digits), lower-case, category P deleted, no article list
    assert normalize("L’homme «ça» ＡＢＣ１", "fr") == "lhomme ça abc1"
    assert rule_name("fr") == "unicode-nfkc+whitespace+char"
    # an unspaced script outside a segmenter language: one token per character with its combining marks
    assert answer_tokens("မြန်မာစာ", "my") == ["မြ", "န်", "မာ", "စာ"]
    assert answer_tokens("Лев Толстой", "ru") == ["лев", "толстой"]


def test_word_tokens_are_rouge_scores_on_ascii() -> None:
    from rouge_score import tokenize

    for text in ("The cat's 2nd mat, state-of-the-art!", "  ", "a_b C-3PO 1,000"):
        for lang in ("en", "de", "zh", "ar"):
            assert tokens(text, lang) == tokenize.tokenize(text, None)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_word_tokens_equal_rouge_score_on_any_ascii_text(text: str) -> None:
    from rouge_score import tokenize

    assert tokens(text, "en") == tokenize.tokenize(text, None)


def test_word_tokens_keep_every_script_whole() -> None:
    assert tokens("Über die Brücke, Straße!", "de") == ["über", "die", "brücke", "straße"]
    assert tokens("भारत की राजधानी", "hi") == ["भारत", "की", "राजधानी"]  # vowel signs are marks, kept
    assert tokens("الكتاب الجديد", "ar") == ["الكتاب", "الجديد"]  # no article removal in word tokens
    assert tokens("北京是首都。", "zh") == ["北", "京", "是", "首", "都"]
    assert tokens("Café déjà vu", "en") == ["café", "déjà", "vu"]


needs_extra = pytest.mark.skipif(not all(segment.available(lang) for lang in ("ja", "ko", "th")),
                                 reason="the languages extra is not installed")


@needs_extra
def test_japanese_and_korean_words_are_sacrebleus_mecab_words() -> None:
    from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab
    from sacrebleu.tokenizers.tokenizer_ko_mecab import TokenizerKoMecab

    ja = "東京都に住んでいます。日本語の形態素解析"
    ko = "한국어 형태소 분석기입니다. 서울에서 살아요"
    assert tokens(ja, "ja") == [w for w in TokenizerJaMecab()(ja).split() if w != "。"]
    assert tokens(ko, "ko") == [w for w in TokenizerKoMecab()(ko).split() if w != "."]
    assert normalize(ja, "ja") == " ".join(tokens(ja, "ja"))
    assert segmenter_name("ja") == "mecab-ipadic" and segmenter_name("ko") == "mecab-ko-dic"


@needs_extra
def test_thai_words_are_pythainlp_newmm() -> None:
    from pythainlp.tokenize import word_tokenize

    text = "ภาษาไทยง่ายนิดเดียว"
    assert tokens(text, "th") == word_tokenize(text, engine="newmm") == ["ภาษาไทย", "ง่าย", "นิดเดียว"]
    assert rule_name("th") == "unicode-nfkc+pythainlp-newmm"


def test_missing_segmenter_raises_with_the_install_command() -> None:
    """In a real process where the languages extra's packages are hidden (not installed)."""
    hide = Path(__file__).resolve().parents[1] / "support" / "without_languages"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(hide), *filter(None, [env.get("PYTHONPATH")])])
    code = ("from genevals.language import tokens, segment\n"
            "for lang, text in (('ja', '東京'), ('ko', '서울'), ('th', 'ไทย')):\n"
            "    assert not segment.available(lang)\n"
            "    for fn in (tokens.tokens, tokens.normalize):\n"
            "        try:\n            fn(text, lang)\n"
            "        except segment.SegmenterMissing as exc:\n            print(exc.reason)\n"
            "        else:\n            raise SystemExit('no error for ' + lang)\n"
            "print(tokens.tokens('北京 ok', 'zh'))\n")
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 7 and lines[-1] == "['北', '京', 'ok']"
    assert all("pip install 'genevals[languages]'" in line for line in lines[:6])
    assert "Japanese (ja)" in lines[0] and "Korean (ko)" in lines[2] and "Thai (th)" in lines[4]


_HOSTILE = ["東京\ud800です", "\u200d\u200b\ufeff", "😀👍🏽👨‍👩‍👧", "e\u0301\u0301\u0301", "ＡＢＣ。、【1】", "", " \x00 ",
            "مرحبا\u200fبالعالم", "x" * 50_000]


@pytest.mark.parametrize("lang", ["en", "zh", "ar", "hi", "fr", "my", "ja", "ko", "th"])
def test_hostile_text_never_raises(lang: str) -> None:
    if not segment.available(lang):
        pytest.skip("the languages extra is not installed")
    for text in _HOSTILE:
        assert isinstance(normalize(text, lang), str) and isinstance(tokens(text, lang), list)


@needs_extra
def test_a_nul_does_not_cut_a_segmented_text_short() -> None:
    assert tokens("東京です\x00大阪です", "ja")[-2:] == ["大阪", "です"]
