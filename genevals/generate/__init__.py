"""`genevals generate`: a test set from a team's documents, every item checked by gates, with a measured card.

    items.py     Document, Chunk, Evidence, Item: what the room's parts pass one another
"""
from __future__ import annotations
