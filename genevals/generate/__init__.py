"""`genevals generate`: a test set from a team's documents, every item checked by gates, with a measured card.

    items.py     Document, Chunk, Evidence, Item: what the room's parts pass one another
    slots.py     Slot: one item asked for (type, chunks, persona, style, length, seed)
    documents.py DOCS read: a folder of .txt/.md/.html, JSONL/TSV {id, text}, pre-chunked rows
    chunks.py    sentences packed under a token budget, ids doc#n, the low-information rule
    sampling.py  coverage-first seed chunks, multi-hop partners by shared rare terms
    mixfile.py   --types mix.toml read into a frozen MixFile (and the apportionment of its type targets)
    mix.py       the default mixes and the slots drawn from a mix
    offline.py   the offline generator: known-item queries and extractive items
    llm.py       LLMGenerator: one structured judge call per item (prompts/generate_item.md)
    llm_prompt.py the generation prompt rendered, chunks quoted as data, the reply schema per type
    llm_reply.py a reply read into an item's fields, or refused with the reason (generation_failed)
    gates/       each gate a module; pipeline.py runs them in order, cheap rules before judge calls
    checks.py    the gates bound to one run (its chunks, judge, language, earlier sets)
    outputs.py   testset.jsonl, rejected.jsonl, qrels.txt, card.json and the journal
                 (report.html, the card's page, is genevals.report.testset's)
    card.py      the card's measured figures
    cost.py      the card's cost per kept item, from the generator's usage
    meanings.py  what each rejection and flag means, one line each (the card carries them)
    driver.py    the loop: slots -> generator -> gates -> kept or rejected, journaled
"""
from __future__ import annotations
