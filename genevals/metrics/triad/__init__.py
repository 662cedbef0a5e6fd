"""The RAG judges: answer relevance, context relevance, context recall and answer correctness, by an LLM (one
call each, on judged) or offline (local_relevance, on triad_features and the shipped calibration), their shared
outputs and arithmetic (rag_formulas), and the pairwise comparison of two systems (pairwise, pairwise_local,
preference)."""
