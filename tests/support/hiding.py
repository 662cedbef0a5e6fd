"""Make installed packages look uninstalled in this process, as on an install without their extra: each finder
of ``sys.meta_path`` is wrapped so that a hidden top-level package (or any module in it) is not found;
``importlib.util.find_spec`` returns None and importing one raises ModuleNotFoundError. Used by the
``without_*/sitecustomize.py`` folders (put one first on PYTHONPATH): a fake for the one fault nothing real in
this environment produces (the packages are installed here); tests/test_install.py checks a real core venv."""
import sys


class _Hiding:
    def __init__(self, finder, hidden):
        self._finder, self._hidden = finder, hidden

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in self._hidden:
            return None
        find = getattr(self._finder, "find_spec", None)
        return find(name, path, target) if find is not None else None

    def __getattr__(self, attr):  # invalidate_caches, find_distributions, ...
        return getattr(self._finder, attr)


def hide(names) -> None:
    """Hide the top-level packages ``names`` from every import in this process."""
    hidden = frozenset(names)
    sys.meta_path[:] = [_Hiding(finder, hidden) for finder in sys.meta_path]
