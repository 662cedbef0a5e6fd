"""Languages: codes, scripts, detection and the run's setting. Every language rule lives under this package."""
from genevals.language.codes import check, name
from genevals.language.detect import Language, detect
from genevals.language.setting import AUTO, LanguageSetting, language_of, resolve

__all__ = ["AUTO", "Language", "LanguageSetting", "check", "detect", "language_of", "name", "resolve"]
