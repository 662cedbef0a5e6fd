"""Sentence boundaries in every script (genevals.language.sentences): goldens written by hand for Chinese,
Japanese, Hindi, Arabic and Thai (PyThaiNLP's crfcut output for Thai with the extra), English goldens that pin
the rules English had before issue 35, and every span an exact slice of the text as given."""
from __future__ import annotations

import re

import pytest

from genevals.language import sentences as S
from genevals.language.sentences import LOOSE, segment

GOLDENS = {
    "zh": ("北京是中国的首都。上海是最大的城市！你去过吗？他说：「我去过。」然后走了。价格是３．５元。真的吗？！是的。",
           ["北京是中国的首都。", "上海是最大的城市！", "你去过吗？", "他说：「我去过。」", "然后走了。", "价格是３．５元。",
            "真的吗？！", "是的。"]),
    "zh-spaced": ("长城很长。 故宫很大。\n颐和园在北京（海淀区）。",
                  ["长城很长。", "故宫很大。", "颐和园在北京（海淀区）。"]),
    "ja": ("今日は晴れです。明日は雨でしょうか？　わかりません！『本当です。』と彼は言った。東京．大阪｡",
           ["今日は晴れです。", "明日は雨でしょうか？", "わかりません！", "『本当です。』", "と彼は言った。", "東京．",
            "大阪｡"]),
    "hi": ("भारत एक विशाल देश है। इसकी राजधानी नई दिल्ली है॥ क्या आप वहाँ गए हैं? हाँ, मैं गया था. बहुत सुंदर!",
           ["भारत एक विशाल देश है।", "इसकी राजधानी नई दिल्ली है॥", "क्या आप वहाँ गए हैं?", "हाँ, मैं गया था.",
            "बहुत सुंदर!"]),
    "ar": ("القاهرة هي عاصمة مصر. هل زرت القاهرة؟ نعم، زرتها مرتين! النيل أطول نهر في العالم. 3 ملايين زائر.",
           ["القاهرة هي عاصمة مصر.", "هل زرت القاهرة؟", "نعم، زرتها مرتين!", "النيل أطول نهر في العالم.",
            "3 ملايين زائر."]),
    "ur": ("لاہور ایک بڑا شہر ہے۔ کیا آپ وہاں گئے؟ جی ہاں۔",
           ["لاہور ایک بڑا شہر ہے۔", "کیا آپ وہاں گئے؟", "جی ہاں۔"]),
    # the English rules of before issue 35, as grounding.checker.segment split these texts at c05abbe:
    # abbreviations, initials, closing quotes, list marks, lowercase after a period (no end), newlines
    "en": ('Dr. Smith went to the U.S. in 1998. He met J. Doe there! Was it "fun?" Yes. the lowercase stays.\n'
           "- A list item. 2. Another one\n* Third: done",
           ["Dr. Smith went to the U.S. in 1998.", "He met J. Doe there!", 'Was it "fun?"',
            "Yes. the lowercase stays.", "A list item.", "2.", "Another one", "Third: done"]),
    "en-quote": ("He said “stop.” Then he left (quickly.) [1] is a marker. E.g. this. No. 5 is fine.",
                 ["He said “stop.”", "Then he left (quickly.) [1] is a marker.", "E.g. this.", "No. 5 is fine."]),
    # new: Latin capitals outside ASCII start a sentence as A-Z does (c05abbe kept "parti. Élise" together), and a
    # letter of a script without case too
    "fr": ("Il est parti. Élise est restée. Voilà. 北京很大。", ["Il est parti.", "Élise est restée.", "Voilà.", "北京很大。"]),
}


def spans_ok(text, spans):
    for s, e in spans:
        assert 0 <= s < e <= len(text) and text[s:e] == text[s:e].strip()


@pytest.mark.parametrize("lang", sorted(GOLDENS))
def test_goldens(lang):
    text, expected = GOLDENS[lang]
    spans = segment(text)
    spans_ok(text, spans)
    assert [text[s:e] for s, e in spans] == expected
    # spans are where the sentences stand in the text as given, in order, without overlap
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    assert [text.find(x) for x in expected[:1]] == [spans[0][0]]


THAI = "วันนี้อากาศดีมาก ฉันจะไปตลาดกับแม่ แล้วเราจะกลับบ้านตอนเย็น เขาบอกว่าไม่ว่าง ผมชอบกินข้าวผัด แต่เขาชอบกินก๋วยเตี๋ยว"


