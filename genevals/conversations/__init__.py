"""Conversations: a RAG chat assistant scored turn by turn.

    history.py  earlier turns within a token budget (oldest dropped first), the ``history_tokens`` setting
    model.py    messages -> one row per assistant turn (question, answer, history, turn), located errors
    native.py   the ``turns`` form, DeepEval's conversational test cases included
    ragas.py    ragas' multi-turn samples (``user_input`` as a list of messages)
    flat.py     flat rows tied by ``conversation_id`` and ordered by ``turn``
    ledger.py   a run's conversations counted once (turns to score, the last turn), for the engine and the metrics

This package knows no file format and imports no reader: :mod:`genevals.input.conversation_rows` applies it to
the rows the readers yield, and the turns are then checked as every row is.
"""
