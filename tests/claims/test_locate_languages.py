"""Judge quotes located in Chinese, Japanese, Arabic and Hindi text: spans are exact character offsets into the
ORIGINAL text, found through the documented folding (genevals.claims.fold), never cutting a grapheme cluster.

Every expected span below is counted by hand from the text, character by character (the comment above each
says how), and checked by slicing the original text.
"""
from __future__ import annotations

import unicodedata

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from genevals.claims.fold import fold, fold_with_map, is_boundary
from genevals.claims.locate import Match, grounded_fraction, locate, locate_parts, script_units

NFD = lambda s: unicodedata.normalize("NFD", s)  # noqa: E731
NFC = lambda s: unicodedata.normalize("NFC", s)  # noqa: E731


def found(excerpt: str, text: str) -> tuple[int, int, str, str]:
    m = locate(excerpt, text)
    assert m is not None, (excerpt, text)
    return m.start, m.end, m.method, text[m.start:m.end]


# -- Chinese and Japanese: no spaces, full-width forms ------------------------------------------------------------
def test_chinese_exact_and_with_a_final_full_stop():
    text = "据报道，北京是中国的首都"  # 据0 报1 道2 ，3 北4 京5 是6 中7 国8 的9 首10 都11
    assert locate("北京是中国的首都", text) == Match(4, 12, "exact", 100.0)
    # the judge added "。": folded to ".", a sentence end a quote may add
    assert found("北京是中国的首都。", text) == (4, 12, "normalized", "北京是中国的首都")
    # the judge put the quote in corner brackets (a pair, taken off)
    assert locate("「北京是中国的首都」", text) == Match(4, 12, "exact", 100.0)


def test_full_width_letters_digits_and_punctuation_match_half_width_quotes():
    text = "去年ＧＤＰ增长了５％，超过预期。"  # 去0 年1 Ｇ2 Ｄ3 Ｐ4 增5 长6 了7 ５8 ％9 ，10
    assert found("GDP增长了5%", text) == (2, 10, "normalized", "ＧＤＰ增长了５％")
    # and the other way round: a full-width quote of half-width text
    assert found("ＧＤＰ增长了５％", "去年GDP增长了5%。") == (2, 10, "normalized", "GDP增长了5%")
    # a half-width comma for the full-width one, and a space the judge added after it
    assert found("增长了5%, 超过预期", text) == (5, 15, "normalized", "增长了５％，超过预期")


def test_a_line_break_inside_chinese_text_is_not_significant():
    text = "北京人口约为\n2154万人"  # 北0 京1 人2 口3 约4 为5 \n6 2 7 1 8 5 9 4 10 万11 人12
    assert found("人口约为2154万", text) == (2, 12, "normalized", "人口约为\n2154万")
    # an ideographic space (U+3000) and a zero-width space are not either
    # 北0 京1 U+3000 2 是3 U+200B 4 首5 都6
    assert found("北京是首都", "北京\u3000是\u200b首都") == (0, 7, "normalized", "北京\u3000是\u200b首都")


def test_japanese():
    text = "東京は日本の首都です。人口は１４００万人。"  # 東0 京1 は2 日3 本4 の5 首6 都7 で8 す9 。10 人11 口12 は13 １14..
    assert locate("日本の首都", text) == Match(3, 8, "exact", 100.0)
    assert found("人口は1400万人", text) == (11, 20, "normalized", "人口は１４００万人")
    # half-width katakana (U+FF76 U+FF80 U+FF76 U+FF85) fold to the full-width ones by NFKC
    assert found("カタカナ", "ｶﾀｶﾅで書く") == (0, 4, "normalized", "ｶﾀｶﾅ")


# -- Arabic: diacritics, tatweel, hamza, digits ------------------------------------------------------------------
AR = "ماري كوري وُلِدَتْ في وارسو عام ١٨٦٧."
# ماري 0-4, space 4, كوري 5-9, space 9, و ُ ل ِ د َ ت ْ 10-18, space 18, في 19-21, space 21, وارسو 22-27,
# space 27, عام 28-31, space 31, ١٨٦٧ 32-36, "." 36


