"""Put this folder first on PYTHONPATH and the generate extra's packages (beautifulsoup4, markdown-it-py, bm25s)
look uninstalled in that process, as on a core install. A fake for the one fault nothing real here produces (the
packages are installed here), as tests/support/without_semantic does for the semantic extra."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("_genevals_hiding", Path(__file__).resolve().parents[1] / "hiding.py")
_hiding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hiding)

_hiding.hide({"bs4", "markdown_it", "bm25s"})
