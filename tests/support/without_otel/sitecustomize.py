"""Put this folder first on PYTHONPATH and the otel extra's packages (the OpenTelemetry SDK, exporter and proto
messages) look uninstalled in that process, as on ``pip install genevals`` without ``[otel]``. A fake for the one
fault nothing real in this environment produces (the packages are installed here); the finder is
tests/support/hiding.py's."""
import importlib.util
from pathlib import Path

# tests/support/hiding.py, loaded by its path: putting tests/support on sys.path would shadow modules by name
_spec = importlib.util.spec_from_file_location("_genevals_hiding", Path(__file__).resolve().parents[1] / "hiding.py")
_hiding = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_hiding)

_hiding.hide({"opentelemetry"})
