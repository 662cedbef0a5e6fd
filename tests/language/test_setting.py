"""The run's language setting as parsed (``LanguageSetting.parse``) and the codes it reads (``codes.check``):
what is accepted and what it becomes, and that every refusal is a ValueError naming the option or field.

Expected codes are ISO 639-1's (ISO 639-1:2002) and BCP 47's reading of a tag's first subtag (RFC 5646, 2.2.1);
the withdrawn codes are those ISO 639-1 replaced in 1989 (iw, in, ji) and later (jw 2001, mo 2008).
"""
from __future__ import annotations

import pytest

from genevals.language import LanguageSetting
from genevals.language.codes import ISO_639_1, WITHDRAWN, check


@pytest.mark.parametrize("value, fixed, fallback, shown", [
    (None, None, None, "auto"),
    ("auto", None, None, "auto"),
    ("  AUTO\t", None, None, "auto"),
    ("ａｕｔｏ", None, None, "auto"),  # full-width, as a CJK input method types it
    ("auto:de", None, "de", "auto:de"),
    ("Auto: zh-Hant", None, "zh", "auto:zh"),
    ("zh", "zh", None, "zh"),
    ("zh-Hant", "zh", None, "zh"),
    ("zh_Hant_TW", "zh", None, "zh"),
    ("PT_br", "pt", None, "pt"),
    ("pt-BR", "pt", None, "pt"),
    ("ｚｈ", "zh", None, "zh"),
    ("iw", "he", None, "he"),
    ("in", "id", None, "id"),
    ("sr-Latn-RS", "sr", None, "sr"),
])
def test_accepted(value, fixed, fallback, shown):
    setting = LanguageSetting.parse(value)
    assert (setting.fixed, setting.fallback, str(setting)) == (fixed, fallback, shown)
    assert setting.signature() == f"lang:{shown}"
    assert LanguageSetting.parse(setting) is setting


@pytest.mark.parametrize("value, said", [
    ("xx", "'xx' is not an ISO 639-1 language code"),
    ("english", "(did you mean 'en'?)"),
    ("Chinese", "(did you mean 'zh'?)"),
    ("eng", "(did you mean 'en'?)"),  # ISO 639-2: difflib alone would offer 'ng' (Ndonga)
    ("zho", "(did you mean 'zh'?)"),
    ("cn", "(did you mean 'zh'?)"),  # a country code
    ("jp", "(did you mean 'ja'?)"),
    ("zh\u200b", "(did you mean 'zh'?)"),  # a zero-width space pasted along
    ("", "empty"),
    ("   ", "empty"),
    ("auto:", "'auto:' needs the language of unsure samples"),
    ("auto:auto", "'auto:' needs the language of unsure samples"),
    ("auto:xx", "'xx' is not an ISO 639-1 language code"),
    ("en,zh", "'en,zh' is not"),
    ("e" * 1000, "'" + "e" * 40 + "...' is not"),
    ("\u202ehz", "'\\u202ehz' is not"),  # shown escaped: a bidi override never reaches the terminal raw
    (5, "got int"),
    (True, "got bool"),
    (["en"], "got list"),
    (b"en", "got bytes"),
])
def test_refused_naming_the_option(value, said):
    with pytest.raises(ValueError) as caught:
        LanguageSetting.parse(value)
    message = str(caught.value)
    assert message.startswith("--language: ") and said in message, message
    assert len(message) < 300
    with pytest.raises(ValueError, match=r"^language: "):
        LanguageSetting.parse(value, "language")


def test_a_did_you_mean_is_a_real_code():
    for wrong in ("eng", "english", "chinese", "cn", "jp", "gr", "farsi", "ger", "kor"):
        with pytest.raises(ValueError) as caught:
            check(wrong)
        meant = str(caught.value).split("did you mean '")[1][:2]
        assert meant in ISO_639_1


def test_every_code_is_itself_and_withdrawn_codes_are_current_ones():
    assert all(check(code) == code and check(code.upper()) == code for code in ISO_639_1)
    assert {old: check(old) for old in WITHDRAWN} == {"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}
    assert not set(WITHDRAWN) & ISO_639_1


def test_check_names_its_field():
    with pytest.raises(ValueError, match=r"^language: 'zz' is not"):
        check("zz")
    with pytest.raises(ValueError, match=r"^rows\[3\]\.language: expected an ISO 639-1 code"):
        check(None, "rows[3].language")