def test_arabic_quote_without_diacritics_spans_the_vowelled_word():
    assert found("ولدت في وارسو", AR) == (10, 27, "normalized", "وُلِدَتْ في وارسو")
    assert locate("وُلِدَتْ في وارسو", AR) == Match(10, 27, "exact", 100.0)


def test_arabic_indic_digits_match_ascii_digits():
    assert found("وارسو عام 1867", AR) == (22, 36, "normalized", "وارسو عام ١٨٦٧")
    assert found("عام ١٨٦٧", "في عام 1867.") == (3, 11, "normalized", "عام 1867")


def test_the_marks_after_the_last_letter_belong_to_the_span():
    text = "هذا كتابٌ جميل"  # هذا 0-3, space 3, ك4 ت5 ا6 ب7 ٌ8, space 9
    assert found("كتاب", text) == (4, 9, "normalized", "كتابٌ")
    # the exact occurrence "كتاب" (4-8) would cut the tanween from its letter: not kept
    assert not is_boundary(text, 8)


def test_tatweel_and_hamza():
    stretched = "اللغة العربيــــة جميلة"  # اللغة 0-5, space 5, العربيــــة 6-17 (4 tatweels)
    assert found("العربية", stretched) == (6, 17, "normalized", "العربيــــة")
    assert found("العربيــة", "اللغة العربية جميلة") == (6, 13, "normalized", "العربية")
    # a bare alef for the hamzated one (أ is alef + hamza above under NFKD; the hamza is a dropped mark)
    assert found("احمد", "قال أحمد") == (4, 8, "normalized", "أحمد")


def test_direction_marks_are_ignored():
    text = "\u200fمرحبا بالعالم"  # RLM 0, مرحبا 1-6
    assert found("مرحبا", text) == (1, 6, "exact", "مرحبا")
    assert found("مرحبا\u200f بالعالم", "مرحبا بالعالم") == (0, 13, "normalized", "مرحبا بالعالم")


# -- Hindi: combining marks, conjuncts, nukta ----------------------------------------------------------------------
HI = "वह बोला नमस्ते दुनिया"  # वह 0-2, space 2, बोला 3-7, space 7, न8 म9 स10 ्11 त12 े13, space 14, दुनिया 15-21


def test_hindi_exact():
    assert locate("नमस्ते", HI) == Match(8, 14, "exact", 100.0)
    assert locate("नमस्ते दुनिया", HI) == Match(8, 21, "exact", 100.0)


@pytest.mark.parametrize("excerpt,text", [
    ("नमस्", HI),  # ends after the virama: cuts the conjunct स्त
    ("क", "कि"),  # ka without its vowel sign i: another syllable
    ("ि", "कि"),  # a vowel sign alone
])
def test_hindi_quotes_that_cut_a_cluster_are_not_located(excerpt, text):
    assert locate(excerpt, text) is None


def test_hindi_quote_starting_at_a_cluster_boundary():
    assert locate("मस्ते", "नमस्ते") == Match(1, 6, "exact", 100.0)  # न0 | म1 | स्ते 2-6


def test_nukta_letters_in_either_spelling():
    # U+095B (ज़, a composition exclusion: NFC writes it as ज + nukta) in the text, the NFC spelling in the quote
    text = "यह \u095bिंदगी है"  # यह 0-2, space 2, \u095b3 ि4 ं5 द6 ग7 ी8, space 9
    quote = NFC("\u095bिंदगी")
    assert quote != "\u095bिंदगी" and quote.startswith("\u091c\u093c")
    assert found(quote, text) == (3, 9, "normalized", "\u095bिंदगी")


