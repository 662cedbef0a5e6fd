"""genevals: scores for RAG answers, and where they make things up."""
__version__ = "0.1.0"

from genevals.engine.local import evaluate  # noqa: E402
from genevals.io import InputError  # noqa: E402
from genevals.judge.config import JudgeConfig  # noqa: E402
from genevals.registry import register  # noqa: E402
from genevals.results import Results  # noqa: E402
from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, Verdict  # noqa: E402

__all__ = ["evaluate", "Results", "Sample", "Context", "MetricResult", "SampleResult", "Claim", "Verdict",
           "InputError", "JudgeConfig", "register", "__version__"]
