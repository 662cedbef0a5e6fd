"""The 1-5 rubric judge (LLM)."""
