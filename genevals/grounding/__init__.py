"""Local hallucination detection (no LLM): MiniLM alignment and word overlap (:mod:`.checker`), claim tokens bound
to the aligned evidence (:mod:`.phrases`), and the learned detector over them (:mod:`.detector`, the default), or
the hand-set number/name/record-field rules (``method: rules``).

See :mod:`genevals.grounding.checker`; the metric is :class:`genevals.metrics.faithfulness.grounding.Grounding`.
"""