# -- NFC / NFD, marks, emoji, expanded characters -------------------------------------------------------------------
def test_nfc_and_nfd_spellings_match_and_the_span_is_the_original_spelling():
    text = "Hà Nội là thủ đô của Việt Nam"
    start = text.index("thủ đô")
    assert found(NFD("thủ đô"), text) == (start, start + 6, "normalized", "thủ đô")
    nfd_text = NFD(text)
    m = locate("thủ đô", nfd_text)
    assert nfd_text[m.start:m.end] == NFD("thủ đô") and m.method == "normalized"


def test_marks_in_any_order_fold_alike():
    assert fold("e\u0302\u0323") == fold("e\u0323\u0302") == fold("\u1ec7") == NFD("\u1ec7")
    # V0 i1 e2 U+0302 3 U+0323 4 t5: the composed ệ in the quote is e with both marks, in canonical order
    assert locate("vi\u1ec7t", "Vie\u0302\u0323t nam") == Match(0, 6, "normalized", 100.0)


def test_a_letter_without_its_accent_is_another_letter():
    assert locate("cafe", "un café noir") is None
    assert locate("cafe", NFD("un café noir")) is None
    assert locate(NFD("café"), "un café noir") == Match(3, 7, "normalized", 100.0)


def test_emoji_joined_by_zwj_is_one_cluster():
    text = "coder \U0001f469\u200d\U0001f4bb here \U0001f469 ok"  # coder_ 0-5, 👩6 ZWJ7 💻8, _here_ 9-14, 👩15
    assert locate("\U0001f469", text) == Match(15, 16, "exact", 100.0)


def test_a_quote_never_starts_or_ends_inside_an_expanded_character():
    assert found("final", "\ufb01nal step") == (0, 4, "normalized", "\ufb01nal")  # ﬁ is "fi" under NFKC
    assert locate("inal", "\ufb01nal step") is None


def test_fold_map_points_at_original_characters():
    text = "ＧＤＰ\u3000增长 ١٢ كتاب"
    norm, index = fold_with_map(text)
    # spaces beside Han are dropped; the one between Arabic digits and an Arabic word is kept
    assert norm == "gdp增长12 كتاب"
    assert [text[i] for i in index] == ["Ｇ", "Ｄ", "Ｐ", "增", "长", "١", "٢", " ", "ك", "ت", "ا", "ب"]


def test_locate_parts_in_chinese():
    text = "北京是中国的首都。上海是最大的城市。"  # 北0..都7 。8 上9 海10 是11 最12 大13 的14 城15 市16 。17
    assert [(m.start, m.end) for m in locate_parts("北京是中国的首都……上海是最大的城市", text)] == [(0, 8), (9, 17)]


def test_fuzzy_chinese_is_widened_to_whole_clusters():
    text = "居里夫人于1903年获得诺贝尔物理学奖，后来又获得化学奖。"
    m = locate("居里夫人于1903年获得诺贝尔化学奖", text)  # one character differs: 物理 vs 化
    assert m is not None and m.method == "fuzzy" and text[m.start:m.end].startswith("居里夫人于1903年获得诺贝尔")


# -- properties over random text in many scripts --------------------------------------------------------------------
GRAPHEMES = ["北", "京", "的", "首", "都", "日", "本", "の", "カ", "ナ", "ب", "كِ", "تَ", "ا", "ل", "ـ", "न", "म",
             "स्ते", "कि", "ज़", "१", "٣", "５", "，", "é", "e\u0301", "ệ", "a", "z", "7", " ",
             "\U0001f469\u200d\U0001f4bb",
             "\U0001f44d\U0001f3fd", "\u200b"]


def _clusters(text: str) -> set[int]:
    return {m.start() for m in regex.finditer(r"\X", text)} | {len(text)}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(GRAPHEMES), min_size=1, max_size=30), st.data())
