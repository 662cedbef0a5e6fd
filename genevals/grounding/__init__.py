"""Local grounding checker (no LLM): MiniLM alignment, word overlap and number/name/record-field rules.

See :mod:`genevals.grounding.checker`; the metric is :class:`genevals.metrics.grounding.Grounding`.
"""
