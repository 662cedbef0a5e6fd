"""genevals: scores for RAG answers, and where they make things up."""
from genevals._version import __version__
from genevals.api import GenevalsWarning, evaluate
from genevals.io import InputError
from genevals.judge.config import JudgeConfig
from genevals.registry import register
from genevals.results import Results
from genevals.types import Claim, Context, MetricResult, Sample, SampleResult, Verdict

__all__ = ["evaluate", "Results", "Sample", "Context", "MetricResult", "SampleResult", "Claim", "Verdict",
           "InputError", "JudgeConfig", "register", "GenevalsWarning", "__version__"]
