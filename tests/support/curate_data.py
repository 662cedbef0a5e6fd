"""The curate tests' input: four questions, two systems, answers chosen so every figure can be worked by hand.

token_f1 (SQuAD normalisation: lower case, punctuation and a/an/the dropped) against the first reference:
q1 A/B 0.75 (5 words, 3 shared with "about 55 minutes"), q2 A 0.5 (6 vs 2, 2 shared), q2 B 0.25 ("crown" is not
"crowns": 1 shared), q3 A 0 and q4 B 0 (answers about nothing in their contexts), q3 B 8/11 (7 vs 4, 4
shared), q4 A 1.0. q1 B repeats q1 A but for its last character (an exact duplicate once normalised), q2 B
repeats q2 A but for one letter (a near duplicate).
"""
from __future__ import annotations

QUESTIONS = {
    "q1": ("How long is the ferry crossing?", "The crossing takes about 55 minutes.", "About 55 minutes."),
    "q2": ("What does an adult return ticket cost?", "An adult return ticket costs 18 crowns.", "18 crowns"),
    "q3": ("When does the library open?", "The library opens at 9 am on weekdays.", "9 am on weekdays"),
    "q4": ("Who runs the museum?", "The museum is run by the island trust.", "The island trust"),
}
ANSWERS = {
    ("A", "q1"): "The crossing takes about 55 minutes.",
    ("B", "q1"): "The crossing takes about 55 minutes!",
    ("A", "q2"): "An adult return ticket costs 18 crowns.",
    ("B", "q2"): "An adult return ticket costs 18 crown.",
    ("A", "q3"): "The library is run by 400 volunteer dragons from Mars.",
    ("B", "q3"): "The library opens at 9 am on weekdays.",
    ("A", "q4"): "The island trust.",
    ("B", "q4"): "A purple submarine captain named Zed has run it since 1802.",
}
TOKEN_F1 = {("A", "q1"): 0.75, ("B", "q1"): 0.75, ("A", "q2"): 0.5, ("B", "q2"): 0.25, ("A", "q3"): 0.0,
            ("B", "q3"): 8 / 11, ("A", "q4"): 1.0, ("B", "q4"): 0.0}
TRACES = {("A", "q1"): ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")}


def rows() -> list[dict]:
    out = []
    for (system, qid), answer in ANSWERS.items():
        question, context, reference = QUESTIONS[qid]
        out.append({"id": qid, "system": system, "question": question, "answer": answer,
                    "contexts": [{"id": f"{qid}#1", "text": context}], "references": [reference]})
    return out
