"""Metric.language_of / Metric.unsupported: an English-only metric refuses a text known to be in another language,
and reads an unsure Latin-script detection as English (saying so) instead of refusing an English answer that the
detector guessed wrong."""
from genevals import types
from genevals.language import LanguageSetting
from genevals.metrics.base import Metric
from genevals.types import Context, Sample


class EnglishOnly(Metric):
    family = "english_only_probe"
    languages = frozenset({"en"})

    def signature(self) -> str:
        return "probe"

    def score(self, samples):
        return []


def _sample(answer: str, context: str = "") -> Sample:
    return Sample(id="s", answer=answer, contexts=(Context(context, 1),) if context else ())


def test_an_unsure_latin_text_guessed_as_another_language_is_read_as_english() -> None:
    """The sample keeps the one language decided for it (every metric records the same); an English-only
    metric reads it as English, and its details say so (``read_as``)."""
    metric = EnglishOnly()
    sample = _sample("The embargo ha")
    lang = metric.language_of(sample)
    assert lang.code == "es" and lang.source == "fallback"
    assert metric.language_details(sample) == {**lang.details(), "read_as": "en"}
    assert metric.unsupported(sample) is None


def test_a_text_known_to_be_german_is_refused_with_its_language() -> None:
    metric = EnglishOnly()
    sample = _sample("Die Hauptstadt von Deutschland ist Berlin, und dort leben ungefähr dreieinhalb Millionen "
                     "Menschen in zwölf Bezirken.")
    result = metric.unsupported(sample)
    assert result is not None and result.status == types.UNSUPPORTED_LANGUAGE and result.value is None
    assert "German (de) (detected)" in result.reason and result.details["language"] == "de"


def test_chinese_is_refused_however_short() -> None:
    result = EnglishOnly().unsupported(_sample("北京"))
    assert result is not None and result.details["language"] == "zh"


def test_the_runs_fallback_is_kept_for_unsure_texts() -> None:
    metric = EnglishOnly()
    metric.language = LanguageSetting.parse("auto:de")
    result = metric.unsupported(_sample("Marie Curie"))
    assert result is not None and result.details["language"] == "de"


def test_a_short_answer_is_detected_with_its_context() -> None:
    metric = EnglishOnly()
    context = ("Le château se trouve au bord de la Loire et fut construit au seizième siècle par le roi, "
               "qui y passait ses étés avec toute sa cour.")
    lang = metric.language_of(_sample("Le roi François", context))
    assert lang.code == "fr" and lang.sure
