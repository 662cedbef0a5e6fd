"""``genevals validate``: measure a hallucination judge against human labels.

    labels.py  read and check labelled rows; their labels and spans
    spans.py   character-span overlap
    core.py    score the rows with a judge, response- and span-level agreement, outputs
    page.py    validation.html, the worst disagreements side by side
    gate.py    the agreement gate: a run's judge against a labels export (``run --require-agreement``)
    begin.py         BEGIN's dialogue attribution labels (TSV) read as one-exchange conversations
    begin_card.py    AUC, balanced accuracy, kappa by cluster bootstrap, the word-overlap and majority baselines
    begin_report.py  the BEGIN validation: score, compare, validation.json, the printed card
"""
from genevals.validation.core import Rule, build_metric, validate, write_outputs
from genevals.validation.labels import LabelledInputError, load_labelled

__all__ = ["Rule", "build_metric", "validate", "write_outputs", "LabelledInputError", "load_labelled"]
