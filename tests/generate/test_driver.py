"""The driver's loop in process: a generator's failure is that attempt's named rejection and its type is asked
again, exactly N kept; --dry-run's estimate sums the generator's own token estimates and calls nothing."""
import json
from dataclasses import replace

from genevals.generate.checks import Gatekeeper
from genevals.generate.driver import GenerateConfig, estimate, generate_set
from genevals.generate.items import Chunk, Document
from genevals.generate.mixfile import MixFile
from genevals.generate.offline import OfflineGenerator

DOCS = [Document(f"d{i}", f"Pump P{i} lifts water from the well number {i} to the tank on the hill.", "x")
        for i in range(5)]
CHUNKS = [Chunk(f"d{i}#0", f"d{i}", 0, d.text, 0, len(d.text)) for i, d in enumerate(DOCS)]
MIX = MixFile({"known_item": 1.0})


class Flaky(OfflineGenerator):
    """The offline generator, failing on attempts 1 and 2 (a server error nothing on 127.0.0.1 makes on cue)."""

    name = "flaky"

    def __init__(self, chunks):
        super().__init__(chunks)
        self.asked = []

    def generate(self, slot, chunks, language):
        self.asked.append((slot.index, language))
        if slot.index in (1, 2):
            raise ConnectionError("503 from the server")
        return super().generate(slot, chunks, language)

    def estimate(self, slot, chunks):
        return 100 + slot.index, 20


def test_a_failing_attempt_is_rejected_and_its_type_asked_again(tmp_path):
    generator = Flaky(CHUNKS)
    config = GenerateConfig(tmp_path / "out", 3, seed=1, embeddings=False)
    outcome = generate_set(config, MIX, DOCS, CHUNKS, generator, Gatekeeper({c.id: c for c in CHUNKS}), {})
    assert [i.id for i in outcome.kept] == ["g00000", "g00003", "g00004"] and outcome.complete
    assert [(i.id, i.rejection) for i in outcome.rejected] == [("g00001", "generation_failed"),
                                                               ("g00002", "generation_failed")]
    assert outcome.rejected[0].provenance["error"] == "ConnectionError: 503 from the server"
    assert {lang for _, lang in generator.asked} == {"en"}  # the documents' language, detected, when none asked
    assert outcome.card["rejections"] == {"generation_failed": 2} and outcome.card["attempts"] == 5
    journal = (tmp_path / "out" / ".journal.jsonl").read_text().splitlines()
    assert len(journal) == 6 and json.loads(journal[2])["item"]["gates"] == {"generation_failed": "generation_failed"}
    # the asked language goes to the generator as asked
    asked = Flaky(CHUNKS)
    generate_set(replace(config, out=tmp_path / "fr", language="fr"), MIX, DOCS, CHUNKS, asked,
                 Gatekeeper({c.id: c for c in CHUNKS}, language="fr"), {})
    assert {lang for _, lang in asked.asked} == {"fr"}


def test_the_estimate_sums_the_generators_estimates_for_the_first_n_slots(tmp_path):
    got = estimate(GenerateConfig(tmp_path / "x", 4, seed=1), MIX, CHUNKS, Flaky(CHUNKS))
    # slots 0..3: prompt 100 + index each, 20 completion tokens each
    assert got == {"items": 4, "calls": 4, "prompt_tokens": 406, "completion_tokens": 80}
    assert not (tmp_path / "x").exists()
    assert estimate(GenerateConfig(tmp_path / "x", 4), MIX, CHUNKS, OfflineGenerator(CHUNKS))["calls"] == 0