def test_thai_without_the_extra_splits_at_spaces_between_thai_text():
    expected = ["วันนี้อากาศดีมาก", "ฉันจะไปตลาดกับแม่", "แล้วเราจะกลับบ้านตอนเย็น", "เขาบอกว่าไม่ว่าง", "ผมชอบกินข้าวผัด",
                "แต่เขาชอบกินก๋วยเตี๋ยว"]
    spans = segment(THAI, thai="space")
    spans_ok(THAI, spans)
    assert [THAI[s:e] for s, e in spans] == expected
    # English words in a Thai answer do not split it; a Thai word in an English one is no Thai sentence
    mixed = "ฉันชอบ Python มาก เขาชอบ Java"
    assert [mixed[s:e] for s, e in segment(mixed, thai="space")] == ["ฉันชอบ Python มาก", "เขาชอบ Java"]
    english = "Bangkok is called กรุงเทพ มหานคร by its people."
    assert [english[s:e] for s, e in segment(english, thai="space")] == [english]


def test_thai_with_pythainlp_crfcut():
    pytest.importorskip("pycrfsuite", reason="pip install 'genevals[languages]'")
    from pythainlp.tokenize import sent_tokenize

    spans = segment(THAI, thai="crfcut")
    spans_ok(THAI, spans)
    got = [THAI[s:e] for s, e in spans]
    # PyThaiNLP's own sentences (the reference), trimmed: "แต่" ("but") after a space goes on the sentence
    assert got == [p.strip() for p in sent_tokenize(THAI, engine="crfcut")]
    assert got[-1] == "ผมชอบกินข้าวผัด แต่เขาชอบกินก๋วยเตี๋ยว"
    assert S.name() == "rules2+th-crfcut"


def test_the_signature_name_says_which_thai_segmenter(monkeypatch):
    monkeypatch.setattr(S, "_crfcut", lambda: None)
    assert S.name() == "rules2+th-space"
    assert [THAI[s:e] for s, e in segment(THAI)][-1] == "แต่เขาชอบกินก๋วยเตี๋ยว"  # the fallback, said by name()
    with pytest.raises(RuntimeError, match=r"genevals\[languages\]"):
        segment(THAI, thai="crfcut")


def test_records_cut_at_fields_and_at_every_end_mark():
    text = '{"名称": "北京饭店。很好", "note": "Open. closed"}'
    assert [text[s:e] for s, e in segment(text, record=True)] == [
        '"名称": "北京饭店。', '很好"', '"note": "Open.', 'closed"']


def test_loose_boundaries_cut_after_every_script_end():
    cut = re.compile(LOOSE)
    assert [p for p in cut.split("第一句。第二句！「第三句？」第四句") if p] == ["第一句。", "第二句！", "「第三句？」", "第四句"]
    assert cut.split("एक। दो॥ तीन؟ چار۔ five. six") == ["एक।", "दो॥", "तीन؟", "چار۔", "five.", "six"]
    assert cut.split("The U.S. is big. it is") == ["The U.S.", "is big.", "it is"]  # loose: for cutting points only


@pytest.mark.parametrize("text", ["", "。。。", "！？", "\u3000", "」。", "．５", "a.\u3000b", "؟؟ ۔", "ก" * 3 + " " * 5,
                                  "\u200b。\u200d", "x" * 10 + "。" * 10_000])
def test_odd_texts_give_exact_spans(text):
    spans_ok(text, segment(text))
    spans_ok(text, segment(text, record=True))


def test_linear_in_the_number_of_ends():
    import time

    for unit in ("字。", "Dr. ", "है। ", "ok.\n"):
        t0 = time.perf_counter()
        segment(unit * 20_000)
        assert time.perf_counter() - t0 < 2.0, unit


def test_count_ends_for_estimates():
    # English counts as the dry run counted before ("[.!?] then a space or the end"), and each script's ends too
    assert S.count_ends("Dr. Smith left. He came back!") == 3
    assert S.count_ends("北京很大。上海也很大！？真的") == 2
    assert S.count_ends("एक है। दो है॥ ثلاثة؟ چار۔") == 4
    assert S.count_ends("no end") == 0


def test_a_thai_segmenter_that_loses_characters_is_not_trusted(monkeypatch):
    monkeypatch.setattr(S, "_crfcut", lambda: lambda text: [text.replace(" ", "")])
    assert [THAI[s:e] for s, e in segment(THAI)] == [THAI[s:e] for s, e in segment(THAI, thai="space")]
