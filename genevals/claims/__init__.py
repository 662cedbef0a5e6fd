"""Claim text helpers, no LLM: where a claim's excerpt or a verdict's quote stands in its text (``locate``), and
the windows of context a claim is checked against (``windows``). The LLM judge metrics and the local grounding
checker may both use them; they import neither."""
