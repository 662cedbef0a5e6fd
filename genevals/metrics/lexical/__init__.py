"""Lexical overlap with the references: exact match and token F1 (squad), ROUGE, BLEU (with its 13a tokenizer)."""
