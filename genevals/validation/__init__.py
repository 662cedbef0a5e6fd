"""``genevals validate``: measure a hallucination judge against human labels.

    labels.py  read and check labelled rows; their labels and spans
    spans.py   character-span overlap
    core.py    score the rows with a judge, response- and span-level agreement, outputs
    page.py    validation.html, the worst disagreements side by side
    gate.py    the agreement gate: a run's judge against a labels export (``run --require-agreement``)
"""
from genevals.validation.core import Rule, build_metric, validate, write_outputs
from genevals.validation.labels import LabelledInputError, load_labelled

__all__ = ["Rule", "build_metric", "validate", "write_outputs", "LabelledInputError", "load_labelled"]
