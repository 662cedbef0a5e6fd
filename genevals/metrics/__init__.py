"""Metric families, one sub-package each, on the shared plumbing beside this file (see genevals.registry).

base (Metric, Output, @register, validation cards) and settings (option checks) are shared by every family;
judging/ is the plumbing of the LLM-judge families (JudgeMetric, prompts, reply parsing). A family imports those
and never another family, save the offline triad, which reads the lexical token F1 (pyproject.toml's contracts)."""
