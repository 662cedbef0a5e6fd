"""genevals: scores for RAG answers, and where they make things up."""
__version__ = "0.1.0"

from genevals.io import InputError  # noqa: E402
from genevals.results import Results  # noqa: E402
from genevals.runner import evaluate  # noqa: E402
from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, Verdict  # noqa: E402

__all__ = ["evaluate", "Results", "Sample", "Context", "MetricResult", "SampleResult", "Claim", "Verdict",
           "InputError", "__version__"]
