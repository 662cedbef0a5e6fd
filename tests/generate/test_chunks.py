"""Chunks of whole sentences under a token budget, ids doc#n, the low-information rule."""
from genevals.generate.chunks import ChunkSettings, chunk_document, kept_chunks, low_information
from genevals.generate.items import Document

TEXT = ("The pump moves water up the hill. It runs on solar power all day. "
        "At night a battery keeps it going for six hours. Maintenance is yearly.")


def test_sentences_are_packed_under_the_budget_and_never_cut():
    doc = Document("d", TEXT, "d.txt")
    # sentence word counts 7, 8, 10, 3: a budget of 16 packs 7+8, then 10+3
    chunks = chunk_document(doc, ChunkSettings(16))
    assert [c.id for c in chunks] == ["d#0", "d#1"]
    assert chunks[0].text == "The pump moves water up the hill. It runs on solar power all day."
    assert chunks[1].text == "At night a battery keeps it going for six hours. Maintenance is yearly."
    assert all(doc.text[c.start:c.end] == c.text for c in chunks)
    # a sentence over the budget is a chunk of its own, whole
    assert [c.text for c in chunk_document(doc, ChunkSettings(5))][:2] == [
        "The pump moves water up the hill.", "It runs on solar power all day."]


def test_every_script_is_chunked_with_offsets_into_the_document():
    text = "水泵把水送上山。它整天靠太阳能运行。\nالمضخة تنقل الماء. تعمل بالطاقة الشمسية؟ นี่คือปั๊มน้ำ มันทำงานทั้งวัน"
    doc = Document("m", text, "m.txt")
    chunks = chunk_document(doc, ChunkSettings(6))
    assert len(chunks) >= 3 and all(doc.text[c.start:c.end] == c.text for c in chunks)


def test_the_drop_rule():
    assert low_information("Too short to ask about.") == "fewer than 8 words (5)"
    assert low_information("la la la la la la la la la") == "fewer than 5 distinct words (1)"
    assert low_information("Table 3 12 14 15 16 17 18 19 20 21") == \
        "under 50% of its words have a letter (1 of 11)"
    assert low_information(TEXT) is None
    doc = Document("d", "Page 1 of 2.\n" + TEXT, "d.txt")
    kept, dropped = kept_chunks(chunk_document(doc, ChunkSettings(8)))
    # budget 8: "Page 1 of 2." (4 words), then each sentence alone (7, 7, 10, 3 words)
    assert [(c.id, why) for c, why in dropped] == [("d#0", "fewer than 8 words (4)"), ("d#1", "fewer than 8 words (7)"),
                                                   ("d#2", "fewer than 8 words (7)"), ("d#4", "fewer than 8 words (3)")]
    assert [c.id for c in kept] == ["d#3"]  # ids are counted before the drop
