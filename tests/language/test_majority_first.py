"""The run's majority language is counted on its first :data:`~genevals.language.majority.COUNTED` samples (the
planning pass is one process; the workers detect the rest): a run longer than that still scores its later unsure
samples in the majority language, and their notes say the count is of the first samples only."""
from __future__ import annotations

import pytest

import genevals
from genevals.language import majority

SURE = "The committee published its annual report on the state of the river basin last week."
#: detected with too little confidence to be sure (a short name): takes the majority
UNSURE = "Saint Bernadette Soubirous"


@pytest.mark.parametrize("counted", [10, 1000])
def test_unsure_samples_past_the_counted_ones_take_the_majority(monkeypatch, counted) -> None:
    monkeypatch.setattr(majority, "COUNTED", counted)
    rows = [{"answer": SURE, "reference": SURE} for _ in range(12)]
    rows += [{"answer": UNSURE, "reference": UNSURE} for _ in range(8)]
    results = genevals.evaluate(rows, ["token_f1"], workers=1)
    details = [r.metrics["token_f1"].details for r in results.samples]
    unsure = details[12:]
    assert all(d["language_source"] == "fallback" for d in unsure), unsure[0]
    assert all(d["language"] == "en" and d.get("language_fallback") == "majority" for d in unsure), unsure[0]
    among = f"among its first {counted:,}"
    if counted < len(rows):
        assert all(among in d["language_note"] for d in unsure), unsure[0]["language_note"]
        assert all("10 of its 10 sure" in d["language_note"] for d in unsure), unsure[0]["language_note"]
    else:
        assert not any("among its first" in d["language_note"] for d in unsure)
        assert all("12 of its 12 sure" in d["language_note"] for d in unsure), unsure[0]["language_note"]