def test_any_slice_of_whole_clusters_is_located_exactly(parts, data):
    text = "".join(parts)
    i = data.draw(st.integers(0, len(parts) - 1))
    j = data.draw(st.integers(i + 1, len(parts)))
    excerpt = "".join(parts[i:j])
    if not excerpt.strip() or not fold(excerpt).strip():
        return
    m = locate(excerpt, text, fuzzy=False)
    assert m is not None
    assert m.start in _clusters(text) and m.end in _clusters(text)
    if m.method == "exact":
        assert text[m.start:m.end] == excerpt.strip()
    else:
        assert fold(text[m.start:m.end]) == fold(excerpt.strip())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(GRAPHEMES), min_size=1, max_size=30), st.data(),
       st.sampled_from(["NFC", "NFD", "NFKC", "strip_marks"]))
def test_a_respelled_slice_is_located_and_folds_to_the_quote(parts, data, form):
    text = "".join(parts)
    i = data.draw(st.integers(0, len(parts) - 1))
    j = data.draw(st.integers(i + 1, len(parts)))
    excerpt = "".join(parts[i:j])
    if form == "strip_marks":  # what a judge that drops Arabic vowels and the tatweel writes
        excerpt = "".join(c for c in excerpt if c not in "\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652\u0640")
    else:
        excerpt = unicodedata.normalize(form, excerpt)
    if not fold(excerpt).strip():
        return
    m = locate(excerpt, text, fuzzy=False)
    assert m is not None, (excerpt, text)
    assert m.start in _clusters(text) and m.end in _clusters(text)
    assert fold(text[m.start:m.end]) == fold(excerpt).strip()


# -- invented content in other scripts ---------------------------------------------------------------------------
def test_script_units():
    # Han: neighbouring pairs, per run of letters (the middle dot splits the name); Arabic: words of 3+ letters
    assert script_units("玛丽·居里出生于华沙") == {"玛丽", "居里", "里出", "出生", "生于", "于华", "华沙"}
    assert script_units("ولدت في وارسو") == {"ولدت", "وارسو"}  # في has 2 letters
    assert script_units("नमस्ते दुनिया") == {"नमस्ते", "दुनिया"}
    assert script_units("Marie Curie, 1867") == set()  # Latin words are genevals.text's content words


def test_grounded_fraction_in_chinese_and_arabic():
    # 7 units (above); 里出 is not in the answer or the question (她出生于华沙 / 玛丽·居里是谁？): 6 / 7
    assert grounded_fraction("玛丽·居里出生于华沙", "她出生于华沙", "玛丽·居里是谁？") == pytest.approx(6 / 7)
    assert grounded_fraction("量子色动力学支配胶子禁闭", "她出生于华沙", "玛丽·居里是谁？") == 0.0
    # ولدت is in وُلِدَت once the vowels are folded away; وارسو is there as written: 2 / 2
    assert grounded_fraction("ولدت في وارسو", "وُلِدَت في وارسو") == 1.0
    # English is as before: "Marie", "Curie", "born", "Warsaw" all in the sources
    assert grounded_fraction("Marie Curie was born in Warsaw", "She was born in Warsaw", "Who was Marie Curie?") == 1.0


@pytest.mark.parametrize("excerpt,text,span", [
    ("\ud800b", "a\ud800b", (1, 3)),  # a lone surrogate is a character like any other
    ("e", "e" + "\u0301" * 10_000 + " e", (10_002, 10_003)),  # ten thousand marks on the first e
    ("क", "कि" * 20_000, None),  # 20,000 occurrences, each cutting its cluster
    ("\u0301", "e\u0301", None),  # a mark alone
    ("\u0640\u0640", "\u0640\u0640", (0, 2)),  # tatweels alone: found as written, folded to nothing
    ("\U0001f1f7\U0001f1e9", "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea", None),  # RD across the flags FR, DE
    ("\U0001f1e9\U0001f1ea", "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea", (2, 4)),  # the flag DE
], ids=["lone-surrogate", "ten-thousand-marks", "cut-clusters", "mark-alone", "tatweels", "across-flags", "flag"])
def test_hostile_text(excerpt, text, span):
    m = locate(excerpt, text)
    assert (None if m is None else (m.start, m.end)) == span
