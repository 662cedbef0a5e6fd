"""`genevals generate`: a test set from a team's documents, every item checked by gates, with a measured card.

    items.py     Document, Chunk, Evidence, Item: what the room's parts pass one another
    slots.py     Slot: one item asked for (type, chunks, persona, style, length, seed)
"""
from __future__ import annotations
