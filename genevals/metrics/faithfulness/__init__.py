"""Faithfulness: the LLM judge (faithfulness: decompose, verify, score), the local grounding checker's metric
(grounding), the cascade of the two, and the outputs all three write from claims and verdicts (verdicts)."""
